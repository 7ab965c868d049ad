package solve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tile/tiletest"
)

// The solves over a factor whose tiles mix every class, checked against
// gonum's BLAS on the factor as the tiles hold it (low-rank tiles
// expanded, float32 tiles widened, dropped tiles zero): the products with
// a tile in its class must equal the dense products to rounding. The
// "factor" is the lower triangle of a smooth covariance with a large
// nugget (diagonally dominant: well conditioned).

const (
	cn, cnb = 63, 10 // matrix order and tile size (a ragged last tile)
	cr, crb = 23, 7  // right-hand sides and their tile size
)

// classCases are the class maps: all dense, TLR-like, a float64 band in
// float32, a band with dropped tiles beyond, and any mix.
var classCases = []struct {
	name string
	pick func(*rand.Rand, int, int) tile.Class
}{
	{"dense", func(*rand.Rand, int, int) tile.Class { return tile.Dense }},
	{"low-rank", func(*rand.Rand, int, int) tile.Class { return tile.LowRank }},
	{"band+single", func(_ *rand.Rand, m, c int) tile.Class {
		if m-c > 1 {
			return tile.Single
		}
		return tile.Dense
	}},
	{"band+dropped", func(_ *rand.Rand, m, c int) tile.Class {
		if m-c > 1 {
			return tile.Dropped
		}
		return tile.Dense
	}},
	{"any mix", tiletest.AnyClass},
}

// classFactor generates the factor of case i on rt and returns it, its
// inserter and its dense lower triangle.
func classFactor(t *testing.T, rt *runtime.Runtime, i int) (*tile.Sym, insert.Tasks, blas64.Triangular) {
	t.Helper()
	p := tiletest.NewMixed(cn, cnb, 10, uint64(i), classCases[i].pick)
	l, ts := p.Build(rt, 1e-9, func(m, n int) int { return (m + 2*n) % 3 })
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	d, err := tiletest.Lower(l, ts.LR.Compressor)
	if err != nil {
		t.Fatal(err)
	}
	// blas64 is row-major: the column-major lower triangle is its
	// transpose, an upper triangle.
	return l, ts, blas64.Triangular{N: cn, Stride: cn, Data: d, Uplo: blas.Upper, Diag: blas.NonUnit}
}

// randomGeneral returns an m x n column-major matrix of normal values and
// submits its copy into a tiled matrix of mb x nb tiles.
func randomGeneral(ts insert.Tasks, m, n, mb, nb int, seed uint64) ([]float64, *tile.General) {
	rng := rand.New(rand.NewPCG(seed, 7))
	a := make([]float64, m*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	g := tile.NewGeneral(ts.RT, "B", m, n, mb, nb, nil)
	for j := 0; j < g.ColLayout.NT; j++ {
		for i := 0; i < g.RowLayout.NT; i++ {
			ts.CopyIn(insert.At(i, j, -1, 0), a, m, g.RowLayout.Offset(i), g.ColLayout.Offset(j), g.Handle(i, j))
		}
	}
	return a, g
}

// general returns the tiled matrix g as one column-major matrix.
func general(t *testing.T, g *tile.General) []float64 {
	t.Helper()
	m := g.RowLayout.N
	out := make([]float64, m*g.ColLayout.N)
	for j := 0; j < g.ColLayout.NT; j++ {
		for i := 0; i < g.RowLayout.NT; i++ {
			tl, rows := g.Tile(i, j), g.RowLayout.Rows(i)
			if tl == nil {
				t.Fatalf("tile (%d,%d) not held", i, j)
			}
			for c := 0; c < g.ColLayout.Rows(j); c++ {
				copy(out[(g.ColLayout.Offset(j)+c)*m+g.RowLayout.Offset(i):][:rows], tl[c*rows:(c+1)*rows])
			}
		}
	}
	return out
}

// relDiff returns max |a - b| / max |b|.
func relDiff(a, b []float64) float64 {
	d, big := 0.0, 0.0
	for i := range b {
		d = max(d, math.Abs(a[i]-b[i]))
		big = max(big, math.Abs(b[i]))
	}
	return d / big
}

// rowMajor returns the row-major view of the column-major m x n matrix a:
// its transpose, n x m.
func rowMajor(a []float64, m, n int) blas64.General {
	return blas64.General{Rows: n, Cols: m, Stride: m, Data: a}
}

// TestTrsmTrmmClasses: Trsm on both sides, forward and backward, and Trmm
// (L^T B, L B) over every class map match gonum's dtrsm and dtrmm on the
// dense factor within 1e-12, bitwise the same with 1 and 3 workers.
func TestTrsmTrmmClasses(t *testing.T) {
	type op struct {
		name  string
		side  blas.Side
		trans blas.Transpose
		solve bool
	}
	ops := []op{
		{"L^-1 B", blas.Left, blas.NoTrans, true},
		{"L^-T B", blas.Left, blas.Trans, true},
		{"B L^-T", blas.Right, blas.Trans, true},
		{"B L^-1", blas.Right, blas.NoTrans, true},
		{"L^T B", blas.Left, blas.Trans, false},
		{"L B", blas.Left, blas.NoTrans, false},
	}
	for i, cc := range classCases {
		for _, o := range ops {
			t.Run(fmt.Sprintf("%s/%s", cc.name, o.name), func(t *testing.T) {
				var first []float64
				for _, workers := range []int{1, 3} {
					rt := runtime.New(runtime.Options{Workers: workers})
					l, ts, ref := classFactor(t, rt, i)
					m, n, mb, nb := cn, cr, cnb, crb
					if o.side == blas.Right {
						m, n, mb, nb = cr, cn, crb, cnb
					}
					b0, b := randomGeneral(ts, m, n, mb, nb, uint64(10+i))
					if o.solve {
						Trsm(ts, o.side, o.trans, l, b)
					} else {
						Trmm(ts, o.side, o.trans, l, b)
					}
					if err := rt.Wait(); err != nil {
						t.Fatal(err)
					}
					got := general(t, b)
					rt.Close()
					// Row-major views hold B^T and U = L^T: op(L)^-1 B
					// is B^T op(U)^-1 with the same op, B op(L)^-1 is
					// op(U)^-1 B^T, and the same for the products.
					want := rowMajor(append([]float64(nil), b0...), m, n)
					side := blas.Right
					if o.side == blas.Right {
						side = blas.Left
					}
					if o.solve {
						blas64.Trsm(side, o.trans, 1, ref, want)
					} else {
						blas64.Trmm(side, o.trans, 1, ref, want)
					}
					if d := relDiff(got, want.Data); !(d <= 1e-12) {
						t.Errorf("%d workers: differs from gonum by %.3g relative", workers, d)
					}
					if first == nil {
						first = got
					} else if fmt.Sprint(first) != fmt.Sprint(got) {
						t.Errorf("not bitwise the same with 1 and %d workers", workers)
					}
				}
			})
		}
	}
}

// TestLocalSolveTrmvClasses: the local solve z = L^-1 z in each mode, and
// z = L e, over every class map match gonum's dtrsv and dtrmv on the dense
// factor within 1e-12.
func TestLocalSolveTrmvClasses(t *testing.T) {
	for i, cc := range classCases {
		for _, mode := range []Mode{Chained, PerRank, MoveTiles, -1} {
			name := mode.String()
			if mode < 0 {
				name = "trmv"
			}
			t.Run(fmt.Sprintf("%s/%s", cc.name, name), func(t *testing.T) {
				rt := runtime.New(runtime.Options{Workers: 2})
				defer rt.Close()
				l, ts, ref := classFactor(t, rt, i)
				rng := rand.New(rand.NewPCG(uint64(i), 3))
				b := make([]float64, cn)
				for j := range b {
					b[j] = rng.NormFloat64()
				}
				z := tile.NewVector(rt, "z", cn, cnb, nil)
				want := blas64.Vector{N: cn, Inc: 1, Data: append([]float64(nil), b...)}
				if mode < 0 {
					es := make([]*runtime.Handle, l.NT)
					for c := range es {
						es[c] = rt.RegisterReplicated(fmt.Sprintf("e(%d)", c), 0, b[l.Offset(c):l.Offset(c)+l.Rows(c)])
					}
					Trmv(ts, l, es, z)
					blas64.Trmv(blas.Trans, ref, want)
				} else {
					for m := 0; m < z.NT; m++ {
						ts.Zcpy(insert.At(m, -1, -1, 0), b[z.Offset(m):z.Offset(m)+z.Rows(m)], z.Handle(m))
					}
					LocalSolve(ts, l, z, NewAccum(l, mode))
					blas64.Trsv(blas.Trans, ref, want)
				}
				z.Fetch()
				if err := rt.Wait(); err != nil {
					t.Fatal(err)
				}
				if d := relDiff(z.Values(), want.Data); !(d <= 1e-12) {
					t.Errorf("differs from gonum by %.3g relative", d)
				}
			})
		}
	}
}
