package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
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
			{"nodes", []string{"--nodes", "0"}, `key "nodes": must be >= 1, got 0`},
			{"n", []string{"--n", "0"}, "plan: --n must be >= 1 (got 0)"},
			{"nb", []string{"--nb", "0"}, "plan: --nb must be >= 1 (got 0)"},
			{"too many tiles", []string{"--n", "100000", "--nb", "1"}, "100000 x 100000 tiles is too many"},
			{"svg dir", []string{"--svg", filepath.Join(dir, "no", "plan.svg")}, "plan: --svg:"},
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
