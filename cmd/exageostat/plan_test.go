package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The 1D-1D distribution of 5 x 5 tiles over powers 1, 1, 4, 4, traced by
// hand (quotas 2, 1, 6, 6; slabs {0, 1} and {2, 3}; columns to slabs B B A B B;
// rows of slab A: 2 -> node 1, 3 and 4 -> node 0; rows of slab B bottom up:
// 4 -> 2, 3 -> 3, 2 -> 3, 1 -> 2, 0 -> 3):
//
//	3
//	2 2
//	3 3 1
//	3 3 0 3
//	2 2 0 2 2
//
// and the 2 x 2 block-cyclic one, owner (m mod 2) 2 + (n mod 2):
//
//	0
//	2 3
//	0 1 0
//	2 3 2 3
//	0 1 0 1 0
//
// They differ on 11 of the 15 lower tiles.
const planCluster = `nodes = 4
distribution = "1d1d"
powers = [1, 1, 4, 4]
[generation]
distribution = "bc"
`

func TestPlan(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cluster.toml", planCluster)

	t.Run("json", func(t *testing.T) {
		stdout, stderr, code := run(t, bin, "plan", "--n", "10", "--nb", "2", "--config", cfg, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var r planResult
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if r.NT != 5 || r.Tiles != 15 || r.Nodes != 4 || r.Moves != 11 {
			t.Fatalf("plan %+v", r)
		}
		if !slices.Equal(r.Factorisation.Tiles, []int{2, 1, 6, 6}) || !slices.Equal(r.Factorisation.Share, []float64{1.5, 1.5, 6, 6}) {
			t.Fatalf("factorisation %+v", r.Factorisation)
		}
		if !slices.Equal(r.Generation.Tiles, []int{6, 3, 3, 3}) || !slices.Equal(r.Generation.Share, []float64{3.75, 3.75, 3.75, 3.75}) {
			t.Fatalf("generation %+v", r.Generation)
		}
	})

	t.Run("table", func(t *testing.T) {
		stdout, stderr, code := run(t, bin, "plan", "--n", "10", "--nb", "2", "--config", cfg)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		want := [][]string{
			{"0", "10.0%", "1.50", "2", "25.0%", "3.75", "6"},
			{"1", "10.0%", "1.50", "1", "25.0%", "3.75", "3"},
			{"2", "40.0%", "6.00", "6", "25.0%", "3.75", "3"},
			{"3", "40.0%", "6.00", "6", "25.0%", "3.75", "3"},
			{"total", "100.0%", "15.00", "15", "100.0%", "15.00", "15"},
		}
		lines := strings.Split(stdout, "\n")
		for _, w := range want {
			found := false
			for _, l := range lines {
				if slices.Equal(strings.Fields(l), w) {
					found = true
				}
			}
			if !found {
				t.Errorf("no row %v in:\n%s", w, stdout)
			}
		}
		for _, s := range []string{"5 x 5 tiles, 15 lower tiles over 4 nodes", "factorisation: 1d1d, powers 1,1,4,4", "generation:    bc 2x2", "moves between the phases: 11 of 15 tiles (73.3%)"} {
			if !strings.Contains(stdout, s) {
				t.Errorf("output lacks %q:\n%s", s, stdout)
			}
		}
	})

	t.Run("flags", func(t *testing.T) {
		cases := []struct {
			name      string
			args      []string
			fact, gen []int
			moves     int
		}{
			{"bc only", []string{"--nodes", "4"}, []int{6, 3, 3, 3}, []int{6, 3, 3, 3}, 0},
			{"1d1d both", []string{"--nodes", "4", "--powers", "1,1,4,4"}, []int{2, 1, 6, 6}, []int{2, 1, 6, 6}, 0},
			{"1d1d then bc", []string{"--nodes", "4", "--dist", "1d1d", "--powers", "1,1,4,4", "--gen-dist", "bc"}, []int{2, 1, 6, 6}, []int{6, 3, 3, 3}, 11},
			{"over the file", []string{"--config", cfg, "--gen-dist", "1d1d"}, []int{2, 1, 6, 6}, []int{2, 1, 6, 6}, 0}, // powers carried over
			{"file powers", []string{"--config", cfg, "--powers", "1,1,1,1", "--gen-powers", "1,1,4,4"}, []int{4, 4, 4, 3}, []int{2, 1, 6, 6}, -1},
			{"one node", []string{"--nodes", "1", "--dist", "1d1d"}, []int{15}, []int{15}, 0},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				args := append([]string{"plan", "--n", "10", "--nb", "2", "--json"}, c.args...)
				stdout, stderr, code := run(t, bin, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				var r planResult
				if err := json.Unmarshal([]byte(stdout), &r); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(r.Factorisation.Tiles, c.fact) || !slices.Equal(r.Generation.Tiles, c.gen) || (c.moves >= 0 && r.Moves != c.moves) {
					t.Fatalf("tiles %v / %v, moves %d; want %v / %v, %d", r.Factorisation.Tiles, r.Generation.Tiles, r.Moves, c.fact, c.gen, c.moves)
				}
			})
		}
	})

	// The tile memory of one evaluation: the values of the strategy
	// package's TestTileBytes and TestMemoryBlockCyclic (N = 9, nb = 2 on
	// the 2 x 2 grid), counted by hand, through the command.
	t.Run("memory", func(t *testing.T) {
		stdout, stderr, code := run(t, bin, "plan", "--n", "9", "--nb", "2", "--nodes", "4", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var r planResult
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if len(r.Memory) != 4 || r.MemoryNote != "" {
			t.Fatalf("memory %+v, note %q", r.Memory, r.MemoryNote)
		}
		owned := []int64{136, 64, 96, 96}
		gen := []int64{176, 64, 96, 128} // + z_0, z_2, z_4 on node 0, z_1, z_3 on node 3
		column := int64(5 * 8 * 2 * 2)
		for i, m := range r.Memory {
			if m.Node != i || m.Owned != owned[i] || m.Generated != owned[i] || m.Generation != gen[i] ||
				m.Cholesky < m.Generation || m.Solve < m.Owned || m.Peak < max(m.Cholesky, m.Solve) ||
				m.Peak > gen[i]+column || m.Replicas > column {
				t.Errorf("node %d: %+v", i, m)
			}
		}
		for _, key := range []string{`"owned_bytes": 136`, `"generation_peak_bytes": 176`, `"cholesky_peak_bytes"`, `"solve_peak_bytes"`, `"peak_bytes"`, `"peak_replica_bytes"`} {
			if !strings.Contains(stdout, key) {
				t.Errorf("JSON lacks %s", key)
			}
		}

		stdout, stderr, code = run(t, bin, "plan", "--n", "9", "--nb", "2", "--nodes", "4")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		m := r.Memory[3]
		row := strings.Fields(fmt.Sprintf("3 96 B 96 B 128 B %d B %d B %d B %d B", m.Cholesky, m.Solve, m.Peak, m.Replicas))
		found := false
		for _, l := range strings.Split(stdout, "\n") {
			found = found || slices.Equal(strings.Fields(l), row)
		}
		if !found || !strings.Contains(stdout, "tile memory per node, one evaluation in program order:") {
			t.Errorf("no memory row %v in:\n%s", row, stdout)
		}

		// Without --n and --nb, or over 200 tiles per side: no memory.
		stdout, _, _ = run(t, bin, "plan", "--tiles", "5", "--nodes", "4", "--json")
		if strings.Contains(stdout, "memory") {
			t.Errorf("--tiles:\n%s", stdout)
		}
		stdout, _, code = run(t, bin, "plan", "--n", "2010", "--nb", "10")
		if code != 0 || !strings.Contains(stdout, "tile memory per node: too large to record: 201 x 201 tiles (at most 200 per side)") {
			t.Errorf("exit %d:\n%s", code, stdout)
		}
	})

	t.Run("svg", func(t *testing.T) {
		out := t.TempDir()
		svg := filepath.Join(out, "plan.svg")
		_, stderr, code := run(t, bin, "plan", "--n", "10", "--nb", "2", "--config", cfg, "--svg", svg)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"plan-generation.svg", "plan.svg"}) {
			t.Fatalf("files %v", names)
		}
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			if n := countTileRects(t, b); n != 15 {
				t.Errorf("%s: %d tiles, want 15", name, n)
			}
		}
	})

	t.Run("help", func(t *testing.T) {
		stdout, _, code := run(t, bin, "plan", "--help")
		if code != 0 || !strings.Contains(stdout, "exageostat plan --n 16000 --nb 320 --config configs/cluster-1d1d.toml") {
			t.Fatalf("exit %d, help:\n%s", code, stdout)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		cases := []struct {
			name string
			args []string
			want string
		}{
			{"powers count", []string{"--config", writeFile(t, dir, "three.toml", "nodes = 4\ndistribution = \"1d1d\"\npowers = [1, 1, 4]\n")},
				`three.toml: key "powers": need 4 values (nodes = 4), got 3`},
			{"unknown key", []string{"--config", writeFile(t, dir, "key.toml", "nodes = 4\nrank = 1\n")}, `key.toml:2: key "rank": unknown key`},
			{"missing file", []string{"--config", filepath.Join(dir, "none.toml")}, "none.toml: no such file"},
			{"unknown dist", []string{"--dist", "cyclic"}, `plan (flags): key "distribution": unknown distribution "cyclic"`},
			{"flag powers", []string{"--nodes", "4", "--powers", "1,1"}, `plan (flags): key "powers": need 4 values (nodes = 4), got 2`},
			{"flag over file", []string{"--config", cfg, "--nodes", "2"}, `cluster.toml (with flags): key "powers": need 2 values (nodes = 2), got 4`},
			{"gen powers", []string{"--nodes", "4", "--gen-powers", "1,2,3"}, `key "generation.powers": need 4 values (nodes = 4), got 3`},
			{"bad number", []string{"--powers", "1,x"}, `--powers: "x" is not a number`},
			{"negative power", []string{"--nodes", "2", "--powers", "1,-2"}, `key "powers": value 2 (node 1) must be a positive number, got -2`},
			{"nodes", []string{"--nodes", "0"}, `key "nodes": must be in [1, 1048576], got 0`},
			{"n", []string{"--n", "0"}, "plan: --n must be >= 1 (got 0)"},
			{"nb", []string{"--nb", "0"}, "plan: --nb must be >= 1 (got 0)"},
			{"too many tiles", []string{"--n", "100000", "--nb", "1"}, "100000 x 100000 tiles is too many"},
			{"svg dir", []string{"--svg", filepath.Join(dir, "no", "plan.svg")}, "plan: --svg "},
			{"stray", []string{"extra"}, `unexpected argument "extra"`},
			{"bad flag", []string{"--nodes", "four"}, "invalid argument"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				args := append([]string{"plan", "--n", "10", "--nb", "2"}, c.args...)
				_, stderr, code := run(t, bin, args...)
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
					t.Fatalf("exit %d, stderr %q; want 2 and one line containing %q", code, stderr, c.want)
				}
			})
		}
	})
}

// countTileRects parses an SVG, failing on malformed XML, and counts its
// rects of class "tile".
func countTileRects(t *testing.T, src []byte) int {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(src))
	n := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("malformed SVG: %v", err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "rect" {
			for _, a := range el.Attr {
				if a.Name.Local == "class" && a.Value == "tile" {
					n++
				}
			}
		}
	}
}

// TestPlanGenerationTiles covers --tiles and --gen-tiles: the generation
// distribution derived from the factorisation's by Algorithm 2.
func TestPlanGenerationTiles(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cluster.toml", planCluster)

	type flat struct {
		N, NB              *int
		NT                 int   `json:"nt"`
		FactorizationTiles []int `json:"factorization_tiles"`
		GenerationTiles    []int `json:"generation_tiles"`
		Moved              int   `json:"moved"`
		MinMoves           int   `json:"min_moves"`
		Generation         struct {
			Distribution string `json:"distribution"`
		} `json:"generation"`
	}
	cases := []struct {
		name      string
		args      []string
		nt        int
		fact, gen []int
		moved     int
	}{
		// Section 4.4 of the paper: 50 x 50 tiles, 517 tiles move.
		{"paper", []string{"--tiles", "50", "--powers", "60,60,565,590", "--gen-tiles", "318,319,319,319"},
			50, []int{60, 60, 565, 590}, []int{318, 319, 319, 319}, 517},
		{"config", []string{"--tiles", "5", "--config", cfg, "--gen-tiles", "4,4,4,3"},
			5, []int{2, 1, 6, 6}, []int{4, 4, 4, 3}, 5},
		{"with n", []string{"--n", "10", "--nb", "2", "--config", cfg, "--gen-tiles", "6,3,3,3"},
			5, []int{2, 1, 6, 6}, []int{6, 3, 3, 3}, 6},
		// The default grid of 2 nodes is 2 x 1: node m mod 2 owns row m.
		{"bc", []string{"--tiles", "4", "--nodes", "2", "--gen-tiles", "3,7"},
			4, []int{4, 6}, []int{3, 7}, 1},
		{"no move", []string{"--tiles", "5", "--powers", "1,1,4,4", "--gen-tiles", "2,1,6,6"},
			5, []int{2, 1, 6, 6}, []int{2, 1, 6, 6}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, bin, append([]string{"plan", "--json"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var r flat
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("%v:\n%s", err, stdout)
			}
			if r.NT != c.nt || !slices.Equal(r.FactorizationTiles, c.fact) || !slices.Equal(r.GenerationTiles, c.gen) ||
				r.Moved != c.moved || r.MinMoves != c.moved || r.Generation.Distribution != "alg2" {
				t.Fatalf("plan %+v, want nt %d, %v -> %v, %d moved", r, c.nt, c.fact, c.gen, c.moved)
			}
			if tiles := slices.Contains(c.args, "--tiles"); tiles != (r.N == nil && r.NB == nil) {
				t.Fatalf("n %v, nb %v with --tiles %v", r.N, r.NB, tiles)
			}
		})
	}

	t.Run("table", func(t *testing.T) {
		stdout, stderr, code := run(t, bin, "plan", "--tiles", "50", "--powers", "60,60,565,590", "--gen-tiles", "318,319,319,319")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, s := range []string{"50 x 50 tiles, 1275 lower tiles over 4 nodes", "by Algorithm 2 (fewest moves), tiles 318,319,319,319",
			"moves between the phases: 517 of 1275 tiles (40.5%), the fewest for these counts"} {
			if !strings.Contains(stdout, s) {
				t.Errorf("output lacks %q:\n%s", s, stdout)
			}
		}
		if strings.Contains(stdout, "N = ") {
			t.Errorf("N printed with --tiles:\n%s", stdout)
		}
	})

	t.Run("not the fewest", func(t *testing.T) {
		stdout, _, code := run(t, bin, "plan", "--n", "10", "--nb", "2", "--config", cfg)
		if code != 0 || !strings.Contains(stdout, "moves between the phases: 11 of 15 tiles (73.3%); the fewest for these counts: 6") {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
	})

	t.Run("svg", func(t *testing.T) {
		svg := filepath.Join(t.TempDir(), "plan.svg")
		_, stderr, code := run(t, bin, "plan", "--tiles", "5", "--config", cfg, "--gen-tiles", "4,4,4,3", "--svg", svg)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(generationPath(svg))
		if err != nil {
			t.Fatal(err)
		}
		if n := countTileRects(t, b); n != 15 {
			t.Fatalf("%d tiles, want 15", n)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		cases := []struct {
			name string
			args []string
			want string
		}{
			{"tiles and n", []string{"--tiles", "5", "--n", "10"}, "give either --tiles or --n and --nb, not both"},
			{"tiles and nb", []string{"--tiles", "5", "--nb", "2"}, "give either --tiles or --n and --nb, not both"},
			{"tiles 0", []string{"--tiles", "0"}, "--tiles must be in [1, 4096] (got 0)"},
			{"tiles big", []string{"--tiles", "5000"}, "--tiles must be in [1, 4096] (got 5000)"},
			{"sum", []string{"--tiles", "5", "--powers", "1,1,4,4", "--gen-tiles", "4,4,4,4"}, "plan: --gen-tiles: distribution: generation targets sum to 16, want the 15 lower tiles"},
			{"count", []string{"--tiles", "5", "--nodes", "4", "--gen-tiles", "5,5,5"}, "need 4 generation targets (one per node), got 3"},
			{"not a count", []string{"--tiles", "5", "--gen-tiles", "5,x"}, `--gen-tiles: "x" is not a tile count`},
			{"negative", []string{"--tiles", "5", "--gen-tiles", "16,-1"}, `--gen-tiles: "-1" is not a tile count`},
			{"with gen-dist", []string{"--tiles", "5", "--gen-tiles", "15", "--gen-dist", "bc"}, "excludes --gen-dist and --gen-powers"},
			{"with gen-powers", []string{"--tiles", "5", "--gen-tiles", "15", "--gen-powers", "1"}, "excludes --gen-dist and --gen-powers"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, stderr, code := run(t, bin, append([]string{"plan"}, c.args...)...)
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
					t.Fatalf("exit %d, stderr %q; want 2 and one line containing %q", code, stderr, c.want)
				}
			})
		}
	})
}

// TestPlanStrategies: plan --dist lp compares the four strategies of
// Figure 7 (the pkg/strategy tests check the numbers) and prints the tile
// memory of the recommended one, one row per node of the cluster.
func TestPlanStrategies(t *testing.T) {
	bin := binary(t)
	cfg := "../../configs/cluster-chetemi-chifflet.toml"
	const n, nb = 19200, 960 // 20 x 20 tiles
	stdout, stderr, code := run(t, bin, "plan", "--config", cfg, "--n", "19200", "--dist", "lp", "--nodes-max", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		N           int `json:"n"`
		NB          int `json:"nb"`
		Recommended string
		Strategies  []map[string]any
		Subsets     []map[string]any
		Memory      []map[string]float64
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if r.N != n || r.NB != nb || len(r.Strategies) != 4 || len(r.Subsets) != 10 || len(r.Memory) != 8 {
		t.Fatalf("%+v", r)
	}
	for i, name := range []string{"bc", "bc-fast", "1d1d", "lp"} {
		s := r.Strategies[i]
		if s["distribution"] != name || s["makespan_s"] == nil || s["tiles_moved"] == nil || s["mb_moved"] == nil {
			t.Errorf("strategy %d: %v", i, s)
		}
	}
	for _, s := range r.Subsets {
		if s["nodes_per_group"] == nil || s["nodes"] == nil || s["distribution"] == nil || s["makespan_s"] == nil {
			t.Errorf("subset %v", s)
		}
	}
	var owned float64
	for _, m := range r.Memory {
		owned += m["owned_bytes"]
		if m["peak_bytes"] < m["owned_bytes"] || m["peak_bytes"] < m["peak_replica_bytes"] {
			t.Errorf("node %v", m)
		}
	}
	if want := float64(4 * (n*n + 20*nb*nb)); owned != want {
		t.Errorf("the nodes own %g bytes, want %g", owned, want)
	}

	stdout, stderr, code = run(t, bin, "plan", "--config", cfg, "--n", "19200", "--dist", "lp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"N = 19200, nb = 960 on 8 nodes (4 chetemi + 4 chifflet): one simulated likelihood evaluation per strategy",
		"recommended: " + r.Recommended + " (simulated makespan", r.Recommended + ": tile memory per node, one evaluation in program order:",
		"\n0 chetemi ", "\n7 chifflet "} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
}

// TestPlanLPMapsAndHostfile: plan --dist lp --svg draws the lp strategy's
// two distributions (every lower tile once, each node's count as in the
// legend), and --nodes-max K --hostfile writes the best subset's hosts in
// rank order, with a cluster file of that subset that plan reads back.
func TestPlanLPMapsAndHostfile(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	src, err := os.ReadFile("../../configs/cluster-chetemi-chifflet.toml")
	if err != nil {
		t.Fatal(err)
	}
	named := strings.Replace(string(src), `name = "chetemi"`, `name = "chetemi"`+"\nhosts = [\"chetemi-11\", \"chetemi-12\", \"chetemi-13\", \"chetemi-14\"]", 1)
	named = strings.Replace(named, `name = "chifflet"`, `name = "chifflet"`+"\nhosts = [\"chifflet-3\", \"chifflet-4\", \"chifflet-7\", \"chifflet-8\"]", 1)
	cfg := writeFile(t, dir, "cluster.toml", named)
	svg, hosts := filepath.Join(dir, "lp.svg"), filepath.Join(dir, "best.hosts")
	stdout, stderr, code := run(t, bin, "plan", "--config", cfg, "--n", "19200", "--dist", "lp", "--nodes-max", "3",
		"--svg", svg, "--hostfile", hosts, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Subsets []struct {
			Nodes []int   `json:"nodes_per_group"`
			Total int     `json:"nodes"`
			Dist  string  `json:"distribution"`
			Time  float64 `json:"makespan_s"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || len(r.Subsets) == 0 {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	for _, p := range []string{svg, filepath.Join(dir, "lp-generation.svg")} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := countTileRects(t, b); n != 20*21/2 {
			t.Errorf("%s: %d tiles, want 210", p, n)
		}
		if !strings.Contains(string(b), ": lp (N = 19200, nb = 960, 4 chetemi + 4 chifflet)") {
			t.Errorf("%s: no title naming lp and the cluster", p)
		}
	}

	// The best subset's hosts, group by group, the first ones of each group.
	best := r.Subsets[0]
	var want []string
	for g, m := range best.Nodes {
		for i := range m {
			want = append(want, [][]string{{"chetemi-11", "chetemi-12", "chetemi-13"}, {"chifflet-3", "chifflet-4", "chifflet-7"}}[g][i]+" slots=1")
		}
	}
	b, err := os.ReadFile(hosts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(line, "#") {
			got = append(got, line)
		}
	}
	if !slices.Equal(got, want) || best.Total != len(want) {
		t.Errorf("host file lines %q, want %q (subset %+v)", got, want, best)
	}
	if !strings.Contains(string(b), fmt.Sprintf("mpirun -np %d --hostfile best.hosts", len(want))) {
		t.Errorf("host file has no mpirun line:\n%s", b)
	}
	stdout, stderr, code = run(t, bin, "plan", "--config", filepath.Join(dir, "best-cluster.toml"), "--n", "19200", "--dist", "lp")
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("on %d nodes", len(want))) {
		t.Errorf("the subset's cluster file: exit %d, %s\n%s", code, stderr, stdout)
	}

	for _, c := range []struct {
		args []string
		cfg  string
		want string
	}{
		{[]string{"--dist", "lp", "--hostfile", hosts}, cfg, "--hostfile writes the best subset of --nodes-max K nodes"},
		{[]string{"--dist", "bc", "--nodes", "2", "--hostfile", hosts}, "", "--hostfile goes with --dist lp --nodes-max K"},
		{[]string{"--dist", "lp", "--nodes-max", "2"}, writeFile(t, dir, "bad.toml", strings.Replace(named, `"chetemi-14"]`, `]`, 1)), "group[0].hosts"},
	} {
		args := append([]string{"plan", "--n", "19200"}, c.args...)
		if c.cfg != "" {
			args = append(args, "--config", c.cfg)
		}
		_, stderr, code := run(t, bin, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line containing %q", c.args, code, stderr, c.want)
		}
	}
}

// TestPlanFromPerfmodels: plan reads a cluster file whose groups take their
// durations from performance-model files (pkg/perfmodel/testdata, made
// from the config's tables) and prints the same strategies as with the
// config's own tables; the block-cyclic plan (no --nb given: the file's nb
// picks the entries) and a --nb without entries (exit 2, one line naming
// the key) too.
func TestPlanFromPerfmodels(t *testing.T) {
	bin := binary(t)
	pm, ref := "../../pkg/perfmodel/testdata/cluster-chifflot1.toml", "../../configs/cluster-chetemi-chifflet-chifflot1.toml"
	strategies := func(cfg string) string {
		stdout, stderr, code := run(t, bin, "plan", "--config", cfg, "--n", "9600", "--dist", "lp", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cfg, code, stderr)
		}
		var r struct{ Strategies []map[string]any }
		if err := json.Unmarshal([]byte(stdout), &r); err != nil || len(r.Strategies) != 4 {
			t.Fatalf("%s: %v:\n%s", cfg, err, stdout)
		}
		b, _ := json.Marshal(r.Strategies)
		return string(b)
	}
	if a, b := strategies(pm), strategies(ref); a != b {
		t.Errorf("from perfmodel files:\n%s\nfrom the tables:\n%s", a, b)
	}
	if _, stderr, code := run(t, bin, "plan", "--config", pm, "--n", "9600", "--dist", "1d1d"); code != 0 {
		t.Errorf("plan --dist 1d1d: exit %d: %s", code, stderr)
	}
	_, stderr, code := run(t, bin, "plan", "--config", pm, "--n", "9600", "--nb", "480", "--dist", "lp")
	if code != 2 || !strings.Contains(stderr, `key "group[0].perfmodel": `) || !strings.Contains(stderr, "no cpu or cuda entry at nb = 480") ||
		strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("--nb 480: exit %d, stderr %q", code, stderr)
	}
}
