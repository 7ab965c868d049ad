package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPowExpBounds: powexp's delta must stay within (0, 2]. Its default
// upper bound is 2, the bounds are checked before the work (the key
// named), and bounds the user gave are kept.
func TestPowExpBounds(t *testing.T) {
	if _, ub := DefaultBounds("powexp"); !slices.Equal(ub, []float64{5, 5, 2}) {
		t.Errorf("powexp default ub = %v, want 5,5,2", ub)
	}
	if _, ub := DefaultBounds("matern"); !slices.Equal(ub, []float64{5, 5, 5}) {
		t.Errorf("matern default ub = %v, want 5,5,5", ub)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(file, []byte("kernel = \"powexp\"\nub = [5.0, 5.0, 5.0]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		set    func(f *Fit)
		wantUB []float64
		key    string // "" for valid
	}{
		{"default", func(f *Fit) {}, []float64{5, 5, 2}, ""},
		{"matern keeps 5", func(f *Fit) { f.Kernel = "matern" }, []float64{5, 5, 5}, ""},
		{"explicit ub within", func(f *Fit) { f.Upper = []float64{3, 3, 1.5}; f.SetFlags("ub") }, []float64{3, 3, 1.5}, ""},
		{"explicit ub above 2", func(f *Fit) { f.Upper = []float64{5, 5, 3}; f.SetFlags("ub") }, []float64{5, 5, 3}, "ub"},
		{"flag ub = 5,5,5 is kept and refused", func(f *Fit) { f.SetFlags("ub") }, []float64{5, 5, 5}, "ub"},
		{"lb above 2", func(f *Fit) { f.Lower = []float64{0.1, 0.1, 2.5}; f.Upper = []float64{5, 5, 3}; f.SetFlags("lb", "ub") }, []float64{5, 5, 3}, "lb"},
		{"file ub = 5,5,5 is kept and refused", func(f *Fit) {
			if err := LoadFit(file, f); err != nil {
				t.Fatal(err)
			}
		}, []float64{5, 5, 5}, "ub"},
		{"start above 2", func(f *Fit) { f.Start = "1,0.1,2.5" }, []float64{5, 5, 2}, "start"},
		{"delta = 2 exactly", func(f *Fit) { f.Lower = []float64{1, 1, 2}; f.Upper = []float64{1, 1, 2}; f.SetFlags("lb", "ub") }, []float64{1, 1, 2}, ""},
	}
	for _, c := range cases {
		f := DefaultFit()
		f.Kernel = "powexp"
		f.Theta = []float64{1, 0.1, 1}
		c.set(&f)
		f.KernelDefaults()
		if !slices.Equal(f.Upper, c.wantUB) {
			t.Errorf("%s: ub = %v, want %v", c.name, f.Upper, c.wantUB)
		}
		err := f.Validate()
		switch {
		case c.key == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.key != "" && (err == nil || !strings.Contains(err.Error(), `key "`+c.key+`"`) || !strings.Contains(err.Error(), "delta")):
			t.Errorf("%s: error %v, want one naming key %q and delta", c.name, err, c.key)
		}
	}
}
