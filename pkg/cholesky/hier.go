package cholesky

import (
	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/tile"
)

// HierPotrf submits the hierarchical potrf of seed 002 (its optimisation
// 4; see package insert's h-* kinds) of the dense diagonal tile (k, k) of
// a, on sub-tiles of size s (tile.Sym.SubTiles, owned by the tile's
// owner), every task at p's priority: the tiled Cholesky of this package
// on the sub-tiles, between a split of the tile into them and a join
// back,
//
//	h-split: S(i,j) = A(k,k)(i,j)
//	for l = 0, 1, ...: h-potrf S(l,l), h-trsm S(i,l), h-syrk S(j,j), h-gemm S(i,j)
//	h-join:  A(k,k) = S
//
// A tile that is not positive definite fails in an h-potrf with the
// global column of the failing pivot, as Potrf would report it.
func HierPotrf(ts insert.Tasks, p insert.Place, a *tile.Sym, k, s int) {
	sub, cuts := a.SubTiles(k, s)
	h, col0 := a.Handle(k, k), a.Offset(k)
	ns := len(cuts) - 1
	at := func(i, j, l int) insert.Place {
		q := p
		q.Tile = [3]int{k, i*ns + j, l}
		return q
	}
	sh := func(i, j int) int { return i*(i+1)/2 + j }
	off := make([][2]int, 0, len(sub))
	for i := 0; i < ns; i++ {
		for j := 0; j <= i; j++ {
			ts.HSplit(at(i, j, -1), h, sub[sh(i, j)], cuts[i], cuts[j])
			off = append(off, [2]int{cuts[i], cuts[j]})
		}
	}
	for l := 0; l < ns; l++ {
		ts.HPotrf(at(l, l, l), sub[sh(l, l)], k, col0+cuts[l])
		for i := l + 1; i < ns; i++ {
			ts.HTrsm(at(i, l, l), sub[sh(l, l)], sub[sh(i, l)])
		}
		for j := l + 1; j < ns; j++ {
			ts.HSyrk(at(j, j, l), sub[sh(j, l)], sub[sh(j, j)])
			for i := j + 1; i < ns; i++ {
				ts.HGemm(at(i, j, l), sub[sh(i, l)], sub[sh(j, l)], sub[sh(i, j)])
			}
		}
	}
	j := p
	j.Tile = [3]int{k, -1, -1}
	ts.HJoin(j, h, sub, off)
}
