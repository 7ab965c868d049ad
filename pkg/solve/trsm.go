package solve

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// slab is the tiled matrix b of a solve or product with many right-hand
// sides, seen along the factor's dimension: tile (i, j) is b's tile (i, j)
// when L multiplies from the left (i a tile row of b) and b's (j, i) from
// the right (i a tile column).
type slab struct {
	b    *tile.General
	left bool
}

// steps is the number of tiles along the factor's dimension; others the
// number across.
func (s slab) steps() int {
	if s.left {
		return s.b.RowLayout.NT
	}
	return s.b.ColLayout.NT
}

func (s slab) others() int {
	if s.left {
		return s.b.ColLayout.NT
	}
	return s.b.RowLayout.NT
}

func (s slab) handle(i, j int) *runtime.Handle {
	if s.left {
		return s.b.Handle(i, j)
	}
	return s.b.Handle(j, i)
}

// at returns the place of a task on b's tile (i, j) at step k.
func (s slab) at(i, j, k, prio int) insert.Place {
	if s.left {
		return insert.At(i, j, k, prio)
	}
	return insert.At(j, i, k, prio)
}

// factorTile returns L(max(i, k), min(i, k)): the factor tile that links
// steps i and k (op(L)(i, k) for one of op = identity or transpose).
func factorTile(l *tile.Sym, i, k int) *runtime.Handle {
	return l.Handle(max(i, k), min(i, k))
}

// flushStep tells the runtime that the factor tiles linking step k to the
// targets ts are read no more.
func flushStep(rt *runtime.Runtime, l *tile.Sym, k int, targets []int) {
	for _, i := range append([]int{k}, targets...) {
		if h := factorTile(l, i, k); h != nil {
			rt.Flush(h)
		}
	}
}

// order returns the steps of a forward (0, 1, ...) or backward sweep.
func order(n int, forward bool) []int {
	o := make([]int, n)
	for s := range o {
		o[s] = s
		if !forward {
			o[s] = n - 1 - s
		}
	}
	return o
}

// Trsm submits the triangular solve with the lower factor l (tiles of
// any class, dense diagonal) and many right-hand sides in the tiled
// matrix b, overwritten with
//
//	side Left:  op(L)^-1 B   (b tiled like l along its rows),
//	side Right: B op(L)^-1   (b tiled like l along its columns),
//
// op(L) = L or L^T. The forward sweeps (L^-1 B, B L^-T) run the steps
// k = 0, 1, ..., the backward ones (L^-T B, B L^-1) k = NT-1, ..., 0; at
// step k the slab of b at k is multiplied by the inverse of the diagonal
// block (trtri once, then trmm: OpenBLAS' dtrmm runs about twice as fast
// as its dtrsm on tiles) and each later target slab i takes away its
// product with L(max(i,k), min(i,k)) (insert.FactorMul: dgemm, or through
// the rank of a low-rank tile, or widened from float32; nothing for a
// dropped tile). Each slab tile's updates come in step order, so the
// result is bitwise the same for any number of workers and ranks. The
// step's factor tiles and b's slab are flushed after their last read.
func Trsm(ts insert.Tasks, side blas.Side, trans blas.Transpose, l *tile.Sym, b *tile.General) {
	sb := slab{b: b, left: side == blas.Left}
	forward := (side == blas.Left) == (trans == blas.NoTrans)
	nt, no := sb.steps(), sb.others()
	steps := order(nt, forward)
	rt := ts.RT
	for s, k := range steps {
		targets := steps[s+1:]
		inv := l.DiagWork(k)
		ts.Trtri(insert.At(k, k, k, insert.SolveDiagPriority(nt, s)), l.Handle(k, k), inv, l.Offset(k))
		for j := 0; j < no; j++ {
			src := sb.handle(k, j)
			ts.Trmm(sb.at(k, j, k, insert.SolveDiagPriority(nt, s)), side, trans, inv, src)
			for pos, i := range targets {
				f := factorTile(l, i, k)
				if f == nil {
					continue
				}
				ts.FactorMul(sb.at(i, j, k, insert.SolveUpdatePriority(nt, s, s+1+pos)), side, trans, -1, f, src, sb.handle(i, j))
			}
			rt.Flush(src)
		}
		rt.Invalidate(inv)
		flushStep(rt, l, k, targets)
	}
}

// Trmm submits the triangular product B = op(L) B in place for the lower
// factor l (tiles of any class; of its diagonal tiles the lower
// triangles) and the tiled matrix b, tiled like l along its rows,
// op(L) = L or L^T (side Left; side Right is not implemented). Row slab i
// of the result sums op(L)(i, k) B(k) over the slabs k it reads: for L^T
// the rows go i = 0, 1, ... and read the rows k >= i, for L they go
// i = NT-1, ..., 0 and read the rows k <= i, so that no row is read after
// it is overwritten; each row is first multiplied by its diagonal block
// (trmm), then takes the products in the order of k.
func Trmm(ts insert.Tasks, side blas.Side, trans blas.Transpose, l *tile.Sym, b *tile.General) {
	if side != blas.Left {
		panic(fmt.Sprintf("solve: Trmm on the %v side is not implemented", side))
	}
	sb := slab{b: b, left: true}
	nt, no := sb.steps(), sb.others()
	steps := order(nt, trans == blas.Trans)
	for s, i := range steps {
		reads := steps[s+1:] // the rows the product of row i reads, in its order
		if trans == blas.NoTrans {
			reads = order(i, true)
		}
		for j := 0; j < no; j++ {
			ts.Trmm(sb.at(i, j, i, insert.SolveDiagPriority(nt, s)), side, trans, l.Handle(i, i), sb.handle(i, j))
			for _, k := range reads {
				if f := factorTile(l, i, k); f != nil {
					ts.FactorMul(sb.at(i, j, k, insert.SolveUpdatePriority(nt, s, s)), side, trans, 1, f, sb.handle(k, j), sb.handle(i, j))
				}
			}
		}
		flushStep(ts.RT, l, i, reads)
	}
}
