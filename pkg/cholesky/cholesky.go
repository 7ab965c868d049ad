// Package cholesky submits the tiled Cholesky factorisation A = L L^T of a
// symmetric positive-definite tiled matrix as a graph of tile tasks.
//
// The algorithm is the right-looking tiled Cholesky written as a sequential
// loop of task insertions (Chameleon's pdpotrf); for k = 0 .. NT-1:
//
//	potrf:  A(k,k) = L(k,k) L(k,k)^T
//	trtri:  W(k) = L(k,k)^-1
//	trmm:   A(m,k) = A(m,k) L(k,k)^-T = A(m,k) W(k)^T     for m > k
//	syrk:   A(n,n) = A(n,n) - A(n,k) A(n,k)^T             for n > k
//	gemm:   A(m,n) = A(m,n) - A(m,k) A(n,k)^T             for m > n > k
//
// with the priorities of Equations (3)-(6) of the multi-phase ExaGeoStat
// paper, where NT is the number of tile rows:
//
//	potrf 3(NT-k), trmm 3(NT-k)-(m-k), syrk 3(NT-k)-2(n-k),
//	gemm 3(NT-k)-(n-k)-(m-k).
//
// Each tile's updates are ordered by the submission order, so the factor is
// bitwise the same for any number of workers.
package cholesky

import (
	"errors"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// NotPosDefError reports a matrix that is not positive definite (see
// insert.NotPosDefError).
type NotPosDefError = insert.NotPosDefError

// IsNotPosDef reports whether err means a matrix that is not positive
// definite, raised on this rank (*NotPosDefError) or on another one.
func IsNotPosDef(err error) bool {
	var npd *NotPosDefError
	return errors.As(err, &npd) || runtime.ClassOf(err) == "notposdef"
}

// Priorities of Equations (3)-(6); nt is the number of tile rows.
func potrfPriority(nt, k int) int      { return 3 * (nt - k) }
func trsmPriority(nt, k, m int) int    { return 3*(nt-k) - (m - k) }
func syrkPriority(nt, k, n int) int    { return 3*(nt-k) - 2*(n-k) }
func gemmPriority(nt, k, m, n int) int { return 3*(nt-k) - (n - k) - (m - k) }

// Flops returns the floating-point operation count of the Cholesky
// factorisation of an n x n matrix, n^3/3 + n^2/2 + n/6.
func Flops(n int) float64 { return insert.PotrfFlops(float64(n)) }

// Submit inserts the tasks of the tiled Cholesky of a into its runtime,
// using the tile kernels k, and returns at once; the factor L overwrites the
// lower tiles of a once the runtime's Wait returns nil. A
// non-positive-definite matrix makes Wait return an error wrapping
// *NotPosDefError.
//
// Each panel tile is flushed after its last read by the factorisation
// (Chameleon's pzpotrf): A(n,k) once column n of step k's update is
// submitted, so a rank keeps a replica only while the updates that read it
// run; the inverted diagonal block is invalidated after its last use.
func Submit(a *tile.Sym, k kernels.Impl) {
	ts := insert.New(a.Runtime(), k)
	for kk := 0; kk < a.NT; kk++ {
		submitPanel(ts, a, kk)
		submitUpdate(ts, a, kk)
	}
}

// submitPanel inserts step kk's potrf and panel tasks. The panel update
// A(m,k) <- A(m,k) L(k,k)^-T is a triangular multiply by the inverse of the
// diagonal block, computed once per step (trtri) into a workspace: OpenBLAS'
// dtrmm runs about twice as fast as its dtrsm on tiles, and the inverse of a
// Cholesky block is as well conditioned as the block's square root of the
// matrix's condition number allows.
func submitPanel(ts insert.Tasks, a *tile.Sym, kk int) {
	nt := a.NT
	rt := ts.RT
	ts.Potrf(insert.At(kk, kk, kk, potrfPriority(nt, kk)), a.Handle(kk, kk), a.Offset(kk))
	if kk+1 == nt {
		return
	}
	w := a.DiagWork(kk)
	ts.Trtri(insert.At(kk, kk, kk, potrfPriority(nt, kk)), a.Handle(kk, kk), w, a.Offset(kk))
	rt.Flush(a.Handle(kk, kk))
	for m := kk + 1; m < nt; m++ {
		ts.Trmm(insert.At(m, kk, kk, trsmPriority(nt, kk, m)), blas.Right, blas.Trans, w, a.Handle(m, kk))
	}
	rt.Invalidate(w)
}

// submitUpdate inserts step kk's trailing-matrix syrk and gemm tasks.
func submitUpdate(ts insert.Tasks, a *tile.Sym, kk int) {
	nt := a.NT
	for n := kk + 1; n < nt; n++ {
		ts.Syrk(insert.At(n, n, kk, syrkPriority(nt, kk, n)), a.Handle(n, kk), a.Handle(n, n))
		for m := n + 1; m < nt; m++ {
			ts.Gemm(insert.At(m, n, kk, gemmPriority(nt, kk, m, n)), blas.NoTrans, blas.Trans,
				-1, a.Handle(m, kk), a.Handle(n, kk), 1, a.Handle(m, n))
		}
		// A(n,kk) was read as A(m,kk) by the columns before and as A(n,kk)
		// by this one: the step reads it no more.
		ts.RT.Flush(a.Handle(n, kk))
	}
}

// Factor submits the Cholesky of a and waits for it.
func Factor(a *tile.Sym, k kernels.Impl) error {
	Submit(a, k)
	return a.Runtime().Wait()
}
