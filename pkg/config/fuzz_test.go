package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets of the configuration files: whatever the bytes of the
// file, loading returns an *Error that is one line starting with the file,
// or a result that validates or fails validation with such an error,
// without a panic. Seed corpora: testdata/fuzz/<FuzzName>/ (where `go test`
// finds them); `make test` runs each target for a few seconds.

// checkError fails t unless err is a one-line *Error whose text starts
// with one of files.
func checkError(t *testing.T, err error, files ...string) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one line: %q", msg)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %q (%T) is not an *Error", msg, err)
	}
	for _, f := range files {
		if strings.HasPrefix(msg, f+":") {
			return
		}
	}
	t.Fatalf("error %q names none of %v", msg, files)
}

func writeFuzz(t *testing.T, dir string, b []byte) string {
	p := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func FuzzLoadFit(f *testing.F) {
	for _, s := range []string{
		"data = \"d.csv\"\nlb = [0.01, 0.02, 0.03]\nnb = 160\nmax_evals = 50\n",
		"n = 1600\ntheta = [1.0, 0.1, 0.5]\nseed = 1\n",
		"seed = -1\n",
		"nb = \"big\"\n",
		"lb = [1, 2\n",
		"[generation]\ndistribution = \"bc\"\np = 2\n",
		"kernel = \"powexp\"\nub = [5, 5, 2]\nstart = \"1,0.1,1\"\n",
		"data = \"d.csv\"\nn = 100\n",
		"grid = \"10x10\"\nplot = \"plots\"\nholdout = 10\ntrue_theta = [1, 0.1, 0.5]\n",
		"memory_limit = \"2GB\"\ncluster = \"../c.toml\"\ndistribution = \"lp\"\n",
		"bogus = 1\n",
		"a.b.c = 1\n",
		"\"\\u0000\" = 1\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := writeFuzz(t, dir, b)
		c := DefaultFit()
		if err := LoadFit(p, &c); err != nil {
			checkError(t, err, p)
			return
		}
		if c.File != p {
			t.Fatalf("File %q", c.File)
		}
		if err := c.Validate(); err != nil {
			checkError(t, err, p, "fit")
		}
		// The distribution keys as a fit over 4 ranks checks them.
		cl := Cluster{Nodes: 4, Phase: c.Phase, Generation: c.Generation}
		if err := cl.Validate(p); err != nil {
			checkError(t, err, p)
		}
	})
}

func FuzzLoadCluster(f *testing.F) {
	for _, s := range []string{
		"nodes = 4\ndistribution = \"1d1d\"\npowers = [1, 1, 4, 4]\n[generation]\ndistribution = \"bc\"\n",
		"nb = 960\n[network]\nbandwidth = 1.25e9\nlatency = 5e-6\n[[group]]\nname = \"a\"\nnodes = 2\ncpus = 4\n[group.cpu]\ngemm = 0.04\ntrsm = 0.01\n",
		"nodes = 0\n",
		"[[group]]\nname = \"a\"\nnodes = -1\n",
		"nodes = 2\np = 3\nq = 1\n",
		"distribution = \"lp\"\n",
		"[[group]]\n[group.gpu]\nfoo = nan\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := writeFuzz(t, dir, b)
		c, err := DecodeCluster(p)
		if err != nil {
			checkError(t, err, p)
		}
		c, err = LoadCluster(p)
		if err != nil {
			checkError(t, err, p)
			return
		}
		// A valid cluster: its phases and groups are consistent.
		if c.Nodes < 1 {
			t.Fatalf("valid cluster with %d nodes", c.Nodes)
		}
		if len(c.Groups) > 0 && c.GroupNodes() != c.Nodes {
			t.Fatalf("valid cluster: nodes %d, groups %d", c.Nodes, c.GroupNodes())
		}
		fact, gen := c.Phases()
		if fact.Distribution == "" || gen.Distribution == "" {
			t.Fatalf("valid cluster without a distribution: %+v %+v", fact, gen)
		}
		if err := c.Validate(p); err != nil {
			t.Fatalf("LoadCluster's result does not validate: %v", err)
		}
	})
}
