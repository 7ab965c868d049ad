package job

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/likelihood"
)

// GstatAnis returns gstat's anisotropy parameters, vgm(..., anis = c(p,
// s)), of the aniso-matern's angle and ratio. gstat's p is the direction
// of the major axis (its principal direction of continuity) in degrees
// clockwise from north (the +y axis), in [0, 180); its s is the minor
// over the major range, in (0, 1]. The kernel's angle is that direction
// in radians counter-clockwise from the x axis, its ratio the major over
// the minor range (>= 1), so
//
//	p = (90 - angle 180/pi) mod 180,   s = 1/ratio,
//
// and back: angle = (90 - p) pi/180 (mod pi), ratio = 1/s. gstat's range
// is beta along the major axis and its range times s, beta/ratio, along
// the minor one, as the kernel's.
func GstatAnis(angle, ratio float64) (p, s float64) {
	p = math.Mod(90-angle*180/math.Pi, 180)
	if p < 0 {
		p += 180
	}
	if p >= 180 { // -0 and rounding
		p = 0
	}
	return p, 1 / ratio
}

// gstatVgm returns gstat's variogram model equal to the fitted covariance
// (theta of model, nugget tau2), vgm(psill = sigma2, model = "Mat", range
// = beta, nugget = tau2, kappa = nu[, anis = c(p, s)]), and for
// aniso-matern gstat's (p, s) (GstatAnis). gstat's Matérn, "Mat", is
// psill (h/a)^kappa K_kappa(h/a) / (2^(kappa-1) Gamma(kappa)) at lag h
// (range a): the kernel's Matérn with a = beta and kappa = nu (no sqrt(2
// nu) in the scale), so the values carry over as they are. "" for the
// kernels gstat has no model of (powexp, space-time, bivariate).
func gstatVgm(model likelihood.Model, theta []float64, tau2 float64) (string, []float64) {
	if len(theta) < 3 || (model != likelihood.Matern && model != likelihood.AnisoMatern) {
		return "", nil
	}
	vgm := fmt.Sprintf(`vgm(psill = %.6g, model = "Mat", range = %.6g, nugget = %.6g, kappa = %.6g`, theta[0], theta[1], tau2, theta[2])
	if model != likelihood.AnisoMatern || len(theta) < 5 {
		return vgm + ")", nil
	}
	p, s := GstatAnis(theta[3], theta[4])
	return vgm + fmt.Sprintf(", anis = c(%.6g, %.6g))", p, s), []float64{p, s}
}
