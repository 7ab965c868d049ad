package block

import (
	"math"
	"testing"
)

// TestMirror checks that mirror makes the matrix symmetric from its lower
// triangle (the upper one first filled with NaN), the lower triangle
// untouched, for sizes around and between its 4 x 4 and 8 x 8 tiles, with
// AVX-512's tiles (where the CPU has them) and without.
func TestMirror(t *testing.T) {
	for _, c := range []struct {
		n int
		z bool
	}{{1, true}, {2, true}, {3, true}, {7, true}, {8, true}, {9, true}, {15, true}, {16, true}, {17, true}, {23, true},
		{39, true}, {45, true}, {64, true}, {1, false}, {2, false}, {3, false}, {4, false}, {5, false}, {7, false},
		{8, false}, {9, false}, {13, false}, {16, false}, {39, false}, {45, false}} {
		n := c.n
		buf := make([]float64, n*n+8) // 8 past the matrix, which must stay -1
		for i := range buf[n*n:] {
			buf[n*n+i] = -1
		}
		a := buf[:n*n]
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				a[i+j*n] = math.NaN()
				if i >= j {
					a[i+j*n] = float64(1000*i + j)
				}
			}
		}
		mirrorBy(n, a, c.z)
		for _, v := range buf[n*n:] {
			if v != -1 {
				t.Fatalf("n = %d, AVX-512 %v: wrote past the matrix: %v", n, c.z, buf[n*n:])
			}
		}
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				lo, hi := max(i, j), min(i, j)
				if want := float64(1000*lo + hi); a[i+j*n] != want {
					t.Fatalf("n = %d, AVX-512 %v: a[%d][%d] = %g, want %g", n, c.z, i, j, a[i+j*n], want)
				}
			}
		}
	}
}
