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
