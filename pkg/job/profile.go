package job

import (
	"fmt"
	"math"
	"slices"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/mle"
)

// Interval is a profile-likelihood confidence interval of one parameter:
// {v : 2 (l_max - l_p(v)) <= q}, l_p(v) the largest l with the parameter
// fixed at v (a constrained fit) and q the chi-square(1) quantile of the
// level. An end the profile does not cross inside the bounds is the bound,
// flagged.
type Interval struct {
	Param        string  `json:"param"`
	Estimate     float64 `json:"estimate"`
	Lower        float64 `json:"lower"`
	Upper        float64 `json:"upper"`
	LowerAtBound bool    `json:"lower_at_bound,omitempty"`
	UpperAtBound bool    `json:"upper_at_bound,omitempty"`
	Fits         int     `json:"constrained_fits"`
}

// chi2Quantile1 returns the quantile of the chi-square distribution with
// one degree of freedom at level: (sqrt 2 erfinv(level))^2.
func chi2Quantile1(level float64) float64 {
	x := math.Sqrt2 * math.Erfinv(level)
	return x * x
}

// profileIntervals returns the level profile-likelihood intervals of the
// free parameters of a fit of d at its estimate theta (l = lmax), each
// end found by bracketing away from the estimate (halving or doubling) and
// bisection on log v to a relative 1e-6, each point a fit of the other
// parameters (fo, warm-started at the estimate) on the same runtime.
func profileIntervals(d *dataset.Data, fo mle.FitOptions, names []string, theta []float64, lmax, level float64) ([]Interval, error) {
	target := lmax - chi2Quantile1(level)/2
	var out []Interval
	for j := range theta {
		lb, ub := fo.Opt.Lower[j], fo.Opt.Upper[j]
		if lb == ub {
			continue
		}
		iv := Interval{Param: names[j], Estimate: theta[j]}
		prof := func(v float64) (float64, error) {
			o := fo
			o.Opt.Lower, o.Opt.Upper = slices.Clone(fo.Opt.Lower), slices.Clone(fo.Opt.Upper)
			o.Opt.Lower[j], o.Opt.Upper[j] = v, v
			o.Opt.Guess = slices.Clone(theta)
			o.Opt.Guess[j] = v
			o.Opt.Start, o.Opt.Stop, o.Opt.Replay = mle.StartData, nil, nil
			o.After, o.Trace = nil, false
			o.Profile = fo.Profile && j != 0 // sigma2 fixed: nothing to profile out
			iv.Fits++
			r, err := mle.Fit(d, o, nil)
			if err != nil {
				return 0, fmt.Errorf("profile of %s at %g: %w", names[j], v, err)
			}
			return r.LogLik, nil
		}
		for _, dir := range []float64{-1, 1} {
			bound := lb
			if dir > 0 {
				bound = ub
			}
			in, out := theta[j], theta[j] // profile above target at in, below at out
			found := false
			for range 60 {
				next := in * math.Pow(2, dir)
				if (dir < 0 && next <= bound) || (dir > 0 && next >= bound) {
					next = bound
				}
				l, err := prof(next)
				if err != nil {
					return nil, err
				}
				if l < target {
					out, found = next, true
					break
				}
				in = next
				if next == bound {
					break
				}
			}
			end := bound
			if found {
				for math.Abs(math.Log(out/in)) > 1e-6 {
					mid := math.Sqrt(in * out)
					l, err := prof(mid)
					if err != nil {
						return nil, err
					}
					if l < target {
						out = mid
					} else {
						in = mid
					}
				}
				end = math.Sqrt(in * out)
			}
			if dir < 0 {
				iv.Lower, iv.LowerAtBound = end, !found
			} else {
				iv.Upper, iv.UpperAtBound = end, !found
			}
		}
		out = append(out, iv)
	}
	return out, nil
}
