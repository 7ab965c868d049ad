package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitComputation: fit --computation tlr and mp on the simulated
// default problem evaluate the exact fit's first point (the same theta,
// up to the profiled sigma2) with l within their tolerances of the exact l, and the JSON reports the
// tiles (tlr: mean and maximum rank).
func TestFitComputation(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	type step struct {
		Theta  []float64 `json:"theta"`
		LogLik *float64  `json:"loglik"`
		Approx *struct {
			Computation string  `json:"computation"`
			MeanRank    float64 `json:"mean_rank"`
			MaxRank     int     `json:"max_rank"`
			Single      int     `json:"single_tiles"`
		} `json:"approx"`
	}
	fit := func(comp string) []step {
		res := filepath.Join(dir, comp+".json")
		_, stderr, code := run(t, bin, "fit", "--n", "900", "--nb", "100", "--workers", "2", "--max-evals", "3",
			"--computation", comp, "--json", res, "--checkpoint", "none")
		if code != 0 {
			t.Fatalf("fit --computation %s: exit %d: %s", comp, code, stderr)
		}
		if comp == "tlr" && !strings.Contains(stderr, "rank mean") {
			t.Errorf("tlr log lines lack the ranks:\n%s", stderr)
		}
		var r struct {
			Steps []step `json:"steps"`
		}
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r); err != nil || len(r.Steps) == 0 {
			t.Fatalf("%s: %v, %d steps", res, err, len(r.Steps))
		}
		return r.Steps
	}
	exact := fit("exact")
	if exact[0].Approx != nil {
		t.Errorf("exact step reports approx tiles %+v", *exact[0].Approx)
	}
	for _, c := range []struct {
		comp string
		tol  float64
	}{{"tlr", 1e-6}, {"mp", 1e-5}} {
		got := fit(c.comp)
		g, e := got[0], exact[0]
		if g.LogLik == nil || e.LogLik == nil {
			t.Fatalf("%s: failed first evaluation", c.comp)
		}
		for i := range e.Theta {
			// The profiled sigma2 comes from the (approximate) quadratic form.
			if math.Abs(g.Theta[i]-e.Theta[i]) > c.tol*math.Abs(e.Theta[i]) {
				t.Fatalf("%s: first theta %v, exact %v", c.comp, g.Theta, e.Theta)
			}
		}
		if rel := math.Abs(*g.LogLik-*e.LogLik) / math.Abs(*e.LogLik); !(rel <= c.tol) {
			t.Errorf("%s: l = %.12g, exact %.12g (relative %.3g > %g)", c.comp, *g.LogLik, *e.LogLik, rel, c.tol)
		}
		a := g.Approx
		if a == nil || a.Computation != c.comp {
			t.Fatalf("%s: approx stats %+v", c.comp, a)
		}
		if c.comp == "tlr" && !(a.MeanRank > 0 && a.MaxRank >= int(a.MeanRank) && a.MaxRank <= 50) {
			t.Errorf("tlr ranks: %+v", *a)
		}
		if c.comp == "mp" && a.Single == 0 {
			t.Errorf("mp: no float32 tiles: %+v", *a)
		}
	}
}
