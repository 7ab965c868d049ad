package block

import (
	"math"
	"math/rand/v2"
	"runtime"
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

// TestGram4 checks gram4 (AVX-512 where the CPU has it) and gram4Pairs
// bitwise against the scalar code (gram42Go) for 1 to 6 y's and lengths across the
// chunks of four rows, the rows past n NaN (never read).
func TestGram4(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 36))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 39, 45} {
		for p := 1; p <= 6; p++ {
			var x [4][]float64
			var y [6][]float64
			for i := range x {
				x[i] = make([]float64, n+3)
				for q := range x[i] {
					x[i][q] = rng.NormFloat64()
				}
				x[i][n] = math.NaN()
			}
			for j := range p {
				y[j] = make([]float64, n+3)
				for q := range y[j] {
					y[j][q] = rng.NormFloat64()
				}
				y[j][n] = math.NaN()
			}
			var got, pairs [24]float64
			gram4(n, &x, &y, p, &got)
			gram4Pairs(n, &x, &y, p, &pairs)
			for k := range 6 * 4 {
				if k%6 < p && math.Float64bits(got[k]) != math.Float64bits(pairs[k]) {
					t.Fatalf("n %d p %d: out[%d] %v, gram4Pairs %v", n, p, k, got[k], pairs[k])
				}
			}
			for j := 0; j < p; j += 2 {
				var sca [8]float64
				j1 := min(j+1, p-1)
				gram42Go(n, &x, &[2][]float64{y[j], y[j1]}, &sca)
				for i := range 4 {
					for k, jj := range []int{j, j1} {
						if g, w := got[6*i+jj], sca[2*i+k]; math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("n %d p %d (%d,%d): %v, scalar code %v", n, p, i, jj, g, w)
						}
					}
				}
			}
		}
	}
}

// BenchmarkGram4 times gram4 (AVX-512 where the CPU has it) and
// gram4Pairs (gram42, two y's a call) for the information's inner
// products at the mean block's response row (n = 39) and six y's (four
// B columns and [y X]), in thread CPU nanoseconds a call.
func BenchmarkGram4(b *testing.B) {
	const n, p = 39, 6
	var x [4][]float64
	var y [6][]float64
	for i := range x {
		x[i] = make([]float64, n)
		y[i] = x[i]
		for q := range n {
			x[i][q] = float64(q%5) - 2
		}
	}
	y[4], y[5] = x[0], x[1]
	var out [24]float64
	for _, f := range []struct {
		name string
		f    func(n int, x *[4][]float64, y *[6][]float64, p int, out *[24]float64)
	}{{"gram4", gram4}, {"pairs", gram4Pairs}} {
		b.Run(f.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0 := threadCPU()
			for i := 0; i < b.N; i++ {
				f.f(n, &x, &y, p, &out)
			}
			b.ReportMetric((threadCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
		})
	}
}
