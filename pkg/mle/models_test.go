package mle

import (
	"math"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
)

// TestProblemDataBivariate: the bivariate problem interleaves the
// locations and the two variables per location (ExaGeoStat's layout).
func TestProblemDataBivariate(t *testing.T) {
	d := &dataset.Data{X: []float64{1, 2}, Y: []float64{3, 4}, Obs: []float64{5, 6}, Obs2: []float64{7, 8}}
	p, z := ProblemData(d, likelihood.BivariateMatern)
	if !slices.Equal(p.X, []float64{1, 1, 2, 2}) || !slices.Equal(p.Y, []float64{3, 3, 4, 4}) || !slices.Equal(z, []float64{5, 7, 6, 8}) {
		t.Fatalf("points %v %v obs %v", p.X, p.Y, z)
	}
	p, z = ProblemData(d, likelihood.Matern)
	if !slices.Equal(p.X, d.X) || !slices.Equal(z, d.Obs) {
		t.Fatalf("univariate: %v %v", p.X, z)
	}
	g := Guess(d, 0, likelihood.BivariateMatern)
	// var z1 = var z2 = 0.25, correlation 1 (clipped to 0.99).
	if len(g) != 6 || g[0] != 0.25 || g[1] != 0.25 || g[5] != 0.99 {
		t.Fatalf("guess %v", g)
	}
}

// TestLogScaleSignedParameter: with LogScale, a parameter whose lower
// bound is not positive (the bivariate rho) is searched linearly, and
// reaches a negative maximiser.
func TestLogScaleSignedParameter(t *testing.T) {
	f := func(th []float64) (float64, error) {
		return -(th[0]-2)*(th[0]-2) - (th[1]+0.5)*(th[1]+0.5), nil
	}
	r, err := Maximize(f, Options{Lower: []float64{0.1, -1}, Upper: []float64{5, 1}, LogScale: true, Start: StartData,
		Guess: []float64{1, 0}, FtolAbs: 1e-12}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Theta[0]-2) > 1e-4 || math.Abs(r.Theta[1]+0.5) > 1e-4 {
		t.Fatalf("theta %v", r.Theta)
	}
}
