package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "fit.toml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadOverridesDefaults(t *testing.T) {
	p := write(t, "# comment\ndata = \"d.csv\"\nlb = [0.01, 0.02, 0.03]\nnb = 160\nmax_evals = 50\n")
	f := DefaultFit()
	if err := Load(p, &f); err != nil {
		t.Fatal(err)
	}
	if f.Data != "d.csv" || !slices.Equal(f.Lower, []float64{0.01, 0.02, 0.03}) || f.NB != 160 || f.MaxEvals != 50 {
		t.Fatalf("decoded %+v", f)
	}
	if !slices.Equal(f.Upper, []float64{5, 5, 5}) || f.Kernel != "matern" || f.Tolerance != 1e-5 {
		t.Fatalf("defaults lost: %+v", f)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"nb = 160\nfoo = 3\n", ":2: key \"foo\": unknown key"},
		{"nb = \"big\"\n", ":1: key \"nb\": incompatible types"},
		{"lb = [1, 2\n", ":"},
		{"[section]\nx = 1\n", ":1: key \"section\": unknown key"},
	}
	for _, c := range cases {
		p := write(t, c.src)
		f := DefaultFit()
		err := Load(p, &f)
		if err == nil {
			t.Fatalf("%q: no error", c.src)
		}
		if got := err.Error(); len(got) < len(p) || got[:len(p)] != p || !contains(got, c.want) {
			t.Errorf("%q: error %q, want it to start with the file and contain %q", c.src, got, c.want)
		}
	}
	f := DefaultFit()
	if err := Load(filepath.Join(t.TempDir(), "none.toml"), &f); err == nil || !contains(err.Error(), "none.toml: no such file") {
		t.Fatalf("missing file: %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestLoadNegativeUnsigned: a negative value for an unsigned key is an
// error naming the key and its line, not a wrap-around.
func TestLoadNegativeUnsigned(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"nb = 10\nseed = -1\n", `:2: key "seed": must be >= 0, got -1`},
		{"seed=-9223372036854775808", `:1: key "seed": must be >= 0, got -9223372036854775808`},
	} {
		f := DefaultFit()
		err := Load(write(t, c.src), &f)
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	f := DefaultFit()
	if err := Load(write(t, "seed = 0\n"), &f); err != nil || f.Seed != 0 {
		t.Fatalf("seed 0: %v %d", err, f.Seed)
	}
	s := DefaultSimulate()
	if err := Load(write(t, "seed = -3\n"), &s); err == nil || !contains(err.Error(), `key "seed": must be >= 0, got -3`) {
		t.Fatalf("simulate: %v", err)
	}
}

// TestLoadFitPaths: relative paths the file gives are taken from its
// directory; absolute ones and the other keys are kept; the keys and
// their lines are recorded.
func TestLoadFitPaths(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	p := filepath.Join(sub, "fit.toml")
	src := "data = \"d.csv\"\njson = \"/abs/r.json\"\ntrace = \"../t.json\"\nplot = \"plots\"\ncluster = \"c.toml\"\nkernel = \"matern\"\n[generation]\ndistribution = \"bc\"\n"
	os.WriteFile(p, []byte(src), 0o644)
	f := DefaultFit()
	f.Locations = "keep.txt" // not given by the file: untouched
	if err := LoadFit(p, &f); err != nil {
		t.Fatal(err)
	}
	if f.Data != filepath.Join(sub, "d.csv") || f.JSON != "/abs/r.json" || f.Trace != filepath.Join(dir, "t.json") ||
		f.Plot != filepath.Join(sub, "plots") || f.Cluster != filepath.Join(sub, "c.toml") || f.Kernel != "matern" || f.Locations != "keep.txt" {
		t.Fatalf("paths %+v", f)
	}
	h := DefaultFit()
	p2 := filepath.Join(sub, "ck.toml")
	os.WriteFile(p2, []byte("checkpoint = \"none\"\nresume = \"r.ckpt\"\n"), 0o644)
	if err := LoadFit(p2, &h); err != nil || h.Checkpoint != "none" || h.Resume != filepath.Join(sub, "r.ckpt") {
		t.Fatalf("checkpoint %q resume %q: %v", h.Checkpoint, h.Resume, err)
	}
	if f.File != p || f.FileKeys["data"] != 1 || f.FileKeys["kernel"] != 6 || f.FileKeys["generation.distribution"] != 8 {
		t.Fatalf("keys %v", f.FileKeys)
	}
	// A file in the working directory keeps its relative paths.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(sub)
	g := DefaultFit()
	if err := LoadFit("fit.toml", &g); err != nil || g.Data != "d.csv" || g.Trace != "../t.json" {
		t.Fatalf("%v %+v", err, g)
	}
}

func TestLineOf(t *testing.T) {
	src := "p = 1\n[generation]  # gen\np = 2\n[[group]]\nname = \"a\"\ncpus = 1\n[[group]]\nname = \"b\"\ncpus = 2\n[group.cpu]\ngemm = 1\n"
	for key, want := range map[string]int{"p": 1, "generation": 2, "generation.p": 3, "group[0].cpus": 6, "group[1].cpus": 9,
		"group[1].name": 8, "group.cpu": 10, "gemm": 11, "missing": 0} {
		if got := lineOf(src, key); got != want {
			t.Errorf("lineOf(%q) = %d, want %d", key, got, want)
		}
	}
}
