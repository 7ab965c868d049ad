// Package solve submits the tile algorithms that follow a Cholesky
// factorisation A = L L^T, over a factor whose tiles are of any class
// (tile.Class: dense, low-rank, float32, dropped): the log-determinant
// from its diagonal tiles, the triangular solve z <- L^-1 z of one
// right-hand side in its local form (Algorithm 1 of the multi-phase
// ExaGeoStat paper), triangular solves and products with many right-hand
// sides (Trsm: op(L)^-1 B or B op(L)^-1; Trmm: op(L) B; Trmv: L e), and
// the reductions over tile rows that prediction needs (column products
// and sums of squares, the Gram matrix V^T V, dot products). They are
// the only loops over tile steps besides the factorisation (package
// cholesky): likelihood, prediction, the Fisher information, MLOE/MMOM,
// cross-validation, conditional draws and simulation compose them.
//
// Each product with a factor tile follows its class (insert.FactorGemv,
// insert.FactorMul: gemv/gemm, lr-gemv/lr-mul through the rank, s-gemv/
// s-mul widened); a dropped tile is zero and submits nothing. The
// diagonal tiles are dense. Priorities are package insert's policy,
// Equations (7)-(9): step s's diagonal tasks 2(NT - s), its update of the
// target at position i 2(NT - s) - i, in the solve's own order of steps.
//
// Local solve: instead of updating z(m) on the rank that owns z (which would
// move every tile L(m,k) there), the products L(m,k) z(k) are computed next
// to L(m,k), on its owner, and only short vectors travel to z(m)'s owner,
// where z(m) <- z(m) - G(m) before z(m) <- L(m,m)^-1 z(m). The Mode says how
// the products are summed into G:
//
//	Chained: one accumulator G(m) per tile row, updated in k order by the
//	         owner of each L(m,k) (it travels when the owner changes);
//	PerRank: Algorithm 1 as printed, one G(m, r) per rank r owning a tile of
//	         row m, then z(m) -= G(m, r) for each r;
//	MoveTiles: no accumulator, z(m) -= L(m,k) z(k) on z(m)'s owner (the
//	         tiles travel): the baseline Algorithm 1 improves on.
//
// Chained is the default: its additions happen in the same order whatever
// the distribution, so l is bitwise the same on any number of ranks, while
// PerRank's grouping by owner changes the last bits with the distribution.
package solve

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// Scalars is one float64 per tile row, each its own runtime handle, for
// per-tile partial results (log-determinant, dot product) that are summed in
// a fixed order afterwards, so the total does not depend on timing.
type Scalars struct {
	rt *runtime.Runtime
	h  []*runtime.Handle
}

// NewScalars registers n partial-result slots with rt, slot k owned by
// owner(k) (nil: rank 0).
func NewScalars(rt *runtime.Runtime, name string, n int, owner func(k int) int) *Scalars {
	s := &Scalars{rt: rt, h: make([]*runtime.Handle, n)}
	for k := range s.h {
		o := 0
		if owner != nil {
			o = owner(k)
		}
		s.h[k] = rt.Register(fmt.Sprintf("%s[%d]", name, k), o, runtime.Scalar{})
	}
	return s
}

// Handle returns the handle of slot k.
func (s *Scalars) Handle(k int) *runtime.Handle { return s.h[k] }

// Fetch makes every slot valid on every rank once the runtime's Wait
// returns, so that all ranks compute the same Sum.
func (s *Scalars) Fetch() {
	for _, h := range s.h {
		s.rt.Fetch(h)
	}
}

// Values returns the slots from this rank's copies (after Wait and Fetch);
// a slot this rank does not hold reads NaN.
func (s *Scalars) Values() []float64 {
	v := make([]float64, len(s.h))
	for k, h := range s.h {
		if b := s.rt.Local(h); b != nil {
			v[k] = b[0]
		} else {
			v[k] = math.NaN()
		}
	}
	return v
}

// Sum returns the sum of the slots in index order.
func (s *Scalars) Sum() float64 {
	var t float64
	for _, x := range s.Values() {
		t += x
	}
	return t
}

// Mode chooses how the local solve sums the products L(m,k) z(k).
type Mode int

// The solve modes (see the package documentation).
const (
	Chained Mode = iota
	PerRank
	MoveTiles
)

var modeNames = [...]string{Chained: "chained", PerRank: "per-rank", MoveTiles: "move-tiles"}

// String returns the mode's name as the command line spells it.
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Accum holds the local-solve accumulation vectors: G(m, r) for each tile row
// m and each rank r that sums products of row m (PerRank), or one G(m) on the
// owner of L(m,m) (Chained).
type Accum struct {
	mode  Mode
	ranks [][]int             // ranks[m]: the ranks with a G(m, .), ascending
	g     [][]*tile.Vector    // g[m][i]: G(m, ranks[m][i]) as a one-tile vector
	first [][]bool            // scratch: whether G(m, r) has been written this solve
	hs    [][]*runtime.Handle // handles of g

	// NoPriorities submits the solve's tasks at priority 0 instead of
	// Equations (7)-(9) (seed 000's priority optimisation off).
	NoPriorities bool
	// AtZ runs each product L(m,k) z(k) on the owner of z(m) instead of
	// next to L(m,k): the tile travels to z's owner as in Chameleon's
	// solve (the local-solve optimisation off), while the sums keep the
	// mode's order, so l does not change.
	AtZ bool
}

// NewAccum registers the accumulation vectors for factor l and mode.
func NewAccum(l *tile.Sym, mode Mode) *Accum {
	a := &Accum{mode: mode}
	nt := l.NT
	a.ranks = make([][]int, nt)
	a.g = make([][]*tile.Vector, nt)
	a.first = make([][]bool, nt)
	a.hs = make([][]*runtime.Handle, nt)
	for m := 0; m < nt; m++ {
		seen := map[int]bool{}
		for k := 0; k < m; k++ {
			if l.Class(m, k) == tile.Dropped {
				continue
			}
			r := l.Handle(m, k).Owner()
			if mode == Chained {
				r = l.Handle(m, m).Owner()
			}
			if !seen[r] && mode != MoveTiles {
				seen[r] = true
				a.ranks[m] = append(a.ranks[m], r)
			}
		}
		sortInts(a.ranks[m])
		for _, r := range a.ranks[m] {
			v := tile.NewVector(l.Runtime(), fmt.Sprintf("G%d@%d", m, r), l.Rows(m), l.Rows(m), func(int) int { return r })
			a.g[m] = append(a.g[m], v)
			a.hs[m] = append(a.hs[m], v.Handle(0))
		}
		a.first[m] = make([]bool, len(a.ranks[m]))
	}
	return a
}

func sortInts(x []int) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

func (a *Accum) index(m, r int) int {
	for i, q := range a.ranks[m] {
		if q == r {
			return i
		}
	}
	panic(fmt.Sprintf("solve: no G(%d,%d)", m, r))
}

// SubmitLogDet submits one task per diagonal tile k writing
// out[k] = sum_i log L(k,k)_ii; then log|A| = 2 out.Sum() for A = L L^T.
// Priority 0 (Equation 10).
func SubmitLogDet(l *tile.Sym, out *Scalars) {
	ts := insert.New(l.Runtime(), nil)
	for k := 0; k < l.NT; k++ {
		ts.Det(insert.At(k, k, -1, 0), l.Handle(k, k), out.h[k])
	}
}

// SubmitLocalSolve submits z <- L^-1 z (Algorithm 1) for the lower factor l
// held in a tiled matrix of dense tiles and the tiled vector z with the
// same tiling, with the tile kernels kern.
func SubmitLocalSolve(l *tile.Sym, z *tile.Vector, acc *Accum, kern kernels.Impl) {
	LocalSolve(insert.New(l.Runtime(), kern), l, z, acc)
}

// LocalSolve submits z <- L^-1 z (Algorithm 1) for the lower factor l,
// of tiles of any class, and the tiled vector z with the same tiling, on
// the inserter ts (its kernels and, for low-rank tiles, its compressor).
func LocalSolve(ts insert.Tasks, l *tile.Sym, z *tile.Vector, acc *Accum) {
	nt := l.NT
	for m := range acc.first {
		clear(acc.first[m])
	}
	prio := func(p int) int {
		if acc.NoPriorities {
			return 0
		}
		return p
	}
	for k := 0; k < nt; k++ {
		ts.Trsv(insert.At(k, k, -1, prio(insert.SolveDiagPriority(nt, k))), l.Handle(k, k), z.Handle(k))
		for m := k + 1; m < nt; m++ {
			if l.Class(m, k) == tile.Dropped {
				continue
			}
			p := insert.At(m, k, -1, prio(insert.SolveUpdatePriority(nt, k, m)))
			if acc.mode == MoveTiles {
				ts.FactorGemv(p, blas.NoTrans, -1, l.Handle(m, k), z.Handle(k), 1, z.Handle(m))
				continue
			}
			owner := l.Handle(m, k).Owner()
			if acc.AtZ {
				owner = z.Handle(m).Owner()
			}
			r := l.Handle(m, k).Owner()
			if acc.mode == Chained {
				r = l.Handle(m, m).Owner()
			}
			i := acc.index(m, r)
			beta := 1.0
			if !acc.first[m][i] {
				acc.first[m][i] = true
				beta = 0
			}
			// Next to L(m,k): the accumulator travels, not the tile
			// (with AtZ, on z(m)'s owner: the tile travels).
			ts.FactorGemv(p.On(owner), blas.NoTrans, 1, l.Handle(m, k), z.Handle(k), beta, acc.hs[m][i])
		}
		ts.RT.Flush(z.Handle(k)) // read by the products of column k only
		if k+1 < nt {
			m := k + 1
			for i := range acc.ranks[m] {
				ts.Geadd(insert.At(m, -1, -1, prio(insert.SolveDiagPriority(nt, k))), -1, acc.hs[m][i], z.Handle(m))
			}
		}
	}
}

// SubmitDot submits one task per tile writing out[k] = z(k)^T z(k); the
// squared norm is out.Sum(). Priority 0 (Equation 11).
func SubmitDot(z *tile.Vector, out *Scalars, kern kernels.Impl) {
	ts := insert.New(out.rt, kern)
	for k := 0; k < z.NT; k++ {
		ts.Dot(insert.At(k, -1, -1, 0), z.Handle(k), nil, out.h[k])
	}
}

// SubmitInner submits one task per tile writing out[k] = x(k)^T y(k) for
// tiled vectors of the same tiling; the inner product is out.Sum().
func SubmitInner(x, y *tile.Vector, out *Scalars, kern kernels.Impl) {
	ts := insert.New(out.rt, kern)
	for k := 0; k < x.NT; k++ {
		ts.Dot(insert.At(k, -1, -1, 0), x.Handle(k), y.Handle(k), out.h[k])
	}
}
