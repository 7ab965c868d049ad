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

// withGroups returns the cluster file top followed by two valid groups of
// one node each.
func withGroups(top string) string {
	return "nb = 960\n" + top + `
[network]
bandwidth = 1e9
[[group]]
name = "slow"
nodes = 1
cpus = 2
[group.cpu]
gemm = 0.06
[[group]]
name = "fast"
nodes = 1
cpus = 2
[group.cpu]
gemm = 0.02
`
}

func TestClusterErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"nodes = 0\n", `cluster.toml: key "nodes": must be in [1, 1048576], got 0`},
		{"nodes = 4\ndistribution = \"1d1d\"\npowers = [1, 1, 4]\n", `cluster.toml: key "powers": need 4 values (nodes = 4), got 3`},
		{"nodes = 2\ndistribution = \"1d1d\"\npowers = [1, -1]\n", `cluster.toml: key "powers": value 2 (node 1) must be a positive number, got -1`},
		{"nodes = 2\ndistribution = \"1d1d\"\npowers = [0, 1]\n", `key "powers": value 1 (node 0) must be a positive number, got 0`},
		{"distribution = \"cyclic\"\n", `cluster.toml: key "distribution": unknown distribution "cyclic" (want "bc", "1d1d", "hybrid", "lp" or "bc-fast")`},
		{"nodes = 4\nband = 1\n", `cluster.toml: key "band": only used with distribution = "hybrid" (the distribution is "bc")`},
		{"nodes = 4\ndistribution = \"hybrid\"\nband = -1\n", `cluster.toml: key "band": must be >= 0, got -1`},
		{"nodes = 4\ndistribution = \"lp\"\n", `cluster.toml: key "distribution": "lp" is computed from the node groups: it needs the [[group]] tables`},
		{withGroups("distribution = \"lp\"\npowers = [1, 2]\n"), `key "powers": not used with distribution = "lp"`},
		{withGroups("distribution = \"bc-fast\"\np = 2\n"), `key "p": not used with distribution = "bc-fast"`},
		{withGroups("distribution = \"lp\"\n[generation]\ndistribution = \"bc\"\n"), `key "generation.distribution": "lp" sets the generation distribution itself`},
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

const groupsSrc = `nb = 960
[network]
bandwidth = 1.25e9
latency = 5e-6
[[group]]
name = "chetemi"
nodes = 2
cpus = 18
[group.cpu]
dcmg = 0.5
potrf = 0.016
trtri = 0.016
trsm = 0.035
syrk = 0.033
gemm = 0.059
[[group]]
name = "chifflet"
nodes = 3
cpus = 24
gpus = 2
bandwidth = 2.5e9
[group.cpu]
dcmg = 0.4
gemm = 0.054
[group.gpu]
potrf = 0.0045
gemm = 0.0068
`

func TestLoadClusterGroups(t *testing.T) {
	c, err := LoadCluster(writeCluster(t, groupsSrc))
	if err != nil {
		t.Fatal(err)
	}
	if c.Nodes != 5 || c.NB != 960 || len(c.Groups) != 2 {
		t.Fatalf("nodes %d, nb %d, groups %d; want 5, 960, 2", c.Nodes, c.NB, len(c.Groups))
	}
	if c.Network != (Network{Bandwidth: 1.25e9, Latency: 5e-6}) {
		t.Fatalf("network %+v", c.Network)
	}
	g := c.Groups[1]
	if g.Name != "chifflet" || g.Nodes != 3 || g.CPUs != 24 || g.GPUs != 2 ||
		g.CPU["gemm"] != 0.054 || g.GPU["gemm"] != 0.0068 || len(g.GPU) != 2 || g.GPU["dcmg"] != 0 {
		t.Fatalf("group 1 %+v", g)
	}
	if got := c.RankGroups(); !slices.Equal(got, []int{0, 0, 1, 1, 1}) {
		t.Fatalf("RankGroups %v", got)
	}
	if bw, lat := c.Groups[0].Link(c.Network); bw != 1.25e9 || lat != 5e-6 {
		t.Fatalf("group 0 link %g %g", bw, lat)
	}
	if bw, lat := g.Link(c.Network); bw != 2.5e9 || lat != 5e-6 {
		t.Fatalf("group 1 link %g %g", bw, lat)
	}
	// nodes given and equal to the sum; integer durations are seconds too.
	c, err = LoadCluster(writeCluster(t, "nodes = 5\n"+strings.Replace(groupsSrc, "dcmg = 0.5", "dcmg = 1", 1)))
	if err != nil || c.Nodes != 5 || c.Groups[0].CPU["dcmg"] != 1 {
		t.Fatalf("nodes = 5: %v, %+v", err, c)
	}
	// A single-node group needs no network.
	if _, err := LoadCluster(writeCluster(t, "nb = 64\n[[group]]\nname = \"one\"\nnodes = 1\ncpus = 2\n[group.cpu]\ngemm = 0.001\n")); err != nil {
		t.Fatal(err)
	}
}

func TestClusterGroupErrors(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				panic(old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	tests := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"nodes differ", func(s string) string { return "nodes = 4\n" + s }, `key "nodes": 4, but the groups have 5 nodes in all`},
		{"no nb", rep("nb = 960\n", ""), `key "nb": missing: the tile size`},
		{"negative nb", rep("nb = 960", "nb = -1"), `key "nb": must be >= 0, got -1`},
		{"no bandwidth", rep("bandwidth = 1.25e9\n", ""), `key "network.bandwidth": missing: group "chetemi" needs a link bandwidth`},
		{"negative bandwidth", rep("bandwidth = 1.25e9", "bandwidth = -1"), `key "network.bandwidth": must be a positive number`},
		{"negative latency", rep("latency = 5e-6", "latency = -5e-6"), `key "network.latency": must be a non-negative number`},
		{"negative message CPU", rep("latency = 5e-6", "latency = 5e-6\ncpu_per_message = -1e-6"), `key "network.cpu_per_message": must be a non-negative number`},
		{"infinite byte CPU", rep("latency = 5e-6", "latency = 5e-6\ncpu_per_byte = inf"), `key "network.cpu_per_byte": must be a non-negative number`},
		{"group bandwidth", rep("bandwidth = 2.5e9", "bandwidth = -2"), `key "group[1].bandwidth": must be a positive number`},
		{"negative task CPU", rep("bandwidth = 2.5e9", "bandwidth = 2.5e9\ntask_cpu = -1e-5"), `key "group[1].task_cpu": must be a non-negative number`},
		{"no name", rep(`name = "chifflet"`, ""), `key "group[1].name": missing`},
		{"same name", rep(`name = "chifflet"`, `name = "chetemi"`), `key "group[1].name": "chetemi" is also the name of group[0]`},
		{"zero nodes", rep("nodes = 2", "nodes = 0"), `key "group[0].nodes": must be in [1, 1048576], got 0`},
		{"negative gpus", rep("gpus = 2", "gpus = -2"), `key "group[1].gpus": must be >= 0, got -2`},
		{"no workers", rep("cpus = 18", "cpus = 0"), `key "group[0].cpus": the group has no workers`},
		{"unknown kind", rep("gemm = 0.0068", "gemn = 0.0068"), `key "group[1].gpu.gemn": unknown task kind (want one of dcmg, zcpy, potrf`},
		{"zero duration", rep("gemm = 0.054", "gemm = 0"), `key "group[1].cpu.gemm": must be a positive number of seconds, got 0`},
		{"nan duration", rep("potrf = 0.016", "potrf = nan"), `key "group[0].cpu.potrf": must be a positive number of seconds, got NaN`},
		{"inf duration", rep("potrf = 0.0045", "potrf = inf"), `key "group[1].gpu.potrf": must be a positive number of seconds, got +Inf`},
		{"nothing runs", rep("cpus = 18", "cpus = 0\ngpus = 1"), `key "group[0].cpu": no task kind can run on the group's workers`},
		{"unknown table", rep("[group.gpu]", "[group.gcpu]"), `key "group.gcpu": unknown key`},
		{"gpu table only, no gpus", rep("[group.cpu]\ndcmg = 0.4\ngemm = 0.054\n", ""), ``},
		{"durations without workers", rep("cpus = 24\ngpus = 2", "cpus = 24\ngpus = 0"), ``},
		{"string duration", rep("gemm = 0.059", `gemm = "fast"`), `key "group.cpu.gemm": incompatible types`},
		{"unknown group key", rep("cpus = 18", "cpus = 18\ncores = 20"), `key "group.cores": unknown key`},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			p := writeCluster(t, c.edit(groupsSrc))
			_, err := LoadCluster(p)
			if c.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if got := err.Error(); !strings.HasPrefix(got, p) || !strings.Contains(got, c.want) {
				t.Fatalf("error %q, want it to start with the file and contain %q", got, c.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T, want *Error", err)
			}
		})
	}
}

// The paper's machines: 4 Chetemi + 4 Chifflet (+ 1 or 2 Chifflot).
func TestPaperClusters(t *testing.T) {
	for _, c := range []struct {
		file   string
		nodes  int
		groups []string
	}{
		{"cluster-chetemi-chifflet.toml", 8, []string{"chetemi", "chifflet"}},
		{"cluster-chetemi-chifflet-chifflot1.toml", 9, []string{"chetemi", "chifflet", "chifflot"}},
		{"cluster-chetemi-chifflet-chifflot2.toml", 10, []string{"chetemi", "chifflet", "chifflot"}},
	} {
		cl, err := LoadCluster(filepath.Join("..", "..", "configs", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range cl.Groups {
			names = append(names, g.Name)
			for _, k := range TaskKinds() {
				if !(g.CPU[k] > 0) {
					t.Errorf("%s: %s has no CPU %s duration", c.file, g.Name, k)
				}
			}
			if _, ok := g.GPU["dcmg"]; ok {
				t.Errorf("%s: %s generates on the GPU", c.file, g.Name)
			}
			if g.GPUs > 0 && !(g.GPU["gemm"] < g.CPU["gemm"]/5) {
				t.Errorf("%s: %s GPU gemm %g not well below the CPU's %g", c.file, g.Name, g.GPU["gemm"], g.CPU["gemm"])
			}
		}
		if cl.Nodes != c.nodes || cl.NB != 960 || !slices.Equal(names, c.groups) || len(cl.Powers) != c.nodes {
			t.Errorf("%s: nodes %d, nb %d, groups %v, %d powers", c.file, cl.Nodes, cl.NB, names, len(cl.Powers))
		}
		if len(cl.Groups) == 3 {
			chifflet, chifflot := cl.Groups[1], cl.Groups[2]
			// The seed: the P100 runs a dgemm 10x faster than the GTX 1080.
			if r := chifflet.GPU["gemm"] / chifflot.GPU["gemm"]; r < 9.9 || r > 10.1 {
				t.Errorf("%s: GTX 1080 / P100 gemm time %g, want 10", c.file, r)
			}
			if bw, _ := chifflot.Link(cl.Network); bw <= cl.Network.Bandwidth {
				t.Errorf("%s: chifflot link %g not faster than the 10 Gb one", c.file, bw)
			}
		}
	}
}

// DecodeCluster leaves validation to the caller, after flags.
func TestDecodeCluster(t *testing.T) {
	p := writeCluster(t, groupsSrc)
	c, err := DecodeCluster(p)
	if err != nil || c.Nodes != 5 {
		t.Fatalf("DecodeCluster: %v, nodes %d", err, c.Nodes)
	}
	c.Nodes = 4 // e.g. --nodes 4
	if err := c.Validate("flags"); err == nil || !strings.Contains(err.Error(), `flags: key "nodes": 4, but the groups have 5 nodes`) {
		t.Fatalf("Validate: %v", err)
	}
	// Without groups, nodes keeps its default.
	c, err = DecodeCluster(writeCluster(t, "distribution = \"bc\"\n"))
	if err != nil || c.Nodes != 1 {
		t.Fatalf("no groups: %v, nodes %d", err, c.Nodes)
	}
}

func TestDerivedDistributions(t *testing.T) {
	for _, name := range []string{"lp", "bc-fast"} {
		c, err := LoadCluster(writeCluster(t, withGroups("distribution = \""+name+"\"\n")))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fact, gen := c.Phases()
		if fact.Distribution != name || gen.Distribution != name || c.Nodes != 2 {
			t.Errorf("%s: phases %q/%q on %d nodes, want %q for both on 2", name, fact.Distribution, gen.Distribution, c.Nodes, name)
		}
	}
}
