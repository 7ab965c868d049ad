package gdal

import "testing"

// TestContains: the even-odd rule on a square with a square hole and on a
// two-part polygon, points inside, outside and in the hole.
func TestContains(t *testing.T) {
	holed := Polygon{Rings: [][][2]float64{
		{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}},
		{{4, 4}, {6, 4}, {6, 6}, {4, 6}}, // open ring: closed implicitly
	}}
	parts := Polygon{Rings: [][][2]float64{{{0, 0}, {1, 0}, {0, 1}}, {{5, 5}, {6, 5}, {6, 6}}}}
	for _, c := range []struct {
		p    *Polygon
		x, y float64
		in   bool
	}{
		{&holed, 1, 1, true}, {&holed, 9.9, 5, true}, {&holed, 5, 5, false}, {&holed, 11, 5, false}, {&holed, -1, -1, false},
		{&parts, 0.2, 0.2, true}, {&parts, 0.8, 0.8, false}, {&parts, 5.9, 5.5, true}, {&parts, 5.1, 5.5, false},
	} {
		if got := c.p.Contains(c.x, c.y); got != c.in {
			t.Errorf("(%v, %v): inside %v, want %v", c.x, c.y, got, c.in)
		}
	}
}
