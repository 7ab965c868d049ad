package plot

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBarsFiles: Bars writes an SVG and a PNG of 1950 x 1500 pixels (6.5 x 5 inches at 300 dpi) whose
// SVG holds each bar's name and note; bad input writes nothing.
func TestBarsFiles(t *testing.T) {
	dir := t.TempDir()
	names := []string{"sync", "async", "+priorities"}
	notes := []string{"note-a", "note-b", "note-c"}
	if err := Bars(filepath.Join(dir, "fig.svg"), names, []float64{3, 2, 1.5}, []float64{2.8, 1.9, 1.2}, []float64{3.3, 2.2, 1.6},
		BarsOptions{Title: "ablation", YLabel: "seconds", Notes: notes}); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "fig", 1950, 1500)
	svg, _ := os.ReadFile(filepath.Join(dir, "fig.svg"))
	for _, s := range append(append([]string{"ablation", "seconds"}, names...), notes...) {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("the SVG lacks %q", s)
		}
	}
	for _, c := range []struct {
		name        string
		med, lo, hi []float64
		want        string
	}{
		{"lengths", []float64{1, 2}, []float64{1, 2, 3}, []float64{1, 2, 3}, "3 names, 2 medians"},
		{"low above median", []float64{1, 2, 3}, []float64{1.5, 2, 3}, []float64{2, 2, 3}, "want 0 <= lo <= median <= hi"},
		{"not finite", []float64{1, 2, 3}, []float64{1, 2, 3}, []float64{1, 2, math.Inf(1)}, "want 0 <= lo <= median <= hi"},
	} {
		d := t.TempDir()
		err := Bars(filepath.Join(d, "x"), names, c.med, c.lo, c.hi, BarsOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		checkEmpty(t, d)
	}
}
