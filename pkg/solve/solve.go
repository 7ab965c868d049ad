// Package solve submits the post-factorisation phases of a Gaussian
// log-likelihood evaluation as tile tasks: the log-determinant from the
// diagonal tiles of the Cholesky factor, the triangular solve z <- L^-1 z in
// its local form (Algorithm 1 of the multi-phase ExaGeoStat paper), and the
// dot product z^T z.
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
// With priorities (7)-(9): trsv 2(NT-k), gemv 2(NT-k)-m, geadd 2(NT-k).
package solve

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// Scalars is one float64 per tile row, each its own runtime handle, for
// per-tile partial results (log-determinant, dot product) that are summed in
// a fixed order afterwards, so the total does not depend on timing.
type Scalars struct {
	v []float64
	h []*runtime.Handle
}

// NewScalars returns n partial-result slots owned by owner(k).
func NewScalars(name string, n int, owner func(k int) int) *Scalars {
	s := &Scalars{v: make([]float64, n), h: make([]*runtime.Handle, n)}
	for k := range s.h {
		o := 0
		if owner != nil {
			o = owner(k)
		}
		s.h[k] = runtime.NewData(fmt.Sprintf("%s[%d]", name, k), o, s.v[k:k+1:k+1])
	}
	return s
}

// Fetch makes every slot valid on every rank once rt.Wait returns, so that
// all ranks compute the same Sum.
func (s *Scalars) Fetch(rt *runtime.Runtime) {
	for _, h := range s.h {
		rt.Fetch(h)
	}
}

// Sum returns the sum of the slots in index order.
func (s *Scalars) Sum() float64 {
	var t float64
	for _, x := range s.v {
		t += x
	}
	return t
}

// Values returns the slots.
func (s *Scalars) Values() []float64 { return s.v }

// Mode chooses how the local solve sums the products L(m,k) z(k).
type Mode int

// The solve modes (see the package documentation).
const (
	Chained Mode = iota
	PerRank
	MoveTiles
)

// String returns the mode's name as the command line spells it.
func (m Mode) String() string {
	switch m {
	case Chained:
		return "chained"
	case PerRank:
		return "per-rank"
	case MoveTiles:
		return "move-tiles"
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
}

// NewAccum allocates the accumulation vectors for factor l and mode.
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
			v := tile.NewVector(fmt.Sprintf("G%d@%d", m, r), l.Rows(m), l.Rows(m), func(int) int { return r })
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
func SubmitLogDet(rt *runtime.Runtime, l *tile.Sym, out *Scalars) {
	for k := 0; k < l.NT; k++ {
		t, nb := l.Tile(k, k), l.Rows(k)
		rt.Submit(runtime.Task{
			Kind: "det", Tile: [3]int{k, k, -1}, Flops: float64(nb),
			Access: []runtime.Access{{H: l.Handle(k, k), Mode: runtime.R}, {H: out.h[k], Mode: runtime.W}},
			Run: func(runtime.Context) error {
				var s float64
				for i := 0; i < nb; i++ {
					s += math.Log(t[i+i*nb])
				}
				out.v[k] = s
				return nil
			},
		})
	}
}

// SubmitLocalSolve submits z <- L^-1 z (Algorithm 1) for the lower factor l
// held in a tiled matrix and the tiled vector z with the same tiling.
func SubmitLocalSolve(rt *runtime.Runtime, l *tile.Sym, z *tile.Vector, acc *Accum, kern kernels.Impl) {
	nt := l.NT
	for m := range acc.first {
		clear(acc.first[m])
	}
	for k := 0; k < nt; k++ {
		lkk, zk, nbk := l.Tile(k, k), z.Tile(k), l.Rows(k)
		rt.Submit(runtime.Task{
			Kind: "trsv", Tile: [3]int{k, k, -1}, Priority: 2 * (nt - k), Flops: float64(nbk) * float64(nbk),
			Access: []runtime.Access{{H: l.Handle(k, k), Mode: runtime.R}, {H: z.Handle(k), Mode: runtime.RW}},
			Run: func(runtime.Context) error {
				kern.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, nbk, lkk, nbk, zk, 1)
				return nil
			},
		})
		for m := k + 1; m < nt; m++ {
			lmk, mb := l.Tile(m, k), l.Rows(m)
			if acc.mode == MoveTiles {
				zm := z.Tile(m)
				rt.Submit(runtime.Task{
					Kind: "gemv", Tile: [3]int{m, k, -1}, Priority: 2*(nt-k) - m, Flops: 2 * float64(mb) * float64(nbk),
					Access: []runtime.Access{
						{H: z.Handle(m), Mode: runtime.RW},
						{H: l.Handle(m, k), Mode: runtime.R},
						{H: z.Handle(k), Mode: runtime.R},
					},
					Run: func(runtime.Context) error {
						kern.Dgemv(blas.NoTrans, mb, nbk, -1, lmk, mb, zk, 1, 1, zm, 1)
						return nil
					},
				})
				continue
			}
			owner := l.Handle(m, k).Owner()
			r := owner
			if acc.mode == Chained {
				r = l.Handle(m, m).Owner()
			}
			i := acc.index(m, r)
			gm := acc.g[m][i].Tile(0)
			beta, mode := 1.0, runtime.RW
			if !acc.first[m][i] {
				acc.first[m][i] = true
				beta, mode = 0, runtime.W
			}
			rt.Submit(runtime.Task{
				Kind: "gemv", Tile: [3]int{m, k, -1}, Priority: 2*(nt-k) - m, Flops: 2 * float64(mb) * float64(nbk),
				Access: []runtime.Access{
					{H: l.Handle(m, k), Mode: runtime.R},
					{H: z.Handle(k), Mode: runtime.R},
					{H: acc.hs[m][i], Mode: mode},
				},
				Run: func(runtime.Context) error {
					kern.Dgemv(blas.NoTrans, mb, nbk, 1, lmk, mb, zk, 1, beta, gm, 1)
					return nil
				},
				// Next to L(m,k): the accumulator travels, not the tile.
				Pin: true, Rank: owner,
			})
		}
		if k+1 < nt {
			m := k + 1
			zm, mb := z.Tile(m), l.Rows(m)
			for i := range acc.ranks[m] {
				gm := acc.g[m][i].Tile(0)
				rt.Submit(runtime.Task{
					Kind: "geadd", Tile: [3]int{m, -1, -1}, Priority: 2 * (nt - k),
					Flops: float64(mb),
					Access: []runtime.Access{
						{H: acc.hs[m][i], Mode: runtime.R},
						{H: z.Handle(m), Mode: runtime.RW},
					},
					Run: func(runtime.Context) error {
						kern.Dgeadd(mb, 1, -1, gm, mb, 1, zm, mb)
						return nil
					},
				})
			}
		}
	}
}

// SubmitDot submits one task per tile writing out[k] = z(k)^T z(k); the
// squared norm is out.Sum(). Priority 0 (Equation 11).
func SubmitDot(rt *runtime.Runtime, z *tile.Vector, out *Scalars, kern kernels.Impl) {
	for k := 0; k < z.NT; k++ {
		zk := z.Tile(k)
		rt.Submit(runtime.Task{
			Kind: "dot", Tile: [3]int{k, -1, -1}, Flops: 2 * float64(len(zk)),
			Access: []runtime.Access{{H: z.Handle(k), Mode: runtime.R}, {H: out.h[k], Mode: runtime.W}},
			Run: func(runtime.Context) error {
				out.v[k] = kern.Ddot(len(zk), zk, 1, zk, 1)
				return nil
			},
		})
	}
}
