package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
)

// TestCalibrationClusterFile: a calibration's cluster file loads back
// with its durations and network rounded to 5 significant digits (the
// values written here by hand), and its JSON holds them unrounded.
func TestCalibrationClusterFile(t *testing.T) {
	c := &Calibration{NB: 64, Reps: 3, Nu: 0.73, Kernels: "k", Core: "c", Kinds: []KindTiming{
		{Kind: "gemm", Seconds: 1.234567e-4, Gflops: 4.25},
		{Kind: "dcmg", Seconds: 2.5e-5, Flops: 4096},
	}}
	net, measured, err := Link(comm.Self{})
	if err != nil || measured || net != (config.Network{Bandwidth: 4e9, Latency: 1.5e-6}) {
		t.Fatalf("one rank's link %+v, measured %v (%v): want the shared-memory figures", net, measured, err)
	}
	r := ClusterRun{Network: config.Network{Bandwidth: 3.14159265e9, Latency: 1.5e-6}, Workers: 2, Ranks: 1, Cold: true}
	var buf bytes.Buffer
	if err := c.WriteClusterTOML(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# exageostat calibrate --nb 64 --reps 3 --nu 0.73 --workers 2 (1 ranks)\n",
		"# (caches evicted before each task, as in a run),\n", "#   gemm   4.25 GFLOP/s\n", "#   dcmg   4096 entries, 163.8 M entries/s\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in\n%s", want, buf.String())
		}
	}
	p := filepath.Join(t.TempDir(), "here.toml")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cl, err := config.LoadCluster(p)
	if err != nil {
		t.Fatal(err)
	}
	g := cl.Groups[0]
	if cl.NB != 64 || cl.Network.Bandwidth != 3.1416e9 || cl.Network.Latency != 1.5e-6 || len(cl.Groups) != 1 ||
		g.Name != "this-machine" || g.Nodes != 1 || g.CPUs != 2 || g.GPUs != 0 || g.CPU["gemm"] != 1.2346e-4 || g.CPU["dcmg"] != 2.5e-5 {
		t.Fatalf("loaded %+v", cl)
	}
	buf.Reset()
	if err := c.WriteClusterJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var v struct {
		NB      int
		Network struct {
			Bandwidth float64
			Measured  bool
		}
		Group []struct{ CPU map[string]float64 }
		Reps  int
	}
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.NB != 64 || v.Reps != 3 || v.Network.Bandwidth != 3.14159265e9 || v.Network.Measured || v.Group[0].CPU["gemm"] != 1.234567e-4 {
		t.Fatalf("json %s", buf.Bytes())
	}
}
