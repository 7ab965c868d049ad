package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeCluster(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "cluster.toml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultCluster(t *testing.T) {
	c := DefaultCluster()
	if err := c.Validate("defaults"); err != nil {
		t.Fatal(err)
	}
	fact, gen := c.Phases()
	if c.Nodes != 1 || fact.Distribution != "bc" || gen.Distribution != "bc" {
		t.Fatalf("defaults %+v, phases %+v %+v", c, fact, gen)
	}
}

func TestLoadCluster(t *testing.T) {
	cases := []struct {
		name, src string
		nodes     int
		fact, gen Phase
	}{
		{"bc", "nodes = 4\ndistribution = \"bc\"\n", 4, Phase{Distribution: "bc"}, Phase{Distribution: "bc"}},
		{"bc grid", "nodes = 6\np = 3\nq = 2\n", 6, Phase{Distribution: "bc", P: 3, Q: 2}, Phase{Distribution: "bc", P: 3, Q: 2}},
		{"1d1d then bc", "nodes = 4\ndistribution = \"1d1d\"\npowers = [1, 1, 4, 4]\n[generation]\ndistribution = \"bc\"\n",
			4, Phase{Distribution: "1d1d", Powers: []float64{1, 1, 4, 4}}, Phase{Distribution: "bc"}},
		{"1d1d both", "nodes = 4\ndistribution = \"1d1d\"\npowers = [60, 60, 565, 590]\n[generation]\npowers = [318, 319, 319, 319]\n",
			4, Phase{Distribution: "1d1d", Powers: []float64{60, 60, 565, 590}}, Phase{Distribution: "1d1d", Powers: []float64{318, 319, 319, 319}}},
		{"1d1d inherited", "nodes = 2\ndistribution = \"1d1d\"\npowers = [1, 3]\n",
			2, Phase{Distribution: "1d1d", Powers: []float64{1, 3}}, Phase{Distribution: "1d1d", Powers: []float64{1, 3}}},
		{"bc then 1d1d", "nodes = 4\n[generation]\ndistribution = \"1d1d\"\npowers = [1, 2, 3, 4]\n",
			4, Phase{Distribution: "bc"}, Phase{Distribution: "1d1d", Powers: []float64{1, 2, 3, 4}}},
	}
	eq := func(a, b Phase) bool {
		return a.Distribution == b.Distribution && a.P == b.P && a.Q == b.Q && slices.Equal(a.Powers, b.Powers)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := LoadCluster(writeCluster(t, c.src))
			if err != nil {
				t.Fatal(err)
			}
			fact, gen := cl.Phases()
			if cl.Nodes != c.nodes || !eq(fact, c.fact) || !eq(gen, c.gen) {
				t.Fatalf("nodes %d, phases %+v, %+v; want %d, %+v, %+v", cl.Nodes, fact, gen, c.nodes, c.fact, c.gen)
			}
		})
	}
}

func TestClusterErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"nodes = 0\n", `cluster.toml: key "nodes": must be >= 1, got 0`},
		{"nodes = 4\ndistribution = \"1d1d\"\npowers = [1, 1, 4]\n", `cluster.toml: key "powers": need 4 values (nodes = 4), got 3`},
		{"nodes = 2\ndistribution = \"1d1d\"\npowers = [1, -1]\n", `cluster.toml: key "powers": value 2 (node 1) must be a positive number, got -1`},
		{"nodes = 2\ndistribution = \"1d1d\"\npowers = [0, 1]\n", `key "powers": value 1 (node 0) must be a positive number, got 0`},
		{"distribution = \"cyclic\"\n", `cluster.toml: key "distribution": unknown distribution "cyclic" (want "bc" or "1d1d")`},
		{"distribution = \"\"\n", `key "distribution": missing`},
		{"nodes = 4\np = 3\nq = 2\n", `cluster.toml: key "p": a 3 x 2 grid holds 6 nodes, need nodes = 4`},
		{"nodes = 4\np = 3\n", `key "p": 3 grid rows do not divide nodes = 4`},
		{"nodes = 4\nq = 3\n", `key "q": 3 grid columns do not divide nodes = 4`},
		{"nodes = 4\np = -2\n", `key "p": must be >= 0, got -2`},
		{"nodes = 2\npowers = [1, 2]\n", `key "powers": only used with distribution = "1d1d" (the distribution is "bc")`},
		{"nodes = 2\ndistribution = \"1d1d\"\nq = 2\n", `key "q": only used with distribution = "bc"`},
		{"nodes = 4\n[generation]\ndistribution = \"1d1d\"\npowers = [1, 1]\n", `cluster.toml: key "generation.powers": need 4 values (nodes = 4), got 2`},
		{"nodes = 4\n[generation]\ndistribution = \"bcc\"\n", `key "generation.distribution": unknown distribution "bcc"`},
		{"nodes = 4\ndistribution = \"1d1d\"\n[generation]\ndistribution = \"bc\"\np = 3\n", `key "generation.p": 3 grid rows do not divide nodes = 4`},
		{"nodes = 4\n[generation]\nbogus = 1\n", `:3: key "generation.bogus": unknown key`},
		{"nodes = \"four\"\n", `:1: key "nodes": incompatible types`},
		{"nodes = 4\nrank = 1\n", `:2: key "rank": unknown key`},
	}
	for _, c := range cases {
		p := writeCluster(t, c.src)
		_, err := LoadCluster(p)
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		got := err.Error()
		if !strings.HasPrefix(got, p) || !strings.Contains(got, c.want) {
			t.Errorf("%q: error %q, want it to start with the file and contain %q", c.src, got, c.want)
		}
		if _, ok := err.(*Error); !ok {
			t.Errorf("%q: error of type %T, want *Error", c.src, err)
		}
	}
	// Flags applied over a file: the caller names the source.
	c := DefaultCluster()
	c.Nodes, c.Distribution, c.Powers = 3, "1d1d", []float64{1, 2}
	if err := c.Validate("flags"); err == nil || err.Error() != `flags: key "powers": need 3 values (nodes = 3), got 2` {
		t.Fatalf("Validate: %v", err)
	}
}

// The example files in configs/ load and validate.
func TestClusterExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "configs", "cluster-*.toml"))
	if len(files) < 2 {
		t.Fatalf("found %v, want configs/cluster-bc.toml and configs/cluster-1d1d.toml", files)
	}
	for _, f := range files {
		if _, err := LoadCluster(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
