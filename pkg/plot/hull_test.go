package plot

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestConvexHull(t *testing.T) {
	// A unit square's corners, its centre, an edge midpoint (collinear).
	x := []float64{0, 1, 1, 0, 0.5, 0.5}
	y := []float64{0, 0, 1, 1, 0.5, 0}
	h := ConvexHull(x, y)
	slices.Sort(h)
	if !slices.Equal(h, []int{0, 1, 2, 3}) {
		t.Errorf("hull %v, want the four corners", h)
	}
	if h := ConvexHull([]float64{0, 1, 2}, []float64{0, 1, 2}); len(h) >= 3 {
		t.Errorf("collinear points: hull %v", h)
	}
}

func TestMaskOutsideHull(t *testing.T) {
	// The triangle (0,0), (2,0), (0,2): inside when x, y >= 0 and x + y <= 2.
	x, y := []float64{0, 2, 0, 0.5}, []float64{0, 0, 2, 0.5}
	gx := []float64{0.5, 1.5, 1, 1, -0.1, 0, 2.1}
	gy := []float64{0.5, 1.5, 1, 0, 0.5, 0, 0}
	inside := []bool{true, false, true, true, false, true, false}
	v := make([]float64, len(gx))
	MaskOutsideHull(x, y, gx, gy, v)
	for k := range v {
		if math.IsNaN(v[k]) == inside[k] {
			t.Errorf("(%g, %g): masked %v, want inside %v", gx[k], gy[k], math.IsNaN(v[k]), inside[k])
		}
	}
}

// TestSemivariogramWithCounts: the pair counts and the axis label are
// written into the figure (the SVG's text).
func TestSemivariogramWithCounts(t *testing.T) {
	dir := t.TempDir()
	h, g := []float64{0.1, 0.2, 0.3}, []float64{0.5, 0.8, 0.9}
	base := dir + "/sv"
	err := SemivariogramWith(base, h, g, nil, SemivariogramOptions{Title: "t", XLabel: "great-circle distance (km)", Counts: []int{4711, 815, 42}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4711", "815", "42", "great-circle distance (km)", "pairs per bin"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
}
