package matern

import (
	"fmt"
	"math"
)

// EffectiveRangeLevel is the correlation at which EffectiveRange measures
// a covariance's reach (the practical range of geostatistics).
const EffectiveRangeLevel = 0.05

// EffectiveRange returns the distance at which the Matérn correlation
// rho(r) = 2^(1-nu)/Gamma(nu) (r/beta)^nu K_nu(r/beta) falls to level
// (0 < level < 1): the root of rho(r) = level, found by bracketing
// (doubling from r = beta) and bisection to a relative 1e-12 on the direct
// correlation (rho is decreasing in r). For nu = 0.5, r = beta ln(1/level).
func EffectiveRange(beta, nu, level float64) (float64, error) {
	if !(beta > 0) || !(nu > 0) || math.IsInf(beta, 0) || math.IsInf(nu, 0) {
		return 0, fmt.Errorf("effective range: need beta, nu > 0 and finite, got %g, %g", beta, nu)
	}
	if !(level > 0 && level < 1) {
		return 0, fmt.Errorf("effective range: level %g outside (0, 1)", level)
	}
	t := Theta{Sigma2: 1, Beta: beta, Nu: nu}
	lo, hi := 0.0, beta
	for i := 0; Matern(t, hi) > level; i++ {
		if i > 2000 {
			return 0, fmt.Errorf("effective range: the correlation stays above %g", level)
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-12*hi {
		mid := lo + (hi-lo)/2
		if Matern(t, mid) > level {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2, nil
}

// PowExpEffectiveRange returns the distance at which the powered
// exponential correlation exp(-r^delta/beta) falls to level:
// r = (beta ln(1/level))^(1/delta).
func PowExpEffectiveRange(beta, delta, level float64) float64 {
	return math.Pow(beta*math.Log(1/level), 1/delta)
}
