package perfmodel_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

// TestClusterFigure7FromPerfmodels: the seed 000 clusters with GPU nodes
// (4 Chetemi + 4 Chifflet + 1 or 2 Chifflot) whose groups take their CPU
// and GPU durations from performance-model files get exactly the tables of
// the hand-written configs, and so reproduce Figure 7's ordering. The
// loaded cluster is the hand-written config's value in every field but
// those of the files (a group's perfmodel, its nb and PerfmodelNB), which
// only pkg/config and pkg/perfmodel read: the simulator and the LP are a
// function of the rest of the cluster value, so their
// makespans from these files are those of the hand-written configs, whose
// ordering pkg/strategy's TestFigure7Ordering checks against Figure 7 (the
// same strategies, workload and tile size). Simulating them again here
// took 40-66 s of the suite for the same numbers.
func TestClusterFigure7FromPerfmodels(t *testing.T) {
	for _, k := range []int{1, 2} {
		t.Run(fmt.Sprintf("chifflot%d", k), func(t *testing.T) {
			c, err := perfmodel.LoadCluster(fmt.Sprintf("testdata/cluster-chifflot%d.toml", k), 0)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := config.LoadCluster(fmt.Sprintf("../../configs/cluster-chetemi-chifflet-chifflot%d.toml", k))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Groups) != len(ref.Groups) || c.NB != ref.NB || c.Nodes != ref.Nodes {
				t.Fatalf("%d groups, nb %d, %d nodes; want %d, %d, %d", len(c.Groups), c.NB, c.Nodes, len(ref.Groups), ref.NB, ref.Nodes)
			}
			files := 0
			for i, g := range c.Groups {
				r := ref.Groups[i]
				if !maps.Equal(g.CPU, r.CPU) || !maps.Equal(g.GPU, r.GPU) || g.CPUs != r.CPUs || g.GPUs != r.GPUs || g.PerfmodelNB != 960 {
					t.Errorf("group %s: cpu %v gpu %v (nb %d), want cpu %v gpu %v", g.Name, g.CPU, g.GPU, g.PerfmodelNB, r.CPU, r.GPU)
				}
				if g.Perfmodel != "" && (g.NB == 0 || g.NB == c.NB) {
					files++
				}
				c.Groups[i].Perfmodel, c.Groups[i].NB, c.Groups[i].PerfmodelNB = "", 0, 0
			}
			if files != len(c.Groups) {
				t.Errorf("%d of %d groups from a performance-model file", files, len(c.Groups))
			}
			if !reflect.DeepEqual(c, ref) {
				t.Errorf("the cluster from the performance models, its file names left out:\n%+v\nthe hand-written config:\n%+v", c, ref)
			}
		})
	}
}

// writeModel writes a model with, at each nb of nbs, gemm = nb^3 1e-11 s
// on arch cpu and a tenth of it on cuda, and potrf on cpu only.
func writeModel(t *testing.T, dir string, nbs ...int) {
	t.Helper()
	m := perfmodel.New()
	for _, nb := range nbs {
		g := float64(nb*nb*nb) * 1e-11
		m.Record("cpu", "gemm", nb*nb, g)
		m.Record("cuda", "gemm", nb*nb, g/10)
		m.Record("cpu", "potrf", nb*nb, g/6)
	}
	if err := m.Save(filepath.Join(dir, "pm.json")); err != nil {
		t.Fatal(err)
	}
}

// TestResolveCluster: a group's perfmodel fills its tables at the run's
// tile size, explicit kinds override, and bad keys give one-line errors
// naming the cluster file and the key.
func TestResolveCluster(t *testing.T) {
	const head = "[network]\nbandwidth = 1e9\n[[group]]\nname = \"a\"\nnodes = 2\ncpus = 4\ngpus = 1\n"
	for _, c := range []struct {
		name     string
		file     string
		nb       int
		cpu, gpu config.Durations
		wantNB   int
		err      string
	}{
		{name: "file nb", file: "nb = 960\n" + head + "perfmodel = \"pm.json\"\n",
			cpu: config.Durations{"gemm": 0.00884736, "potrf": 0.00884736 / 6}, gpu: config.Durations{"gemm": 0.000884736}, wantNB: 960},
		{name: "run nb", file: "nb = 960\n" + head + "perfmodel = \"pm.json\"\n", nb: 480,
			cpu: config.Durations{"gemm": 0.00110592, "potrf": 0.00110592 / 6}, gpu: config.Durations{"gemm": 0.000110592}, wantNB: 480},
		{name: "group nb", file: head + "perfmodel = \"pm.json\"\nnb = 480\n",
			cpu: config.Durations{"gemm": 0.00110592, "potrf": 0.00110592 / 6}, gpu: config.Durations{"gemm": 0.000110592}, wantNB: 480},
		{name: "explicit overrides", file: "nb = 480\n" + head + "perfmodel = \"sub/../pm.json\"\n[group.cpu]\ngemm = 2.5\ndcmg = 0.5\n[group.gpu]\ntrsm = 0.01\n",
			cpu: config.Durations{"gemm": 2.5, "dcmg": 0.5, "potrf": 0.00110592 / 6}, gpu: config.Durations{"gemm": 0.000110592, "trmm": 0.01}, wantNB: 480},
		{name: "group nb differs", file: "nb = 960\n" + head + "perfmodel = \"pm.json\"\nnb = 480\n",
			err: `key "group[0].nb": 480, but the run's tile size is 960`},
		{name: "no nb", file: head + "perfmodel = \"pm.json\"\n", err: `key "group[0].nb": missing`},
		{name: "no entries at nb", file: "nb = 512\n" + head + "perfmodel = \"pm.json\"\n",
			err: `key "group[0].perfmodel": ` + "DIR/pm.json has no cpu or cuda entry at nb = 512 (cpu at nb 480, 960, cuda at nb 480, 960)"},
		{name: "missing file", file: "nb = 960\n" + head + "perfmodel = \"nope.json\"\n", err: `key "group[0].perfmodel": open DIR/nope.json: no such file`},
		{name: "nb without perfmodel", file: "nb = 960\n" + head + "nb = 960\n[group.cpu]\ngemm = 1\n", err: `key "group[0].nb": only used with perfmodel`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeModel(t, dir, 480, 960)
			path := filepath.Join(dir, "cluster.toml")
			if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			cl, err := perfmodel.LoadCluster(path, c.nb)
			if c.err != "" {
				want := strings.ReplaceAll(c.err, "DIR", dir)
				if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), path+": ") || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v; want one line from %s containing %q", err, path, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := cl.Groups[0]
			if !equal(g.CPU, c.cpu) || !equal(g.GPU, c.gpu) || g.PerfmodelNB != c.wantNB || cl.NB == 0 {
				t.Errorf("cpu %v gpu %v at nb %d (cluster nb %d); want cpu %v gpu %v at %d", g.CPU, g.GPU, g.PerfmodelNB, cl.NB, c.cpu, c.gpu, c.wantNB)
			}
		})
	}
}

// TestValidateUnresolved: a group with a perfmodel that nobody loaded is
// an error of config.Validate, not an empty table.
func TestValidateUnresolved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cluster.toml")
	if err := os.WriteFile(path, []byte("nb = 960\n[[group]]\nname = \"a\"\nnodes = 1\ncpus = 2\nperfmodel = \"pm.json\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := config.LoadCluster(path)
	if err == nil || !strings.Contains(err.Error(), `key "group[0].perfmodel": `+filepath.Join(dir, "pm.json")+" was not loaded") {
		t.Fatalf("error %v", err)
	}
}

// equal compares duration tables to 1e-12 relative (the test's products
// against the model's).
func equal(a, b config.Durations) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || (v-w) > 1e-12*w || (w-v) > 1e-12*w {
			return false
		}
	}
	return true
}
