package vecchia

import (
	"math"
	"testing"
)

// TestExactLimit checks that with every earlier location in the
// conditioning sets (M = N-1) the Vecchia log-likelihood is the exact
// one, to 1e-9 relative, for every kernel, with and without the nugget
// in theta and a mean, grouped (and, for two of them, one block per
// location: the plain approximation) (the exact l from gonum's dense
// Cholesky of the whole matrix).
func TestExactLimit(t *testing.T) {
	const n = 300
	for k, c := range cases(n, 1) {
		want := denseExact(t, c.p, c.theta)
		gs := []Grouping{{MaxSize: 1000}}
		if k == 3 || c.name == "bivariate+mean" {
			gs = append(gs, Grouping{Off: true})
		}
		for _, g := range gs {
			plan := newPlan(t, c.p, n, g)
			got := eval(t, plan, c.theta, Want{}, 2).L
			if e := relDiff(got, want); !(e <= 1e-9) {
				t.Errorf("%s (grouping off %v, %d blocks): l = %.15g, exact %.15g (rel %.2g)", c.name, g.Off, plan.Blocks.Len(), got, want, e)
			}
		}
	}
}

// TestExactLimitREML checks the restricted log-likelihood in the same
// limit.
func TestExactLimitREML(t *testing.T) {
	const n = 200
	c := cases(n, 2)[3] // matern+tau2+mean
	c.p.REML = true
	want := denseExact(t, c.p, c.theta)
	got := eval(t, newPlan(t, c.p, n, Grouping{MaxSize: 1000}), c.theta, Want{}, 1).L
	if e := relDiff(got, want); !(e <= 1e-9) || math.IsNaN(got) {
		t.Errorf("%s REML: l = %.15g, exact %.15g (rel %.2g)", c.name, got, want, e)
	}
}
