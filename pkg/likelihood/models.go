package likelihood

import (
	"fmt"

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

// extraParamNames returns the parameter names of the models of this file,
// or nil for another model.
func (m Model) extraParamNames() []string {
	switch m {
	case SpaceTimeMatern:
		return matern.SpaceTimeParamNames()
	}
	return nil
}

// extraKernel returns the kernel of a model of this file (ok true), or ok
// false for another model.
func (m Model) extraKernel(theta []float64, rmax float64) (k matern.Kernel, ok bool, err error) {
	switch m {
	case SpaceTimeMatern:
		s, err := matern.NewSpaceTimeTheta(theta)
		if err != nil {
			return nil, true, err
		}
		k, err := matern.NewSpaceTime(s, rmax)
		return k, true, err
	}
	return nil, false, nil
}

// needsTimes reports whether the model reads Points.T.
func (m Model) needsTimes() bool { return m == SpaceTimeMatern }

// checkPoints reports points the model cannot use: a space-time model
// needs one time per point.
func (m Model) checkPoints(p matern.Points) error {
	if m.needsTimes() && len(p.T) != len(p.X) {
		return fmt.Errorf("likelihood: kernel %s needs a time for each location (a t column), got %d times for %d locations", m, len(p.T), len(p.X))
	}
	return nil
}
