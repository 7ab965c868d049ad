package vecchia

import "testing"

// TestGradSubsets checks that the gradient and information in a subset of
// the parameters (none, one, all) are the full ones' restricted to it,
// and that asking for them leaves l as without them (to 1e-12: with a
// derivative in beta or nu the covariance comes from matern.Grad's
// interpolant, not the kernel's): the block kernel packs the free
// parameters' terms together, whichever they are.
func TestGradSubsets(t *testing.T) {
	for _, c := range cases(120, 7)[:4] {
		plan := newPlan(t, c.p, 20, Grouping{})
		l := eval(t, plan, c.theta, Want{}, 2).L
		all := eval(t, plan, c.theta, Want{Grad: true}, 2)
		for _, pick := range []int{-1, 1, len(c.theta) - 1} {
			free := make([]bool, len(c.theta))
			if pick >= 0 {
				free[pick] = true
			}
			r := eval(t, plan, c.theta, Want{Grad: true, Free: free}, 2)
			if relDiff(r.L, l) > 1e-12 || relDiff(all.L, l) > 1e-12 {
				t.Errorf("%s free %v: l %v, %v with the gradient, want %v", c.name, free, r.L, all.L, l)
			}
			for j := range free {
				want, wantInfo := 0.0, 0.0
				if free[j] {
					want, wantInfo = all.Grad[j], all.Info[j][j]
				}
				if relDiff(r.Grad[j], want) > 1e-12 && r.Grad[j] != want {
					t.Errorf("%s free %v: grad[%d] = %v, want %v", c.name, free, j, r.Grad[j], want)
				}
				if relDiff(r.Info[j][j], wantInfo) > 1e-12 && r.Info[j][j] != wantInfo {
					t.Errorf("%s free %v: info[%d][%d] = %v, want %v", c.name, free, j, j, r.Info[j][j], wantInfo)
				}
			}
		}
	}
}
