package solve

import (
	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// Trmv submits z = L e for the lower factor l (tiles of any class; of its
// diagonal tiles the lower triangles), the vector e given as one handle
// per tile row (e.g. input data every rank holds,
// runtime.RegisterReplicated) and the tiled vector z with l's tiling:
//
//	z(m) = sum_{c<m} L(m,c) e(c) + tril(L(m,m)) e(m),
//
// each product on the owner of L(m,c), the partial sum z(m) travelling
// from one owner to the next in c order (so no factor tile moves and the
// sum is the same on any distribution), the diagonal last on z(m)'s
// owner. Dropped tiles add nothing. The tasks have priority 0.
func Trmv(ts insert.Tasks, l *tile.Sym, e []*runtime.Handle, z *tile.Vector) {
	for m := 0; m < l.NT; m++ {
		first := true
		for c := 0; c < m; c++ {
			h := l.Handle(m, c)
			if h == nil {
				continue
			}
			beta := 1.0
			if first {
				beta, first = 0, false
			}
			ts.FactorGemv(insert.At(m, c, -1, 0).On(h.Owner()), blas.NoTrans, 1, h, e[c], beta, z.Handle(m))
		}
		ts.Trmv(insert.At(m, -1, -1, 0), l.Handle(m, m), e[m], z.Handle(m), first)
	}
}

// ColumnProducts submits, for each column tile j of the tiled matrix v
// and each vector xs[i] tiled like v's rows, outs[i](j) = sum_k V(k,j)^T
// xs[i](k) (gemv) and, when sq is not nil, sq(j) = the column sums of
// squares of V(:,j) (colss): each accumulated next to V(k,j) on its owner,
// travelling down the row tiles in order k = 0, 1, ... (the same sums on
// any number of ranks). Priority 0 (a reduction).
func ColumnProducts(ts insert.Tasks, v *tile.General, xs, outs []*tile.Vector, sq *tile.Vector) {
	mt, nt := v.RowLayout.NT, v.ColLayout.NT
	for j := 0; j < nt; j++ {
		for k := 0; k < mt; k++ {
			pl := insert.At(k, j, -1, 0).On(v.Handle(k, j).Owner())
			beta := 1.0
			if k == 0 {
				beta = 0
			}
			for i, x := range xs {
				ts.Gemv(pl, blas.Trans, 1, v.Handle(k, j), x.Handle(k), beta, outs[i].Handle(j))
			}
			if sq != nil {
				ts.Colss(pl, v.Handle(k, j), sq.Handle(j), k == 0)
			}
		}
	}
}

// ColumnDots submits out(j) = the dot products of the columns of A(:,j)
// and B(:,j) for the tiled matrices a and b of the same tiling, summed
// over the row tiles k = 0, 1, ... next to A(k,j) (coldot). Priority 0.
func ColumnDots(ts insert.Tasks, a, b *tile.General, out *tile.Vector) {
	mt, nt := a.RowLayout.NT, a.ColLayout.NT
	for j := 0; j < nt; j++ {
		for k := 0; k < mt; k++ {
			ts.Coldot(insert.At(k, j, -1, 0).On(a.Handle(k, j).Owner()), a.Handle(k, j), b.Handle(k, j), out.Handle(j), k == 0)
		}
	}
}

// Gram submits the lower tiles of G = V^T V into the tiled matrix g (tiled
// like v's columns in both dimensions): G(a,b) = sum_k V(k,a)^T V(k,b) for
// b <= a, summed over the row tiles k = 0, 1, ... (gemm) on rank 0, which
// holds g. Priority 0.
func Gram(ts insert.Tasks, v, g *tile.General) {
	mt, nt := v.RowLayout.NT, v.ColLayout.NT
	for a := 0; a < nt; a++ {
		for k := 0; k < mt; k++ {
			beta := 1.0
			if k == 0 {
				beta = 0
			}
			for b := 0; b <= a; b++ {
				ts.Gemm(insert.At(k, a, b, 0).On(0), blas.Trans, blas.NoTrans, 1, v.Handle(k, a), v.Handle(k, b), beta, g.Handle(a, b))
			}
		}
	}
}
