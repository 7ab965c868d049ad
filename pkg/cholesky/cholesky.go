// Package cholesky submits the tiled Cholesky factorisation A = L L^T of a
// symmetric positive-definite tiled matrix as a graph of tile tasks, over
// tiles of any class (tile.Class): dense float64, low-rank U V^T, float32
// or dropped.
//
// The algorithm is the right-looking tiled Cholesky written as a sequential
// loop of task insertions (Chameleon's pdpotrf); for k = 0 .. NT-1:
//
//	potrf:  A(k,k) = L(k,k) L(k,k)^T
//	trtri:  W(k) = L(k,k)^-1                            (if a panel tile is dense)
//	panel:  A(m,k) = A(m,k) L(k,k)^-T                   for m > k
//	syrk:   A(n,n) = A(n,n) - A(n,k) A(n,k)^T           for n > k
//	gemm:   A(m,n) = A(m,n) - A(m,k) A(n,k)^T           for m > n > k
//
// with the priorities of Equations (3)-(6) of the multi-phase ExaGeoStat
// paper (package insert's policy). Each task's kernel follows the classes
// of its tiles: the panel of a dense tile is a multiplication by the
// inverted diagonal block (trmm by W(k): OpenBLAS' dtrmm runs about twice
// as fast as its dtrsm on tiles), of a low-rank tile a solve on its V
// factor (lr-trsm), of a float32 tile a strsm (s-trsm); a syrk reads its
// panel tile in its class (syrk, lr-syrk, s-syrk); an update with a
// low-rank tile recompresses (lr-gemm), one with a float32 tile converts
// at the band's edge (s-gemm), the others are dgemm. A dropped tile is
// zero: no task writes it, and the updates that would read it are not
// submitted. The diagonal tiles are dense.
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

// Flops returns the floating-point operation count of the Cholesky
// factorisation of an n x n matrix, n^3/3 + n^2/2 + n/6.
func Flops(n int) float64 { return insert.PotrfFlops(float64(n)) }

// Options are seed 002's optimisations of the factorisation. Neither
// changes the arithmetic on any tile: the factor is bitwise the same.
type Options struct {
	// Lookahead is the depth D of the lookahead (0: off): at step k, the
	// updates of the columns k+1 .. k+D (those the next D panels read)
	// are submitted first, then the panel of step k+1, then step k's
	// other updates, each waiting, by a control dependency (no data),
	// for the panel task of step k+1 on its tile row (the panel of tile
	// (m, k+1)): the next panel runs before the trailing update. Across
	// MPI ranks a control dependency is kept only between tasks of one
	// rank.
	Lookahead int
	// HPotrf is the sub-tile size of the hierarchical potrf (0: off):
	// each diagonal potrf runs as a nested graph of tasks on HPotrf x
	// HPotrf sub-tiles (HierPotrf), so that all workers help on the
	// critical path. A diagonal tile no larger than HPotrf is factored
	// by one potrf.
	HPotrf int
}

// Submit inserts the tasks of the tiled Cholesky of a into its runtime,
// using the tile kernels k, and returns at once; the factor L overwrites the
// lower tiles of a once the runtime's Wait returns nil. A
// non-positive-definite matrix makes Wait return an error wrapping
// *NotPosDefError. A matrix with low-rank tiles needs SubmitWith (the
// compressor of its tasks).
func Submit(a *tile.Sym, k kernels.Impl) {
	SubmitWith(insert.New(a.Runtime(), k), a, Options{})
}

// SubmitWith is Submit with the inserter ts (its kernels and, for
// low-rank tiles, its compressor) and the options o.
//
// Each panel tile is flushed after its last read by the factorisation
// (Chameleon's pzpotrf): A(n,k) once column n of step k's update is
// submitted, so a rank keeps a replica only while the updates that read it
// run; the diagonal tile after the panel, and the inverted diagonal block
// is invalidated after its last use.
func SubmitWith(ts insert.Tasks, a *tile.Sym, o Options) {
	nt := a.NT
	d := o.Lookahead
	if d <= 0 {
		for k := 0; k < nt; k++ {
			submitPanel(ts, a, k, o, false)
			submitUpdate(ts, a, k, k+1, nt, false)
		}
		return
	}
	submitPanel(ts, a, 0, o, true)
	for k := 0; k < nt; k++ {
		hi := min(k+d+1, nt)
		submitUpdate(ts, a, k, k+1, hi, false)
		if k+1 < nt {
			submitPanel(ts, a, k+1, o, true)
		}
		submitUpdate(ts, a, k, hi, nt, true)
	}
}

// submitPanel inserts step k's potrf (hierarchical with o.HPotrf) and
// panel tasks; with signal, each panel task signals its tile's ordering
// handle (the lookahead).
func submitPanel(ts insert.Tasks, a *tile.Sym, k int, o Options, signal bool) {
	nt := a.NT
	prio := insert.PotrfPriority(nt, k)
	if o.HPotrf > 0 && a.Rows(k) > o.HPotrf {
		HierPotrf(ts, insert.At(k, k, k, prio), a, k, o.HPotrf)
	} else {
		ts.Potrf(insert.At(k, k, k, prio), a.Handle(k, k), a.Offset(k))
	}
	var w *runtime.Handle
	for m := k + 1; m < nt && w == nil; m++ {
		if a.Class(m, k) == tile.Dense {
			w = a.DiagWork(k)
			ts.Trtri(insert.At(k, k, k, prio), a.Handle(k, k), w, a.Offset(k))
		}
	}
	for m := k + 1; m < nt; m++ {
		at := insert.At(m, k, k, insert.PanelPriority(nt, k, m))
		if signal {
			at = at.Signal(a.Signal(m, k))
		}
		switch h := a.Handle(m, k); a.Class(m, k) {
		case tile.Dense:
			ts.Trmm(at, blas.Right, blas.Trans, w, h)
		case tile.LowRank:
			ts.TrsmLR(at, a.Handle(k, k), h)
		case tile.Single:
			ts.STrsm(at, a.Handle(k, k), h)
		}
	}
	if k+1 < nt {
		ts.RT.Flush(a.Handle(k, k))
	}
	if w != nil {
		ts.RT.Invalidate(w)
	}
}

// submitUpdate inserts step k's updates of the columns n0 <= n < n1; with
// wait, each update of a tile (m, n) waits for the panel task of step k+1
// on row m when both run on one rank (the lookahead's control dependency).
func submitUpdate(ts insert.Tasks, a *tile.Sym, k, n0, n1 int, wait bool) {
	nt := a.NT
	rank := func(m, n int) int {
		if ts.RT.Size() == 1 {
			return 0
		}
		return a.Owner()(m, n)
	}
	after := func(at insert.Place, m, n int) insert.Place {
		if !wait || a.Class(m, k+1) == tile.Dropped || rank(m, k+1) != rank(m, n) {
			return at
		}
		return at.After(a.Signal(m, k+1))
	}
	for n := n0; n < n1; n++ {
		if a.Class(n, k) == tile.Dropped {
			continue
		}
		updateDiag(ts, after(insert.At(n, n, k, insert.SyrkPriority(nt, k, n)), n, n), a, k, n)
		for m := n + 1; m < nt; m++ {
			if a.Class(m, k) == tile.Dropped || a.Class(m, n) == tile.Dropped {
				continue
			}
			update(ts, after(insert.At(m, n, k, insert.GemmPriority(nt, k, m, n)), m, n), a, k, m, n)
		}
		// A(n,k) was read as A(m,k) by the columns before and as A(n,k)
		// by this one: the step reads it no more.
		ts.RT.Flush(a.Handle(n, k))
	}
}

// updateDiag inserts A(n,n) = A(n,n) - A(n,k) A(n,k)^T by the class of
// A(n,k).
func updateDiag(ts insert.Tasks, at insert.Place, a *tile.Sym, k, n int) {
	switch h := a.Handle(n, k); a.Class(n, k) {
	case tile.Dense:
		ts.Syrk(at, h, a.Handle(n, n))
	case tile.LowRank:
		ts.SyrkLR(at, h, a.Handle(n, n))
	case tile.Single:
		ts.SSyrk(at, h, a.Handle(n, n))
	}
}

// update inserts A(m,n) = A(m,n) - A(m,k) A(n,k)^T: lr-gemm when a tile
// is low-rank, else s-gemm when one is float32, else gemm.
func update(ts insert.Tasks, at insert.Place, a *tile.Sym, k, m, n int) {
	cm, cn, cmn := a.Class(m, k), a.Class(n, k), a.Class(m, n)
	am, an, amn := a.Handle(m, k), a.Handle(n, k), a.Handle(m, n)
	switch {
	case cm == tile.LowRank || cn == tile.LowRank || cmn == tile.LowRank:
		ts.GemmLR(at, am, an, amn)
	case cm == tile.Single || cn == tile.Single || cmn == tile.Single:
		ts.SGemm(at, am, an, amn)
	default:
		ts.Gemm(at, blas.NoTrans, blas.Trans, -1, am, an, 1, amn)
	}
}

// Factor submits the Cholesky of a and waits for it.
func Factor(a *tile.Sym, k kernels.Impl) error {
	Submit(a, k)
	return a.Runtime().Wait()
}
