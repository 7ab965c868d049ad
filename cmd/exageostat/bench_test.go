package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchCholeskyAutoNB: without --nb, bench cholesky uses fit's tile
// size, tile.AutoNB(N) (N = 1000: 176), and prints the one it used; with
// --nb, that one.
func TestBenchCholeskyAutoNB(t *testing.T) {
	bin := binary(t)
	for _, c := range []struct {
		args []string
		nb   int
	}{
		{nil, 176},
		{[]string{"--nb", "250"}, 250},
	} {
		args := append([]string{"bench", "cholesky", "--n", "1000", "--reps", "1", "--workers", "1", "--json"}, c.args...)
		stdout, stderr, code := run(t, bin, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var r struct{ NB, Tasks int }
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if r.NB != c.nb {
			t.Errorf("%v: nb %d, want %d", c.args, r.NB, c.nb)
		}
	}
	stdout, stderr, code := run(t, bin, "bench", "cholesky", "--n", "1000", "--reps", "1", "--workers", "1")
	if code != 0 || !strings.Contains(stdout, "cholesky n=1000 nb=176 workers=1") {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
	_, stderr, code = run(t, bin, "bench", "cholesky", "--nb", "-1")
	if code != 2 || !strings.Contains(stderr, "--nb must be >= 1, or 0 for the automatic tile size (got -1)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	stdout, _, _ = run(t, bin, "bench", "cholesky", "--help")
	if !strings.Contains(stdout, "tile size (0: automatic, as fit") {
		t.Errorf("help:\n%s", stdout)
	}
}

// TestBenchOverlapJSON: bench overlap --json prints one object whose
// steps are, in order, Figure 5's cumulative ablation from sync to all
// on, each with its median seconds (within its min-max), a utilisation
// in (0, 1], gains recomputed here from the medians, and the same l;
// --plot writes both pictures; bad flags exit 2 naming the flag.
func TestBenchOverlapJSON(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	stdout, stderr, code := run(t, bin, "bench", "overlap", "--n", "400", "--nb", "80", "--workers", "2", "--reps", "2", "--json",
		"--plot", filepath.Join(dir, "fig5.svg"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		N, NB, Ranks, Workers, Reps int
		Steps                       []struct {
			Name        string
			Seconds     float64
			Spread      struct{ Median, Min, Max float64 } `json:"seconds_spread"`
			Utilization float64
			GainPrev    float64 `json:"gain_vs_previous"`
			GainSync    float64 `json:"gain_vs_sync"`
			Switches    string
			LogLik      float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	want := []string{"sync", "async", "+local-solve+memory", "+priorities", "+submission-order", "+oversubscription"}
	if len(r.Steps) != len(want) {
		t.Fatalf("%d steps, want %d:\n%s", len(r.Steps), len(want), stdout)
	}
	if r.N != 400 || r.NB != 80 || r.Ranks != 1 || r.Workers != 2 || r.Reps != 2 {
		t.Errorf("header %+v", r)
	}
	for i, s := range r.Steps {
		if s.Name != want[i] {
			t.Errorf("step %d is %q, want %q", i, s.Name, want[i])
		}
		if !(s.Seconds > 0) || s.Seconds < s.Spread.Min || s.Seconds > s.Spread.Max {
			t.Errorf("%s: seconds %g outside [%g, %g]", s.Name, s.Seconds, s.Spread.Min, s.Spread.Max)
		}
		if !(s.Utilization > 0 && s.Utilization <= 1) {
			t.Errorf("%s: utilization %g", s.Name, s.Utilization)
		}
		if s.LogLik != r.Steps[0].LogLik {
			t.Errorf("%s: l %v, sync %v", s.Name, s.LogLik, r.Steps[0].LogLik)
		}
		if i > 0 {
			if g := 1 - s.Seconds/r.Steps[i-1].Seconds; math.Abs(g-s.GainPrev) > 1e-12 {
				t.Errorf("%s: gain vs previous %g, want %g", s.Name, s.GainPrev, g)
			}
			if g := 1 - s.Seconds/r.Steps[0].Seconds; math.Abs(g-s.GainSync) > 1e-12 {
				t.Errorf("%s: gain vs sync %g, want %g", s.Name, s.GainSync, g)
			}
		}
	}
	// The cumulative switches: sync all off, then one more group on per step.
	if r.Steps[0].Switches != "async=off,local-solve=off,memory=off,priorities=off,submission-order=off,oversubscription=off" ||
		r.Steps[5].Switches != "async=on,local-solve=on,memory=on,priorities=on,submission-order=on,oversubscription=on" {
		t.Errorf("switches: first %s, last %s", r.Steps[0].Switches, r.Steps[5].Switches)
	}
	for _, f := range []string{"fig5.svg", "fig5.png"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reps", "0"}, "--reps must be in [1, 100] (got 0)"},
		{[]string{"--workers", "0"}, "--workers must be in [1, 4096] (got 0)"},
		{[]string{"--plot", "fig.pdf"}, `--plot "fig.pdf": want a .svg or .png file name`},
		{[]string{"--plot", "/no/such/dir/f.svg"}, "no directory /no/such/dir"},
		{[]string{"--theta", "1,0.1"}, "--theta needs sigma2, beta > 0 and nu in (0, 30]"},
	} {
		_, stderr, code := run(t, bin, append([]string{"bench", "overlap"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d: %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// TestOverlapFlag: fit and bench likelihood refuse a bad --overlap with
// exit 2 naming the flag; fit's JSON carries each evaluation's
// utilisation, and --overlap all=off gives the same estimates bitwise
// as the default.
func TestOverlapFlag(t *testing.T) {
	bin := binary(t)
	for _, args := range [][]string{
		{"fit", "--n", "100", "--overlap", "async=maybe"},
		{"bench", "likelihood", "--n", "100", "--overlap", "turbo=on"},
	} {
		_, stderr, code := run(t, bin, args...)
		if code != 2 || !strings.Contains(stderr, "--overlap: ") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	dir := t.TempDir()
	type result struct {
		Theta []float64
		Steps []struct {
			LogLik      *float64 `json:"loglik"`
			Utilization *struct{ Whole, First90 float64 }
		}
	}
	var res [2]result
	for i, ov := range []string{"", "all=off"} {
		js := filepath.Join(dir, fmt.Sprintf("fit%d.json", i))
		args := []string{"fit", "--n", "200", "--nb", "40", "--workers", "2", "--max-evals", "8", "--json", js, "-q"}
		if ov != "" {
			args = append(args, "--overlap", ov)
		}
		if _, stderr, code := run(t, bin, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &res[i]); err != nil {
			t.Fatal(err)
		}
		for k, s := range res[i].Steps {
			// Evaluations of a millisecond on a loaded machine may see no
			// task in their first 90 %: only the whole must be positive.
			if s.Utilization == nil || !(s.Utilization.Whole > 0 && s.Utilization.Whole <= 1) || !(s.Utilization.First90 >= 0 && s.Utilization.First90 <= 1) {
				t.Errorf("%s: evaluation %d: utilization %+v", ov, k+1, s.Utilization)
			}
		}
	}
	if len(res[0].Steps) == 0 || len(res[0].Steps) != len(res[1].Steps) {
		t.Fatalf("%d and %d evaluations", len(res[0].Steps), len(res[1].Steps))
	}
	for k := range res[0].Steps {
		a, b := res[0].Steps[k].LogLik, res[1].Steps[k].LogLik
		if a == nil || b == nil || *a != *b {
			t.Errorf("evaluation %d: l %v with all on, %v with all off", k+1, a, b)
		}
	}
}
