package neighbors

import (
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/internal/cloud"
)

// TestConditioningFrom checks that the rows a..b-1 found from the points
// 0..b-1 alone (a rank's range of the ordering) are the brute-force sets
// of those rows, for ranges before, across and after the first tree's
// prefix and the padded first rows.
func TestConditioningFrom(t *testing.T) {
	c := cloud.Points("cluster", 1300, 2, 29)
	m := 12
	want := bruteSets(c, m)
	for _, r := range [][2]int{{0, 5}, {3, 40}, {200, 300}, {256, 700}, {511, 513}, {900, 1300}, {1300, 1300}} {
		a, b := r[0], r[1]
		s, err := ConditioningFrom(embed.Coords{Dim: c.Dim, V: c.V[:b*c.Dim]}, a, m, 2)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != b-a || s.M != m {
			t.Fatalf("rows %d..%d: %d rows of %d, want %d of %d", a, b, s.N, s.M, b-a, m)
		}
		for k := range s.N {
			if got := s.Row(k); !slices.Equal(got, want[a+k]) {
				t.Fatalf("rows %d..%d: row %d = %v, want %v", a, b, a+k, got, want[a+k])
			}
		}
	}
	if _, err := ConditioningFrom(c, 1301, m, 1); err == nil {
		t.Error("rows from 1301 of 1300 points: no error")
	}
}
