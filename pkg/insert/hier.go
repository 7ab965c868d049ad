package insert

import (
	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// The hierarchical potrf of seed 002 (its optimisation 4): the Cholesky of
// a dense n x n diagonal tile A = L L^T as a nested graph of tasks on
// s x s sub-tiles held by handles of their own, so that every worker can
// help on the critical path instead of one running a single large dpotrf.
// With sub-tiles A_ij (i >= j) of a tile cut at multiples of s,
//
//	h-split: S_ij = A_ij                        (one task per sub-tile)
//	for l = 0, 1, ...:
//	  h-potrf: S_ll = L_ll L_ll^T
//	  h-trsm:  S_il = S_il L_ll^-T              (i > l)
//	  h-syrk:  S_jj = S_jj - S_jl S_jl^T        (j > l)
//	  h-gemm:  S_ij = S_ij - S_il S_jl^T        (i > j > l)
//	h-join:  A_ij = S_ij                        (one task, every sub-tile)
//
// the right-looking tiled Cholesky of package cholesky, with a triangular
// solve in place of the inverse and multiply (the sub-tiles are small).
// Its flops are those of a potrf of the tile (n^3/3 + O(n^2)) plus the
// copies; its arithmetic differs from one dpotrf call only in the order of
// the sums, and each sub-tile's updates are ordered by the submission
// order, so the factor is bitwise the same for any number of workers.

// SubTiles returns the sub-tile boundaries of an n x n tile cut at
// multiples of s: 0 = b[0] < b[1] < ... < b[len-1] = n.
func SubTiles(n, s int) []int {
	b := []int{0}
	for o := s; o < n; o += s {
		b = append(b, o)
	}
	return append(b, n)
}

// HSplit copies the block of rows [r0, r0+M) and columns [c0, c0+N) of the
// dense diagonal tile a into the sub-tile s (M x N, its format's sizes).
func (t Tasks) HSplit(p Place, a, s *runtime.Handle, r0, c0 int) {
	n := dense(a).M
	fs := dense(s)
	t.submit(p, kind.HSplit, 0, []runtime.Access{acc(a, runtime.R), acc(s, runtime.W)},
		func(c runtime.Context) error {
			src, dst := c.Dense(0), c.Dense(1)
			for j := 0; j < fs.N; j++ {
				copy(dst[j*fs.M:(j+1)*fs.M], src[(c0+j)*n+r0:(c0+j)*n+r0+fs.M])
			}
			return nil
		})
}

// HJoin copies the sub-tiles subs, each at the row and column offsets of
// off (same order), back into the dense diagonal tile a.
func (t Tasks) HJoin(p Place, a *runtime.Handle, subs []*runtime.Handle, off [][2]int) {
	n := dense(a).M
	ac := make([]runtime.Access, 0, 1+len(subs))
	ac = append(ac, acc(a, runtime.RW))
	fs := make([]runtime.Dense, len(subs))
	for i, s := range subs {
		ac = append(ac, acc(s, runtime.R))
		fs[i] = dense(s)
	}
	t.submit(p, kind.HJoin, 0, ac, func(c runtime.Context) error {
		dst := c.Dense(0)
		for i, f := range fs {
			src := c.Dense(1 + i)
			r0, c0 := off[i][0], off[i][1]
			for j := 0; j < f.N; j++ {
				copy(dst[(c0+j)*n+r0:(c0+j)*n+r0+f.M], src[j*f.M:(j+1)*f.M])
			}
		}
		return nil
	})
}

// HPotrf factors the diagonal sub-tile a = L L^T in place; col0 is the
// global index of its first column (for the error of a matrix that is not
// positive definite, as Potrf), tile the index of the diagonal tile.
func (t Tasks) HPotrf(p Place, a *runtime.Handle, tile, col0 int) {
	n := dense(a).M
	k := t.K
	t.submit(p, kind.HPotrf, PotrfFlops(float64(n)), []runtime.Access{acc(a, runtime.RW)},
		func(c runtime.Context) error {
			if info := k.Dpotrf(n, c.Dense(0), n); info != 0 {
				return &NotPosDefError{Tile: tile, Column: col0 + info - 1}
			}
			return nil
		})
}

// HTrsm overwrites the sub-tile b with b l^-T, l the lower factor of a
// diagonal sub-tile (m n^2 flops).
func (t Tasks) HTrsm(p Place, l, b *runtime.Handle) {
	fb := dense(b)
	m, n := fb.M, fb.N
	k := t.K
	t.submit(p, kind.HTrsm, float64(m)*float64(n)*float64(n), []runtime.Access{acc(l, runtime.R), acc(b, runtime.RW)},
		func(c runtime.Context) error {
			k.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, m, n, 1, c.Dense(0), n, c.Dense(1), m)
			return nil
		})
}

// HSyrk updates the lower triangle of the diagonal sub-tile c = c - a a^T
// (k n (n+1) flops for a of n x k).
func (t Tasks) HSyrk(p Place, a, c *runtime.Handle) {
	fa := dense(a)
	n, kk := fa.M, fa.N
	k := t.K
	t.submit(p, kind.HSyrk, float64(kk)*float64(n)*float64(n+1), []runtime.Access{acc(a, runtime.R), acc(c, runtime.RW)},
		func(ctx runtime.Context) error {
			k.Dsyrk(blas.Lower, blas.NoTrans, n, kk, -1, ctx.Dense(0), n, 1, ctx.Dense(1), n)
			return nil
		})
}

// HGemm updates the sub-tile c = c - a b^T (2 m n k flops).
func (t Tasks) HGemm(p Place, a, b, c *runtime.Handle) {
	fa, fb, fc := dense(a), dense(b), dense(c)
	m, n, kk := fc.M, fc.N, fa.N
	k := t.K
	t.submit(p, kind.HGemm, 2*float64(m)*float64(n)*float64(kk),
		[]runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(c, runtime.RW)},
		func(ctx runtime.Context) error {
			k.Dgemm(blas.NoTrans, blas.Trans, m, n, kk, -1, ctx.Dense(0), fa.M, ctx.Dense(1), fb.M, 1, ctx.Dense(2), m)
			return nil
		})
}

// HierPotrf submits the hierarchical potrf of the dense diagonal tile a
// (tile index tile, first global column col0) on the lower sub-tile
// handles sub (indexed i(i+1)/2 + j, cut at the boundaries b of SubTiles;
// owned by a's rank), with priority prio for every task: the nested graph
// described above. A non-positive-definite tile fails in an h-potrf with
// the global column of the failing pivot, as Potrf would report it.
func (t Tasks) HierPotrf(p Place, a *runtime.Handle, sub []*runtime.Handle, b []int, tile, col0 int) {
	ns := len(b) - 1
	at := func(i, j, l int) Place {
		q := p
		q.Tile = [3]int{tile, i*ns + j, l}
		return q
	}
	s := func(i, j int) *runtime.Handle { return sub[i*(i+1)/2+j] }
	for i := 0; i < ns; i++ {
		for j := 0; j <= i; j++ {
			t.HSplit(at(i, j, -1), a, s(i, j), b[i], b[j])
		}
	}
	for l := 0; l < ns; l++ {
		t.HPotrf(at(l, l, l), s(l, l), tile, col0+b[l])
		for i := l + 1; i < ns; i++ {
			t.HTrsm(at(i, l, l), s(l, l), s(i, l))
		}
		for j := l + 1; j < ns; j++ {
			t.HSyrk(at(j, j, l), s(j, l), s(j, j))
			for i := j + 1; i < ns; i++ {
				t.HGemm(at(i, j, l), s(i, l), s(j, l), s(i, j))
			}
		}
	}
	off := make([][2]int, 0, len(sub))
	for i := 0; i < ns; i++ {
		for j := 0; j <= i; j++ {
			off = append(off, [2]int{b[i], b[j]})
		}
	}
	j := p
	j.Tile = [3]int{tile, -1, -1}
	t.HJoin(j, a, sub, off)
}
