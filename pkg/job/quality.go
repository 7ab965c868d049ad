package job

import (
	"fmt"
	"math"
	"strings"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/mle"
)

// Quality flags a fit whose result is a result, but perhaps not the
// maximum-likelihood estimate it looks like: estimates at a bound, a
// search stopped by a limit, constant observations, a start the optimiser
// moved. The exit status stays 0: the table and the JSON say it.
type Quality struct {
	// Converged is false when the search stopped at a limit (max_evals,
	// an interruption) rather than by its convergence test.
	Converged bool `json:"converged"`
	// AtBound tells, per parameter in theta order, where the estimate
	// lies: "" inside its bounds, "lower" or "upper" at (within a relative
	// 1e-6 of) that bound, "fixed" when lb = ub.
	AtBound []string `json:"at_bound"`
	// Warnings are the sentences the table prints under the estimates.
	Warnings []string `json:"warnings,omitempty"`
}

// constantTol: observations whose variance is at most this times their
// mean square are constant for the warning.
const constantTol = 1e-12

// flagFit fills r.Quality from the result, the observations fitted and the
// search's settings, and marks the standard errors of estimates at a
// bound as not meaningful (r.StdErrNote).
func flagFit(r *FitResult, obs []float64, maxEvals int) {
	v, ms := variance(obs)
	flagFitVar(r, v, ms, maxEvals)
}

// flagFitVar is flagFit given the variance v and the mean square ms of
// the observations (variance), not the observations.
func flagFitVar(r *FitResult, v, ms float64, maxEvals int) {
	q := &r.Quality
	q.Converged = mle.Converged(r.Status)
	q.AtBound = mle.AtBound(r.Theta, r.Lower, r.Upper)
	var bounded []string
	for i, b := range q.AtBound {
		if b != mle.AtLower && b != mle.AtUpper {
			continue
		}
		bound := r.Lower[i]
		if b == mle.AtUpper {
			bound = r.Upper[i]
		}
		bounded = append(bounded, r.Params[i])
		q.Warnings = append(q.Warnings, fmt.Sprintf("%s = %.6g is at its %s bound %g: the likelihood may be highest beyond it (widen the bounds, or fix %s with lb = ub)",
			r.Params[i], r.Theta[i], b, bound, r.Params[i]))
	}
	if w := nuggetNote(r, q.AtBound); w != "" {
		bounded = append(bounded, r.Params[len(r.Params)-1])
		q.Warnings = append(q.Warnings, w)
	}
	if len(bounded) > 0 && r.StdErr != nil {
		r.StdErrNote = joinNote(r.StdErrNote, fmt.Sprintf("not meaningful for %s (at or next to a bound, where the likelihood has no maximum of which they describe the curvature)",
			strings.Join(bounded, ", ")))
	}
	if !q.Converged {
		why := "raise --max-evals"
		if maxEvals <= 0 || !strings.Contains(r.Status, "MAXEVAL") {
			why = "continue it with --resume"
		}
		q.Warnings = append(q.Warnings, fmt.Sprintf("the search stopped after %d evaluations with status %s, before converging: theta is the best point seen, not the maximum (%s)",
			r.Evaluations, r.Status, why))
	}
	if v <= constantTol*ms {
		q.Warnings = append(q.Warnings, fmt.Sprintf("the observations are constant (variance %.3g, mean square %.3g): a zero-mean Gaussian field cannot tell sigma2 from the mean, and beta and the smoothness are not identified",
			v, ms))
	}
	if len(r.Steps) > 0 {
		for _, i := range mle.MovedStart(r.Start, r.Steps[0].Theta) {
			if q.AtBound[i] == mle.Fixed {
				continue
			}
			q.Warnings = append(q.Warnings, fmt.Sprintf("the optimiser moved the start of %s from %.6g to %.6g: BOBYQA moves a start that lies within its first step (a tenth of the range [%g, %g] on the search scale) of a bound; narrow that range to start where the data suggest",
				r.Params[i], r.Start[i], r.Steps[0].Theta[i], r.Lower[i], r.Upper[i]))
		}
	}
}

// NuggetNegligible and NuggetNearBound are the thresholds of the
// estimated nugget's warning (nuggetNote): tau2 at most NuggetNegligible
// times sigma2, or within NuggetNearBound of its bounds' width of its
// lower bound.
const (
	NuggetNegligible = 1e-4
	NuggetNearBound  = 1e-4
)

// nuggetNote returns the warning of an estimated nugget tau2 (theta's last
// value, named likelihood.Tau2Name, free) that ends negligible or next to
// its lower bound without being at it (mle.AtBound: within a relative 1e-6
// of lb, which for lb = 0 is only tau2 = 0 exactly): tau2 <=
// NuggetNegligible sigma2, or tau2 - lb <= NuggetNearBound (ub - lb). A
// search on [0, ub] that wants no nugget stops a step short of 0 (4.9e-7
// on meuse); the estimate is then 0 for every purpose, the likelihood is
// highest at (or beyond) the bound, and its standard error is no curvature
// of a maximum. "" when neither holds.
func nuggetNote(r *FitResult, atBound []string) string {
	i := len(r.Params) - 1
	if i < 1 || r.Params[i] != likelihood.Tau2Name || len(r.Theta) != len(r.Params) || i >= len(r.Lower) || i >= len(r.Upper) || atBound[i] != "" {
		return ""
	}
	tau2, lb, ub, sigma2 := r.Theta[i], r.Lower[i], r.Upper[i], r.Theta[0]
	var why []string
	if sigma2 > 0 && tau2 <= NuggetNegligible*sigma2 {
		why = append(why, fmt.Sprintf("negligible against %s = %.6g (tau2/%s = %.3g, below %g)", r.Params[0], sigma2, r.Params[0], tau2/sigma2, NuggetNegligible))
	}
	if tau2-lb <= NuggetNearBound*(ub-lb) {
		why = append(why, fmt.Sprintf("next to its lower bound %g (within %g of the bounds' width %g)", lb, NuggetNearBound, ub-lb))
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("%s = %.6g is %s: the data show no nugget, the likelihood is highest at or next to tau2 = %g, and the standard error of tau2 means nothing (fit without the nugget: %d values in --lb and --ub)",
		likelihood.Tau2Name, tau2, strings.Join(why, " and "), lb, i)
}

// variance returns the variance of z about its mean and its mean square.
func variance(z []float64) (v, ms float64) {
	if len(z) == 0 {
		return 0, 0
	}
	n := float64(len(z))
	var mean float64
	for _, x := range z {
		mean += x
		ms += x * x
	}
	mean /= n
	for _, x := range z {
		v += (x - mean) * (x - mean)
	}
	return v / n, ms / n
}

// joinNote appends b to the note a ("; " between).
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// finite reports whether every value is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
