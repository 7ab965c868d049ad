package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// builds holds the binaries the command-line tests run, each built once
// per test process (a build links for seconds; 55 tests built their own),
// in a directory TestMain removes.
var builds struct {
	dir        string
	plain, mpi build
}

// build is one binary of builds, made on first use.
type build struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

// get builds the binary (go build with args, then -o) on first use and
// returns its path.
func (b *build) get(t *testing.T, name string, args ...string) string {
	t.Helper()
	b.once.Do(func() {
		b.path = filepath.Join(builds.dir, name)
		b.out, b.err = exec.Command("go", append(append([]string{"build"}, args...), "-o", b.path, ".")...).CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("build %s: %v\n%s", name, b.err, b.out)
	}
	return b.path
}

func TestMain(m *testing.M) {
	dir := os.Getenv("EXAGEOSTAT_TEST_BIN_DIR")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "exageostat-test-bin-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	builds.dir = dir
	code := m.Run()
	if os.Getenv("EXAGEOSTAT_TEST_BIN_DIR") == "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// binary builds exageostat once for the command-line tests.
func binary(t *testing.T) string {
	t.Helper()
	return builds.plain.get(t, "exageostat")
}

func run(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func writeFile(t *testing.T, dir, name, content string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadInputExitsTwo(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	good := "x,y,z\n0.1,0.2,1\n0.5,0.1,-0.3\n0.9,0.8,0.2\n0.3,0.7,0.5\n"
	cases := []struct {
		name string
		args []string
		want string // substring of the one-line message
	}{
		{"missing file", []string{"fit", "--data", filepath.Join(dir, "nope.csv")}, "nope.csv: cannot open"},
		{"malformed row", []string{"fit", "--data", writeFile(t, dir, "bad.csv", "x,y,z\n0.1,0.2,1\n0.5,oops,2\n")}, "bad.csv:3:"},
		{"nan", []string{"fit", "--na", "error", "--data", writeFile(t, dir, "nan.csv", "x,y,z\n0.1,0.2,NaN\n0.5,0.1,2\n0.7,0.7,1\n")}, `nan.csv:2: z is missing ("NaN")`},
		{"too few", []string{"fit", "--data", writeFile(t, dir, "two.csv", "x,y,z\n0.1,0.2,1\n0.5,0.1,2\n")}, "at least 3 locations"},
		{"duplicates", []string{"fit", "--data", writeFile(t, dir, "dup.csv", "x,y,z\n0.1,0.2,1\n0.5,0.1,2\n0.1,0.2,3\n")}, "duplicate locations at rows 1 and 3"},
		{"lb above ub", []string{"fit", "--data", writeFile(t, dir, "g1.csv", good), "--lb", "1,1,1", "--ub", "2,0.5,2"}, "lower bound of beta (1) is above its upper bound (0.5)"},
		{"start outside", []string{"fit", "--data", writeFile(t, dir, "g2.csv", good), "--start", "1,9,1"}, "start beta = 9 is outside its bounds"},
		{"unknown kernel", []string{"fit", "--kernel", "gauss"}, "unknown kernel \"gauss\""},
		{"unknown distance", []string{"fit", "--data", writeFile(t, dir, "g3.csv", good), "--distance", "manhattan"}, "unknown distance \"manhattan\""},
		{"unknown config key", []string{"fit", "--config", writeFile(t, dir, "c.toml", "nb = 100\nbogus = 1\n")}, "c.toml:2: key \"bogus\": unknown key"},
		{"bad flag", []string{"fit", "--nb", "ten"}, "invalid argument"},
		{"bad theta", []string{"simulate", "--out", filepath.Join(dir, "o.csv"), "--theta", "1,-0.1,0.5"}, "beta must be positive"},
		{"bench n", []string{"bench", "cholesky", "--n", "0"}, "--n must be >= 1"},
		{"stray argument", []string{"fit", "extra"}, "unexpected argument \"extra\""},
		{"memory limit size", []string{"fit", "--memory-limit", "lots"}, `fit: key "memory_limit": "lots" is not a size in bytes`},
		{"config key checked", []string{"fit", "--config", writeFile(t, dir, "s.toml", "search = \"grid\"\n")}, `s.toml:1: key "search": search must be log, linear, fisher or bobyqa`},
		{"fit memory", []string{"fit", "--nb", "400", "--memory-limit", "20MB"}, " (N=1600, nb=400, 1 rank); 20 MB available (--memory-limit)"},
		{"simulate memory", []string{"simulate", "--out", filepath.Join(dir, "o.csv"), "--n", "5000", "--nb", "500", "--memory-limit", "0.1GB"},
			" (N=5000, nb=500, 1 rank); 100 MB available (--memory-limit)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, bin, c.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, c.want) || strings.Contains(stderr, "panic") {
				t.Fatalf("message %q does not contain %q (stderr:\n%s)", last, c.want, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "o.csv")); err == nil {
		t.Fatal("a failed simulate left an output file")
	}
}

func TestSimulateThenFitJSON(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if _, stderr, code := run(t, bin, "simulate", "--n", "150", "--theta", "1,0.1,0.5", "--seed", "3", "--out", data, "--nb", "40"); code != 0 {
		t.Fatalf("simulate exit %d: %s", code, stderr)
	}
	res := filepath.Join(dir, "r.json")
	tr := filepath.Join(dir, "t.json")
	stdout, stderr, code := run(t, bin, "fit", "--data", data, "--nb", "40", "--workers", "2", "--json", res, "--trace", tr, "--max-evals", "30")
	if code != 0 {
		t.Fatalf("fit exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "loglik") || !strings.Contains(stderr, "eval    1") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	var r struct {
		Theta       []float64 `json:"theta"`
		LogLik      float64   `json:"loglik"`
		Evaluations int       `json:"evaluations"`
		Seconds     float64   `json:"seconds"`
	}
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Theta) != 3 || r.Evaluations < 1 || r.Evaluations > 30 || r.Seconds <= 0 || r.LogLik == 0 {
		t.Fatalf("result %+v", r)
	}
	var tj struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	b, _ = os.ReadFile(tr)
	if err := json.Unmarshal(b, &tj); err != nil || len(tj.TraceEvents) < 10 {
		t.Fatalf("trace: %v, %d events", err, len(tj.TraceEvents))
	}
}

func TestHoldoutAndPredict(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if _, stderr, code := run(t, bin, "simulate", "--n", "200", "--seed", "5", "--out", data, "--nb", "50"); code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	res := filepath.Join(dir, "r.json")
	stdout, stderr, code := run(t, bin, "fit", "--data", data, "--nb", "50", "--holdout", "20", "--seed", "3",
		"--true-theta", "1,0.1,0.5", "--json", res, "--plot", filepath.Join(dir, "plots"), "--max-evals", "40")
	if code != 0 {
		t.Fatalf("fit: %s", stderr)
	}
	if !strings.Contains(stdout, "holdout 20: MSPE") || !strings.Contains(stdout, "MLOE") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	var r map[string]any
	b, _ := os.ReadFile(res)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mspe", "coverage_95", "stderr", "mloe", "mmom", "plots"} {
		if _, ok := r[k]; !ok {
			t.Fatalf("JSON lacks %q: %s", k, b)
		}
	}
	for _, name := range []string{"semivariogram", "observations", "prediction", "prediction_sd"} {
		for _, ext := range []string{".png", ".svg"} {
			if st, err := os.Stat(filepath.Join(dir, "plots", name+ext)); err != nil || st.Size() == 0 {
				t.Fatalf("missing plot %s%s", name, ext)
			}
		}
	}
	// predict in the order of the new file, theta from the fit.
	newf := writeFile(t, dir, "new.csv", "x,y\n0.9,0.1\n0.2,0.3\n0.55,0.5\n")
	out := filepath.Join(dir, "p.csv")
	if _, stderr, code := run(t, bin, "predict", "--data", data, "--theta-from", res, "--at", newf, "--out", out, "--nb", "50"); code != 0 {
		t.Fatalf("predict: %s", stderr)
	}
	b, _ = os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != "x,y,z_hat,variance" || !strings.HasPrefix(lines[1], "0.9,0.1,") || !strings.HasPrefix(lines[3], "0.55,0.5,") {
		t.Fatalf("predictions:\n%s", b)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--data", data, "--theta-from", res, "--kernel", "powexp", "--at", newf, "--out", out}, "--kernel powexp disagrees with"},
		{[]string{"predict", "--data", data, "--theta", "1,0,0.5", "--at", newf, "--out", out}, "beta must be positive"},
		{[]string{"predict", "--data", data, "--theta", "1,0.1,0.5", "--at", writeFile(t, dir, "nan.csv", "x,y\n0.1,NaN\n"), "--out", out}, `nan.csv:2: y is missing ("NaN")`},
		{[]string{"predict", "--data", data, "--theta", "1,0.1,0.5", "--at", writeFile(t, dir, "empty.csv", ""), "--out", out}, "empty.csv: empty file"},
		{[]string{"fit", "--data", data, "--true-theta", "1,0.1,0.5"}, "--true-theta needs --holdout"},
		{[]string{"fit", "--data", data, "--holdout", "199"}, "--holdout"},
	}
	for _, c := range bad {
		_, stderr, code := run(t, bin, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
