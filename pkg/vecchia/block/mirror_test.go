package block

import (
	"math"
	"testing"
)

// TestMirror checks that mirror makes the matrix symmetric from its lower
// triangle (the upper one first filled with NaN), the lower triangle
// untouched, for sizes around and between its 4 x 4 tiles.
func TestMirror(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 39, 45} {
		a := make([]float64, n*n)
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				a[i+j*n] = math.NaN()
				if i >= j {
					a[i+j*n] = float64(1000*i + j)
				}
			}
		}
		mirror(n, a)
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				lo, hi := max(i, j), min(i, j)
				if want := float64(1000*lo + hi); a[i+j*n] != want {
					t.Fatalf("n = %d: a[%d][%d] = %g, want %g", n, i, j, a[i+j*n], want)
				}
			}
		}
	}
}
