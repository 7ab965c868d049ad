package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// PCG stream words of the random functions: the same seed gives independent
// streams in Grid, Split and StandardNormal.
const (
	streamGrid   = 0x6772696400000001 // "grid"
	streamSplit  = 0x73706c6974000002 // "split"
	streamNormal = 0x6e6f726d00000003 // "norm"
)

func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// ceilSqrt returns the smallest s >= 0 with s*s >= n.
func ceilSqrt(n int) int {
	s := int(math.Ceil(math.Sqrt(float64(n))))
	for s > 0 && (s-1)*(s-1) >= n {
		s--
	}
	for s*s < n {
		s++
	}
	return s
}

// Grid returns n synthetic planar locations in the unit square, as
// ExaGeoStat generates them: with s = ceil(sqrt(n)), the grid point of cell
// (i, j) is
//
//	x = (i + 0.5 + U) / s,  y = (j + 0.5 + U') / s,
//
// with U, U' uniform in [-0.4, 0.4), so each point lies in the middle 80 %
// of its cell and every coordinate is in (0, 1). Cells are visited in
// row-major order, i outer and j inner, drawing U then U' for each, and the
// first n are kept (ExaGeoStat's loop order; when n is not a square the last
// row i = s-1 is partly empty). The points are then sorted in Morton order
// (MortonOrder). Obs is nil. The result is deterministic for a seed.
func Grid(n int, seed uint64) *Data {
	if n < 0 {
		panic(fmt.Sprintf("dataset: Grid with n = %d", n))
	}
	s := ceilSqrt(n)
	r := newRand(seed, streamGrid)
	d := &Data{X: make([]float64, 0, n), Y: make([]float64, 0, n), Coords: Planar}
	fs := float64(s)
	for i := 0; i < s && len(d.X) < n; i++ {
		for j := 0; j < s && len(d.X) < n; j++ {
			u := -0.4 + 0.8*r.Float64()
			v := -0.4 + 0.8*r.Float64()
			d.X = append(d.X, (float64(i)+0.5+u)/fs)
			d.Y = append(d.Y, (float64(j)+0.5+v)/fs)
		}
	}
	return Permute(d, MortonOrder(d))
}

// Split chooses k distinct held-out indices of 0..n-1 at random with the
// seed and returns them in test, sorted ascending; train holds the other
// n-k indices, ascending. k must satisfy 1 <= k <= n-3, so that at least
// three points remain to fit. The result is deterministic for a seed.
func Split(n, k int, seed uint64) (train, test []int, err error) {
	if k < 1 || k >= n-2 {
		return nil, nil, fmt.Errorf("cannot hold out %d of %d points: need 1 <= k <= n-3", k, n)
	}
	r := newRand(seed, streamSplit)
	// Partial Fisher-Yates: the first k entries of idx are a uniform sample.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + r.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	test = slices.Clone(idx[:k])
	slices.Sort(test)
	held := make([]bool, n)
	for _, i := range test {
		held[i] = true
	}
	train = make([]int, 0, n-k)
	for i := 0; i < n; i++ {
		if !held[i] {
			train = append(train, i)
		}
	}
	return train, test, nil
}

// StandardNormal returns n independent standard normal variates
// (rand.NormFloat64) from a PCG generator seeded with seed: the e of the
// synthetic observations Z = L e. It returns an empty slice for n <= 0.
func StandardNormal(n int, seed uint64) []float64 {
	if n <= 0 {
		return []float64{}
	}
	r := newRand(seed, streamNormal)
	e := make([]float64, n)
	for i := range e {
		e[i] = r.NormFloat64()
	}
	return e
}
