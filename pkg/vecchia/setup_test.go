package vecchia

import (
	"github.com/exageostat/exageostat/pkg/vecchia/block"
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

// TestPrepareBeside: the maxmin ordering with the neighbour search
// beside it (Prepare on 2 and 3 workers: order.MaxminEmit and
// neighbors.ConditioningWhile) gives bitwise the ordering, the sets (and
// the wide ones) and the blocks of the ordering followed by the search
// (Prepare on one worker), over several of the search's prefixes (3000
// locations: prefixes of 256, 512, ..., 2048 and 3000), planar, bivariate
// and anisotropic.
func TestPrepareBeside(t *testing.T) {
	for _, tc := range cases(3000, 6) {
		if tc.name != "matern+tau2" && tc.name != "bivariate" && tc.name != "aniso+tau2" {
			continue
		}
		want, err := Prepare(tc.p, tc.theta, Setup{M: 10, Wide: 20, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{2, 3} {
			got, err := Prepare(tc.p, tc.theta, Setup{M: 10, Wide: 20, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Perm, want.Perm) || !slices.Equal(got.Sets.Idx, want.Sets.Idx) || !slices.Equal(got.Wide.Idx, want.Wide.Idx) {
				t.Errorf("%s, %d workers: the ordering or the sets differ from one worker's", tc.name, w)
			}
			if !slices.Equal(got.Plan.Blocks.Idx, want.Plan.Blocks.Idx) || !slices.Equal(got.Plan.Blocks.Start, want.Plan.Blocks.Start) {
				t.Errorf("%s, %d workers: the blocks differ from one worker's", tc.name, w)
			}
		}
	}
}

// TestFitNeed: the memory bound of a fit against its phases' sums worked
// out by hand from the byte counts of FitNeed's comment (c = 8 (4 +
// ncov), input c + 8 (+ c with a hold-out), plan(k) = c + 4 + 4 (k + 1)
// + 8, group(k) = 9 (k + 1) + 124, sets(k) = 4 k), at N = 10^6; an
// evaluation (P = 4, one covariate, 2 workers) is 26,397,296 bytes: the
// partial sums 8 (10^6 / 64 + 1) 40 (the accumulator: 4 + 4 + 4 + 4 + 4
// + 16 + 4 phases) = 5,000,320 and the work space of two workers at
// u = r = 320, 2 x 8 x 1,337,311 words (u (4 + 2) + 2 u^2 + 2 u + 3 + 2
// (u + 4) = 208,011, and with the gradient 4 (u^2 + 3) + 7 u r + 4 r 2 +
// u + 8 = 1,129,300) = 21,396,976. Live adds heapFloor (16 MiB), Heap is
// Live * 1.1 and Need adds OutsideHeap (80 MiB).
func TestFitNeed(t *testing.T) {
	const n, eval = 1000000, 26397296
	for _, c := range []struct {
		name string
		f    FitShape
		live int64 // the largest phase, bytes
	}{
		// The check's grouping: input 48, sets(60) 240, plan(60) 40 + 4
		// + 244 + 8 = 296, group(60) 549 + 124 = 673: 1257 a point. (The
		// fit's final grouping: 48 + 240 + 120 + 176 + 403 = 987.)
		{"m 30, check at 60, constant mean", FitShape{N: n, M: 30, Coarse: 10, Wide: 60, NCov: 1, Params: 4, Workers: 2}, 1257 * n},
		// No check: the final grouping, input 48, sets(30) 120, plan(30)
		// 176, group(30) 279 + 124 = 403: 747 (the coarse grouping 48 +
		// 120 + 176 + 40 + 96 + 223 = 703; the search 560 + 26.4).
		{"m 30, no check", FitShape{N: n, M: 30, Coarse: 10, NCov: 1, Params: 4, Workers: 2}, 747 * n},
		// Greedy sets among K = 90, no check: the candidates sets(90) 360
		// held instead of none, so the final grouping 48 + 360 + 120 +
		// 176 + 403 = 1107 (the coarse grouping 1063; the search 920 a
		// point, the evaluation and the selection's scratch, 2 x (8 x 90
		// x 30 + 48 x 90 + 64) bytes).
		{"m 30, greedy among 90, no check", FitShape{N: n, M: 30, Coarse: 10, Candidates: 90, NCov: 1, Params: 4, Workers: 2}, 1107 * n},
		// A hold-out of 10^5, no mean: c = 32, input 72; the check's
		// grouping 72 + 240 + (32 + 4 + 244 + 8) + 673 = 1273 (the
		// hold-out's kriging: the search 72 + 240 + 120 + 168 + 40 + 88
		// + 64 = 792, + 72 + 0.1 (120 + 32 + 64), + the evaluation).
		{"hold-out, check at 60, no mean", FitShape{N: n, M: 30, Coarse: 10, Wide: 60, Params: 4, Workers: 2, Held: 100000}, 1273 * n},
		// A hold-out of 5 x 10^5, a constant mean, no check: input 88;
		// the search 88 + 120 + 176 + 40 + 96 + 80 = 600 a point and
		// the evaluation, then the kriging 72 a point and 120 + 40 + 64
		// a held-out point: 672 + 112 = 784 a point and the evaluation
		// (the final grouping 88 + 120 + 176 + 403 = 787).
		{"hold-out, no check", FitShape{N: n, M: 30, Coarse: 10, NCov: 1, Params: 4, Workers: 2, Held: 500000}, 784*n + eval},
		// m = 10, no coarse stage, check at 20, no mean: input 40; the
		// check's grouping 40 + 80 + (32 + 4 + 84 + 8) + 189 + 124 = 561
		// (the fit's grouping 40 + 80 + 40 + 88 + 223 = 471).
		{"m 10, check at 20", FitShape{N: n, M: 10, Wide: 20, Params: 4, Workers: 2}, 561 * n},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := FitNeed(c.f)
			live := c.live + 16<<20
			heap := int64(float64(live) * 1.1)
			if got.Live != live || got.Heap != heap || got.Need != heap+80<<20 {
				t.Errorf("FitNeed = %+v; want live %d, heap %d, need %d", got, live, heap, heap+80<<20)
			}
		})
	}
}

// TestEvalBytesCoversLargestBlock: the memory bound's work space per
// worker (evalBytes on two workers less on one) holds the scratch the
// evaluator registers for the largest block of an actual plan
// (Plan.UMax, Plan.RespMax), for sets of m from below the merge's
// DefaultMaxSize to above it (a location's own block of m+1 members),
// grouped and not, one variable and the bivariate pairs.
func TestEvalBytesCoversLargestBlock(t *testing.T) {
	const n = 600
	for _, tc := range cases(n, 3) {
		if tc.name != "matern+tau2" && tc.name != "bivariate" {
			continue
		}
		nparams := len(tc.theta) + 1
		for _, m := range []int{30, 60, 200, 400} {
			for _, g := range []Grouping{{}, {Off: true}} {
				plan := newPlan(t, tc.p, m, g)
				need := 8 * int64(block.WorkBound(plan.UMax, plan.RespMax, 0, nparams))
				perWorker := evalBytes(n, m, 0, nparams, 2) - evalBytes(n, m, 0, nparams, 1)
				if need > perWorker {
					t.Errorf("%s m=%d off=%v: the largest block (%d members, %d responses) needs %d bytes of scratch, the bound %d",
						tc.name, m, g.Off, plan.UMax, plan.RespMax, need, perWorker)
				}
			}
		}
	}
}
