package block

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDist2 checks the planar distances (dist2: the vector code where the
// CPU has AVX) against math.Hypot to 2 ulps and bitwise against dist2Go,
// for lengths across the vector width, a coincident point included.
func TestDist2(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	for n := range 12 {
		x, y, got, want := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.Float64()*3-1, rng.Float64()*2
		}
		x0, y0 := 0.3, 0.7
		if n > 2 {
			x[2], y[2] = x0, y0
		}
		dist2(x, y, x0, y0, got)
		dist2Go(x, y, x0, y0, want)
		for i := range n {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n %d entry %d: %v, dist2Go %v", n, i, got[i], want[i])
			}
			if h := math.Hypot(x[i]-x0, y[i]-y0); math.Abs(got[i]-h) > 2*0x1p-52*h {
				t.Errorf("n %d entry %d: %v, hypot %v", n, i, got[i], h)
			}
		}
	}
}
