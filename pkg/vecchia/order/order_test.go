package order

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/internal/cloud"
)

func TestMaxminAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		n, dim int
	}{
		{"uniform", 1, 2}, {"uniform", 2, 2}, {"uniform", 9, 2}, {"uniform", 1000, 2},
		{"uniform", 777, 3}, {"uniform", 500, 4}, {"grid", 900, 2}, {"grid", 1000, 3},
		{"cluster", 600, 2}, {"dup", 300, 2},
	} {
		c := cloud.Points(tc.kind, tc.n, tc.dim, uint64(tc.n))
		got, want := Maxmin(c), bruteMaxmin(c)
		if !slices.Equal(got, want) {
			k := 0
			for k < len(got) && got[k] == want[k] {
				k++
			}
			t.Errorf("%s n=%d dim=%d: orderings differ first at position %d", tc.kind, tc.n, tc.dim, k)
		}
	}
}

// TestMaxminOn: the ordering with its tree built on several threads
// (kdtree.NewOn, above kdtree's parallel threshold) is the one-thread
// ordering, which TestMaxminAgainstBruteForce checks by its definition;
// OrderOn's maxmin is MaxminOn's; MaxminEmit emits it point by point
// while its input is overwritten.
func TestMaxminOn(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		n, dim int
	}{{"uniform", 20_000, 2}, {"dup", 17_000, 3}} {
		c := cloud.Points(tc.kind, tc.n, tc.dim, uint64(tc.n))
		want := Maxmin(c)
		for _, w := range []int{3} {
			if got := MaxminOn(c, w); !slices.Equal(got, want) {
				t.Errorf("%s n=%d: the ordering on %d workers differs", tc.kind, tc.n, w)
			}
			if got, err := OrderOn(c, MaxMin, 0, w); err != nil || !slices.Equal(got, want) {
				t.Errorf("%s n=%d: OrderOn on %d workers differs (%v)", tc.kind, tc.n, w, err)
			}
			// MaxminEmit, overwriting c with the points in the ordering
			// as they come: the same ordering, emitted in turn, each
			// point at its coordinates.
			cc := embed.Coords{Dim: c.Dim, V: slices.Clone(c.V)}
			next := 0
			got := MaxminEmit(cc, w, func(k, i int, x []float64) {
				if k != next || i != want[k] || !slices.Equal(x, c.At(i)) {
					t.Fatalf("%s n=%d: emitted %d-th point %d at %v, want the %d-th, %d at %v", tc.kind, tc.n, k, i, x, next, want[next], c.At(want[next]))
				}
				copy(cc.V[k*c.Dim:(k+1)*c.Dim], x)
				next++
			})
			if !slices.Equal(got, want) || next != tc.n {
				t.Errorf("%s n=%d: MaxminEmit on %d workers differs", tc.kind, tc.n, w)
			}
		}
	}
}

// bruteMaxmin is the maxmin ordering by its definition, in O(N^2): the
// first point is the one nearest to the mean of the points (the smaller
// index on ties), then each next one is the unordered point whose
// distance to the nearest ordered point is the largest (the smaller index
// on ties).
func bruteMaxmin(c embed.Coords) []int {
	n, dim := c.Len(), c.Dim
	d2 := func(a, b []float64) float64 {
		var s float64
		for k := range a {
			s += (a[k] - b[k]) * (a[k] - b[k])
		}
		return s
	}
	mean := make([]float64, dim)
	for i := range n {
		for k := range dim {
			mean[k] += c.V[i*dim+k]
		}
	}
	for k := range mean {
		mean[k] /= float64(n)
	}
	p := 0
	for i := range n {
		if d2(mean, c.At(i)) < d2(mean, c.At(p)) {
			p = i
		}
	}
	near := make([]float64, n)
	for i := range near {
		near[i] = math.Inf(1)
	}
	done := make([]bool, n)
	var perm []int
	for range n {
		perm = append(perm, p)
		done[p] = true
		next := -1
		for j := range n {
			if done[j] {
				continue
			}
			near[j] = math.Min(near[j], d2(c.At(p), c.At(j)))
			if next < 0 || near[j] > near[next] {
				next = j
			}
		}
		p = next
	}
	return perm
}

func TestOtherOrderings(t *testing.T) {
	c := embed.Coords{Dim: 2, V: []float64{
		0.5, 0.5, // 0: the middle
		0, 0, // 1
		1, 0, // 2
		0.5, 0.5, // 3: the middle again
		0.25, 1, // 4
		0.75, 0.5, // 5
	}}
	for _, tc := range []struct {
		m    Method
		want []int
	}{
		{Coord, []int{1, 4, 0, 3, 5, 2}},     // by x, ties by index
		{MiddleOut, []int{0, 3, 5, 4, 1, 2}}, // by distance to (0.5, 0.4167), ties by index
		{MaxMin, []int{0, 1, 2, 4, 5, 3}},
	} {
		got, err := Order(c, tc.m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.m, got, tc.want)
		}
	}
	r1, _ := Order(cloud.Points("uniform", 1000, 2, 1), Random, 7)
	r2, _ := Order(cloud.Points("uniform", 1000, 2, 1), Random, 7)
	r3, _ := Order(cloud.Points("uniform", 1000, 2, 1), Random, 8)
	if !slices.Equal(r1, r2) || slices.Equal(r1, r3) {
		t.Error("random: not a function of the seed")
	}
	sorted := slices.Clone(r1)
	slices.Sort(sorted)
	for i, v := range sorted {
		if v != i {
			t.Fatal("random: not a permutation")
		}
	}
	if _, err := Parse("hilbert"); err == nil {
		t.Error("Parse(hilbert): no error")
	}
	if m, err := Parse("middleout"); err != nil || m != MiddleOut {
		t.Errorf("Parse(middleout) = %q, %v", m, err)
	}
}

// TestApproxMaxmin checks ApproxMaxmin's walk against the rule written
// out here on a list (each pass takes the queue's next point, tests its
// k_j nearest by brute force against the points before it in the list,
// kept or moved), from the same random start; that it is a permutation
// that depends on the seed; and that its first points spread as maxmin's
// do: the first sqrt(N) points' smallest pairwise distance is at least
// a third of exact maxmin's and twice a random ordering's.
func TestApproxMaxmin(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		n, dim int
	}{{"uniform", 2, 2}, {"uniform", 3, 2}, {"uniform", 400, 2}, {"grid", 900, 2}, {"cluster", 500, 2}, {"uniform", 300, 3}} {
		c := cloud.Points(tc.kind, tc.n, tc.dim, uint64(tc.n))
		got := ApproxMaxmin(c, 5)
		sorted := slices.Clone(got)
		slices.Sort(sorted)
		for i, v := range sorted {
			if v != i {
				t.Fatalf("%s n=%d: not a permutation", tc.kind, tc.n)
			}
		}
		if tc.n < 3 {
			continue
		}
		start := identity(tc.n)
		r := rand.New(rand.NewPCG(5, 0x6170786d6d))
		r.Shuffle(tc.n, func(i, j int) { start[i], start[j] = start[j], start[i] })
		if want := listApprox(c, start); !slices.Equal(got, want) {
			t.Errorf("%s n=%d: the walk differs from the rule", tc.kind, tc.n)
		}
		other := ApproxMaxmin(c, 6)
		if tc.n >= 100 && slices.Equal(got, other) {
			t.Errorf("%s n=%d: not a function of the seed", tc.kind, tc.n)
		}
		if tc.kind == "uniform" && tc.dim == 2 {
			k := int(math.Sqrt(float64(tc.n)))
			rnd, _ := Order(c, Random, 5)
			sa, se, sr := sep(c, got[:k]), sep(c, Maxmin(c)[:k]), sep(c, rnd[:k])
			if !(sa >= se/3 && sa >= 2*sr) {
				t.Errorf("%s n=%d: first %d points' separation %g (maxmin %g, random %g)", tc.kind, tc.n, k, sa, se, sr)
			}
		}
	}
}

// listApprox is the approximate maxmin rule on a list: the queue's head
// is taken; k_j = round(N/(a+2)) clamped to [1, round(sqrt N)], a the
// points kept so far; if one of its k_j nearest other points (brute
// force, ties by index) is kept already, it goes to the back, else it is
// kept; after 2N heads the rest of the queue is kept as it stands.
func listApprox(c embed.Coords, start []int) []int {
	n := c.Len()
	k := min(int(math.Round(math.Sqrt(float64(n)))), ApproxNeighbors, n-1)
	cache := map[int][]int{}
	near := func(p int) []int {
		if o, ok := cache[p]; ok {
			return o
		}
		o := identity(n)
		o = slices.DeleteFunc(o, func(q int) bool { return q == p })
		slices.SortStableFunc(o, func(a, b int) int {
			da, db := c.Dist2(p, a), c.Dist2(p, b)
			switch {
			case da < db:
				return -1
			case da > db:
				return 1
			}
			return 0
		})
		cache[p] = o[:k]
		return o[:k]
	}
	kept := []int{start[0]}
	queue := slices.Clone(start[1:])
	placed := map[int]bool{start[0]: true} // kept
	for heads := 1; heads < 2*n && len(queue) > 0; heads++ {
		p := queue[0]
		queue = queue[1:]
		kj := min(max(int(math.Round(float64(n)/float64(len(kept)+2))), 1), k)
		moved := false
		for _, q := range near(p)[:kj] {
			if placed[q] {
				moved = true
			}
		}
		if moved {
			queue = append(queue, p)
		} else {
			kept = append(kept, p)
			placed[p] = true
		}
	}
	return append(kept, queue...)
}

// sep returns the smallest distance between two of the points idx of c.
func sep(c embed.Coords, idx []int) float64 {
	best := math.Inf(1)
	for a := range idx {
		for b := range a {
			best = min(best, math.Sqrt(c.Dist2(idx[a], idx[b])))
		}
	}
	return best
}
