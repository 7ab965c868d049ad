// Package cholesky submits the tiled Cholesky factorisation A = L L^T of a
// symmetric positive-definite tiled matrix as a graph of tile tasks.
//
// The algorithm is the right-looking tiled Cholesky written as a sequential
// loop of task insertions (Chameleon's pdpotrf); for k = 0 .. NT-1:
//
//	potrf:  A(k,k) = L(k,k) L(k,k)^T
//	trtri:  W(k) = L(k,k)^-1
//	trsm:   A(m,k) = A(m,k) L(k,k)^-T = A(m,k) W(k)^T     for m > k (a dtrmm)
//	syrk:   A(n,n) = A(n,n) - A(n,k) A(n,k)^T             for n > k
//	gemm:   A(m,n) = A(m,n) - A(m,k) A(n,k)^T             for m > n > k
//
// with the priorities of Equations (3)-(6) of the multi-phase ExaGeoStat
// paper, where NT is the number of tile rows:
//
//	potrf 3(NT-k), trsm 3(NT-k)-(m-k), syrk 3(NT-k)-2(n-k),
//	gemm 3(NT-k)-(n-k)-(m-k).
//
// Each tile's updates are ordered by the submission order, so the factor is
// bitwise the same for any number of workers.
package cholesky

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// NotPosDefError reports a matrix that is not positive definite: the
// Cholesky of diagonal tile (Tile, Tile) failed because the leading minor of
// order Column+1 of the whole matrix is not positive (Column is the global,
// zero-based index of the failing pivot).
type NotPosDefError struct {
	Tile   int
	Column int
}

func (e *NotPosDefError) Error() string {
	return fmt.Sprintf("matrix is not positive definite: potrf failed on tile (%d,%d) at global column %d",
		e.Tile, e.Tile, e.Column)
}

// ErrorClass names the error for the other ranks of a distributed run
// (runtime.Classed).
func (e *NotPosDefError) ErrorClass() string { return "notposdef" }

// IsNotPosDef reports whether err means a matrix that is not positive
// definite, raised on this rank (*NotPosDefError) or on another one.
func IsNotPosDef(err error) bool {
	var npd *NotPosDefError
	return errors.As(err, &npd) || runtime.ClassOf(err) == "notposdef"
}

// Priorities of Equations (3)-(6); nt is the number of tile rows.
func potrfPriority(nt, k int) int       { return 3 * (nt - k) }
func trsmPriority(nt, k, m int) int     { return 3*(nt-k) - (m - k) }
func syrkPriority(nt, k, n int) int     { return 3*(nt-k) - 2*(n-k) }
func gemmPriority(nt, k, m, n int) int  { return 3*(nt-k) - (n - k) - (m - k) }
func potrfFlops(n float64) float64      { return n*n*n/3 + n*n/2 + n/6 }
func trsmFlops(m, n float64) float64    { return m * n * n }
func syrkFlops(n, k float64) float64    { return k * n * (n + 1) }
func gemmFlops(m, n, k float64) float64 { return 2 * m * n * k }

// Flops returns the floating-point operation count of the Cholesky
// factorisation of an n x n matrix, n^3/3 + n^2/2 + n/6.
func Flops(n int) float64 { return potrfFlops(float64(n)) }

// Submit inserts the tasks of the tiled Cholesky of a into rt, using the tile
// kernels k, and returns at once; the factor L overwrites the lower tiles of
// a once rt.Wait returns nil. A non-positive-definite matrix makes Wait
// return an error wrapping *NotPosDefError.
func Submit(rt *runtime.Runtime, a *tile.Sym, k kernels.Impl) {
	nt := a.NT
	for kk := 0; kk < nt; kk++ {
		submitPanel(rt, a, k, kk)
		submitUpdate(rt, a, k, kk)
	}
}

// submitPanel inserts step kk's potrf and panel tasks. The panel update
// A(m,k) <- A(m,k) L(k,k)^-T is a triangular multiply by the inverse of the
// diagonal block, computed once per step (trtri) into a workspace: OpenBLAS'
// dtrmm runs about twice as fast as its dtrsm on tiles, and the inverse of a
// Cholesky block is as well conditioned as the block's square root of the
// matrix's condition number allows.
func submitPanel(rt *runtime.Runtime, a *tile.Sym, kern kernels.Impl, kk int) {
	nt := a.NT
	nbk := a.Rows(kk)
	akk := a.Tile(kk, kk)
	rt.Submit(runtime.Task{
		Kind: "potrf", Tile: [3]int{kk, kk, kk}, Priority: potrfPriority(nt, kk),
		Flops:  potrfFlops(float64(nbk)),
		Access: []runtime.Access{{H: a.Handle(kk, kk), Mode: runtime.RW}},
		Run: func(runtime.Context) error {
			if info := kern.Dpotrf(nbk, akk, nbk); info != 0 {
				return &NotPosDefError{Tile: kk, Column: a.Offset(kk) + info - 1}
			}
			return nil
		},
	})
	if kk+1 == nt {
		return
	}
	inv, invH := a.DiagWork(kk)
	rt.Submit(runtime.Task{
		Kind: "trtri", Tile: [3]int{kk, kk, kk}, Priority: potrfPriority(nt, kk),
		Flops:  float64(nbk) * float64(nbk) * float64(nbk) / 3,
		Access: []runtime.Access{{H: a.Handle(kk, kk), Mode: runtime.R}, {H: invH, Mode: runtime.W}},
		Run: func(runtime.Context) error {
			for j := 0; j < nbk; j++ {
				copy(inv[j*nbk+j:(j+1)*nbk], akk[j*nbk+j:(j+1)*nbk])
			}
			if info := kernels.LowerInverse(kern, nbk, inv, nbk); info != 0 {
				return &NotPosDefError{Tile: kk, Column: a.Offset(kk) + info - 1}
			}
			return nil
		},
	})
	for m := kk + 1; m < nt; m++ {
		amk, mb := a.Tile(m, kk), a.Rows(m)
		rt.Submit(runtime.Task{
			Kind: "trsm", Tile: [3]int{m, kk, kk}, Priority: trsmPriority(nt, kk, m),
			Flops: trsmFlops(float64(mb), float64(nbk)),
			Access: []runtime.Access{
				{H: invH, Mode: runtime.R},
				{H: a.Handle(m, kk), Mode: runtime.RW},
			},
			Run: func(runtime.Context) error {
				kern.Dtrmm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, mb, nbk, 1, inv, nbk, amk, mb)
				return nil
			},
		})
	}
}

// submitUpdate inserts step kk's trailing-matrix syrk and gemm tasks.
func submitUpdate(rt *runtime.Runtime, a *tile.Sym, kern kernels.Impl, kk int) {
	nt := a.NT
	nbk := a.Rows(kk)
	for n := kk + 1; n < nt; n++ {
		ank, nb := a.Tile(n, kk), a.Rows(n)
		ann := a.Tile(n, n)
		rt.Submit(runtime.Task{
			Kind: "syrk", Tile: [3]int{n, n, kk}, Priority: syrkPriority(nt, kk, n),
			Flops: syrkFlops(float64(nb), float64(nbk)),
			Access: []runtime.Access{
				{H: a.Handle(n, kk), Mode: runtime.R},
				{H: a.Handle(n, n), Mode: runtime.RW},
			},
			Run: func(runtime.Context) error {
				kern.Dsyrk(blas.Lower, blas.NoTrans, nb, nbk, -1, ank, nb, 1, ann, nb)
				return nil
			},
		})
		for m := n + 1; m < nt; m++ {
			amk, amn, mb := a.Tile(m, kk), a.Tile(m, n), a.Rows(m)
			rt.Submit(runtime.Task{
				Kind: "gemm", Tile: [3]int{m, n, kk}, Priority: gemmPriority(nt, kk, m, n),
				Flops: gemmFlops(float64(mb), float64(nb), float64(nbk)),
				Access: []runtime.Access{
					{H: a.Handle(m, kk), Mode: runtime.R},
					{H: a.Handle(n, kk), Mode: runtime.R},
					{H: a.Handle(m, n), Mode: runtime.RW},
				},
				Run: func(runtime.Context) error {
					kern.Dgemm(blas.NoTrans, blas.Trans, mb, nb, nbk, -1, amk, mb, ank, nb, 1, amn, mb)
					return nil
				},
			})
		}
	}
}

// Factor submits the Cholesky of a and waits for it.
func Factor(rt *runtime.Runtime, a *tile.Sym, k kernels.Impl) error {
	Submit(rt, a, k)
	return rt.Wait()
}
