package plot

import (
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestPlaceLabels: labels of crowded points (a cluster of 12 within a
// label's width, and 3 apart) are placed without overlapping each other
// or a point, inside the area; a point alone gets its label right above.
func TestPlaceLabels(t *testing.T) {
	var at, size []vg.Point
	for k := range 12 {
		at = append(at, vg.Point{X: 100 + vg.Length(k), Y: 100 + vg.Length(k%3)})
		size = append(size, vg.Point{X: 14, Y: 7})
	}
	at = append(at, vg.Point{X: 300, Y: 50})
	size = append(size, vg.Point{X: 14, Y: 7})
	area := vg.Rectangle{Max: vg.Point{X: 400, Y: 200}}
	boxes := placeLabels(at, size, 3, 2, area)
	placed := 0
	for k, b := range boxes {
		if b == (vg.Rectangle{}) {
			continue
		}
		placed++
		if b.Max.X-b.Min.X != 14 || b.Max.Y-b.Min.Y != 7 || b.Min.X < 0 || b.Min.Y < 0 || b.Max.X > 400 || b.Max.Y > 200 {
			t.Errorf("label %d: %v (size or outside the area)", k, b)
		}
		for j, c := range boxes[:k] {
			if c != (vg.Rectangle{}) && b.Min.X < c.Max.X && c.Min.X < b.Max.X && b.Min.Y < c.Max.Y && c.Min.Y < b.Max.Y {
				t.Errorf("labels %d %v and %d %v overlap", k, b, j, c)
			}
		}
		for j, q := range at {
			if q.X+3 > b.Min.X && q.X-3 < b.Max.X && q.Y+3 > b.Min.Y && q.Y-3 < b.Max.Y {
				t.Errorf("label %d %v covers point %d %v", k, b, j, q)
			}
		}
	}
	if placed < 3 {
		t.Errorf("%d of 13 labels placed", placed)
	}
	if b := boxes[12]; b.Min != (vg.Point{X: 293, Y: 55}) {
		t.Errorf("lone label at %v, want right above its point (293, 55)", b.Min)
	}
}
