package tlr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestMul: C + alpha op(A) B and C + alpha B op(A) for a rectangular
// tile A held as U V^T (rank 5, rank 0) or dense, against gonum's
// products of the expanded A.
func TestMul(t *testing.T) {
	const m, n, r, alpha = 50, 30, 7, -1.5
	rng := rand.New(rand.NewPCG(11, 12))
	randn := func(k int) []float64 {
		x := make([]float64, k)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	for _, cp := range compressors(1e-9)[:1] {
		for _, rank := range []int{5, 0, -1} {
			f := runtime.LowRank{M: m, N: n, MaxRank: 19}
			buf := make([]float64, f.Words())
			if rank < 0 {
				copy(f.SetDense(buf), randn(m*n))
			} else {
				u, v := f.Factors(buf, rank)
				copy(u, randn(m*rank))
				copy(v, randn(n*rank))
			}
			a := expand(f, buf)
			for _, side := range []blas.Side{blas.Left, blas.Right} {
				for _, trans := range []blas.Transpose{blas.NoTrans, blas.Trans} {
					t.Run(fmt.Sprintf("%s/rank=%d/side=%c/trans=%c", name(cp), rank, side, trans), func(t *testing.T) {
						op := mat.Matrix(a)
						rows, cols := m, n
						if trans == blas.Trans {
							op, rows, cols = a.T(), n, m
						}
						var bm, cm int // B's and C's rows x cols
						var bc, cc int
						if side == blas.Left {
							bm, bc, cm, cc = cols, r, rows, r
						} else {
							bm, bc, cm, cc = r, rows, r, cols
						}
						b, c := randn(bm*bc), randn(cm*cc)
						want := mat.NewDense(cm, cc, nil)
						if side == blas.Left {
							want.Mul(op, denseOf(bm, bc, b))
						} else {
							want.Mul(denseOf(bm, bc, b), op)
						}
						want.Scale(alpha, want)
						want.Add(want, denseOf(cm, cc, c))
						cp.Mul(f, buf, side, trans, alpha, b, bm, r, c, cm)
						for j := 0; j < cc; j++ {
							for i := 0; i < cm; i++ {
								if d := math.Abs(c[i+j*cm] - want.At(i, j)); d > 1e-12*(1+math.Abs(want.At(i, j))) {
									t.Fatalf("C(%d,%d) = %g, want %g", i, j, c[i+j*cm], want.At(i, j))
								}
							}
						}
					})
				}
			}
		}
	}
}
