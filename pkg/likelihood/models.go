package likelihood

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/matern"
)

// SpaceTimeMatern is ExaGeoStat's univariate_spacetime_matern_stationary
// (Gneiting 2002, equation (16), d = 2): for spatial distance h and time
// lag u, psi(u) = |u|^(2 alpha)/beta_t + 1 and
//
//	C(h, u) = sigma2 / psi(u)^(sep+delta) * M_nu((h/beta) / psi(u)^(sep/2)),
//
// M_nu the Matérn correlation; theta = (sigma2, beta, nu, beta_t, alpha,
// sep, delta) in ExaGeoStat's order (see matern.SpaceTime). The points
// carry their times in Points.T.
const SpaceTimeMatern Model = "spacetime-matern"

// BivariateMatern is ExaGeoStat's bivariate_matern_parsimonious (Gneiting,
// Kleiber and Schlather 2010): two variables at each location with
//
//	C_ii(h) = sigma2_i M_nu_i(h/beta),
//	C_12(h) = rho sqrt(nu1 nu2)/nu12 sqrt(sigma2_1 sigma2_2) M_nu12(h/beta),  nu12 = (nu1+nu2)/2,
//
// theta = (sigma2_1, sigma2_2, beta, nu1, nu2, rho) in ExaGeoStat's order,
// |rho| <= 1 (see matern.Bivariate). The problem's 2N points and
// observations are interleaved per location as ExaGeoStat's: point 2i is
// variable 1 at location i, point 2i+1 variable 2 at the same location
// (matern.Interleave).
const BivariateMatern Model = "bivariate-matern"

// AnisoMatern is the 2D Matérn with geometric anisotropy (see
// matern.Aniso): with the lag (dx, dy) rotated by -angle into (u, v),
//
//	C(dx, dy) = sigma2 M_nu(sqrt(u^2 + (ratio v)^2) / beta),
//
// theta = (sigma2, beta, nu, angle, ratio): beta the range along the major
// axis, angle its direction in radians counter-clockwise from the x axis
// (period pi), ratio >= 1 the major over the minor range. Planar 2D
// points only (Euclidean metric, no third coordinate, no times).
const AnisoMatern Model = "aniso-matern"

// extraParamNames returns the parameter names of the models of this file,
// or nil for another model.
func (m Model) extraParamNames() []string {
	switch m {
	case SpaceTimeMatern:
		return matern.SpaceTimeParamNames()
	case BivariateMatern:
		return matern.BivariateParamNames()
	case AnisoMatern:
		return matern.AnisoParamNames()
	}
	return nil
}

// extraKernel returns the kernel of a model of this file (ok true), or ok
// false for another model.
func (m Model) extraKernel(theta []float64, rmax float64) (k matern.Kernel, ok bool, err error) {
	switch m {
	case SpaceTimeMatern:
		k, err := pairKernel(theta, rmax, matern.NewSpaceTimeTheta, matern.NewSpaceTime)
		return k, true, err
	case BivariateMatern:
		k, err := pairKernel(theta, rmax, matern.NewBivariateTheta, matern.NewBivariate)
		return k, true, err
	case AnisoMatern:
		if len(theta) == 6 { // (..., tau2): the nugget is no part of the covariance function
			if t := theta[5]; !(t >= 0) || math.IsInf(t, 0) {
				return nil, true, fmt.Errorf("%s must be >= 0 and finite, got %g", Tau2Name, t)
			}
			theta = theta[:5]
		}
		k, err := pairKernel(theta, rmax, matern.NewAnisoTheta, matern.NewAniso)
		return k, true, err
	}
	return nil, false, nil
}

// pairKernel builds the kernel of a model of this file: its parameters
// read from theta by params, then the kernel for distances up to rmax by
// kernel.
func pairKernel[P any](theta []float64, rmax float64, params func([]float64) (P, error),
	kernel func(P, float64) (matern.PairKernel, error)) (matern.Kernel, error) {
	p, err := params(theta)
	if err != nil {
		return nil, err
	}
	return kernel(p, rmax)
}

// needsTimes reports whether the model reads Points.T.
func (m Model) needsTimes() bool { return m == SpaceTimeMatern }

// checkPoints reports points the model cannot use: a space-time model
// needs one time per point.
func (m Model) checkPoints(p matern.Points) error {
	if m.needsTimes() && len(p.T) != len(p.X) {
		return fmt.Errorf("likelihood: kernel %s needs a time for each location (a t column), got %d times for %d locations", m, len(p.T), len(p.X))
	}
	if m == AnisoMatern && (p.Z != nil || p.T != nil) {
		return fmt.Errorf("likelihood: kernel %s takes planar 2D locations (x, y) without a third coordinate or times", m)
	}
	if m == BivariateMatern {
		if p.Z != nil || p.T != nil {
			return fmt.Errorf("likelihood: kernel %s takes 2D locations (its rho bound is the plane's)", m)
		}
		if len(p.X)%2 != 0 {
			return fmt.Errorf("likelihood: kernel %s needs an even number of points (two variables per location), got %d", m, len(p.X))
		}
		for i := 0; i < len(p.X); i += 2 {
			if p.X[i] != p.X[i+1] || p.Y[i] != p.Y[i+1] {
				return fmt.Errorf("likelihood: kernel %s needs its points interleaved, 2i and 2i+1 at the same location (matern.Interleave)", m)
			}
		}
	}
	return nil
}

// checkMetric reports a metric the model cannot use: the anisotropic
// Matérn's angle is one of the plane (Euclidean distances only).
func (m Model) checkMetric(metric matern.Metric) error {
	if m == AnisoMatern && metric != matern.Euclidean {
		return fmt.Errorf("likelihood: kernel %s needs Euclidean distances of planar x, y (an angle has no meaning on the sphere), got %s", m, metric)
	}
	return nil
}
