// Package order computes the orderings of Vecchia's approximation: the
// sequence in which the locations are conditioned on their predecessors
// (Guinness 2018, "Permutation and grouping methods for sharpening
// Gaussian process approximations", Technometrics 60).
//
//   - maxmin (the default): each next point is the one farthest from all
//     points already ordered (exact; see Maxmin);
//   - random: a uniformly random permutation from a seed;
//   - coord: increasing first coordinate of the frame;
//   - middleout: increasing distance to the centroid of the locations;
//   - approxmaxmin: an approximate maxmin from a random permutation, in
//     the manner of GpGp's order_maxmin (see ApproxMaxmin).
//
// Every ordering is a function of the coordinates (and the seed) alone:
// ties are broken by the smaller index.
package order

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
)

// Method names an ordering.
type Method string

// The orderings.
const (
	MaxMin    Method = "maxmin"
	Random    Method = "random"
	Coord     Method = "coord"
	MiddleOut Method = "middleout"
	// ApproxMaxMin is ApproxMaxmin's ordering (seeded as Random). It is
	// not in Methods: bench vecchia-kl compares it, fit does not offer it.
	ApproxMaxMin Method = "approxmaxmin"
)

// Methods lists the orderings, the default first.
var Methods = []Method{MaxMin, Random, Coord, MiddleOut}

// Parse returns the Method named s.
func Parse(s string) (Method, error) {
	for _, m := range Methods {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown ordering %q (want maxmin, random, coord or middleout)", s)
}

// Order returns the ordering of c's points by method: perm[k] is the index
// of the k-th point (a permutation of 0..n-1). seed is used by Random
// only.
func Order(c embed.Coords, method Method, seed uint64) ([]int, error) {
	return OrderOn(c, method, seed, 1)
}

// OrderOn is Order with the maxmin ordering's k-d tree built on workers
// threads (MaxminOn): the same ordering for any number.
func OrderOn(c embed.Coords, method Method, seed uint64, workers int) ([]int, error) {
	n := c.Len()
	switch method {
	case MaxMin, "":
		return MaxminOn(c, workers), nil
	case Random:
		perm := identity(n)
		r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		r.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		return perm, nil
	case Coord:
		return sortedBy(n, func(i int) float64 { return c.V[i*c.Dim] }), nil
	case MiddleOut:
		mid := centroid(c)
		return sortedBy(n, func(i int) float64 { return dist2(mid, c.At(i)) }), nil
	case ApproxMaxMin:
		return ApproxMaxmin(c, seed), nil
	}
	return nil, fmt.Errorf("unknown ordering %q", method)
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// sortedBy returns 0..n-1 sorted by increasing key, ties by index.
func sortedBy(n int, key func(int) float64) []int {
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = key(i)
	}
	p := identity(n)
	slices.SortStableFunc(p, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	return p
}

// centroid returns the mean of c's points.
func centroid(c embed.Coords) []float64 {
	mid := make([]float64, c.Dim)
	for i := range c.Len() {
		for k, x := range c.At(i) {
			mid[k] += x
		}
	}
	for k := range mid {
		mid[k] /= float64(max(c.Len(), 1))
	}
	return mid
}

// dist2 is embed.Coords.Dist2 between two points given as slices.
func dist2(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return s
}

// First returns the first point of the maxmin ordering: the point nearest
// to the centroid (ties: the smaller index), as GpGp's order_maxmin.
func First(c embed.Coords) int {
	mid := centroid(c)
	best, bd := 0, 0.0
	for i := range c.Len() {
		if d := dist2(mid, c.At(i)); i == 0 || d < bd {
			best, bd = i, d
		}
	}
	return best
}
