package strategy

import (
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

func TestBestRow(t *testing.T) {
	cases := []struct {
		rows []Row
		want int
	}{
		{nil, -1},
		{[]Row{{Dist: "bc", Err: "no"}, {Dist: "lp", Err: "no"}}, -1},
		{[]Row{{Dist: "bc", Makespan: 2}, {Dist: "bc-fast", Makespan: 1, Err: "no"}, {Dist: "1d1d", Makespan: 1.5}, {Dist: "lp", Makespan: 1.5}}, 2},
		{[]Row{{Dist: "bc", Makespan: 3}, {Dist: "lp", Makespan: 0.5}}, 1},
	}
	for i, c := range cases {
		if got := BestRow(c.rows); got != c.want {
			t.Errorf("case %d: %d, want %d", i, got, c.want)
		}
	}
}

func TestDescribeSubset(t *testing.T) {
	c, err := config.LoadCluster("../../configs/cluster-chetemi-chifflet-chifflot1.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got := GroupCounts(c); !slices.Equal(got, []int{4, 4, 1}) {
		t.Fatalf("group counts %v", got)
	}
	for _, x := range []struct {
		nodes []int
		want  string
	}{
		{[]int{4, 4, 1}, "4 chetemi + 4 chifflet + 1 chifflot"},
		{[]int{1, 0, 1}, "1 chetemi + 1 chifflot"},
		{[]int{0, 2, 0}, "2 chifflet"},
	} {
		if got := DescribeSubset(c, x.nodes); got != x.want {
			t.Errorf("%v: %q, want %q", x.nodes, got, x.want)
		}
	}
}

// TestCompare: one row per strategy in the order of Names, each the
// makespan Best simulates, with the memory of its nodes; the recommended
// row is the fastest.
func TestCompare(t *testing.T) {
	c, err := config.LoadCluster("../../configs/cluster-chetemi-chifflet.toml")
	if err != nil {
		t.Fatal(err)
	}
	const n, nb = 20 * 960, 960
	rows := Compare(c, n, nb, false)
	if len(rows) != len(Names()) {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		p, res, err := Best(Names()[i], c, n, nb, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Dist != Names()[i] || r.Err != "" || r.Makespan != res.Makespan || r.Moved != p.Moved || r.IdealLP != p.Ideal ||
			r.MB != float64(res.Bytes)/1e6 || r.Note != p.Note || len(r.Memory) != c.GroupNodes() {
			t.Errorf("row %d: %+v; Best: makespan %g, moved %d", i, r, res.Makespan, p.Moved)
		}
		if owned := TileBytes(p.Fact, n, nb); r.Memory != nil && r.Memory[7].Owned != owned[7] {
			t.Errorf("%s: node 7 owns %d bytes, want %d", r.Dist, r.Memory[7].Owned, owned[7])
		}
	}
	b := BestRow(rows)
	for _, r := range rows {
		if r.Makespan < rows[b].Makespan {
			t.Errorf("recommended %s (%g s), but %s takes %g s", rows[b].Dist, rows[b].Makespan, r.Dist, r.Makespan)
		}
	}
}

// TestSubsets: at most 2 of the 4 + 4 nodes are the choices (1, 0),
// (0, 1), (2, 0), (1, 1) and (0, 2), each simulated with 1d1d and lp: 10
// rows by increasing makespan, each the makespan of Best on that subset.
func TestSubsets(t *testing.T) {
	c, err := config.LoadCluster("../../configs/cluster-chetemi-chifflet.toml")
	if err != nil {
		t.Fatal(err)
	}
	const n, nb = 20 * 960, 960
	lines := 0
	rows := Subsets(c, n, nb, 2, false, func(string) { lines++ })
	if len(rows) != 10 || lines != 5 {
		t.Fatalf("%d rows, %d progress lines: %+v", len(rows), lines, rows)
	}
	seen := map[string]bool{}
	for i, r := range rows {
		if i > 0 && r.Makespan < rows[i-1].Makespan {
			t.Errorf("row %d: %g s after %g s", i, r.Makespan, rows[i-1].Makespan)
		}
		if len(r.Nodes) != 2 || r.Nodes[0]+r.Nodes[1] != r.Total || r.Total < 1 || r.Total > 2 {
			t.Errorf("row %d: %+v", i, r)
		}
		key := DescribeSubset(c, r.Nodes) + " " + r.Dist
		if seen[key] {
			t.Errorf("%s twice", key)
		}
		seen[key] = true
	}
	// One of them recomputed on its own cluster.
	sub := c
	sub.Groups = []config.Group{c.Groups[0], c.Groups[1]}
	sub.Groups[0].Nodes, sub.Groups[1].Nodes, sub.Nodes = 1, 1, 2
	_, res, err := Best("lp", sub, n, nb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if slices.Equal(r.Nodes, []int{1, 1}) && r.Dist == "lp" && r.Makespan != res.Makespan {
			t.Errorf("1 + 1 nodes, lp: %g s, Best says %g s", r.Makespan, res.Makespan)
		}
	}
}

// TestCheckFigure7: the ordering of Figure 7 (block-cyclic never the best,
// lp no slower than 1d1d) on hand-made makespans.
func TestCheckFigure7(t *testing.T) {
	for _, c := range []struct {
		name string
		ms   map[string]float64
		ok   bool
	}{
		{"paper", map[string]float64{"bc": 79, "bc-fast": 68, "1d1d": 52, "lp": 42}, true},
		{"lp equals 1d1d", map[string]float64{"bc": 79, "bc-fast": 68, "1d1d": 52, "lp": 52}, true},
		{"bc-fast best", map[string]float64{"bc": 79, "bc-fast": 40, "1d1d": 52, "lp": 42}, false},
		{"bc ties", map[string]float64{"bc": 42, "bc-fast": 68, "1d1d": 52, "lp": 42}, false},
		{"lp slower", map[string]float64{"bc": 79, "bc-fast": 68, "1d1d": 50, "lp": 51}, false},
		{"missing", map[string]float64{"bc": 79, "1d1d": 50, "lp": 40}, false},
	} {
		if err := CheckFigure7(c.ms); (err == nil) != c.ok {
			t.Errorf("%s: CheckFigure7 = %v, want ok %v", c.name, err, c.ok)
		}
	}
}
