package mle

import (
	"math"
	"testing"
)

// TestETA: best values whose gains per window of 3 halve from 2 to 1/8
// (r = 1/2) with ftol 1/64 need log(1/8)/log(1/2) = 3 more windows and the
// confirming one: 12 evaluations at 2 s; a limit below that bounds it; no
// trend with a limit gives the limit; neither gives nothing.
func TestETA(t *testing.T) {
	var best []float64
	l := -100.0
	for _, g := range []float64{0, 2, 1, 0.5, 0.25, 0.125} { // one gain per window of 3
		for range 3 {
			best = append(best, l)
		}
		l += g
	}
	best = append(best, l) // the last window ends here
	best = best[1:]
	s, bound, ok := ETA(best, 2, 1.0/64, 3, 0)
	if !ok || bound || math.Abs(s-24) > 1e-9 {
		t.Errorf("ETA = %g, %v, %v; want 24 s from the trend", s, bound, ok)
	}
	if s, bound, ok := ETA(best, 2, 1.0/64, 3, len(best)+4); !ok || !bound || s != 8 {
		t.Errorf("with 4 evaluations left: %g, %v, %v; want 8 s, bounded", s, bound, ok)
	}
	flat := []float64{-5, -5, -5, -5, -5, -5}
	if s, bound, ok := ETA(flat, 2, 1e-5, 3, 10); !ok || !bound || s != 8 {
		t.Errorf("flat with a limit: %g, %v, %v", s, bound, ok)
	}
	if _, _, ok := ETA(flat, 2, 1e-5, 3, 0); ok {
		t.Error("flat without a limit has an estimate")
	}
}
