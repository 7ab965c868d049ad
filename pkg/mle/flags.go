package mle

import (
	"math"
	"strings"
)

// Where an estimate lies relative to its bounds (AtBound).
const (
	NotAtBound = ""      // strictly inside its bounds
	AtLower    = "lower" // at (within BoundTol of) its lower bound
	AtUpper    = "upper" // at its upper bound
	Fixed      = "fixed" // lb = ub: not estimated
)

// BoundTol is the relative distance to a bound within which an estimate is
// taken to be at the bound: |theta - b| <= BoundTol |b|.
const BoundTol = 1e-6

// AtBound returns, for each parameter, where the estimate theta lies:
// Fixed when its bounds are equal, AtLower or AtUpper when it is within a
// relative BoundTol of that bound, NotAtBound otherwise. At a bound the
// maximum of the likelihood may lie beyond it, and the Fisher information
// (standard errors) describes a maximum that is not one.
func AtBound(theta, lower, upper []float64) []string {
	out := make([]string, len(theta))
	for i, v := range theta {
		lb, ub := lower[i], upper[i]
		switch {
		case lb == ub:
			out[i] = Fixed
		case math.Abs(v-lb) <= BoundTol*math.Abs(lb):
			out[i] = AtLower
		case math.Abs(v-ub) <= BoundTol*math.Abs(ub):
			out[i] = AtUpper
		}
	}
	return out
}

// Converged reports whether a search's status is a stop by its
// convergence test (FTOL_REACHED, XTOL_REACHED, SUCCESS, round-off,
// Fisher scoring's CONVERGED, or every parameter fixed) rather than by a
// limit: MAXEVAL_REACHED, MAXTIME_REACHED, a forced stop, an
// interruption, Fisher scoring's MAXITER_REACHED or LINE_SEARCH_FAILED,
// after which the estimate is the best point seen, not the maximum.
func Converged(status string) bool {
	for _, s := range []string{"MAXEVAL_REACHED", "MAXTIME_REACHED", "FORCED_STOP", "interrupted", StatusMaxIter, StatusLineSearch} {
		if strings.Contains(status, s) {
			return false
		}
	}
	return status != ""
}

// MovedStart returns the parameters whose first evaluated value (first)
// is not within a factor MoveFactor of the start the search was given:
// BOBYQA moves a start that lies within its initial step (a tenth of the
// search range of the parameter, on the search scale) of a bound, onto the
// bound or one step inside, so a very wide range moves a data-driven start
// a long way. Smaller moves (1 to 0.93 near a bound 2) are not reported.
func MovedStart(start, first []float64) []int {
	var moved []int
	for i := range min(len(start), len(first)) {
		s, f := start[i], first[i]
		if s > 0 && f > 0 {
			if max(s/f, f/s) > MoveFactor {
				moved = append(moved, i)
			}
		} else if math.Abs(f-s) > (MoveFactor-1)*math.Abs(s) {
			moved = append(moved, i)
		}
	}
	return moved
}

// MoveFactor is the ratio between a parameter's start and its first
// evaluated value beyond which MovedStart reports the start as moved.
const MoveFactor = 2
