package mle

import (
	"math"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// ProblemData returns the points and observations of the likelihood
// problem of d under model: d's locations and Obs, or for the bivariate
// Matérn the 2N interleaved points (matern.Interleave) and observations
// z1(1), z2(1), z1(2), z2(2), ... (ExaGeoStat's layout).
func ProblemData(d *dataset.Data, model likelihood.Model) (matern.Points, []float64) {
	if model != likelihood.BivariateMatern {
		return Points(d), d.Obs
	}
	z := make([]float64, 2*len(d.Obs))
	for i := range d.Obs {
		z[2*i] = d.Obs[i]
		if d.Obs2 != nil {
			z[2*i+1] = d.Obs2[i]
		}
	}
	return matern.Interleave(Points(d)), z
}

// bivariateGuess is the data-driven start of the bivariate Matérn: the
// sample variances of z1 and z2, beta, nu1 = nu2 = 0.5 and rho = the
// sample correlation of z1 and z2 (the bound b is 1 at nu1 = nu2).
func bivariateGuess(d *dataset.Data, beta float64) []float64 {
	n := float64(len(d.Obs))
	var m1, m2 float64
	for i := range d.Obs {
		m1 += d.Obs[i]
		m2 += d.Obs2[i]
	}
	m1, m2 = m1/n, m2/n
	var v1, v2, c float64
	for i := range d.Obs {
		a, b := d.Obs[i]-m1, d.Obs2[i]-m2
		v1, v2, c = v1+a*a, v2+b*b, c+a*b
	}
	rho := 0.0
	if v1 > 0 && v2 > 0 {
		rho = math.Max(-0.99, math.Min(0.99, c/math.Sqrt(v1*v2)))
	}
	return []float64{v1 / n, v2 / n, beta, 0.5, 0.5, rho}
}

// AnisoAngle is the index of the angle in the anisotropic Matérn's theta.
const AnisoAngle = 3

// ReduceAngle returns the direction of an axis, a (radians), reduced
// modulo pi to [0, pi): the anisotropic Matérn has period pi in its
// angle, and Fit reports the estimate so reduced (whatever the bounds
// searched, which may be any interval within [-pi, 2 pi]).
func ReduceAngle(a float64) float64 {
	r := math.Mod(a, math.Pi)
	if r < 0 {
		r += math.Pi
	}
	if r >= math.Pi { // -tiny + pi rounds to pi
		r = 0
	}
	return r
}
