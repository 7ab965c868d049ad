package neighbors

import (
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/internal/cloud"
)

// TestConditioningOf checks that the rows of some positions alone (a
// rank's locations) are the brute-force sets of those positions: the
// padded first rows, rows before, across and after the first tree's
// prefix, spread over the ordering, none; and that rows not increasing
// are refused.
func TestConditioningOf(t *testing.T) {
	c := cloud.Points("cluster", 1300, 2, 29)
	m := 12
	want := bruteSets(c, m)
	every := func(from, to, step int) []int32 {
		var r []int32
		for i := from; i < to; i += step {
			r = append(r, int32(i))
		}
		return r
	}
	for _, rows := range [][]int32{every(0, 5, 1), every(3, 40, 1), every(200, 300, 1), every(1, 1300, 7), {511, 512, 1299}, {}} {
		s, err := ConditioningOf(c, rows, m, 2)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != len(rows) || s.M != m {
			t.Fatalf("rows %v: %d rows of %d, want %d of %d", rows, s.N, s.M, len(rows), m)
		}
		for k, i := range rows {
			if got := s.Row(k); !slices.Equal(got, want[i]) {
				t.Fatalf("row %d = %v, want %v", i, got, want[i])
			}
		}
	}
	for _, rows := range [][]int32{{5, 5}, {7, 3}, {1300}, {-1}} {
		if _, err := ConditioningOf(c, rows, m, 1); err == nil {
			t.Errorf("rows %v of 1300 points: no error", rows)
		}
	}
}
