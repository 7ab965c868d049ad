package matern

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBivariateReference checks CovPair and the fast kernel against
// mpmath (testdata/gen_multi.py).
func TestBivariateReference(t *testing.T) {
	for _, r := range readTable(t, "bivariate.csv", 10) {
		b, err := NewBivariateTheta(r[:6])
		if err != nil {
			t.Fatal(err)
		}
		h := r[6]
		k, err := NewBivariate(b, 1)
		if err != nil {
			t.Fatal(err)
		}
		// Two locations at distance h, interleaved: 4 points.
		p := Interleave(Points{X: []float64{0, h}, Y: []float64{0, 0}})
		var tile [4]float64
		k.Fill(Euclidean, p, 0, 2, p, 2, 2, tile[:], 2)
		for _, c := range []struct {
			a, b int
			want float64
		}{{0, 0, r[7]}, {0, 1, r[8]}, {1, 0, r[8]}, {1, 1, r[9]}} {
			if e := relErr(b.CovPair(c.a, c.b, h), c.want); e > 1e-12 {
				t.Errorf("CovPair(%d,%d; %v, h=%v) = %v, want %v (rel %.2e)", c.a, c.b, r[:6], h, b.CovPair(c.a, c.b, h), c.want, e)
			}
			if e := relErr(tile[c.a+2*c.b], c.want); e > 1e-12 {
				t.Errorf("fast (%d,%d; %v, h=%v) = %v, want %v (rel %.2e)", c.a, c.b, r[:6], h, tile[c.a+2*c.b], c.want, e)
			}
		}
	}
}

// TestBivariateBound checks b(nu1, nu2) = sqrt(nu1 nu2)/nu12 and the
// admissible range of rho.
func TestBivariateBound(t *testing.T) {
	for _, nu := range [][2]float64{{0.5, 0.5}, {0.5, 2.5}, {0.73, 1.5}, {3, 30}} {
		b := Bivariate{1, 1, 0.1, nu[0], nu[1], 0.5}
		want := math.Sqrt(nu[0]*nu[1]) / (0.5 * (nu[0] + nu[1]))
		if e := relErr(b.Bound(), want); e > 1e-13 {
			t.Errorf("nu %v: bound %v, want %v", nu, b.Bound(), want)
		}
	}
	for _, rho := range []float64{-1, 0, 1} {
		if _, err := NewBivariateTheta([]float64{1, 1, 0.1, 0.5, 1.5, rho}); err != nil {
			t.Errorf("rho %v: %v", rho, err)
		}
	}
	for _, rho := range []float64{-1.01, 1.5, math.NaN()} {
		_, err := NewBivariateTheta([]float64{1, 1, 0.1, 0.5, 1.5, rho})
		if err == nil || !strings.Contains(err.Error(), "rho") {
			t.Errorf("rho %v: err %v", rho, err)
		}
	}
}

// TestBivariateFillTile fills a tile at an odd offset through FillTile and
// compares each entry with CovPair of the entry's variables.
func TestBivariateFillTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	loc := Points{X: make([]float64, 20), Y: make([]float64, 20)}
	for i := range loc.X {
		loc.X[i], loc.Y[i] = rng.Float64(), rng.Float64()
	}
	p := Interleave(loc)
	b := Bivariate{1.3, 0.7, 0.08, 0.73, 1.5, -0.4}
	k, err := NewBivariate(b, MaxDistance(Euclidean, p))
	if err != nil {
		t.Fatal(err)
	}
	m, n, r0, c0, ld := 13, 9, 5, 20, 15
	dst := make([]float64, ld*n)
	FillTile(k, 0, Euclidean, p, r0, m, p, c0, n, false, dst, ld)
	for j := range n {
		for i := range m {
			li, lj := (r0+i)/2, (c0+j)/2
			want := b.CovPair((r0+i)%2, (c0+j)%2, math.Hypot(loc.X[li]-loc.X[lj], loc.Y[li]-loc.Y[lj]))
			if e := relErr(dst[i+j*ld], want); e > 1e-12 {
				t.Fatalf("(%d,%d): %v, want %v", i, j, dst[i+j*ld], want)
			}
		}
	}
}
