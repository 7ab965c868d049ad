package plot

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSemivariogramDirectionsFiles: the directional figure is written
// (1800 x 1350 PNG at 300 dpi, SVG with the legend's texts), and refused for bad
// series.
func TestSemivariogramDirectionsFiles(t *testing.T) {
	dir := t.TempDir()
	series := []SemivariogramSeries{
		{Label: "major axis 30±22.5°", H: []float64{0.05, 0.1, 0.2}, Gamma: []float64{0.2, 0.4, 0.8}, Counts: []int{10, 20, 30},
			Model: func(r float64) float64 { return 1 - math.Exp(-r/0.2) }},
		{Label: "minor axis 120±22.5°", H: []float64{0.05, 0.1, 0.2}, Gamma: []float64{0.5, 0.8, 0.95},
			Model: func(r float64) float64 { return 1 - math.Exp(-r/0.05) }},
	}
	if err := SemivariogramDirections(filepath.Join(dir, "sv"), series, SemivariogramOptions{Title: "t", XLabel: "distance (m)"}); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "sv", 1800, 1350)
	b, err := os.ReadFile(filepath.Join(dir, "sv.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"major axis 30±22.5°", "minor axis 120±22.5°", "distance (m)", ">30<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	empty := t.TempDir()
	for name, err := range map[string]error{
		"none":    SemivariogramDirections(filepath.Join(empty, "sv"), nil, SemivariogramOptions{}),
		"lengths": SemivariogramDirections(filepath.Join(empty, "sv"), []SemivariogramSeries{{H: []float64{1, 2}, Gamma: []float64{1}}}, SemivariogramOptions{}),
		"NaN":     SemivariogramDirections(filepath.Join(empty, "sv"), []SemivariogramSeries{{H: []float64{1}, Gamma: []float64{math.NaN()}}}, SemivariogramOptions{}),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	checkEmpty(t, empty)
}
