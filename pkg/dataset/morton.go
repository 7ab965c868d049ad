package dataset

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// mortonBits is the number of quantisation bits per coordinate: 2^21
// levels, a 42-bit Morton code.
const mortonBits = 21

// quantise maps v in [lo, hi] to one of 2^mortonBits equal-width levels.
func quantise(v, lo, hi float64) uint64 {
	const levels = 1 << mortonBits
	if !(hi > lo) {
		return 0
	}
	t := (v - lo) / (hi - lo) * levels
	if !(t >= 0) { // also NaN
		return 0
	}
	if t >= levels-1 {
		return levels - 1
	}
	return uint64(t)
}

// spread inserts a zero bit above each of the low 32 bits of v.
func spread(v uint64) uint64 {
	v &= 0xffffffff
	v = (v | v<<16) & 0x0000ffff0000ffff
	v = (v | v<<8) & 0x00ff00ff00ff00ff
	v = (v | v<<4) & 0x0f0f0f0f0f0f0f0f
	v = (v | v<<2) & 0x3333333333333333
	v = (v | v<<1) & 0x5555555555555555
	return v
}

// MortonOrder returns the permutation perm that sorts the locations of d in
// Morton (z-order): the points X[perm[k]], Y[perm[k]] for k = 0, 1, ... follow
// the Z curve. Each coordinate is quantised to 2^21 equal levels over the
// bounding box of d and the bits are interleaved with x in the even
// (less significant) and y in the odd bits, as ExaGeoStat's zsort does, so
// the curve visits (0,0), (1,0), (0,1), (1,1), then the next quadrant along
// x. Equal codes keep their original order, so the result is deterministic.
// Nearby points end up close in the order, which keeps the covariance tiles
// of a tiled factorisation local.
// Space-time data (T not nil) are sorted by time first, then in Morton
// order within each time.
func MortonOrder(d *Data) []int {
	n := len(d.X)
	perm := make([]int, n)
	if n == 0 {
		return perm
	}
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		xlo, xhi = min(xlo, d.X[i]), max(xhi, d.X[i])
		ylo, yhi = min(ylo, d.Y[i]), max(yhi, d.Y[i])
	}
	code := make([]uint64, n)
	for i := 0; i < n; i++ {
		perm[i] = i
		code[i] = spread(quantise(d.X[i], xlo, xhi)) | spread(quantise(d.Y[i], ylo, yhi))<<1
	}
	if d.T != nil {
		// Space-time data: time-major (the sites of one time together),
		// so that a column of a tile meets few distinct time lags.
		slices.SortStableFunc(perm, func(a, b int) int {
			if c := cmp.Compare(d.T[a], d.T[b]); c != 0 {
				return c
			}
			return cmp.Compare(code[a], code[b])
		})
		return perm
	}
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(code[a], code[b]) })
	return perm
}

// Permute returns a new Data whose row k is row perm[k] of d (X, Y, and
// Obs, Z and T when not nil); d is not modified. perm must be a permutation of
// 0..d.Len()-1.
func Permute(d *Data, perm []int) *Data {
	n := len(d.X)
	if len(perm) != n {
		panic(fmt.Sprintf("dataset: Permute with %d indices for %d rows", len(perm), n))
	}
	out := &Data{X: make([]float64, n), Y: make([]float64, n), Coords: d.Coords}
	if d.Obs != nil {
		out.Obs = make([]float64, n)
	}
	for k, i := range perm {
		out.X[k] = d.X[i]
		out.Y[k] = d.Y[i]
		if d.Obs != nil {
			out.Obs[k] = d.Obs[i]
		}
	}
	for _, c := range d.Columns {
		v := make([]float64, n)
		for k, i := range perm {
			v[k] = c.Values[i]
		}
		out.Columns = append(out.Columns, Column{Name: c.Name, Values: v})
	}
	out.Z = permuted(d.Z, perm)
	out.Obs2 = permuted(d.Obs2, perm)
	out.T = permuted(d.T, perm)
	return out
}

// Inverse returns the inverse permutation inv, with inv[perm[k]] = k: if
// p = Permute(d, perm), row i of d is row inv[i] of p, so Permute(p,
// Inverse(perm)) gives back d's order. It panics if perm is not a
// permutation of 0..len(perm)-1.
func Inverse(perm []int) []int {
	inv := make([]int, len(perm))
	for i := range inv {
		inv[i] = -1
	}
	for k, i := range perm {
		if i < 0 || i >= len(perm) || inv[i] != -1 {
			panic(fmt.Sprintf("dataset: Inverse of a non-permutation (index %d at %d)", i, k))
		}
		inv[i] = k
	}
	return inv
}

// permuted returns v[perm[k]] for each k, or nil for a nil v.
func permuted(v []float64, perm []int) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(perm))
	for k, i := range perm {
		out[k] = v[i]
	}
	return out
}
