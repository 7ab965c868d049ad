package strategy

import (
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

// TestFigure7Ordering: on the paper's machine mixes (durations derived in
// the configs from the seed's hardware), at its 101 x 101-tile workload, the
// simulated makespans order as Figure 7 does: block-cyclic (all nodes or the
// fastest group) is never the best, and lp is at least as good as 1d1d.
func TestFigure7Ordering(t *testing.T) {
	for _, file := range []string{"cluster-chetemi-chifflet", "cluster-chetemi-chifflet-chifflot1", "cluster-chetemi-chifflet-chifflot2"} {
		c, err := config.LoadCluster("../../configs/" + file + ".toml")
		if err != nil {
			t.Fatal(err)
		}
		ms := map[string]float64{}
		for _, name := range Names() {
			_, res, err := Best(name, c, 101*960, 960, Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", file, name, err)
			}
			ms[name] = res.Makespan
		}
		if err := CheckFigure7(ms); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		t.Logf("%s: %v", file, ms)
	}
}

// TestRecordCounts: the recorded graph of one evaluation has every task of
// the real submission: NT(NT+1)/2 dcmg, NT potrf, NT(NT-1)/2 trmm and syrk,
// NT(NT-1)(NT-2)/6 gemm, on the ranks of the distribution.
func TestRecordCounts(t *testing.T) {
	c, err := config.LoadCluster("../../configs/cluster-chetemi-chifflet.toml")
	if err != nil {
		t.Fatal(err)
	}
	const nt = 13
	p, err := Build("lp", c, nt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Record(p, nt*100-7, 100)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, n := range g.Nodes {
		count[n.Kind]++
		if n.Rank < 0 || n.Rank >= 8 {
			t.Fatalf("node on rank %d", n.Rank)
		}
	}
	want := map[string]int{"dcmg": nt * (nt + 1) / 2, "potrf": nt, "trmm": nt * (nt - 1) / 2, "syrk": nt * (nt - 1) / 2, "gemm": nt * (nt - 1) * (nt - 2) / 6}
	for k, v := range want {
		if count[k] != v {
			t.Errorf("%s: %d tasks, want %d", k, count[k], v)
		}
	}
	if count["xfer"] == 0 || p.Moved == 0 {
		t.Errorf("lp on 8 nodes: %d messages, %d tiles moved", count["xfer"], p.Moved)
	}
}
