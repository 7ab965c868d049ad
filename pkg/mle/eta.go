package mle

import "math"

// ETA estimates the seconds a fit has left after its evaluations so far,
// given the best l after each (best[i]), the seconds per evaluation, the
// stopping tolerance ftol (a step that gains less than it ends a search)
// and the evaluation limit maxEvals (0: none). bound is true when the
// estimate is only the limit's (maxEvals - evaluations, at perEval); ok
// is false when there is neither a trend nor a limit.
//
// The trend: the gain of the best l over consecutive windows of w
// evaluations (w = 2p + 1 for p free parameters, BOBYQA's interpolation
// points) shrinks geometrically once the search closes in, g_j ~ g_0 r^j.
// With the gains g_first, ..., g_last of the last windows that gained
// (at least two), r = (g_last / g_first)^(1/(windows-1)); if r < 1 the
// search needs log(ftol / g_last) / log r more windows, plus one for the
// restart that confirms the optimum.
func ETA(best []float64, perEval, ftol float64, w, maxEvals int) (seconds float64, bound, ok bool) {
	n := len(best)
	left := math.Inf(1)
	if maxEvals > 0 {
		left = float64(max(maxEvals-n, 0))
	}
	if w < 1 {
		w = 1
	}
	var gains []float64
	for end := n - 1; end-w >= 0; end -= w {
		g := best[end] - best[end-w]
		if !(g > 0) || math.IsInf(g, 0) {
			break // before the best was finite, or a flat stretch
		}
		gains = append(gains, g) // the last window first
	}
	trend := math.Inf(1)
	if k := len(gains); k >= 2 {
		last, first := gains[0], gains[k-1]
		if r := math.Pow(last/first, 1/float64(k-1)); r < 1 {
			windows := 1.0
			if last > ftol {
				windows += math.Log(ftol/last) / math.Log(r)
			}
			trend = windows * float64(w)
		}
	}
	switch {
	case !math.IsInf(trend, 1) && trend <= left:
		return trend * perEval, false, true
	case !math.IsInf(left, 1):
		return left * perEval, true, true
	}
	return 0, false, false
}
