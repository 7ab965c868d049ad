package config

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/matern"
)

// SpaceTimeKernel is the space-time Matérn's name (pkg/likelihood's
// SpaceTimeMatern): theta = (sigma2, beta, nu, beta_t, alpha, sep, delta),
// ExaGeoStat's univariate_spacetime_matern_stationary.
const SpaceTimeKernel = "spacetime-matern"

// checkSpaceTime reports a space-time theta (7 values) outside the model's
// domain beyond CheckTheta's positivity: alpha <= 1, sep <= 1 (Gneiting's
// conditions; sep = 0 and delta = 0 are valid models but the schema, like
// every kernel's, keeps theta positive).
func checkSpaceTime(theta []float64) error {
	if theta[4] > 1 {
		return fmt.Errorf("alpha must be in (0, 1], got %g", theta[4])
	}
	if theta[5] > 1 {
		return fmt.Errorf("sep must be in (0, 1], got %g", theta[5])
	}
	return nil
}

// spaceTimeBounds reports upper bounds of alpha or sep above 1.
func spaceTimeBounds(lb, ub []float64) (key, msg string) {
	if len(lb) != 7 || len(ub) != 7 {
		return "", ""
	}
	for _, i := range []int{4, 5} {
		if ub[i] > 1 {
			key = "ub"
			if lb[i] > 1 {
				key = "lb"
			}
			return key, fmt.Sprintf("bounds of %s must lie within (0, 1] for %s, got [%g, %g]; its default upper bound is 1", matern.SpaceTimeParamNames()[i], SpaceTimeKernel, lb[i], ub[i])
		}
	}
	return "", ""
}

// checkTimes reports a number of time slots that does not suit the
// kernel of a simulation of n points: the space-time Matérn needs times
// >= 2 dividing n (n/times sites observed at times 1 .. times), any other
// kernel times <= 1.
func checkTimes(kernel string, n, times int) error {
	switch {
	case times < 0:
		return fmt.Errorf("--times must be >= 0, got %d", times)
	case kernel == SpaceTimeKernel && times < 2:
		return fmt.Errorf("%s simulates n/times sites at times 1..times: give --times >= 2", kernel)
	case kernel != SpaceTimeKernel && times > 1:
		return fmt.Errorf("--times is for the kernel %s (kernel %s has no time)", SpaceTimeKernel, kernel)
	case times > 1 && n%times != 0:
		return fmt.Errorf("--times %d must divide n = %d", times, n)
	}
	return nil
}
