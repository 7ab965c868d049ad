package config

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitValidate: each bad value is an *Error naming its key (and the
// file the configuration came from), and the defaults are valid.
func TestFitValidate(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		set  func(*Fit)
		key  string
		msg  string
	}{
		{"kernel", func(f *Fit) { f.Kernel = "gauss" }, "kernel", `unknown kernel "gauss"`},
		{"distance", func(f *Fit) { f.Distance = "manhattan" }, "distance", `unknown distance "manhattan"`},
		{"true theta without holdout", func(f *Fit) { f.TrueTheta = []float64{1, 0.1, 0.5} }, "true_theta", "--true-theta needs --holdout"},
		{"true theta value", func(f *Fit) { f.Holdout = 10; f.TrueTheta = []float64{1, -0.1, 0.5} }, "true_theta", "beta must be positive"},
		{"grid without plot", func(f *Fit) { f.Grid = "10x10" }, "grid", "--grid needs --plot"},
		{"grid format", func(f *Fit) { f.Plot = dir; f.Grid = "10by10" }, "grid", "must be NxM"},
		{"bounds length", func(f *Fit) { f.Upper = []float64{5, 5} }, "ub", "bounds need 3 values each"},
		{"lb not positive", func(f *Fit) { f.Lower = []float64{0, 0.1, 0.1} }, "lb", "bounds of sigma2 must be positive"},
		{"lb above ub", func(f *Fit) { f.Lower = []float64{1, 1, 1}; f.Upper = []float64{2, 0.5, 2} }, "lb", "lower bound of beta (1) is above its upper bound (0.5)"},
		{"start values", func(f *Fit) { f.Start = "1,x,1" }, "start", `"x" is not a number`},
		{"start count", func(f *Fit) { f.Start = "1,1" }, "start", "--start needs 3 values"},
		{"bounds 4 and 3", func(f *Fit) { f.Lower = []float64{1, 1, 1, 1} }, "lb", "bounds need 3 values each (sigma2,beta,nu; 4 with tau2"},
		{"nugget with tau2 bounds", func(f *Fit) { f.Lower, f.Upper, f.Nugget = []float64{1, 1, 1, 1}, []float64{2, 2, 2, 2}, 0.1 }, "nugget", "the nugget is the fourth parameter"},
		{"tau2 lb", func(f *Fit) { f.Lower, f.Upper = []float64{1, 1, 1, 0}, []float64{2, 2, 2, 2} }, "lb", "bounds of tau2 must be positive"},
		{"start count tau2", func(f *Fit) { f.Lower, f.Upper, f.Start = []float64{1, 1, 1, 1}, []float64{2, 2, 2, 2}, "1,1,1" }, "start", "--start needs 4 values (sigma2,beta,nu,tau2)"},
		{"theta tau2 and nugget", func(f *Fit) { f.Theta, f.Nugget = []float64{1, 0.1, 0.5, 0.1}, 0.2 }, "theta", "leave --nugget out"},
		{"theta tau2 negative", func(f *Fit) { f.Theta = []float64{1, 0.1, 0.5, -0.1} }, "theta", "tau2 must be >= 0"},
		{"start outside", func(f *Fit) { f.Start = "1,9,1" }, "start", "start beta = 9 is outside its bounds"},
		{"search", func(f *Fit) { f.Search = "grid" }, "search", "search must be log, linear, fisher or bobyqa"},
		{"nb", func(f *Fit) { f.NB = -1 }, "nb", "must be >= 0"},
		{"workers", func(f *Fit) { f.Workers = -2 }, "workers", "must be in [0, 4096]"},
		{"max evals", func(f *Fit) { f.MaxEvals = -1 }, "max_evals", "must be >= 0"},
		{"tolerance", func(f *Fit) { f.Tolerance = 0 }, "tolerance", "must be > 0"},
		{"nugget", func(f *Fit) { f.Nugget = -1 }, "nugget", "must be >= 0"},
		{"holdout", func(f *Fit) { f.Holdout = -3 }, "holdout", "must be >= 0"},
		{"solve", func(f *Fit) { f.Solve = "fast" }, "solve", "chained, per-rank or move-tiles"},
		{"memory limit", func(f *Fit) { f.MemoryLimit = "lots" }, "memory_limit", "not a size in bytes"},
		{"pair", func(f *Fit) { f.Locations = "l.txt" }, "observations", "go together"},
		{"n", func(f *Fit) { f.N = 2 }, "n", "--n must be >= 3"},
		{"theta", func(f *Fit) { f.Theta = []float64{1, 0.1, 3}; f.Kernel = "powexp"; f.KernelDefaults() }, "theta", "delta must be in (0, 2]"},
		{"json directory", func(f *Fit) { f.JSON = filepath.Join(dir, "no", "r.json") }, "json", "does not exist"},
		{"trace directory", func(f *Fit) { f.Trace = filepath.Join(dir, "no", "t.json") }, "trace", "does not exist"},
	}
	ok := DefaultFit()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	ok.Lower, ok.Upper, ok.Start, ok.Theta = []float64{0.1, 0.01, 0.5, 0.01}, []float64{5, 1, 0.5, 1}, "1,0.1,0.5,0.1", []float64{1, 0.1, 0.5, 0.1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("nugget estimated: %v", err)
	}
	for _, c := range cases {
		f := DefaultFit()
		c.set(&f)
		err := f.Validate()
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != c.key || ce.File != "fit" || !strings.Contains(ce.Msg, c.msg) {
			t.Errorf("%s: %v, want key %q and %q", c.name, err, c.key, c.msg)
		}
	}
	f := DefaultFit()
	f.File, f.Search = "fit.toml", "grid"
	if err := f.Validate(); err == nil || !strings.HasPrefix(err.Error(), `fit.toml: key "search": `) {
		t.Errorf("from a file: %v", err)
	}
}

// TestSimulatePredictValidate: the keys of simulate's and predict's
// errors.
func TestSimulatePredictValidate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.csv")
	sims := []struct {
		set func(*Simulate)
		key string
	}{
		{func(s *Simulate) { s.Out = "" }, "out"},
		{func(s *Simulate) { s.N = 1 }, "n"},
		{func(s *Simulate) { s.NB = -1 }, "nb"},
		{func(s *Simulate) { s.Kernel = "x" }, "kernel"},
		{func(s *Simulate) { s.Theta = []float64{1, -0.1, 0.5} }, "theta"},
		{func(s *Simulate) { s.MemoryLimit = "-1GB" }, "memory_limit"},
		{func(s *Simulate) { s.Out = filepath.Join(dir, "no", "o.csv") }, "out"},
	}
	for i, c := range sims {
		s := DefaultSimulate()
		s.Out = out
		c.set(&s)
		var ce *Error
		if err := s.Validate(); !errors.As(err, &ce) || ce.Key != c.key || ce.File != "simulate" {
			t.Errorf("simulate case %d: %v, want key %q", i, err, c.key)
		}
	}
	preds := []struct {
		set func(*Predict)
		key string
	}{
		{func(p *Predict) { p.At = "" }, "at"},
		{func(p *Predict) { p.Theta = nil }, "theta"},
		{func(p *Predict) { p.Theta = []float64{1, 0.1} }, "theta"},
		{func(p *Predict) { p.Distance = "l1" }, "distance"},
		{func(p *Predict) { p.Workers = -1 }, "workers"},
		{func(p *Predict) { p.MemoryLimit = "2XB" }, "memory_limit"},
	}
	for i, c := range preds {
		p := DefaultPredict()
		p.Data, p.At, p.Out, p.Theta = "d.csv", "a.csv", out, []float64{1, 0.1, 0.5}
		c.set(&p)
		var ce *Error
		if err := p.Validate(); !errors.As(err, &ce) || ce.Key != c.key || ce.File != "predict" {
			t.Errorf("predict case %d: %v, want key %q", i, err, c.key)
		}
	}
}

// TestFitConflicts: two sources of data, and the simulated problem's keys
// given with data, are errors naming the key and where it was given; the
// command line overrides a file.
func TestFitConflicts(t *testing.T) {
	cases := []struct {
		name  string
		set   func(*Fit)
		file  map[string]int // keys given by the file "c.toml", with lines
		flags []string
		want  string // "" : valid
	}{
		{"data and locations by flags", func(f *Fit) { f.Data, f.Locations, f.Observations = "d.csv", "l", "o" }, nil,
			[]string{"data", "locations", "observations"}, `fit: key "locations": --data and --locations/--observations both give the data`},
		{"data and observations in the file", func(f *Fit) { f.Data, f.Observations = "d.csv", "o" }, map[string]int{"data": 1, "observations": 2},
			nil, `c.toml:2: key "observations": --data and --locations`},
		{"flag data over file pair", func(f *Fit) { f.Data, f.Locations, f.Observations = "d.csv", "l", "o" }, map[string]int{"locations": 1, "observations": 2},
			[]string{"data"}, ""},
		{"flag pair over file data", func(f *Fit) { f.Data, f.Locations, f.Observations = "d.csv", "l", "o" }, map[string]int{"data": 1},
			[]string{"locations", "observations"}, ""},
		{"n with data", func(f *Fit) { f.Data, f.N = "d.csv", 100 }, nil, []string{"data", "n"}, `fit: key "n": --n is the number of simulated locations: it does nothing with --data`},
		{"theta with data", func(f *Fit) { f.Data = "d.csv" }, nil, []string{"data", "theta"}, `fit: key "theta"`},
		{"theta with pair", func(f *Fit) { f.Locations, f.Observations = "l", "o" }, nil, []string{"locations", "observations", "theta"}, `it does nothing with --locations`},
		{"seed with data", func(f *Fit) { f.Data = "d.csv" }, nil, []string{"data", "seed"}, `fit: key "seed"`},
		{"seed with data and holdout", func(f *Fit) { f.Data, f.Holdout = "d.csv", 10 }, nil, []string{"data", "seed", "holdout"}, ""},
		{"seed with data and plot", func(f *Fit) { f.Data, f.Plot = "d.csv", "plots" }, nil, []string{"data", "seed", "plot"}, ""},
		{"file problem, flag data", func(f *Fit) { f.Data = "d.csv" }, map[string]int{"n": 1, "theta": 2, "seed": 3}, []string{"data"}, ""},
		{"file problem and file data", func(f *Fit) { f.Data = "d.csv" }, map[string]int{"data": 4, "theta": 2}, nil, `c.toml:2: key "theta"`},
		{"flag n, file data", func(f *Fit) { f.Data = "d.csv" }, map[string]int{"data": 4}, []string{"n"}, `fit: key "n"`},
		{"defaults with data", func(f *Fit) { f.Data = "d.csv" }, nil, []string{"data"}, ""},
	}
	for _, c := range cases {
		f := DefaultFit()
		c.set(&f)
		if c.file != nil {
			f.File, f.FileKeys = "c.toml", c.file
		}
		f.SetFlags(c.flags...)
		err := f.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestFitLocate: a bad key from the file names its line, one from a flag
// the command.
func TestFitLocate(t *testing.T) {
	f := DefaultFit()
	f.File, f.FileKeys = "c.toml", map[string]int{"nb": 3, "workers": 4}
	f.NB = -1
	if err := f.Validate(); err == nil || err.Error() != `c.toml:3: key "nb": must be >= 0 (0: automatic), got -1` {
		t.Fatal(err)
	}
	f.SetFlags("nb")
	if err := f.Validate(); err == nil || err.Error() != `fit: key "nb": must be >= 0 (0: automatic), got -1` {
		t.Fatal(err)
	}
	f.NB, f.Workers = 0, -1
	if err := f.Validate(); err == nil || err.Error() != `c.toml:4: key "workers": must be in [0, 4096] (0: one per core), got -1` {
		t.Fatal(err)
	}
}

// TestFormatLists checks FormatFloats (shortest form, read back exactly
// by ParseFloats) and FormatInts against hand-written strings.
func TestFormatLists(t *testing.T) {
	floats := []struct {
		x    []float64
		want string
	}{
		{nil, ""},
		{[]float64{1, 0.1, 0.5}, "1,0.1,0.5"},
		{[]float64{1e-9, math.Nextafter(0.3, 1)}, "1e-09,0.30000000000000004"},
	}
	for _, c := range floats {
		got := FormatFloats(c.x)
		if got != c.want {
			t.Errorf("FormatFloats(%v) = %q, want %q", c.x, got, c.want)
		}
		if len(c.x) == 0 {
			continue
		}
		back, err := ParseFloats(got)
		if err != nil || len(back) != len(c.x) {
			t.Fatalf("ParseFloats(%q) = %v, %v", got, back, err)
		}
		for i := range back {
			if back[i] != c.x[i] {
				t.Errorf("ParseFloats(%q)[%d] = %v, want %v exactly", got, i, back[i], c.x[i])
			}
		}
	}
	ints := []struct {
		v         []int
		sep, want string
	}{
		{nil, ",", ""},
		{[]int{320, 640}, ",", "320,640"},
		{[]int{1, 3, -4}, ", ", "1, 3, -4"},
	}
	for _, c := range ints {
		if got := FormatInts(c.v, c.sep); got != c.want {
			t.Errorf("FormatInts(%v, %q) = %q, want %q", c.v, c.sep, got, c.want)
		}
	}
}
