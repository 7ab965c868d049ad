package config

import (
	"fmt"
	"math"
)

// BivariateKernel is the parsimonious bivariate Matérn's name (pkg/
// likelihood's BivariateMatern): theta = (sigma2_1, sigma2_2, beta, nu1,
// nu2, rho), ExaGeoStat's bivariate_matern_parsimonious, |rho| <= 1.
const BivariateKernel = "bivariate-matern"

// bivariateRho is the index of rho in theta.
const bivariateRho = 5

// signed reports whether parameter i of the kernel may be negative or
// zero (the bivariate rho, the anisotropic angle); its bounds are then
// checked by kernelBounds and its value by CheckTheta's kernel check.
func signed(kernel string, i int) bool {
	return kernel == BivariateKernel && i == bivariateRho || kernel == AnisoKernel && i == anisoAngle
}

// checkBivariate reports a rho outside [-1, 1] (the parsimonious model's
// admissible range: ExaGeoStat scales rho by Gneiting et al.'s bound).
func checkBivariate(theta []float64) error {
	if r := theta[bivariateRho]; !(math.Abs(r) <= 1) {
		return fmt.Errorf("rho must be in [-1, 1] (the parsimonious bivariate Matérn is a covariance only there: ExaGeoStat's rho is scaled by the bound sqrt(nu1 nu2)/nu12), got %g", r)
	}
	return nil
}

// bivariateBounds reports bounds of rho outside [-1, 1].
func bivariateBounds(lb, ub []float64) (key, msg string) {
	if len(lb) != 6 || len(ub) != 6 {
		return "", ""
	}
	l, u := lb[bivariateRho], ub[bivariateRho]
	switch {
	case !(l >= -1 && l <= 1):
		key = "lb"
	case !(u >= -1 && u <= 1):
		key = "ub"
	default:
		return "", ""
	}
	return key, fmt.Sprintf("bounds of rho must lie within [-1, 1] for %s, got [%g, %g]", BivariateKernel, l, u)
}
