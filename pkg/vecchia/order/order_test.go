package order

import (
	"math"
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
