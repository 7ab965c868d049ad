package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestClusterWithFlags: plan's precedence of flags over a cluster file,
// each case against the cluster written out by hand.
func TestClusterWithFlags(t *testing.T) {
	file := Cluster{Nodes: 4, Phase: Phase{Distribution: "1d1d", Powers: []float64{1, 1, 4, 4}},
		Generation: Phase{Distribution: "bc", P: 2, Q: 2}}
	given := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	defaults := ClusterFlags{Nodes: 1, Dist: "bc"}
	with := func(fl ClusterFlags, names ...string) ClusterFlags { fl.Given = given(names...); return fl }
	cases := []struct {
		name   string
		file   string // "" for no file: DefaultCluster
		in     Cluster
		fl     ClusterFlags
		want   Cluster
		source string // of the error, "" for none
	}{
		{name: "file alone", file: "c.toml", in: file, fl: with(defaults), want: file},
		{name: "no file, defaults", in: DefaultCluster(), fl: with(defaults), want: Cluster{Nodes: 1, Phase: Phase{Distribution: "bc"}}},
		{name: "no file, nodes from powers", in: DefaultCluster(), fl: with(ClusterFlags{Nodes: 1, Dist: "bc", Powers: []float64{1, 2, 3}}, "powers"),
			want: Cluster{Nodes: 3, Phase: Phase{Distribution: "1d1d", Powers: []float64{1, 2, 3}}}},
		{name: "no file, nodes from gen-tiles", in: DefaultCluster(), fl: with(ClusterFlags{Nodes: 1, Dist: "bc", GenTiles: []int{3, 3}}, "gen-tiles"),
			want: Cluster{Nodes: 2, Phase: Phase{Distribution: "bc"}}},
		{name: "dist over the file drops its powers", file: "c.toml", in: file, fl: with(ClusterFlags{Nodes: 1, Dist: "bc"}, "dist"),
			want: Cluster{Nodes: 4, Phase: Phase{Distribution: "bc"}, Generation: file.Generation}},
		{name: "gen-powers imply 1d1d", file: "c.toml", in: file, fl: with(ClusterFlags{Nodes: 1, Dist: "bc", GenPowers: []float64{2, 2, 1, 1}}, "gen-powers"),
			want: Cluster{Nodes: 4, Phase: file.Phase, Generation: Phase{Distribution: "1d1d", Powers: []float64{2, 2, 1, 1}}}},
		{name: "gen-tiles drop the generation", file: "c.toml", in: file, fl: with(ClusterFlags{Nodes: 1, Dist: "bc", GenTiles: []int{1, 1, 1, 1}}, "gen-tiles"),
			want: Cluster{Nodes: 4, Phase: file.Phase}},
		{name: "nodes over the file", file: "c.toml", in: file, fl: with(ClusterFlags{Nodes: 3, Dist: "bc"}, "nodes"), source: "c.toml (with flags)"},
		{name: "no file, bad nodes", in: DefaultCluster(), fl: with(ClusterFlags{Nodes: 0, Dist: "bc"}, "nodes"), source: "plan (flags)"},
	}
	for _, c := range cases {
		got, err := c.in.WithFlags(c.file, c.fl)
		if c.source != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.source+": ") {
				t.Errorf("%s: error %v, want one from %q", c.name, err, c.source)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v (%v), want %+v", c.name, got, err, c.want)
		}
	}
}

// TestClusterFileEncode: a written cluster file loads back to the same
// values, its header as comments, without the keys left at zero.
func TestClusterFileEncode(t *testing.T) {
	f := ClusterFile{NB: 480, Network: Network{Bandwidth: 1.25e10, Latency: 2e-6}, Groups: []Group{
		{Name: "a", Nodes: 2, CPUs: 3, CPU: Durations{"gemm": 0.0125, "potrf": 0.004}},
		{Name: "b", Nodes: 1, CPUs: 1, GPUs: 1, Hosts: []string{"h1"}, CPU: Durations{"gemm": 0.02}, GPU: Durations{"gemm": 0.001}},
	}}
	var buf bytes.Buffer
	if err := f.Encode(&buf, "first line", "", "last"); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.HasPrefix(text, "# first line\n#\n# last\n\n") || strings.Contains(text, "perfmodel") || strings.Contains(text, "latency = 0") {
		t.Fatalf("cluster file:\n%s", text)
	}
	p := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCluster(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.NB != 480 || c.Network != f.Network || c.Nodes != 3 || !reflect.DeepEqual(c.Groups, f.Groups) {
		t.Fatalf("loaded %+v, want %+v", c, f)
	}
}
