package cholesky

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/exageostat/exageostat/pkg/linalg"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tile/tiletest"
)

// refFactor is the reference: the right-looking tiled Cholesky of the
// dense matrix a in float64 with gonum's BLAS, the dropped tiles zero and
// never updated (what the factorisation of a matrix with dropped tiles
// computes); it returns L, lower, column-major.
func refFactor(t *testing.T, a []float64, n, nb int, class func(m, c int) tile.Class) []float64 {
	t.Helper()
	l := tile.NewLayout(n, nb)
	g := linalg.Gonum()
	l64 := append([]float64(nil), a...)
	blk := func(m, c int) blas64.General {
		return blas64.General{Rows: l.Rows(m), Cols: l.Rows(c), Stride: n, Data: l64[l.Offset(m)+l.Offset(c)*n:]}
	}
	drop := func(m, c int) bool { return m != c && class(m, c) == tile.Dropped }
	for k := 0; k < l.NT; k++ {
		kk := blk(k, k)
		if info := g.Dpotrf(kk.Rows, kk.Data, n); info != 0 {
			t.Fatalf("reference potrf of tile %d failed", k)
		}
		for m := k + 1; m < l.NT; m++ {
			if drop(m, k) {
				continue
			}
			b := blk(m, k)
			g.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, b.Rows, b.Cols, 1, kk.Data, n, b.Data, n)
		}
		for c := k + 1; c < l.NT; c++ {
			for m := c; m < l.NT; m++ {
				if drop(m, c) || drop(m, k) || drop(c, k) {
					continue
				}
				a, b, d := blk(m, k), blk(c, k), blk(m, c)
				g.Dgemm(blas.NoTrans, blas.Trans, d.Rows, d.Cols, a.Cols, -1, a.Data, n, b.Data, n, 1, d.Data, n)
			}
		}
	}
	for j := 0; j < n; j++ { // the lower triangle, dropped tiles zero
		for i := 0; i < n; i++ {
			if i < j || drop(i/nb, j/nb) {
				l64[i+j*n] = 0
			}
		}
	}
	return l64
}

// maxRelDiff returns max |a - b| / max |b|.
func maxRelDiff(a, b []float64) float64 {
	d, big := 0.0, 0.0
	for i := range b {
		d = max(d, math.Abs(a[i]-b[i]))
		big = max(big, math.Abs(b[i]))
	}
	return d / big
}

// TestFactorMixedClasses: the factorisation of a matrix whose tiles mix
// every class (dense, low-rank, float32, dropped; all dense; all low-rank
// off the diagonal as TLR; a band in float64 and float32 beyond as mixed
// precision; a band and dropped tiles beyond as DST) matches the reference
// tiled Cholesky of the dense matrix within the accuracy of its classes
// (float32 tiles: 1e-6 relative; low-rank at accuracy 1e-10: 1e-9; dense:
// 1e-12), and bitwise the same with 1 and 3 workers (the likelihood's
// golden-value test covers the ranks).
func TestFactorMixedClasses(t *testing.T) {
	cases := []struct {
		name string
		pick func(rng *rand.Rand, m, c int) tile.Class
		tol  float64
	}{
		{"dense", func(*rand.Rand, int, int) tile.Class { return tile.Dense }, 1e-12},
		{"low-rank", func(*rand.Rand, int, int) tile.Class { return tile.LowRank }, 1e-9},
		{"band+single", func(_ *rand.Rand, m, c int) tile.Class {
			if m-c > 1 {
				return tile.Single
			}
			return tile.Dense
		}, 1e-6},
		{"band+dropped", func(_ *rand.Rand, m, c int) tile.Class {
			if m-c > 2 {
				return tile.Dropped
			}
			return tile.Dense
		}, 1e-12},
		{"any mix 1", tiletest.AnyClass, 1e-6},
		{"any mix 2", tiletest.AnyClass, 1e-6},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tiletest.NewMixed(93, 12, 2, uint64(i), tc.pick)
			ref := refFactor(t, p.Dense(), p.N, p.NB, p.Class)
			var first []float64
			for _, workers := range []int{1, 3} {
				rt := runtime.New(runtime.Options{Workers: workers})
				s, ts := p.Build(rt, 1e-10, nil)
				SubmitWith(ts, s, Options{})
				if err := rt.Wait(); err != nil {
					t.Fatal(err)
				}
				got, err := tiletest.Lower(s, ts.LR.Compressor)
				rt.Close()
				if err != nil {
					t.Fatal(err)
				}
				if d := maxRelDiff(got, ref); !(d <= tc.tol) {
					t.Errorf("%d workers: factor differs from the reference by %.3g relative, want <= %g", workers, d, tc.tol)
				}
				if first == nil {
					first = got
					continue
				}
				for j := range got {
					if got[j] != first[j] {
						t.Fatalf("entry %d: %v with 1 worker, %v with %d", j, first[j], got[j], workers)
					}
				}
			}
		})
	}
}

// TestFactorOptionsBitwise: the lookahead and the hierarchical potrf
// change the order of the tasks, not of the operations on a tile: over a
// mix of classes, the factor is bitwise the one without them.
func TestFactorOptionsBitwise(t *testing.T) {
	p := tiletest.NewMixed(93, 12, 2, 7, func(rng *rand.Rand, m, c int) tile.Class { return tile.Class(rng.IntN(3)) })
	var want []float64
	for _, o := range []Options{{}, {Lookahead: 2}, {Lookahead: 1, HPotrf: 8}, {HPotrf: 5}} {
		t.Run(fmt.Sprintf("lookahead=%d/hpotrf=%d", o.Lookahead, o.HPotrf), func(t *testing.T) {
			rt := runtime.New(runtime.Options{Workers: 3})
			defer rt.Close()
			s, ts := p.Build(rt, 1e-10, nil)
			SubmitWith(ts, s, o)
			if err := rt.Wait(); err != nil {
				t.Fatal(err)
			}
			got, err := tiletest.Lower(s, ts.LR.Compressor)
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
				return
			}
			if o.HPotrf > 0 {
				// The nested potrf sums in another order than one
				// dpotrf: the same factor to rounding, not bitwise.
				if d := maxRelDiff(got, want); d > 1e-12 {
					t.Errorf("differs from the plain factorisation by %.3g relative", d)
				}
				return
			}
			for j := range got {
				if got[j] != want[j] {
					t.Fatalf("entry %d: %v, without the options %v", j, got[j], want[j])
				}
			}
		})
	}
}
