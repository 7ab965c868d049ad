package matern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAnisoClosedForm checks CovLag with nu = 1/2 against the exponential
// exp(-r'/beta) computed here from the ellipse's own description: a lag
// of length r along the major axis (angle a) has r' = r, one along the
// minor axis (angle a + pi/2) has r' = ratio * r, and a general lag is
// split into these two components by projection.
func TestAnisoClosedForm(t *testing.T) {
	for _, tc := range []struct{ sigma2, beta, angle, ratio, dx, dy float64 }{
		{1, 0.1, 0, 3, 0.05, 0},          // along the major axis (x)
		{1, 0.1, 0, 3, 0, 0.05},          // along the minor axis (y)
		{2, 0.2, math.Pi / 2, 2, 0, 0.3}, // major axis along y
		{2, 0.2, math.Pi / 2, 2, 0.3, 0},
		{1.5, 0.15, math.Pi / 6, 4, 0.1, -0.07},
		{1.5, 0.15, 2.5, 1.7, -0.2, 0.11},
		{0.7, 0.05, 1, 1, 0.02, 0.03}, // isotropic
	} {
		a := Aniso{Sigma2: tc.sigma2, Beta: tc.beta, Nu: 0.5, Angle: tc.angle, Ratio: tc.ratio}
		major := [2]float64{math.Cos(tc.angle), math.Sin(tc.angle)}
		minor := [2]float64{-math.Sin(tc.angle), math.Cos(tc.angle)}
		along := tc.dx*major[0] + tc.dy*major[1]
		across := tc.dx*minor[0] + tc.dy*minor[1]
		want := tc.sigma2 * math.Exp(-math.Hypot(along, tc.ratio*across)/tc.beta)
		if e := relErr(a.CovLag(tc.dx, tc.dy), want); e > 1e-14 {
			t.Errorf("%+v: CovLag = %v, want %v (rel %.2e)", tc, a.CovLag(tc.dx, tc.dy), want, e)
		}
		// -lag gives the same value, and the period in the angle is pi.
		b := a
		b.Angle += math.Pi
		if e := relErr(b.CovLag(-tc.dx, -tc.dy), want); e > 1e-13 {
			t.Errorf("%+v: angle+pi, -lag: %v, want %v", tc, b.CovLag(-tc.dx, -tc.dy), want)
		}
	}
}

// TestAnisoIsotropic checks that ratio 1 is the isotropic Matérn
// (Matern) at any angle, and that CovDir along the axes is the Matérn of
// beta and of beta/ratio.
func TestAnisoIsotropic(t *testing.T) {
	th := Theta{Sigma2: 1.3, Beta: 0.12, Nu: 1.3}
	for _, ang := range []float64{0, 0.4, 2} {
		a := Aniso{Sigma2: th.Sigma2, Beta: th.Beta, Nu: th.Nu, Angle: ang, Ratio: 1}
		for _, r := range []float64{0, 0.01, 0.2, 0.7} {
			want := Matern(th, r)
			if e := relErr(a.CovDir(r, 1.1), want); e > 1e-13 {
				t.Errorf("angle %v r %v: %v, want %v", ang, r, a.CovDir(r, 1.1), want)
			}
		}
		a.Ratio = 2.5
		for _, r := range []float64{0.01, 0.2} {
			if e := relErr(a.CovDir(r, ang), Matern(th, r)); e > 1e-13 {
				t.Errorf("major axis r %v: %v, want %v", r, a.CovDir(r, ang), Matern(th, r))
			}
			minor := Theta{Sigma2: th.Sigma2, Beta: th.Beta / 2.5, Nu: th.Nu}
			if e := relErr(a.CovDir(r, ang+math.Pi/2), Matern(minor, r)); e > 1e-13 {
				t.Errorf("minor axis r %v: %v, want %v", r, a.CovDir(r, ang+math.Pi/2), Matern(minor, r))
			}
		}
	}
}

// TestAnisoFast checks NewAniso's tiles against CovLag per entry (1e-12
// relative), the nugget on the diagonal through FillTile, and the bitwise
// symmetry of a diagonal tile.
func TestAnisoFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 40
	p := Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range p.X {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
	}
	for _, a := range []Aniso{
		{1, 0.1, 0.5, 0.3, 3},
		{2, 0.3, 1.37, 2.8, 1.5},
		{0.5, 0.05, 2.5, 1.2, 8},
		{1, 0.2, 0.9, 0, 1},
	} {
		k, err := NewAniso(a, MaxDistance(Euclidean, p))
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float64, n*n)
		FillTile(k, 0.25, Euclidean, p, 0, n, p, 0, n, true, dst, n)
		for j := range n {
			for i := range n {
				want := a.CovLag(p.X[i]-p.X[j], p.Y[i]-p.Y[j])
				if i == j {
					want += 0.25
				}
				if e := relErr(dst[i+j*n], want); e > 1e-12 {
					t.Fatalf("%+v (%d,%d): %v, want %v (rel %.2e)", a, i, j, dst[i+j*n], want, e)
				}
				if dst[i+j*n] != dst[j+i*n] {
					t.Fatalf("%+v: tile not symmetric at (%d,%d)", a, i, j)
				}
			}
		}
	}
}

// TestAnisoValidate checks the domain: ratio >= 1, angle finite.
func TestAnisoValidate(t *testing.T) {
	for _, tc := range []struct {
		theta []float64
		ok    bool
	}{
		{[]float64{1, 0.1, 0.5, 0, 1}, true},
		{[]float64{1, 0.1, 0.5, -4, 2}, true},
		{[]float64{1, 0.1, 0.5, 1, 0.9}, false},
		{[]float64{1, 0.1, 0.5, math.NaN(), 2}, false},
		{[]float64{0, 0.1, 0.5, 1, 2}, false},
		{[]float64{1, 0.1, 0.5, 1}, false},
	} {
		_, err := NewAnisoTheta(tc.theta)
		if (err == nil) != tc.ok {
			t.Errorf("%v: err = %v, want ok %v", tc.theta, err, tc.ok)
		}
	}
}
