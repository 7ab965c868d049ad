package tile

// DenseBytes returns the bytes of tile (m, n) of l in float64: 8 Rows(m)
// Rows(n).
func (l Layout) DenseBytes(m, n int) int64 { return int64(8 * l.Rows(m) * l.Rows(n)) }

// LowerBytes returns, for each of ranks ranks, the bytes of the lower
// tiles (m, n), m >= n, of l that own places on it: the sum of size(m, n)
// over them (size nil: DenseBytes, the dense float64 tiles). A nil own
// places every tile on rank 0, and an owner outside [0, ranks) counts on
// the nearest rank. It is the one count of a rank's owned tile bytes: the
// memory estimates, the plans and the memory table all take it.
func (l Layout) LowerBytes(own OwnerFunc, ranks int, size func(m, n int) int64) []int64 {
	if size == nil {
		size = l.DenseBytes
	}
	out := make([]int64, ranks)
	for m := 0; m < l.NT; m++ {
		for n := 0; n <= m; n++ {
			r := 0
			if own != nil {
				r = min(max(own(m, n), 0), ranks-1)
			}
			out[r] += size(m, n)
		}
	}
	return out
}
