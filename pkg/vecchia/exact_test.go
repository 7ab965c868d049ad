package vecchia

import (
	"math"
	"testing"
)

// TestExactLimit checks that with every earlier location in the
// conditioning sets (M = N-1) the Vecchia log-likelihood is the exact
// one, to 1e-9 relative, for every kernel, with and without the nugget
// in theta and a mean, grouped at N = 300, and for two of them with one
// block per location (the plain approximation, O(N^4) in this limit:
// at N = 100) (the exact l from gonum's dense Cholesky of the whole
// matrix).
func TestExactLimit(t *testing.T) {
	for _, r := range []struct {
		n   int
		g   Grouping
		use func(k int, name string) bool
	}{
		{300, Grouping{MaxSize: 1000}, func(int, string) bool { return true }},
		{100, Grouping{Off: true}, func(k int, name string) bool { return k == 3 || name == "bivariate+mean" }},
	} {
		for k, c := range cases(r.n, 1) {
			if !r.use(k, c.name) {
				continue
			}
			want := denseExact(t, c.p, c.theta)
			plan := newPlan(t, c.p, r.n, r.g)
			got := eval(t, plan, c.theta, Want{}, 2).L
			if e := relDiff(got, want); !(e <= 1e-9) {
				t.Errorf("%s N=%d (grouping off %v, %d blocks): l = %.15g, exact %.15g (rel %.2g)", c.name, r.n, r.g.Off, plan.Blocks.Len(), got, want, e)
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
