package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/strategy"
)

// TestTraceView: a fit's trace drawn for one iteration (2 workers and the
// helper of oversubscription: 1 to 3 lanes ran tasks); the summary counts
// that iteration's tasks of the file (read here from its JSON) and its 4
// potrf (N = 400, nb = 100).
func TestTraceView(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.json")
	if _, e, code := run(t, bin, "fit", "--n", "400", "--nb", "100", "--workers", "2", "--max-evals", "2", "--trace", tr, "-q"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, e)
	}
	b, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Cat string
			Args    map[string]any
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tasks := 0
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" && e.Cat == "task" && e.Args["iteration"] == 2.0 {
			tasks++
		}
	}
	out := filepath.Join(dir, "v.svg")
	o, e, code := run(t, bin, "trace", "view", tr, "--iteration", "2", "--out", out, "--json")
	if code != 0 {
		t.Fatalf("trace view: exit %d: %s", code, e)
	}
	var s struct {
		Tasks, Potrf, Workers, Ranks int
		Makespan                     float64 `json:"makespan_s"`
		Utilization                  float64
	}
	if err := json.Unmarshal([]byte(o), &s); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	if s.Tasks != tasks || tasks == 0 || s.Potrf != 4 || s.Workers < 1 || s.Workers > 3 || s.Ranks != 1 || !(s.Makespan > 0) || !(s.Utilization > 0 && s.Utilization <= 1) {
		t.Errorf("summary %+v; the file has %d tasks in iteration 2", s, tasks)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("no picture: %v", err)
	}
	notTrace := writeFile(t, dir, "x.json", "{\"a\": 1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{tr}, "--out FILE.svg or FILE.png is required"},
		{[]string{tr, "--out", filepath.Join(dir, "v.pdf")}, "an .svg or a .png file"},
		{[]string{filepath.Join(dir, "missing.json"), "--out", out}, "missing.json"},
		{[]string{notTrace, "--out", out}, "not a Chrome trace-event JSON file"},
		{[]string{tr, "--iteration", "99", "--out", out}, "no task of iteration 99"},
		{[]string{"--out", out}, "give one trace file"},
	} {
		_, stderr, code := run(t, bin, append([]string{"trace", "view"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
}

// TestTraceDAG: the DOT file has one node per node of the recorded graph
// (2 ranks) and one edge per dependency.
func TestTraceDAG(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "g.dot")
	if _, e, code := run(t, bin, "trace", "dag", "--n", "400", "--nb", "100", "--nodes", "2", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, q := distribution.SquareGrid(2)
	bc := distribution.BlockCyclic{P: p, Q: q}
	g, err := strategy.Record(&strategy.Plan{Name: "bc", Fact: bc, Gen: bc}, 400, 100)
	if err != nil {
		t.Fatal(err)
	}
	deps := 0
	for _, n := range g.Nodes {
		deps += len(n.Deps)
	}
	nodes := len(regexp.MustCompile(`(?m)^    n\d+ \[`).FindAll(b, -1))
	edges := len(regexp.MustCompile(`(?m)^  n\d+ -> n\d+;$`).FindAll(b, -1))
	if nodes != len(g.Nodes) || edges != deps || !strings.Contains(string(b), `label="potrf(3,3,3)"`) ||
		!strings.Contains(string(b), "subgraph cluster_rank1") {
		t.Errorf("DOT: %d nodes, %d edges; the graph has %d nodes, %d dependencies", nodes, edges, len(g.Nodes), deps)
	}
	_, stderr, code := run(t, bin, "trace", "dag", "--n", "40000", "--nb", "100", "--out", out)
	if code != 2 || !strings.Contains(stderr, "too many to draw") {
		t.Errorf("a large graph: exit %d, %s", code, stderr)
	}
}

// TestBenchTracing: the traced and untraced evaluations give the same l
// bitwise, and the traced one records one event per task: 10 dcmg, 4 zcpy
// and the Cholesky, solve and products of 4 x 4 tiles, as many as the
// recorded graph of one evaluation on one rank holds.
func TestBenchTracing(t *testing.T) {
	bin := binary(t)
	o, e, code := run(t, bin, "bench", "tracing", "--n", "400", "--nb", "100", "--workers", "2", "--reps", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		Same  bool                     `json:"same_loglik"`
		Tasks int                      `json:"traced_tasks"`
		On    struct{ Median float64 } `json:"traced_seconds"`
		Run   struct{ Host string }    `json:"run"`
	}
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	bc := distribution.BlockCyclic{P: 1, Q: 1}
	g, err := strategy.Record(&strategy.Plan{Name: "bc", Fact: bc, Gen: bc}, 400, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Same || r.Tasks != len(g.Nodes) || !(r.On.Median > 0) || r.Run.Host == "" {
		t.Errorf("result %+v; the graph has %d tasks", r, len(g.Nodes))
	}
}

// TestBenchOverlapCluster: the simulated ablation on 4 Chifflet nodes at
// 4 x 4 tiles: the steps in Figure 5's order; the barriers of sync only
// delay (async is faster); the local solve sends fewer bytes (tiles of L
// no longer travel to z's owner); memory and oversubscription are said
// not to be modelled, and oversubscription's step is the previous one.
func TestBenchOverlapCluster(t *testing.T) {
	bin := binary(t)
	o, e, code := run(t, bin, "bench", "overlap", "--cluster", "../../configs/cluster-4chifflet.toml", "--n", "3840", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		NT, Nodes, Workers int
		Steps              []struct {
			Name        string
			Seconds     float64
			MB          float64 `json:"mb_sent"`
			Utilization float64
			NotModelled string `json:"not_modelled"`
		}
	}
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	names := []string{"sync", "async", "+local-solve+memory", "+priorities", "+submission-order", "+oversubscription"}
	if r.NT != 4 || r.Nodes != 4 || r.Workers != 4*26 || len(r.Steps) != len(names) {
		t.Fatalf("result %+v", r)
	}
	s := r.Steps
	for i, n := range names {
		if s[i].Name != n || !(s[i].Seconds > 0) || !(s[i].Utilization > 0 && s[i].Utilization <= 1) {
			t.Errorf("step %d: %+v, want %s", i, s[i], n)
		}
	}
	if !(s[0].Seconds > s[1].Seconds) || !(s[2].MB < s[1].MB) || s[5].Seconds != s[4].Seconds ||
		s[2].NotModelled == "" || s[5].NotModelled == "" || s[1].NotModelled != "" {
		t.Errorf("steps %+v", s)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "../../configs/cluster-4chifflet.toml"}, "--cluster needs --n"},
		{[]string{"--cluster", "../../configs/cluster-4chifflet.toml", "--n", "3840", "--dist", "nope"}, `--dist "nope"`},
		{[]string{"--dist", "lp"}, "--dist goes with --cluster"},
	} {
		_, stderr, code := run(t, bin, append([]string{"bench", "overlap"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
