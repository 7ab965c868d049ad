package mle

import (
	"math"
	"testing"
)

// TestNewOneStep: the step, standard errors and one-step estimate of
// NewOneStep against values worked by hand. Parameter 0 has a positive
// lower bound (searched as log theta: g_u = g theta, I_u = theta I
// theta), parameter 1 does not (searched as theta), parameter 2 is fixed
// (lb = ub: not in the step, its g and I ignored).
//
//   - free: theta (2, 0.5): g_u = (2, 2), I_u = [[8, 1], [1, 1]], I_u^-1 =
//     [[1, -1], [-1, 8]] / 7, s = (0, 2), standard errors sqrt(1/7),
//     sqrt(8/7), the step 2 / sqrt(8/7) SE, the gain g's/2 = 2; theta +
//     s = (2, 2.5) is kept in the box: (2, 1).
//   - held: theta_0 at its lower bound 0.1 with g_0 < 0 stays: g_u =
//     (-0.1, 2), I_u = [[0.02, 0.05], [0.05, 1]], s_1 = 2 / 1; the
//     standard errors from the whole I_u^-1 = [[1, -0.05], [-0.05, 0.02]]
//     / 0.0175.
//   - an information that is not positive definite fails.
func TestNewOneStep(t *testing.T) {
	lower, upper := []float64{0.1, -1, 3}, []float64{10, 1, 3}
	info := [][]float64{{2, 0.5, 7}, {0.5, 1, 7}, {7, 7, 7}}
	for _, c := range []struct {
		name        string
		theta, g    []float64
		info        [][]float64
		step, se    []float64
		gain        float64
		after       []float64
		notPositive bool
	}{
		{name: "free", theta: []float64{2, 0.5, 3}, g: []float64{1, 2, 99}, info: info,
			step: []float64{0, 2, 0}, se: []float64{math.Sqrt(1.0 / 7), math.Sqrt(8.0 / 7), 0}, gain: 2, after: []float64{2, 1, 3}},
		{name: "held", theta: []float64{0.1, 0.5, 3}, g: []float64{-1, 2, 0}, info: info,
			step: []float64{0, 2, 0}, se: []float64{math.Sqrt(1 / 0.0175), math.Sqrt(0.02 / 0.0175), 0}, gain: 2, after: []float64{0.1, 1, 3}},
		{name: "not positive definite", theta: []float64{2, 0.5, 3}, g: []float64{1, 2, 0}, info: [][]float64{{1, 2, 0}, {2, 1, 0}, {0, 0, 0}}, notPositive: true},
	} {
		o, err := NewOneStep(c.theta, c.g, c.info, lower, upper)
		if c.notPositive {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
		for i := range c.step {
			wantSE := 0.0
			if c.se[i] > 0 {
				wantSE = math.Abs(c.step[i]) / c.se[i]
			}
			if !near(o.Step[i], c.step[i]) || !near(o.StdErr[i], c.se[i]) || !near(o.StepSE[i], wantSE) || !near(o.Theta[i], c.after[i]) {
				t.Errorf("%s, parameter %d: step %v se %v step/se %v theta %v; want %v %v %v %v", c.name, i, o.Step[i], o.StdErr[i], o.StepSE[i], o.Theta[i],
					c.step[i], c.se[i], wantSE, c.after[i])
			}
		}
		if !near(o.Gain, c.gain) {
			t.Errorf("%s: gain %v, want %v", c.name, o.Gain, c.gain)
		}
	}
}
