package job

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/matern"
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
	// Wald is the Wald interval estimate -+ z sd at the same level (z the
	// normal quantile, sd the standard error from the Fisher information;
	// by the delta method for a derived parameter), when the standard
	// errors were computed.
	Wald []float64 `json:"wald,omitempty"`
}

// EffectiveRangeParam names the effective range's interval.
const EffectiveRangeParam = "effective_range"

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
			// Profile the variance out only where the constrained fit
			// still can: not with sigma2 fixed (nothing to profile out)
			// nor with tau2 fixed (sigma2 is then no scale of Sigma).
			o.Profile = fo.Profile && mle.Profilable(fo.Model, o.Opt.Lower, o.Opt.Upper, fo.Nugget) == nil
			iv.Fits++
			r, err := mle.Fit(d, o, nil)
			if err != nil {
				return 0, fmt.Errorf("profile of %s at %g: %w", names[j], v, err)
			}
			return r.LogLik, nil
		}
		var err error
		if iv.Lower, iv.Upper, iv.LowerAtBound, iv.UpperAtBound, err = profileEnds(theta[j], lb, ub, target, prof); err != nil {
			return nil, err
		}
		out = append(out, iv)
	}
	return out, nil
}

// profileEnds returns the ends of {v in [lb, ub] : prof(v) >= target}
// about the estimate est (prof(est) = l_max): from est, each end is
// bracketed by halving or doubling v (a bound when the profile does not
// cross target before it: atLo/atHi) and bisected on log v to a relative
// 1e-6.
func profileEnds(est, lb, ub, target float64, prof func(float64) (float64, error)) (lo, hi float64, atLo, atHi bool, err error) {
	for _, dir := range []float64{-1, 1} {
		bound := lb
		if dir > 0 {
			bound = ub
		}
		in, out := est, est // profile above target at in, below at out
		found := false
		for range 60 {
			next := in * math.Pow(2, dir)
			if (dir < 0 && next <= bound) || (dir > 0 && next >= bound) {
				next = bound
			}
			l, err := prof(next)
			if err != nil {
				return 0, 0, false, false, err
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
					return 0, 0, false, false, err
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
			lo, atLo = end, !found
		} else {
			hi, atHi = end, !found
		}
	}
	return lo, hi, atLo, atHi, nil
}

// effectiveRangeInterval returns the level profile-likelihood interval of
// the Matérn effective range rho = beta c(nu) (the distance at which the
// correlation falls to matern.EffectiveRangeLevel; c(nu) that of beta = 1):
// {rho : 2 (l_max - l_p(rho)) <= q} with
//
//	l_p(rho) = max over nu of l_c(rho / c(nu), nu),
//
// l_c(beta, nu) the constrained fit of the other parameters (sigma2, the
// nugget) at beta and nu fixed, each a fit of fo as profileIntervals'. The
// inner maximum is a golden-section search on log nu (to 1e-6) in a
// bracket grown from the best nu of the previous rho (or, if no nu near it
// gives a finite value, from the best of 17 nu spread over nu's bounds); a
// nu whose beta leaves beta's bounds, or whose fit fails (a matrix not
// positive definite), counts as -Inf, and a rho with no finite nu is
// outside the interval. A fixed nu leaves one fit per rho. The ends are
// profileEnds' on rho, bounded by the effective ranges at the bounds of
// beta and nu.
func effectiveRangeInterval(d *dataset.Data, fo mle.FitOptions, theta []float64, lmax, level float64) (*Interval, error) {
	c := func(nu float64) (float64, error) { return matern.EffectiveRange(1, nu, matern.EffectiveRangeLevel) }
	c0, err := c(theta[2])
	if err != nil {
		return nil, err
	}
	iv := &Interval{Param: EffectiveRangeParam, Estimate: theta[1] * c0}
	blo, bhi := fo.Opt.Lower[1], fo.Opt.Upper[1]
	nlo, nhi := fo.Opt.Lower[2], fo.Opt.Upper[2]
	fitAt := func(beta, nu float64) float64 {
		if beta < blo || beta > bhi {
			return math.Inf(-1)
		}
		o := fo
		o.Opt.Lower, o.Opt.Upper = slices.Clone(fo.Opt.Lower), slices.Clone(fo.Opt.Upper)
		o.Opt.Lower[1], o.Opt.Upper[1] = beta, beta
		o.Opt.Lower[2], o.Opt.Upper[2] = nu, nu
		o.Opt.Guess = slices.Clone(theta)
		o.Opt.Guess[1], o.Opt.Guess[2] = beta, nu
		o.Opt.Start, o.Opt.Stop, o.Opt.Replay = mle.StartData, nil, nil
		o.After, o.Trace = nil, false
		iv.Fits++
		r, err := mle.Fit(d, o, nil)
		if err != nil {
			return math.Inf(-1)
		}
		return r.LogLik
	}
	nuBest := theta[2]
	prof := func(rho float64) (float64, error) {
		if nlo == nhi {
			cv, err := c(nlo)
			if err != nil {
				return 0, err
			}
			return fitAt(rho/cv, nlo), nil
		}
		f := func(u float64) float64 {
			cv, err := c(math.Exp(u))
			if err != nil {
				return math.Inf(-1)
			}
			return fitAt(rho/cv, math.Exp(u))
		}
		ulo, uhi := math.Log(nlo), math.Log(nhi)
		u, l, err := maxGolden(f, math.Log(nuBest), ulo, uhi)
		if err != nil {
			// Near a bound of beta only some smoothnesses keep beta =
			// rho / c(nu) inside them: start from the best of a grid of
			// nu over its bounds; none finite is a profile of -Inf
			// (outside the interval).
			best, fbest := 0.0, math.Inf(-1)
			for i := range 17 {
				ui := ulo + (uhi-ulo)*float64(i)/16
				if fi := f(ui); fi > fbest {
					best, fbest = ui, fi
				}
			}
			if math.IsInf(fbest, -1) {
				return math.Inf(-1), nil
			}
			if u, l, err = maxGolden(f, best, ulo, uhi); err != nil {
				return 0, fmt.Errorf("profile of the effective range at %g: %w", rho, err)
			}
		}
		nuBest = math.Exp(u)
		return l, nil
	}
	// rho's range: beta's bounds times c at nu's bounds (c increases with nu).
	clo, err := c(nlo)
	if err != nil {
		return nil, err
	}
	chi, err := c(nhi)
	if err != nil {
		return nil, err
	}
	target := lmax - chi2Quantile1(level)/2
	if iv.Lower, iv.Upper, iv.LowerAtBound, iv.UpperAtBound, err = profileEnds(iv.Estimate, blo*clo, bhi*chi, target, prof); err != nil {
		return nil, err
	}
	return iv, nil
}

// maxGolden maximises f over [lo, hi] from u0: a bracket a < b < c with
// f(b) >= f(a), f(c) grown from [u0 - 0.05, u0 + 0.05] (doubling its
// steps, clamped to [lo, hi]), then golden-section search to a width of
// 1e-6. It returns the best point and value, or an error if f is -Inf
// everywhere it looked.
func maxGolden(f func(float64) float64, u0, lo, hi float64) (float64, float64, error) {
	u0 = math.Min(math.Max(u0, lo), hi)
	b, fb := u0, f(u0)
	h := 0.05
	a, c := math.Max(b-h, lo), math.Min(b+h, hi)
	fa, fc := f(a), f(c)
	for range 60 {
		switch {
		case fa > fb && a > lo: // rises to the left
			c, fc = b, fb
			b, fb = a, fa
			h *= 2
			a = math.Max(b-h, lo)
			fa = f(a)
		case fc > fb && c < hi: // rises to the right
			a, fa = b, fb
			b, fb = c, fc
			h *= 2
			c = math.Min(b+h, hi)
			fc = f(c)
		default:
			goto bracketed
		}
	}
bracketed:
	best, fbest := b, fb
	for _, p := range [][2]float64{{a, fa}, {c, fc}} {
		if p[1] > fbest {
			best, fbest = p[0], p[1]
		}
	}
	if math.IsInf(fbest, -1) {
		return 0, 0, fmt.Errorf("no smoothness in [%g, %g] near %g gives a finite likelihood", math.Exp(lo), math.Exp(hi), math.Exp(u0))
	}
	const g = 0.3819660112501051 // (3 - sqrt 5)/2
	x1, x2 := a+g*(c-a), c-g*(c-a)
	f1, f2 := f(x1), f(x2)
	for c-a > 1e-6 {
		if f1 >= f2 {
			c, x2, f2 = x2, x1, f1
			x1 = a + g*(c-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = c - g*(c-a)
			f2 = f(x2)
		}
	}
	for _, p := range [][2]float64{{x1, f1}, {x2, f2}} {
		if p[1] > fbest {
			best, fbest = p[0], p[1]
		}
	}
	return best, fbest, nil
}

// setWald sets the Wald interval of each interval at level from the fit's
// standard errors: estimate -+ z sd, z = sqrt(chi2_1 quantile) (1.96 at
// 95 %). For the effective range rho = beta c(nu) the delta method gives
// sd^2 = g^T I^-1 g with g = d rho/d(free parameters): c(nu) for beta,
// beta c'(nu) for nu (a central difference of step 1e-4 nu), 0 for the
// others, and I the Fisher information of the free parameters. Nothing is
// set without standard errors.
func setWald(ivs []Interval, names []string, theta []float64, a Assessment, level float64) {
	z := math.Sqrt(chi2Quantile1(level))
	for k := range ivs {
		iv := &ivs[k]
		if iv.Param == EffectiveRangeParam {
			sd, ok := effectiveRangeSD(theta, a)
			if ok {
				iv.Wald = []float64{iv.Estimate - z*sd, iv.Estimate + z*sd}
			}
			continue
		}
		j := slices.Index(names, iv.Param)
		if j < 0 || j >= len(a.StdErr) || !(a.StdErr[j] > 0) {
			continue
		}
		iv.Wald = []float64{theta[j] - z*a.StdErr[j], theta[j] + z*a.StdErr[j]}
	}
}

// effectiveRangeSD is the delta-method standard error of setWald.
func effectiveRangeSD(theta []float64, a Assessment) (float64, bool) {
	m := len(a.FisherOf)
	if m == 0 || len(a.Fisher) != m {
		return 0, false
	}
	info := mat.NewSymDense(m, nil)
	for i := range m {
		for j := range m {
			info.SetSym(i, j, a.Fisher[i][j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(info) {
		return 0, false
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		return 0, false
	}
	c := func(nu float64) float64 {
		v, _ := matern.EffectiveRange(1, nu, matern.EffectiveRangeLevel)
		return v
	}
	beta, nu := theta[1], theta[2]
	g := make([]float64, m)
	for i, p := range a.FisherOf {
		switch p {
		case "beta":
			g[i] = c(nu)
		case "nu":
			h := 1e-4 * nu
			g[i] = beta * (c(nu+h) - c(nu-h)) / (2 * h)
		}
	}
	v := 0.0
	for i := range m {
		for j := range m {
			v += g[i] * cov.At(i, j) * g[j]
		}
	}
	if !(v >= 0) {
		return 0, false
	}
	return math.Sqrt(v), true
}
