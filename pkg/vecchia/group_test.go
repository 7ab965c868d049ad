package vecchia

import (
	"fmt"
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
// matern.Distance in the ordering (bitwise), on 1 and 3 workers: planar
// and 3D points with their nearest earlier sets and a duplicated
// location; and, over more rows than one of closest's chunks, random
// earlier sets (padded, with duplicates and rows of duplicates only) of
// planar, great-circle and bivariate (two points a location) data, and
// points all on one line (a grid cell of zero height).
func TestClosest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 29))
	type tc struct {
		name   string
		metric matern.Metric
		pts    matern.Points
		n, per int
		m      int
		sets   []int32
	}
	var cases []tc
	for _, threeD := range []bool{false, true} {
		const n, m = 800, 5
		pts := randomPoints(rng, n, threeD)
		pts.X[700], pts.Y[700] = pts.X[10], pts.Y[10]
		if threeD {
			pts.Z[700] = pts.Z[10]
		}
		cases = append(cases, tc{fmt.Sprintf("nearest 3D %v", threeD), matern.Euclidean, pts, n, 1, m, bruteSets(matern.Euclidean, pts, n, 1, m)})
	}
	// randomSets returns sets of m random earlier locations (some rows
	// shorter), location 3k+1 a copy of location 3k.
	randomSets := func(pts matern.Points, n, per, m int) []int32 {
		for k := 0; 3*k+1 < n; k++ {
			for s := 0; s < per; s++ {
				a, b := per*(3*k)+s, per*(3*k+1)+s
				pts.X[b], pts.Y[b] = pts.X[a], pts.Y[a]
			}
		}
		sets := make([]int32, n*m)
		for i := range n {
			row := sets[i*m : (i+1)*m]
			k := min(i, rng.IntN(m+1))
			for q := range row {
				row[q] = -1
				if q < k {
					row[q] = int32(rng.IntN(i))
				}
			}
		}
		sets[(3*5+1)*m] = 3 * 5 // a row of its duplicate only
		return sets
	}
	const big, m = 40000, 4
	planar := randomPoints(rng, big, false)
	cases = append(cases, tc{"random planar", matern.Euclidean, planar, big, 1, m, randomSets(planar, big, 1, m)})
	lonlat := randomPoints(rng, big, false)
	for i := range big {
		lonlat.X[i], lonlat.Y[i] = 360*lonlat.X[i]-180, 180*lonlat.Y[i]-90
	}
	cases = append(cases, tc{"random great circle", matern.GreatCircle, lonlat, big, 1, m, randomSets(lonlat, big, 1, m)})
	pairs := randomPoints(rng, 2*big, false)
	cases = append(cases, tc{"random bivariate", matern.Euclidean, pairs, big, 2, m, randomSets(pairs, big, 2, m)})
	line := randomPoints(rng, big, false)
	for i := range line.Y {
		line.Y[i] = 0.5
	}
	cases = append(cases, tc{"random on a line", matern.Euclidean, line, big, 1, m, randomSets(line, big, 1, m)})
	for _, c := range cases {
		want := math.Inf(1)
		for i := 0; i < c.n; i++ {
			for _, j := range c.sets[i*c.m : (i+1)*c.m] {
				if j < 0 {
					break
				}
				if d := matern.Distance(c.metric, c.pts, c.per*i, c.pts, c.per*int(j)); d > 0 {
					want = min(want, d)
				}
			}
		}
		for _, w := range []int{1, 3} {
			if got := closest(c.metric, c.pts, c.per, c.m, c.sets, w); got != want {
				t.Errorf("%s, %d workers: closest %.17g, want %.17g", c.name, w, got, want)
			}
		}
	}
}

// TestSpatialRows: every location once, in cells of increasing Morton
// code, and within a cell in increasing order (the cells recomputed
// here from the bounding box), for a grid of 2^b cells a side.
func TestSpatialRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 31))
	for _, n := range []int{0, 1, 17, 5000, 70000} {
		pts := randomPoints(rng, n, false)
		rows := spatialRows(pts.X, pts.Y, 1, n)
		if len(rows) != n {
			t.Fatalf("n %d: %d rows", n, len(rows))
		}
		b := 1
		for b < 10 && 1<<(2*b) < n/16 {
			b++
		}
		x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for i := range n {
			x0, x1, y0, y1 = min(x0, pts.X[i]), max(x1, pts.X[i]), min(y0, pts.Y[i]), max(y1, pts.Y[i])
		}
		// key is the cell's Morton code: bit 2k of the x index's bit k,
		// bit 2k+1 of y's.
		key := func(i int) int {
			qx := min(int((pts.X[i]-x0)/(x1-x0)*float64(int(1)<<b)), 1<<b-1)
			qy := min(int((pts.Y[i]-y0)/(y1-y0)*float64(int(1)<<b)), 1<<b-1)
			k := 0
			for bit := range b {
				k |= (qx>>bit&1)<<(2*bit) | (qy>>bit&1)<<(2*bit+1)
			}
			return k
		}
		seen := make([]bool, n)
		for k, i := range rows {
			if seen[i] {
				t.Fatalf("n %d: location %d twice", n, i)
			}
			seen[i] = true
			if k > 0 && n > 1 {
				a, c := key(int(rows[k-1])), key(int(i))
				if a > c || (a == c && rows[k-1] > i) {
					t.Fatalf("n %d: row %d (location %d, cell %d) after location %d (cell %d)", n, k, i, c, rows[k-1], a)
				}
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
