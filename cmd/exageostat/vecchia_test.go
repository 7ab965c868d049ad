package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// simulateNugget writes n draws of the Matérn model at theta
// (sigma2,beta,nu) with the nugget 0.1 from seed to path (exageostat
// simulate): the Vecchia tests' data.
func simulateNugget(t *testing.T, bin, path, n, theta, seed string) {
	t.Helper()
	if _, stderr, code := run(t, bin, "simulate", "--n", n, "--theta", theta, "--nugget", "0.1", "--seed", seed, "--out", path); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
}

// vecchiaResult is the part of fit's JSON the Vecchia tests read.
type vecchiaResult struct {
	Theta       []float64 `json:"theta"`
	LogLik      float64   `json:"loglik"`
	Status      string    `json:"status"`
	StdErr      []float64 `json:"stderr"`
	MSPE        float64   `json:"mspe"`
	Evaluations int       `json:"evaluations"`
	Replayed    int       `json:"replayed_evaluations"`
	Warnings    []string  `json:"warnings"`
	Steps       []struct {
		Wall        float64         `json:"wall"`
		Gen         float64         `json:"gen"`
		Chol        float64         `json:"chol"`
		Solve       float64         `json:"solve"`
		Deriv       float64         `json:"deriv"`
		Busy        float64         `json:"busy"`
		Utilization json.RawMessage `json:"utilization"`
	} `json:"steps"`
	PerEval map[string]float64 `json:"seconds_per_evaluation"`
	Vecchia *struct {
		M          int       `json:"m"`
		Stages     []int     `json:"stages"`
		Search     string    `json:"search"`
		Select     string    `json:"select"`
		Candidates int       `json:"candidates"`
		Pilot      []float64 `json:"pilot"`
	} `json:"vecchia"`
	Check *vecchiaCheck `json:"vecchia_check"`
	// Refined are the checks that moved a refined fit on.
	Refined []struct {
		M2        int     `json:"m2"`
		MaxStepSE float64 `json:"max_step_se"`
	} `json:"vecchia_refined"`
}

// vecchiaCheck is the approximation check in fit's JSON, less its time.
type vecchiaCheck struct {
	M2       int                `json:"m2"`
	StepSE   map[string]float64 `json:"step_se"`
	OneStep  []float64          `json:"one_step_theta"`
	LogLikM2 float64            `json:"loglik_m2"`
	DeltaL   float64            `json:"delta_l"`
	Gain     float64            `json:"predicted_gain"`
	Skipped  string             `json:"skipped"`
}

// sameCheck reports whether two checks are bitwise the same (their
// times aside).
func sameCheck(a, b *vecchiaCheck) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestFitVecchiaCLI: fit --computation vecchia with every earlier
// location in the sets (--vecchia-m N-1) gives the exact fit's l at the
// same theta (the exact path computes it independently, through the tiled
// Cholesky), and its hold-out kriging the exact kriging's MSPE; a Fisher-scoring fit at m = 30 converges near the exact
// fit's estimate (within 0.3 of its standard errors) through the stages
// m = 10 then 30; the sets it writes, read back with --vecchia-sets, give
// bitwise the same fit; bad settings exit 2 with one line.
func TestFitVecchiaCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	simulateNugget(t, bin, data, "300", "1,0.1,0.8", "4")
	fit := func(name string, args ...string) vecchiaResult {
		t.Helper()
		res := filepath.Join(dir, name+".json")
		a := append([]string{"fit", "--data", data, "--mean", "constant", "--workers", "2", "--json", res, "--checkpoint", "none", "-q"}, args...)
		if _, stderr, code := run(t, bin, a...); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, stderr)
		}
		return readJSON[vecchiaResult](t, res)
	}
	fixed := []string{"--lb", "0.9,0.08,0.7,0.1", "--ub", "0.9,0.08,0.7,0.1"}
	ex := fit("exact-fixed", fixed...)
	ve := fit("vecchia-fixed", append(fixed, "--computation", "vecchia", "--vecchia-m", "299")...)
	if d := math.Abs(ve.LogLik-ex.LogLik) / math.Abs(ex.LogLik); !(d < 1e-9) {
		t.Errorf("m = N-1: vecchia l %v, exact l %v (relative %.2g)", ve.LogLik, ex.LogLik, d)
	}
	// Hold-out kriging conditioned on every training location is exact
	// kriging: the same MSPE.
	exh := fit("exact-holdout", append(fixed, "--holdout", "20")...)
	veh := fit("vecchia-holdout", append(fixed, "--holdout", "20", "--computation", "vecchia", "--vecchia-m", "280")...)
	if d := math.Abs(veh.MSPE-exh.MSPE) / exh.MSPE; !(d < 1e-9) || exh.MSPE == 0 {
		t.Errorf("hold-out MSPE: vecchia (m = all training points) %v, exact %v (relative %.2g)", veh.MSPE, exh.MSPE, d)
	}

	bounds := []string{"--lb", "0.01,0.001,0.1,0.001", "--ub", "10,5,3,2", "--stderr"}
	exact := fit("exact", bounds...)
	sets := filepath.Join(dir, "sets.txt")
	v := fit("vecchia", append(bounds, "--computation", "vecchia", "--vecchia-sets-out", sets)...)
	if v.Status != "CONVERGED" || v.Vecchia == nil || v.Vecchia.Search != "fisher" || len(v.Vecchia.Stages) != 2 || v.Vecchia.Stages[0] != 10 || v.Vecchia.Stages[1] != 30 {
		t.Fatalf("vecchia fit: status %q, summary %+v", v.Status, v.Vecchia)
	}
	for i := range exact.Theta {
		if d := math.Abs(v.Theta[i]-exact.Theta[i]) / exact.StdErr[i]; !(d < 0.3) {
			t.Errorf("parameter %d: vecchia %v, exact %v: %.2f standard errors apart", i, v.Theta[i], exact.Theta[i], d)
		}
		if r := v.StdErr[i] / exact.StdErr[i]; !(r > 0.8 && r < 1.25) {
			t.Errorf("parameter %d: vecchia stderr %v, exact %v", i, v.StdErr[i], exact.StdErr[i])
		}
	}
	// Not traced: the busy seconds, the gradient's among them, give the
	// busy share over the 2 workers and the overlap policy's helper
	// thread (when it has one), never above 1; no trace-based utilisation
	// and no CPU times are claimed.
	for i, s := range v.Steps {
		sum := s.Gen + s.Chol + s.Solve + s.Deriv
		lo, hi := sum/(3*s.Wall)*(1-1e-9), sum/(2*s.Wall)*(1+1e-9)
		if !(s.Deriv > 0) || !(s.Busy >= lo && s.Busy <= hi && s.Busy <= 1+1e-9) || string(s.Utilization) != "null" {
			t.Errorf("vecchia step %d: deriv %v busy %v (busy seconds over 3 and 2 x wall: %v, %v) utilization %s", i+1, s.Deriv, s.Busy, lo, hi, s.Utilization)
		}
	}
	if _, ok := v.PerEval["gen_cpu"]; ok || !(v.PerEval["deriv"] > 0) {
		t.Errorf("vecchia seconds_per_evaluation %v: want deriv and no CPU times", v.PerEval)
	}
	again := fit("vecchia-sets", append(bounds, "--computation", "vecchia", "--vecchia-sets", sets)...)
	if again.LogLik != v.LogLik || !equalFloats(again.Theta, v.Theta) {
		t.Errorf("with the sets read back: l %v theta %v, written: l %v theta %v", again.LogLik, again.Theta, v.LogLik, v.Theta)
	}

	bad := writeFile(t, dir, "bad-sets.txt", "# vecchia conditioning sets: n=300 m=2\n1 5\n2 7 9\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--computation", "vecchia", "--vecchia-m", "0"}, "--vecchia-m must be >= 1"},
		{[]string{"--computation", "vecchia", "--vecchia-order", "spiral"}, "--vecchia-order must be"},
		{[]string{"--vecchia-m", "20"}, "--vecchia-m is for --computation vecchia"},
		{[]string{"--search", "fisher"}, "--search fisher"},
		{[]string{"--computation", "vecchia", "--vecchia-sets", bad}, "bad-sets.txt:3"},
		{[]string{"--computation", "vecchia", "--nb", "100"}, "--nb: --computation vecchia has no tiles"},
		{[]string{"--computation", "vecchia", "--vecchia-check-m", "30"}, "--vecchia-check-m must be above --vecchia-m 30, got 30"},
		{[]string{"--vecchia-check-m", "60"}, "--vecchia-check-m is for --computation vecchia"},
		{[]string{"--vecchia-refine-m", "120"}, "--vecchia-refine-m is for --computation vecchia"},
		{[]string{"--computation", "vecchia", "--vecchia-refine-m", "-1"}, "--vecchia-refine-m must be >= 0"},
		{[]string{"--computation", "vecchia", "--vecchia-refine-m", "59"}, "--vecchia-refine-m 59 is below the check's m = 60"},
		{[]string{"--computation", "vecchia", "--vecchia-check-m", "45", "--vecchia-refine-m", "40"}, "--vecchia-refine-m 40 is below the check's m = 45"},
		{[]string{"--computation", "vecchia", "--vecchia-refine-m", "120", "--vecchia-check=false"}, "--vecchia-refine-m needs the approximation check"},
		{[]string{"--computation", "vecchia", "--vecchia-refine-m", "120", "--vecchia-sets", bad}, "--vecchia-refine-m: --vecchia-sets gives the sets"},
		{[]string{"--computation", "vecchia", "--vecchia-refine-m", "120", "--search", "bobyqa"}, "--vecchia-refine-m continues the Fisher scoring"},
		{[]string{"--vecchia-select", "greedy"}, "--vecchia-select is for --computation vecchia"},
		{[]string{"--computation", "vecchia", "--vecchia-select", "best"}, "--vecchia-select must be nearest or greedy"},
		{[]string{"--computation", "vecchia", "--vecchia-candidates", "60"}, "--vecchia-candidates is for --vecchia-select greedy"},
		{[]string{"--computation", "vecchia", "--vecchia-select", "greedy", "--vecchia-candidates", "-1"}, "--vecchia-candidates must be >= 0"},
		{[]string{"--computation", "vecchia", "--vecchia-select", "greedy", "--vecchia-candidates", "30"}, "--vecchia-candidates 30 must be above --vecchia-m 30"},
		{[]string{"--computation", "vecchia", "--vecchia-select", "greedy", "--vecchia-sets", bad}, "--vecchia-select greedy: --vecchia-sets gives the sets"},
		{[]string{"--computation", "vecchia", "--vecchia-select", "greedy", "--search", "bobyqa"}, "--vecchia-select greedy chooses the sets between the Fisher scoring's stages"},
		{[]string{"--computation", "vecchia", "--vecchia-select", "greedy", "--kernel", "bivariate-matern"}, "--vecchia-select greedy: the bivariate Matérn"},
	} {
		_, stderr, code := run(t, bin, append([]string{"fit", "--data", data, "--checkpoint", "none"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("fit %v: exit %d, %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSimulateVecchiaCLI: simulate --computation vecchia writes N rows,
// the same file on 1 and 2 workers, with the sample variance of z near
// sigma2 + tau2 (a short range: many nearly independent values).
func TestSimulateVecchiaCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	files := map[string]string{}
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "s"+w+".csv")
		if _, stderr, code := run(t, bin, "simulate", "--n", "8000", "--theta", "1,0.01,0.5,0.25", "--seed", "7", "--computation", "vecchia",
			"--workers", w, "--out", out); code != 0 {
			t.Fatalf("simulate --workers %s: exit %d: %s", w, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files[w] = string(b)
	}
	if files["1"] != files["2"] {
		t.Fatal("simulate --computation vecchia: different files on 1 and 2 workers")
	}
	lines := strings.Split(strings.TrimSpace(files["1"]), "\n")
	if len(lines) != 8001 {
		t.Fatalf("%d lines, want a header and 8000 rows", len(lines))
	}
	var s, ss float64
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		z, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		s += z
		ss += z * z
	}
	n := float64(len(lines) - 1)
	v := ss/n - (s/n)*(s/n)
	if math.Abs(v-1.25) > 0.1 {
		t.Errorf("sample variance %.3f, want 1.25 (sigma2 + tau2) within 0.1", v)
	}
}

// TestMPIFitVecchiaBitwise: a Vecchia fit (the simulated default problem
// drawn through the conditionals, then Fisher scoring m = 10 -> 30) ends
// at bitwise the same estimate and l on 1, 2 and 3 ranks, and on 2 ranks
// without the approximation check (each rank then lets the whole input
// go once its plans are made).
func TestMPIFitVecchiaBitwise(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	args := []string{"fit", "--computation", "vecchia", "--n", "1200", "--theta", "1,0.05,0.8,0.1", "--lb", "0.01,0.001,0.1,0.001",
		"--ub", "10,5,3,2", "--mean", "constant", "--workers", "1", "-q"}
	var first vecchiaResult
	for k, np := range []int{1, 2, 3, 2} {
		out := filepath.Join(dir, strconv.Itoa(k)+".json")
		a := append(slices.Clone(args), "--json", out)
		if k == 3 {
			a = append(a, "--vecchia-check=false")
		}
		if _, e, code, _ := mpirun(t, np, nil, bin, a...); code != 0 {
			t.Fatalf("%d ranks: exit %d: %s", np, code, e)
		}
		r := readJSON[vecchiaResult](t, out)
		if np == 1 {
			first = r
			continue
		}
		if r.LogLik != first.LogLik || !equalFloats(r.Theta, first.Theta) {
			t.Errorf("%d ranks: l %.17g theta %v; one rank: l %.17g theta %v", np, r.LogLik, r.Theta, first.LogLik, first.Theta)
		}
		if k == 3 {
			if r.Check != nil {
				t.Errorf("--vecchia-check=false: the approximation check %+v, want none", r.Check)
			}
			continue
		}
		if !sameCheck(r.Check, first.Check) || r.Check.Skipped != "" || r.Check.M2 != 60 {
			t.Errorf("%d ranks: the approximation check %+v; one rank: %+v", np, r.Check, first.Check)
		}
	}
}

// TestMPIVecchiaRefineBitwise: a refined Vecchia fit (--vecchia-refine-m,
// m = 3 to 12 on a smooth field: each level's plans distributed again
// over the ranks) and a fit with greedy sets (chosen on rank 0 after the
// coarse search, their plan sent to the ranks by blocks) end at bitwise
// the same estimate, l, stages and check on 1, 2 and 3 ranks, and at the
// one-rank run's of the same binary without MPI.
func TestMPIVecchiaRefineBitwise(t *testing.T) {
	bin, mbin := binary(t), mpiBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	simulateNugget(t, bin, data, "300", "1,0.1,1.5", "3")
	base := []string{"fit", "--data", data, "--computation", "vecchia", "--lb", "0.01,0.001,0.1,0.001",
		"--ub", "10,5,3,2", "--mean", "constant", "--workers", "1", "-q", "--checkpoint", "none"}
	for _, c := range []struct {
		name   string
		args   []string
		stages []int
	}{
		{"refine", []string{"--vecchia-m", "3", "--vecchia-refine-m", "40"}, []int{3, 6, 12}},
		{"greedy", []string{"--vecchia-m", "20", "--vecchia-select", "greedy"}, []int{10, 20}},
	} {
		args := append(slices.Clone(base), c.args...)
		out := filepath.Join(dir, c.name+"-serial.json")
		if _, e, code := run(t, bin, append(slices.Clone(args), "--json", out)...); code != 0 {
			t.Fatalf("%s, one process: exit %d: %s", c.name, code, e)
		}
		first := readJSON[vecchiaResult](t, out)
		if first.Vecchia == nil || !slices.Equal(first.Vecchia.Stages, c.stages) {
			t.Fatalf("%s, one process: vecchia %+v, want the stages %v", c.name, first.Vecchia, c.stages)
		}
		for _, np := range []int{1, 2, 3} {
			out := filepath.Join(dir, c.name+strconv.Itoa(np)+".json")
			if _, e, code, _ := mpirun(t, np, nil, mbin, append(slices.Clone(args), "--json", out)...); code != 0 {
				t.Fatalf("%s, %d ranks: exit %d: %s", c.name, np, code, e)
			}
			r := readJSON[vecchiaResult](t, out)
			if r.LogLik != first.LogLik || !equalFloats(r.Theta, first.Theta) || !slices.Equal(r.Vecchia.Stages, first.Vecchia.Stages) || !sameCheck(r.Check, first.Check) ||
				r.Vecchia.Select != first.Vecchia.Select {
				t.Errorf("%s, %d ranks: l %.17g theta %v stages %v check %+v; one process: l %.17g theta %v stages %v check %+v",
					c.name, np, r.LogLik, r.Theta, r.Vecchia.Stages, r.Check, first.LogLik, first.Theta, first.Vecchia.Stages, first.Check)
			}
		}
	}
}

// TestMPIVecchiaRootFailure: over several ranks rank 0 alone prepares
// the Vecchia plan; when it cannot (sets read from a file of another
// size), every rank stops with exit 2 and the problem is named once.
func TestMPIVecchiaRootFailure(t *testing.T) {
	bin, mbin := binary(t), mpiBinary(t)
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, n := range []string{"200", "300"} {
		simulateNugget(t, bin, at("d"+n+".csv"), n, "1,0.1,0.8", "6")
	}
	vf := []string{"fit", "-q", "--computation", "vecchia", "--vecchia-m", "10", "--workers", "1"}
	if _, stderr, code := run(t, bin, append(vf, "--data", at("d300.csv"), "--vecchia-sets-out", at("s300.txt"))...); code != 0 {
		t.Fatalf("fit --vecchia-sets-out: exit %d: %s", code, stderr)
	}
	_, stderr, code, _ := mpirun(t, 2, nil, mbin, append(vf, "--data", at("d200.csv"), "--vecchia-sets", at("s300.txt"))...)
	const want = "sets of 300 locations (an ordering of 300) for 200 locations"
	if code != 2 || strings.Count(stderr, want) != 1 {
		t.Errorf("2 ranks, sets of 300 for 200 locations: exit %d (want 2), stderr %q (want %q once)", code, stderr, want)
	}
}

// TestResumeVecchiaCLI: a Vecchia fit stopped by --max-evals and resumed
// from its checkpoint ends bitwise where the uninterrupted fit ends (the
// checkpointed evaluations replayed, the best one recomputed), and a
// resume with another m is refused naming the setting.
func TestResumeVecchiaCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	simulateNugget(t, bin, data, "300", "1,0.1,0.8", "6")
	base := []string{"fit", "--data", data, "--computation", "vecchia", "--mean", "constant", "--lb", "0.01,0.001,0.1,0.001", "--ub", "10,5,3,2", "--workers", "2", "-q"}
	fit := func(name string, args ...string) (vecchiaResult, string) {
		t.Helper()
		res := filepath.Join(dir, name+".json")
		_, stderr, code := run(t, bin, append(append(append([]string{}, base...), "--json", res), args...)...)
		if code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, stderr)
		}
		return readJSON[vecchiaResult](t, res), stderr
	}
	full, _ := fit("full", "--checkpoint", "none")
	ckpt := filepath.Join(dir, "part.ckpt")
	part, _ := fit("part", "--checkpoint", ckpt, "--max-evals", "4")
	if part.Status != "MAXEVAL_REACHED" {
		t.Fatalf("--max-evals 4: status %q", part.Status)
	}
	if part.Check == nil || !strings.Contains(part.Check.Skipped, "before converging") {
		t.Errorf("--max-evals 4: the approximation check %+v, want it skipped", part.Check)
	}
	res, _ := fit("resumed", "--resume", ckpt)
	if res.LogLik != full.LogLik || !equalFloats(res.Theta, full.Theta) || res.Status != full.Status {
		t.Errorf("resumed: l %v theta %v %s; uninterrupted: l %v theta %v %s", res.LogLik, res.Theta, res.Status, full.LogLik, full.Theta, full.Status)
	}
	if !sameCheck(res.Check, full.Check) || res.Check.Skipped != "" {
		t.Errorf("resumed: the approximation check %+v; uninterrupted: %+v", res.Check, full.Check)
	}
	b, err := os.ReadFile(filepath.Join(dir, "resumed.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"replayed_evaluations": 3`) {
		t.Errorf("resumed fit: want 3 evaluations replayed (the 4th, the best, recomputed):\n%.400s", b)
	}
	_, stderr, code := run(t, bin, append(append([]string{}, base...), "--vecchia-m", "20", "--resume", ckpt)...)
	if code != 2 || !strings.Contains(stderr, `setting "computation" differs`) {
		t.Errorf("resume with another m: exit %d, %q", code, stderr)
	}
}
