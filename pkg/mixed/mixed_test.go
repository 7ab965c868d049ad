package mixed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

func randomSingle(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// TestSgemm: C - A B^T in float32 matches the float64 product of the same
// float32 values to float32 rounding.
func TestSgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, im := range All() {
		for _, sz := range [][3]int{{7, 5, 3}, {40, 33, 64}} {
			m, n, k := sz[0], sz[1], sz[2]
			t.Run(fmt.Sprintf("%s/%dx%dx%d", im.Name(), m, n, k), func(t *testing.T) {
				a, b, c := randomSingle(rng, m*k), randomSingle(rng, n*k), randomSingle(rng, m*n)
				want := make([]float64, m*n)
				for j := 0; j < n; j++ {
					for i := 0; i < m; i++ {
						s := float64(c[i+j*m])
						for p := 0; p < k; p++ {
							s -= float64(a[i+p*m]) * float64(b[j+p*n])
						}
						want[i+j*m] = s
					}
				}
				im.Sgemm(blas.NoTrans, blas.Trans, m, n, k, -1, a, m, b, n, 1, c, m)
				for i := range want {
					if d := math.Abs(float64(c[i]) - want[i]); d > 1e-5*float64(k) {
						t.Fatalf("C[%d] off by %.3g", i, d)
					}
				}
			})
		}
	}
}

// TestStrsm: X L^T = B solved in float32 satisfies the equation in float64
// to float32 rounding.
func TestStrsm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m, n = 9, 12
	for _, im := range All() {
		t.Run(im.Name(), func(t *testing.T) {
			l := make([]float64, n*n)
			for j := 0; j < n; j++ {
				l[j+j*n] = 2 + rng.Float64()
				for i := j + 1; i < n; i++ {
					l[i+j*n] = 0.3 * rng.NormFloat64()
				}
			}
			l32 := make([]float32, n*n)
			LowerToSingle(n, l, l32)
			b := randomSingle(rng, m*n)
			x := append([]float32(nil), b...)
			im.Strsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, m, n, 1, l32, n, x, m)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ { // (X L^T)(i,j) = sum_p X(i,p) L(j,p)
					s := 0.0
					for p := 0; p <= j; p++ {
						s += float64(x[i+p*m]) * float64(l32[j+p*n])
					}
					if d := math.Abs(s - float64(b[i+j*m])); d > 1e-5 {
						t.Fatalf("(X L^T)(%d,%d) off by %.3g", i, j, d)
					}
				}
			}
		})
	}
}

// TestGemvAndConversions: Gemv accumulates in float64; ToSingle/ToDouble
// round-trip float32 values exactly.
func TestGemvAndConversions(t *testing.T) {
	const m, n = 5, 4
	a := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	x := []float64{1, -1, 0.5, 2}
	y := []float64{1, 1, 1, 1, 1}
	Gemv(m, n, -2, a, x, y)
	for i := 0; i < m; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			s += float64(a[i+j*m]) * x[j]
		}
		if want := 1 - 2*s; y[i] != want {
			t.Errorf("y[%d] = %g, want %g", i, y[i], want)
		}
	}
	d := make([]float64, m*n)
	ToDouble(m, n, a, d)
	back := make([]float32, m*n)
	ToSingle(m, n, d, back)
	for i := range a {
		if back[i] != a[i] {
			t.Fatalf("round trip changed %g to %g", a[i], back[i])
		}
	}
}
