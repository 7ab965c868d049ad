package tile

import (
	"slices"
	"testing"
)

// TestLowerBytes: the bytes of the lower tiles each rank owns, counted by
// hand, with the partial last tile row, owners out of range clamped, and
// a size per tile.
func TestLowerBytes(t *testing.T) {
	lastRow := func(m, n int) int {
		if m == 3 {
			return 1
		}
		return 0
	}
	for _, c := range []struct {
		name  string
		n, nb int
		own   OwnerFunc
		ranks int
		size  func(m, n int) int64
		want  []int64
	}{
		// 7 = 2+2+2+1: six 2x2 tiles (24 values) above the last row, which
		// holds three 1x2 tiles and one 1x1 (7 values).
		{"last row on rank 1", 7, 2, lastRow, 2, nil, []int64{8 * 24, 8 * 7}},
		{"nil: rank 0", 8, 2, nil, 3, nil, []int64{8 * 40, 0, 0}},
		{"out of range", 4, 2, func(m, n int) int { return 5*m - 1 }, 2, nil, []int64{32, 64}},
		// Three lower tiles of 3x3: (0,0) and (1,1) on rank 0, (1,0) on 1.
		{"size per tile", 6, 3, func(m, n int) int { return m - n }, 2, func(m, n int) int64 { return int64(10*m + n) }, []int64{0 + 11, 10}},
	} {
		if got := NewLayout(c.n, c.nb).LowerBytes(c.own, c.ranks, c.size); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
