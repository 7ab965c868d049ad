package vecchia

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// TestGroupRegions checks Group against the definition of its blocks on
// random points with their brute-force nearest earlier sets: bitwise the
// same blocks on 1, 2 and 5 workers; every location the response of
// exactly one block; each block's members the union of its responses and
// their sets; the blocks region by region, in the order of their first
// response within one; the
// responses of a block all in one region (location i < K its own, a later
// one its nearest conditioning point's, K = n/Region); merges that happen
// and lower the modelled cost below the ungrouped plan's.
func TestGroupRegions(t *testing.T) {
	const n, m = 1000, 10
	rng := rand.New(rand.NewPCG(4, 29))
	pts := randomPoints(rng, n, false)
	sets := bruteSets(matern.Euclidean, pts, n, 1, m)
	off, err := Group(n, m, sets, Grouping{Off: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, region := range []int{1 << 30, 150} {
		k := max(1, n/region)
		root := make([]int, n)
		for i := range root {
			if root[i] = i; i >= k {
				root[i] = root[sets[i*m]]
			}
		}
		var want *Blocks
		for _, w := range []int{1, 2, 5} {
			bl, err := Group(n, m, sets, Grouping{Region: region, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = bl
				checkBlocks(t, region, bl, sets, m, root)
				if c, c0 := modelledCost(bl), modelledCost(off); !(c < c0) || bl.Len() >= n {
					t.Errorf("region %d: %d blocks of modelled cost %.4g, ungrouped %.4g", region, bl.Len(), c, c0)
				}
			} else if !slices.Equal(bl.Idx, want.Idx) || !slices.Equal(bl.Start, want.Start) {
				t.Errorf("region %d, %d workers: blocks differ from 1 worker's", region, w)
			}
		}
	}
}

// checkBlocks checks blocks bl of the sets against their definition
// (TestGroupRegions).
func checkBlocks(t *testing.T, region int, bl *Blocks, sets []int32, m int, root []int) {
	t.Helper()
	seen := make([]int, len(root))
	first := -1
	for b := 0; b < bl.Len(); b++ {
		var members, union []int32
		var resp []int
		for _, v := range bl.Idx[bl.Start[b]:bl.Start[b+1]] {
			i, r := block.Response(v)
			members = append(members, i)
			if r {
				resp = append(resp, int(i))
				seen[i]++
				union = append(union, i)
				for _, j := range sets[int(i)*m : int(i+1)*m] {
					if j >= 0 {
						union = append(union, j)
					}
				}
			}
		}
		slices.Sort(union)
		if union = slices.Compact(union); !slices.Equal(members, union) {
			t.Fatalf("region %d, block %d: members %v, its responses and their sets %v", region, b, members, union)
		}
		// Region by region, then in the order of the first response.
		if len(resp) == 0 || first >= 0 && (root[resp[0]] < root[first] || root[resp[0]] == root[first] && resp[0] <= first) {
			t.Fatalf("region %d, block %d: responses %v after a block starting at %d", region, b, resp, first)
		}
		first = resp[0]
		for _, i := range resp {
			if root[i] != root[resp[0]] {
				t.Errorf("region %d, block %d: responses %d and %d in regions %d and %d", region, b, resp[0], i, root[resp[0]], root[i])
			}
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("region %d: location %d the response of %d blocks", region, i, c)
		}
	}
}

// modelledCost returns the blocks' cost in Grouping's default model.
func modelledCost(bl *Blocks) float64 {
	g := Grouping{}.withDefaults()
	c := 0.0
	for b := 0; b < bl.Len(); b++ {
		u, r := bl.Size(b)
		c += g.cost(u, r)
	}
	return c
}

// TestGroupRegionsDense checks l of a plan grouped in several regions
// against the grouped approximation written out from its definition
// (vecchiaDense), for every kernel.
func TestGroupRegionsDense(t *testing.T) {
	const n, m = 120, 6
	for _, c := range cases(n, 8) {
		plan := newPlan(t, c.p, m, Grouping{Region: 25, Workers: 3})
		ref := vecchiaDense{t: t, plan: plan, c: conditioning(plan)}
		got := eval(t, plan, c.theta, Want{}, 2).L
		if want := ref.loglik(c.theta); !(relDiff(got, want) <= 1e-11) {
			t.Errorf("%s: l = %.15g, reference %.15g", c.name, got, want)
		}
	}
}

// TestClosest checks closest against the smallest nonzero distance
// between a location and a member of its set, computed by
// matern.Distance (bitwise), with a duplicated location, on 1 and 3
// workers, for planar and 3D points.
func TestClosest(t *testing.T) {
	const n, m = 800, 5
	rng := rand.New(rand.NewPCG(7, 29))
	for _, threeD := range []bool{false, true} {
		pts := randomPoints(rng, n, threeD)
		pts.X[700], pts.Y[700] = pts.X[10], pts.Y[10]
		if threeD {
			pts.Z[700] = pts.Z[10]
		}
		sets := bruteSets(matern.Euclidean, pts, n, 1, m)
		want := math.Inf(1)
		for i := 0; i < n; i++ {
			for _, j := range sets[i*m : (i+1)*m] {
				if j < 0 {
					break
				}
				if d := matern.Distance(matern.Euclidean, pts, i, pts, int(j)); d > 0 {
					want = min(want, d)
				}
			}
		}
		for _, w := range []int{1, 3} {
			if got := closest(matern.Euclidean, pts, 1, m, sets, w); got != want {
				t.Errorf("3D %v, %d workers: closest %.17g, want %.17g", threeD, w, got, want)
			}
		}
	}
}

// TestSortedSet: a location's set and itself in increasing order, as
// slices.Sort gives them, for rows nearest first as a maxmin ordering
// makes them (latest first, nearly), in random order, already increasing,
// padded with -1, and empty.
func TestSortedSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 30))
	random := make([]int32, 60)
	for k := range random {
		random[k] = int32(rng.IntN(100000))
	}
	random = slices.Compact(slices.Sorted(slices.Values(random)))
	rng.Shuffle(len(random), func(a, b int) { random[a], random[b] = random[b], random[a] })
	for _, tc := range []struct {
		name string
		row  []int32
		i    int32
	}{
		{"latest first", []int32{90, 88, 91, 70, 75, 12, 40, 3}, 100},
		{"random", random, 100000},
		{"increasing", []int32{1, 2, 5, 9}, 10},
		{"padded", []int32{7, 3, 5, -1, -1}, 8},
		{"padding read as the end", []int32{7, -1, 5}, 8},
		{"one", []int32{0, -1}, 1},
		{"empty", []int32{-1, -1, -1}, 0},
		{"no set", nil, 0},
	} {
		var want []int32
		for _, j := range tc.row {
			if j < 0 {
				break
			}
			want = append(want, j)
		}
		want = append(want, tc.i)
		slices.Sort(want)
		if got := sortedSet(make([]int32, 3), tc.row, tc.i); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
	}
}

// TestUnionSize: |a ∪ b| of two increasing lists against a count of the
// distinct values of both, for lists that interleave, nest, are
// disjoint, equal or empty, and random ones.
func TestUnionSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 30))
	randomList := func(n int) []int32 {
		v := make([]int32, n)
		for k := range v {
			v[k] = int32(rng.IntN(300))
		}
		return slices.Compact(slices.Sorted(slices.Values(v)))
	}
	cases := []struct{ a, b []int32 }{
		{[]int32{1, 3, 5}, []int32{2, 4, 6}},
		{[]int32{1, 2, 3, 4}, []int32{2, 3}},
		{[]int32{1, 2}, []int32{7, 8, 9}},
		{[]int32{4, 5, 6}, []int32{4, 5, 6}},
		{nil, []int32{1, 2}},
		{nil, nil},
	}
	for range 20 {
		cases = append(cases, struct{ a, b []int32 }{randomList(rng.IntN(160)), randomList(rng.IntN(61))})
	}
	for _, tc := range cases {
		seen := map[int32]bool{}
		for _, v := range append(slices.Clone(tc.a), tc.b...) {
			seen[v] = true
		}
		if got := unionSize(tc.a, tc.b); got != len(seen) {
			t.Errorf("unionSize(%v, %v) = %d, want %d", tc.a, tc.b, got, len(seen))
		}
		if got := len(mergeSorted(nil, tc.a, tc.b)); got != len(seen) {
			t.Errorf("mergeSorted(%v, %v) has %d values, want %d", tc.a, tc.b, got, len(seen))
		}
	}
}
