package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

// checkResult is the part of fit's JSON the approximation check's tests
// read.
type checkResult struct {
	Theta    []float64 `json:"theta"`
	LogLik   float64   `json:"loglik"`
	StdErr   []float64 `json:"stderr"`
	Warnings []string  `json:"warnings"`
	Check    *struct {
		M2        int                `json:"m2"`
		StepSE    map[string]float64 `json:"step_se"`
		MaxStepSE float64            `json:"max_step_se"`
		OneStep   []float64          `json:"one_step_theta"`
		LogLikM2  float64            `json:"loglik_m2"`
		DeltaL    float64            `json:"delta_l"`
		Skipped   string             `json:"skipped"`
	} `json:"vecchia_check"`
}

// farthest returns the largest |a_i - b_i| / se_i.
func farthest(a, b, se []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i])/se[i])
	}
	return d
}

// TestVecchiaCheck: the approximation check on a smooth field with a
// nugget (N = 300, nu = 1.5), against independent fits of the same data.
// (1) The one-step estimate from the m = 10 fit lies much closer to the
// m2 = 20 fit's estimate than the m = 10 estimate does. (2) With m2 =
// N-1 the check's l is the exact l at the estimate (the exact path's
// tiled Cholesky, lb = ub there), and the step lands much closer to the
// exact MLE. (3) The warning is there when a step exceeds 0.25 SE (m = 5,
// m2 = 10) and not otherwise (m = 30, m2 = 60). (4) --vecchia-check=false
// (or vecchia_check = false in the config) leaves no check in the output
// and the JSON, and the same estimate, l and warnings.
func TestVecchiaCheck(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if _, stderr, code := run(t, bin, "simulate", "--n", "300", "--theta", "1,0.1,1.5", "--nugget", "0.1", "--seed", "3", "--out", data); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	bounds := []string{"--lb", "0.01,0.001,0.1,0.001", "--ub", "10,5,3,2"}
	fit := func(name string, args ...string) (checkResult, string) {
		t.Helper()
		res := filepath.Join(dir, name+".json")
		a := append([]string{"fit", "--data", data, "--stderr", "--workers", "2", "--json", res, "--checkpoint", "none", "-q"}, args...)
		stdout, stderr, code := run(t, bin, a...)
		if code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, stderr)
		}
		return readJSON[checkResult](t, res), stdout
	}
	// vecchia fits at m with the check at m2 (0: the default, 2m).
	vecchia := func(name string, m, m2 int, args ...string) (checkResult, string) {
		t.Helper()
		a := append(append([]string{"--computation", "vecchia", "--vecchia-m", strconv.Itoa(m)}, bounds...), args...)
		if m2 > 0 {
			a = append(a, "--vecchia-check-m", strconv.Itoa(m2))
		} else {
			m2 = 2 * m
		}
		r, out := fit(name, a...)
		if r.Check == nil || r.Check.Skipped != "" || r.Check.M2 != m2 || len(r.Check.StepSE) != 4 {
			t.Fatalf("m = %d, m2 = %d: check %+v", m, m2, r.Check)
		}
		return r, out
	}

	// (1) Against the m2 fit.
	v10, _ := vecchia("v10", 10, 20)
	v20, _ := fit("v20", append([]string{"--computation", "vecchia", "--vecchia-m", "20"}, bounds...)...)
	before, after := farthest(v10.Theta, v20.Theta, v20.StdErr), farthest(v10.Check.OneStep, v20.Theta, v20.StdErr)
	if !(before > 0.2 && after < 0.3*before) {
		t.Errorf("m = 10 -> 20: the m = 10 estimate %v is %.3f SE from the m = 20 fit's %v, the one-step %v %.3f SE (want < 0.3 x)",
			v10.Theta, before, v20.Theta, v10.Check.OneStep, after)
	}

	// (2) Against the exact fit, with m2 = N-1.
	v5, _ := vecchia("v5", 5, 299)
	exact, _ := fit("exact", bounds...)
	before, after = farthest(v5.Theta, exact.Theta, exact.StdErr), farthest(v5.Check.OneStep, exact.Theta, exact.StdErr)
	if !(before > 0.2 && after < 0.3*before) {
		t.Errorf("m = 5 -> N-1: the m = 5 estimate %v is %.3f SE from the exact MLE %v, the one-step %v %.3f SE (want < 0.3 x)",
			v5.Theta, before, exact.Theta, v5.Check.OneStep, after)
	}
	at := config.FormatFloats(v5.Theta)
	ex, _ := fit("exact-at", "--lb", at, "--ub", at)
	if d := math.Abs(v5.Check.LogLikM2-ex.LogLik) / math.Abs(ex.LogLik); !(d < 1e-9) {
		t.Errorf("m2 = N-1: the check's l %.12g, the exact l at %v %.12g (relative %.2g)", v5.Check.LogLikM2, v5.Theta, ex.LogLik, d)
	}

	// (3) The warning, and only above 0.25 SE.
	var on checkResult // m = 30, the default m2
	for _, c := range []struct {
		m, m2 int
		warn  bool
	}{{5, 10, true}, {30, 0, false}} {
		r, out := vecchia("warn"+strconv.Itoa(c.m), c.m, c.m2)
		m2 := strconv.Itoa(r.Check.M2)
		warned := strings.Contains(out, "warning: vecchia check: m = "+m2+" would move")
		if warned != c.warn || (r.Check.MaxStepSE > 0.25) != c.warn || !strings.Contains(out, "vecchia check: m = "+m2+" would move the estimate by (") {
			t.Errorf("m = %d, m2 = %d: steps %v SE; warned %v, want %v:\n%s", c.m, r.Check.M2, r.Check.StepSE, warned, c.warn, out)
		}
		on = r
	}

	// (4) Off: as before the check (the m = 30 fit above had it).
	conf := filepath.Join(dir, "off.toml")
	if err := os.WriteFile(conf, []byte("vecchia_check = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, off := range [][]string{{"--vecchia-check=false"}, {"--config", conf}} {
		r, out := fit("off", append(append([]string{"--computation", "vecchia", "--vecchia-m", "30"}, bounds...), off...)...)
		b, err := os.ReadFile(filepath.Join(dir, "off.json"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Check != nil || strings.Contains(string(b), "vecchia_check") || strings.Contains(out, "vecchia check") {
			t.Errorf("%v: a check in the output or JSON:\n%s", off, out)
		}
		if r.LogLik != on.LogLik || !equalFloats(r.Theta, on.Theta) || !equalFloats(r.StdErr, on.StdErr) || strings.Join(r.Warnings, "\n") != strings.Join(on.Warnings, "\n") {
			t.Errorf("%v: l %v theta %v warnings %q; with the check: l %v theta %v warnings %q", off, r.LogLik, r.Theta, r.Warnings, on.LogLik, on.Theta, on.Warnings)
		}
	}
}
