package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
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
	simulateNugget(t, bin, data, "300", "1,0.1,1.5", "3")
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

// TestVecchiaRefine: --vecchia-refine-m on the smooth field of
// TestVecchiaCheck (N = 300, nu = 1.5, nugget 0.1), from m = 3. (1) The
// fit goes on at the check's m2 while the check warns (each refining
// check's step above 0.25 SE and its m2 the next level's m), and stops at
// the first level whose check stays below 0.25 SE, or, with the bound
// below the next m2, with the warning saying so. (2) Each refined estimate
// is the maximum of the final m's likelihood: an independent fit at that
// m (from the data's start, with its coarse stage) lands within 0.02 of
// its standard errors. (3) A refined fit stopped by --max-evals inside
// its third level and resumed from its checkpoint gives bitwise the
// uninterrupted fit's estimate, l, check and evaluations.
func TestVecchiaRefine(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	simulateNugget(t, bin, data, "300", "1,0.1,1.5", "3")
	fit := func(name string, args ...string) vecchiaResult {
		t.Helper()
		res := filepath.Join(dir, name+".json")
		a := append([]string{"fit", "--data", data, "--computation", "vecchia", "--mean", "constant", "--lb", "0.01,0.001,0.1,0.001",
			"--ub", "10,5,3,2", "--stderr", "--workers", "2", "-q", "--json", res}, args...)
		if _, stderr, code := run(t, bin, a...); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, stderr)
		}
		return readJSON[vecchiaResult](t, res)
	}
	for _, c := range []struct {
		refine string
		stages []int
		warns  bool
	}{
		{refine: "40", stages: []int{3, 6, 12}},
		{refine: "6", stages: []int{3, 6}, warns: true},
	} {
		sets := filepath.Join(dir, "sets"+c.refine+".txt")
		r := fit("refine"+c.refine, "--vecchia-m", "3", "--vecchia-refine-m", c.refine, "--checkpoint", "none", "--vecchia-sets-out", sets)
		if !slices.Equal(r.Vecchia.Stages, c.stages) || r.Vecchia.M != c.stages[len(c.stages)-1] || len(r.Refined) != len(c.stages)-1 || r.Check == nil {
			t.Fatalf("refine-m %s: stages %v, m %d, refined %+v, check %+v; want stages %v", c.refine, r.Vecchia.Stages, r.Vecchia.M, r.Refined, r.Check, c.stages)
		}
		for i, chk := range r.Refined {
			if chk.M2 != c.stages[i+1] || !(chk.MaxStepSE > 0.25) {
				t.Errorf("refine-m %s: refining check %d: m2 %d, step %.3f SE; want m2 %d and a step above 0.25", c.refine, i, chk.M2, chk.MaxStepSE, c.stages[i+1])
			}
		}
		last, step := r.Vecchia.M, 0.0
		for _, se := range r.Check.StepSE {
			step = math.Max(step, se)
		}
		warned := len(r.Warnings) == 1 && strings.Contains(r.Warnings[0], "(not refined: m = "+strconv.Itoa(2*last)+" is above --vecchia-refine-m "+c.refine+")")
		if r.Check.M2 != 2*last || warned != c.warns || (step > 0.25) != c.warns || len(r.Warnings) > 1 {
			t.Errorf("refine-m %s: last check m2 %d, step %.3f SE, warnings %q; want m2 %d, a warning %t", c.refine, r.Check.M2, step, r.Warnings, 2*last, c.warns)
		}
		if b, err := os.ReadFile(sets); err != nil || !strings.Contains(strings.SplitN(string(b), "\n", 2)[0], " m="+strconv.Itoa(last)) {
			t.Errorf("refine-m %s: --vecchia-sets-out's header %.60q (%v), want the final m = %d", c.refine, b, err, last)
		}
		direct := fit("direct"+c.refine, "--vecchia-m", strconv.Itoa(last), "--checkpoint", "none", "--vecchia-check=false")
		if d := farthest(r.Theta, direct.Theta, direct.StdErr); d > 0.02 {
			t.Errorf("refine-m %s: estimate %v, %.3f SE from the m = %d fit's %v", c.refine, r.Theta, d, last, direct.Theta)
		}
	}

	full := fit("full", "--vecchia-m", "3", "--vecchia-refine-m", "40", "--checkpoint", "none")
	two := fit("two", "--vecchia-m", "3", "--vecchia-refine-m", "6", "--checkpoint", "none") // the same path through m = 6
	ckpt := filepath.Join(dir, "part.ckpt")
	part := fit("part", "--vecchia-m", "3", "--vecchia-refine-m", "40", "--checkpoint", ckpt, "--max-evals", strconv.Itoa(two.Evaluations+1))
	if part.Status != "MAXEVAL_REACHED" || !slices.Equal(part.Vecchia.Stages, []int{3, 6, 12}) {
		t.Fatalf("--max-evals %d: status %q, stages %v; want MAXEVAL_REACHED in the m = 12 level", two.Evaluations+1, part.Status, part.Vecchia.Stages)
	}
	res := fit("resumed", "--vecchia-m", "3", "--vecchia-refine-m", "40", "--resume", ckpt)
	if res.LogLik != full.LogLik || !equalFloats(res.Theta, full.Theta) || res.Status != full.Status || res.Evaluations != full.Evaluations ||
		!slices.Equal(res.Vecchia.Stages, full.Vecchia.Stages) || !sameCheck(res.Check, full.Check) {
		t.Errorf("resumed: l %v theta %v %s, %d evaluations, stages %v, check %+v; uninterrupted: l %v theta %v %s, %d, %v, %+v",
			res.LogLik, res.Theta, res.Status, res.Evaluations, res.Vecchia.Stages, res.Check, full.LogLik, full.Theta, full.Status, full.Evaluations, full.Vecchia.Stages, full.Check)
	}
}
