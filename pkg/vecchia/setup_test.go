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

// TestPrepareWide: Prepare with Setup.Wide (one search at the wider m,
// the plan from the prefix) gives bitwise the sets and blocks of Prepare
// at M, and keeps in Prepared.Wide the sets of Prepare at Wide; a Wide
// at most M, or beyond N-1, is the search at M, or at N-1.
func TestPrepareWide(t *testing.T) {
	for _, tc := range cases(300, 5) {
		if tc.name != "matern+tau2" && tc.name != "bivariate" && tc.name != "aniso+tau2" {
			continue
		}
		for _, w := range []struct{ m, wide int }{{8, 16}, {10, 10}, {12, 5}, {20, 1000}} {
			at, err := Prepare(tc.p, tc.theta, Setup{M: w.m, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Prepare(tc.p, tc.theta, Setup{M: w.m, Wide: w.wide, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Perm, at.Perm) || got.Sets.M != at.Sets.M || !slices.Equal(got.Sets.Idx, at.Sets.Idx) {
				t.Errorf("%s m=%d wide=%d: the sets differ from the search at m", tc.name, w.m, w.wide)
			}
			if !slices.Equal(got.Plan.Blocks.Idx, at.Plan.Blocks.Idx) || !slices.Equal(got.Plan.Blocks.Start, at.Plan.Blocks.Start) {
				t.Errorf("%s m=%d wide=%d: the blocks differ from those at m", tc.name, w.m, w.wide)
			}
			wantWide := 0 // the wide search's m: Wide, at most the locations less one
			if w.wide > w.m {
				wantWide = min(w.wide, len(at.Perm)-1)
			}
			if wantWide == 0 {
				if got.Wide != nil {
					t.Errorf("%s m=%d wide=%d: wide sets of %d kept", tc.name, w.m, w.wide, got.Wide.M)
				}
				continue
			}
			big, err := Prepare(tc.p, tc.theta, Setup{M: wantWide, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got.Wide == nil || got.Wide.M != wantWide || !slices.Equal(got.Wide.Idx, big.Sets.Idx) {
				t.Errorf("%s m=%d wide=%d: the wide sets are not those of the search at %d", tc.name, w.m, w.wide, wantWide)
			}
		}
	}
}
