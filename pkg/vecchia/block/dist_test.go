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

// TestDistTri checks the packed distances below the diagonal (distTri:
// the AVX-512 code where the CPU has it) bitwise against dist2Go column
// by column, and unpack against the positions they belong to (the
// diagonal and below; the upper triangle is left as scratch), for sizes
// across the vector width.
func TestDistTri(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 6))
	for n := range 20 {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.Float64(), rng.Float64()
		}
		a := make([]float64, n*n)
		for i := range a {
			a[i] = math.NaN()
		}
		distTri(x, y, a[:n*(n-1)/2])
		o := 0
		for j := 0; j+1 < n; j++ {
			want := make([]float64, n-1-j)
			dist2Go(x[j+1:], y[j+1:], x[j], y[j], want)
			for k, w := range want {
				if math.Float64bits(a[o+k]) != math.Float64bits(w) {
					t.Fatalf("n %d column %d row %d: %v, dist2Go %v", n, j, j+1+k, a[o+k], w)
				}
			}
			o += len(want)
		}
		packed := append([]float64(nil), a[:o]...)
		for i := o; i < n*n; i++ {
			a[i] = math.NaN()
		}
		unpack(n, a, -1)
		o = 0
		for j := range n {
			for i := j; i < n; i++ {
				want := -1.0
				if i > j {
					want = packed[o]
					o++
				}
				if got := a[i+j*n]; math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n %d: unpacked a[%d,%d] = %v, want %v", n, i, j, got, want)
				}
			}
		}
	}
}

// TestDistTriSq checks the packed squared distances (distTriSq: the
// AVX-512 code where the CPU has it) bitwise against distTriSqGo and
// their square roots against dist2Go column by column (the values
// Grad.RowSquared then sees), nothing past them written, for sizes
// across the vector width and the blocks' sizes.
func TestDistTriSq(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 8))
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 10, 15, 16, 17, 39, 45} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.Float64(), rng.Float64()
		}
		np := n * (n - 1) / 2
		got, want := make([]float64, np+8), make([]float64, np)
		for i := range got[np:] {
			got[np+i] = -1
		}
		distTriSq(x, y, got[:np])
		distTriSqGo(x, y, want)
		for _, v := range got[np:] {
			if v != -1 {
				t.Fatalf("n %d: wrote past the values: %v", n, got[np:])
			}
		}
		o := 0
		for j := 0; j+1 < n; j++ {
			d := make([]float64, n-1-j)
			dist2Go(x[j+1:], y[j+1:], x[j], y[j], d)
			for k, w := range d {
				if g := got[o+k]; math.Float64bits(g) != math.Float64bits(want[o+k]) || math.Float64bits(math.Sqrt(g)) != math.Float64bits(w) {
					t.Fatalf("n %d column %d row %d: %v (Go %v), its root %v, dist2Go %v", n, j, j+1+k, g, want[o+k], math.Sqrt(g), w)
				}
			}
			o += len(d)
		}
	}
}
