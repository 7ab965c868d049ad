package block

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGram checks the 4 x 2 inner products against plain sums to 1e-14
// relative to the sum of the products' magnitudes, and the vector code
// bitwise against the scalar code (gram42Go), for lengths across the
// chunks of four rows (the last one partial or not).
func TestGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 32))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 45} {
		var x [4][]float64
		var y [2][]float64
		for i := range x {
			x[i] = make([]float64, n+3)
			for q := range x[i] {
				x[i][q] = rng.NormFloat64()
			}
		}
		for j := range y {
			y[j] = make([]float64, n+3)
			for q := range y[j] {
				y[j][q] = rng.NormFloat64()
			}
			y[j][n] = math.NaN() // past n: never read
		}
		var got, sca [8]float64
		gram42(n, &x, &y, &got)
		gram42Go(n, &x, &y, &sca)
		for i := range 4 {
			for j := range 2 {
				want, mag := 0.0, 0.0
				for q := range n {
					want += x[i][q] * y[j][q]
					mag += math.Abs(x[i][q] * y[j][q])
				}
				g := got[2*i+j]
				if math.Float64bits(g) != math.Float64bits(sca[2*i+j]) {
					t.Fatalf("n %d (%d,%d): %v, scalar code %v", n, i, j, g, sca[2*i+j])
				}
				if math.Abs(g-want) > 1e-14*mag {
					t.Errorf("n %d (%d,%d): %v, plain sum %v", n, i, j, g, want)
				}
			}
		}
	}
}
