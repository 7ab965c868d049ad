package vecchia

import (
	"slices"
	"testing"
)

// TestPreparePerm: Prepare given the ordering alone (Setup.Perm, as the
// approximation check passes the fit's) finds the same sets as Prepare
// ordering the locations itself: the random ordering's seed 7 ordered
// once at m = 8, then m = 16 in that ordering against m = 16 from seed 7;
// an ordering of the wrong length is refused.
func TestPreparePerm(t *testing.T) {
	for _, tc := range cases(400, 5) {
		if tc.name != "matern+tau2" && tc.name != "bivariate" && tc.name != "aniso+tau2" {
			continue
		}
		first, err := Prepare(tc.p, tc.theta, Setup{M: 8, Order: "random", Seed: 7, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Prepare(tc.p, tc.theta, Setup{M: 16, Order: "random", Seed: 7, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Prepare(tc.p, tc.theta, Setup{M: 16, Perm: first.Perm, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Perm, want.Perm) || got.Sets.M != 16 || !slices.Equal(got.Sets.Idx, want.Sets.Idx) {
			t.Errorf("%s: the sets in the given ordering differ from those of the ordering found", tc.name)
		}
		if _, err := Prepare(tc.p, tc.theta, Setup{M: 16, Perm: first.Perm[1:], Workers: 2}); err == nil {
			t.Errorf("%s: an ordering of %d locations for %d accepted", tc.name, len(first.Perm)-1, len(first.Perm))
		}
	}
}
