package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
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

// readColumns reads a CSV with a header and returns its columns by name.
func readColumns(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	hdr := strings.Split(lines[0], ",")
	cols := map[string][]float64{}
	for _, l := range lines[1:] {
		for i, f := range strings.Split(l, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, l, err)
			}
			cols[hdr[i]] = append(cols[hdr[i]], v)
		}
	}
	return cols
}

// maxDiff returns max |a_i - b_i|.
func maxDiff(t *testing.T, a, b []float64) float64 {
	t.Helper()
	return diffBy(t, a, b, func(float64) float64 { return 1 })
}

// relDiff returns max |a_i - b_i| / |b_i|.
func relDiff(t *testing.T, a, b []float64) float64 {
	t.Helper()
	return diffBy(t, a, b, math.Abs)
}

// diffBy returns max |a_i - b_i| / scale(b_i).
func diffBy(t *testing.T, a, b []float64, scale func(float64) float64) float64 {
	t.Helper()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("lengths %d and %d", len(a), len(b))
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i])/scale(b[i]))
	}
	return d
}

// TestApproxCommands: simulate, predict and fit's assessment with
// --computation tlr and mp, end to end: simulate's z = L e and predict's
// kriging on the tlr factor are within the accuracy's reach of the exact
// commands' (the packages test both against gonum's dense computations),
// the same bytes on 1 and 2 workers; fit --holdout --stderr on the tlr
// factor gives the exact fit's MSPE and standard errors to 1e-6 and says
// what it computed on the approximate factor (approx_note).
func TestApproxCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	sim := func(out string, args ...string) {
		t.Helper()
		a := append([]string{"simulate", "--n", "900", "--nb", "100", "--seed", "2", "--out", p(out)}, args...)
		if _, stderr, code := run(t, bin, a...); code != 0 {
			t.Fatalf("%v: exit %d: %s", a, code, stderr)
		}
	}
	sim("exact.csv", "--workers", "2")
	sim("tlr1.csv", "--workers", "1", "--computation", "tlr")
	sim("tlr2.csv", "--workers", "2", "--computation", "tlr")
	b1, _ := os.ReadFile(p("tlr1.csv"))
	b2, _ := os.ReadFile(p("tlr2.csv"))
	if string(b1) != string(b2) {
		t.Fatal("simulate --computation tlr: 2 workers wrote other bytes than 1")
	}
	ex, tl := readColumns(t, p("exact.csv")), readColumns(t, p("tlr1.csv"))
	if d := maxDiff(t, ex["z"], tl["z"]); d > 1e-7 || maxDiff(t, ex["x"], tl["x"]) != 0 {
		t.Fatalf("simulate tlr: max |z - z_exact| = %.3g", d)
	}
	at := "x,y\n"
	for i := 0; i < 30; i++ {
		at += fmt.Sprintf("%g,%g\n", 0.013+0.033*float64(i), 0.97-0.031*float64(i))
	}
	if err := os.WriteFile(p("at.csv"), []byte(at), 0o644); err != nil {
		t.Fatal(err)
	}
	pred := func(out string, args ...string) map[string][]float64 {
		t.Helper()
		a := append([]string{"predict", "--data", p("exact.csv"), "--at", p("at.csv"), "--theta", "1,0.1,0.5", "--nb", "100", "--out", p(out)}, args...)
		_, stderr, code := run(t, bin, a...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", a, code, stderr)
		}
		if len(args) > 2 && !strings.Contains(stderr, "on the "+args[3]+" factor") {
			t.Errorf("predict %v does not say its factor: %s", args, stderr)
		}
		return readColumns(t, p(out))
	}
	pe := pred("pe.csv", "--workers", "2")
	for _, c := range []struct {
		comp string
		tol  float64
	}{{"tlr", 1e-7}, {"mp", 1e-4}} {
		p1 := pred(c.comp+"1.csv", "--workers", "1", "--computation", c.comp)
		p2 := pred(c.comp+"2.csv", "--workers", "2", "--computation", c.comp)
		if maxDiff(t, p1["z_hat"], p2["z_hat"]) != 0 || maxDiff(t, p1["variance"], p2["variance"]) != 0 {
			t.Errorf("predict --computation %s: 2 workers differ from 1", c.comp)
		}
		dz, dv := maxDiff(t, p1["z_hat"], pe["z_hat"]), maxDiff(t, p1["variance"], pe["variance"])
		t.Logf("predict %s: max |z_hat - exact| %.3g, |var - exact| %.3g", c.comp, dz, dv)
		if dz > c.tol || dv > c.tol {
			t.Errorf("predict %s: max |z_hat - exact| %.3g, |var - exact| %.3g > %g", c.comp, dz, dv, c.tol)
		}
	}
	type fitJSON struct {
		Theta      []float64 `json:"theta"`
		MSPE       *float64  `json:"mspe"`
		StdErr     []float64 `json:"stderr"`
		ApproxNote string    `json:"approx_note"`
	}
	fit := func(comp string) fitJSON {
		t.Helper()
		res := p("fit-" + comp + ".json")
		_, stderr, code := run(t, bin, "fit", "--n", "900", "--nb", "100", "--workers", "2", "--holdout", "60", "--stderr",
			"--computation", comp, "--json", res, "--checkpoint", "none", "-q")
		if code != 0 {
			t.Fatalf("fit --computation %s --holdout --stderr: exit %d: %s", comp, code, stderr)
		}
		var r fitJSON
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r); err != nil || r.MSPE == nil || len(r.StdErr) != 3 {
			t.Fatalf("%s: %v: %s", res, err, b)
		}
		return r
	}
	fe, ft := fit("exact"), fit("tlr")
	if fe.ApproxNote != "" || !strings.Contains(ft.ApproxNote, "hold-out prediction") || !strings.Contains(ft.ApproxNote, "tlr factor") {
		t.Errorf("approx notes: exact %q, tlr %q", fe.ApproxNote, ft.ApproxNote)
	}
	t.Logf("fit: MSPE exact %.10g tlr %.10g; stderr exact %v tlr %v", *fe.MSPE, *ft.MSPE, fe.StdErr, ft.StdErr)
	if math.Abs(*ft.MSPE-*fe.MSPE) > 1e-6**fe.MSPE {
		t.Errorf("MSPE tlr %.10g, exact %.10g", *ft.MSPE, *fe.MSPE)
	}
	for i := range fe.StdErr {
		if math.Abs(ft.StdErr[i]-fe.StdErr[i]) > 1e-6*fe.StdErr[i] {
			t.Errorf("stderr tlr %v, exact %v", ft.StdErr, fe.StdErr)
		}
	}
}

// TestBenchApprox: bench likelihood --computation tlr --predict times the
// kriging on the tlr factor, whose predictions are within 1e-7 of the
// exact factor's of the same run (mp within 1e-4, and not equal); bench
// tracing --computation tlr evaluates the TLR likelihood, the same bits
// traced and untraced.
func TestBenchApprox(t *testing.T) {
	bin := binary(t)
	for _, c := range []struct {
		comp string
		tol  float64
	}{{"tlr", 1e-7}, {"mp", 1e-4}} {
		out, stderr, code := run(t, bin, "bench", "likelihood", "--n", "900", "--nb", "100", "--workers", "2", "--reps", "1",
			"--reference=false", "--predict", "40", "--computation", c.comp, "--json")
		if code != 0 {
			t.Fatalf("bench likelihood --computation %s: exit %d: %s", c.comp, code, stderr)
		}
		var r struct {
			Approx []struct {
				Computation string  `json:"computation"`
				RelErr      float64 `json:"rel_err"`
				PredictSecs float64 `json:"predict_seconds"`
				ZErr        float64 `json:"predict_max_abs_zhat_diff"`
				VarErr      float64 `json:"predict_max_abs_variance_diff"`
			} `json:"approx"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Approx) != 1 {
			t.Fatalf("%v: %s", err, out)
		}
		a := r.Approx[0]
		t.Logf("%s: l rel err %.2g, prediction %.4f s, max diffs %.2g %.2g", a.Computation, a.RelErr, a.PredictSecs, a.ZErr, a.VarErr)
		if a.Computation != c.comp || !(a.PredictSecs > 0) || a.ZErr > c.tol || a.VarErr > c.tol || (c.comp == "mp" && a.ZErr == 0) {
			t.Errorf("%s: %+v", c.comp, a)
		}
	}
	out, stderr, code := run(t, bin, "bench", "tracing", "--n", "900", "--nb", "100", "--workers", "2", "--reps", "1", "--computation", "tlr", "--json")
	if code != 0 {
		t.Fatalf("bench tracing --computation tlr: exit %d: %s", code, stderr)
	}
	var tr struct {
		Computation string `json:"computation"`
		Same        bool   `json:"same_loglik"`
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil || tr.Computation != "tlr" || !tr.Same {
		t.Errorf("bench tracing: %v %+v", err, tr)
	}
}
