package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpaceTimeCLI: simulate space-time data (x,y,t,z), fit the space-time
// Matérn (7 parameters in ExaGeoStat's order), predict at new sites and
// times (x,y,t,z_hat,variance).
func TestSpaceTimeCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "st.csv")
	if _, stderr, code := run(t, bin, "simulate", "--kernel", "spacetime-matern", "--n", "120", "--times", "4",
		"--theta", "1,0.1,0.5,1,0.5,0.5,0.1", "--seed", "2", "--out", data, "--nb", "40"); code != 0 {
		t.Fatalf("simulate exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(data)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "x,y,t,z" || len(lines) != 121 || !strings.Contains(lines[1], ",1,") || !strings.Contains(lines[120], ",4,") {
		t.Fatalf("simulated file: %q ... %q (%d lines)", lines[0], lines[len(lines)-1], len(lines))
	}
	res := filepath.Join(dir, "r.json")
	if _, stderr, code := run(t, bin, "fit", "--data", data, "--kernel", "spacetime-matern", "--nb", "40", "--max-evals", "25", "--json", res); code != 0 {
		t.Fatalf("fit exit %d: %s", code, stderr)
	}
	var r struct {
		Kernel string    `json:"kernel"`
		Params []string  `json:"parameters"`
		Theta  []float64 `json:"theta"`
	}
	b, _ = os.ReadFile(res)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Kernel != "spacetime-matern" || strings.Join(r.Params, ",") != "sigma2,beta,nu,beta_t,alpha,sep,delta" || len(r.Theta) != 7 {
		t.Fatalf("result %s", b)
	}
	at := writeFile(t, dir, "at.csv", "x,y,t\n0.5,0.5,2.5\n0.1,0.9,5\n")
	out := filepath.Join(dir, "p.csv")
	if _, stderr, code := run(t, bin, "predict", "--data", data, "--theta-from", res, "--at", at, "--out", out); code != 0 {
		t.Fatalf("predict exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(out)
	lines = strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || lines[0] != "x,y,t,z_hat,variance" || !strings.HasPrefix(lines[1], "0.5,0.5,2.5,") {
		t.Fatalf("predictions:\n%s", b)
	}
}

// Test3DCLI: a file x,y,depth,value is fitted with 3D distances when
// --coords names the third coordinate (the fit: line and the JSON say 3D),
// predicted at x,y,depth; without --coords depth is not read.
func Test3DCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 4))
	var b strings.Builder
	b.WriteString("x,y,depth,value\n")
	for range 80 {
		fmt.Fprintf(&b, "%g,%g,%g,%g\n", rng.Float64(), rng.Float64(), rng.Float64(), rng.NormFloat64())
	}
	data := writeFile(t, dir, "d3.csv", b.String())
	res := filepath.Join(dir, "r.json")
	stdout, stderr, code := run(t, bin, "fit", "--data", data, "--coords", "x,y,depth", "--max-evals", "15", "--json", res)
	if code != 0 || !strings.Contains(stdout, "loglik") || !strings.Contains(stderr, "fit: N=80 3D (x,y,depth) ") {
		t.Fatalf("fit exit %d: %s\n%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(res); !strings.Contains(string(b), `"dimensions": 3`) {
		t.Errorf("the JSON does not say 3D:\n%s", b)
	}
	_, stderr, _ = run(t, bin, "fit", "--data", data, "--max-evals", "2")
	if !strings.Contains(stderr, "columns not read: depth") || !strings.Contains(stderr, "fit: N=80 kernel") {
		t.Errorf("without --coords: %s", stderr)
	}
	at := writeFile(t, dir, "at.csv", "x,y,depth\n0.5,0.5,0.2\n")
	out := filepath.Join(dir, "p.csv")
	if _, stderr, code := run(t, bin, "predict", "--data", data, "--theta-from", res, "--at", at, "--out", out); code != 0 {
		t.Fatalf("predict exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(got), "x,y,z,z_hat,variance\n0.5,0.5,0.2,") {
		t.Fatalf("predictions:\n%s", got)
	}
}

// TestColumnsBadInput: the column and kernel mismatches are exit 2 with
// one line.
func TestColumnsBadInput(t *testing.T) {
	st := "x,y,t,z\n0.1,0.2,1,0.5\n0.7,0.3,1,-0.2\n0.1,0.2,2,0.1\n0.4,0.9,2,1.1\n"
	d3 := "x,y,depth,value\n0.1,0.2,0,0.5\n0.7,0.3,1,-0.2\n0.1,0.2,2,0.1\n0.4,0.9,2,1.1\n"
	runCLICases(t, binary(t), []cliCase{
		{name: "spacetime kernel without t", args: []string{"fit", "--data", "@d.csv", "--kernel", "spacetime-matern"}, want: "needs a time column"},
		{name: "t column with matern", args: []string{"fit", "--data", "@st.csv"}, files: map[string]string{"st.csv": st}, want: "use --kernel spacetime-matern"},
		{name: "predict at without t", args: []string{"predict", "--data", "@st.csv", "--kernel", "spacetime-matern", "--theta", "1,0.1,0.5,1,0.5,0.5,0.1", "--at", "@at.csv", "--out", "p.csv"},
			files: map[string]string{"st.csv": st}, want: "must both have a time column"},
		{name: "times with matern", args: []string{"simulate", "--times", "4", "--n", "100", "--out", "s.csv"}, want: `key "times": --times is for the kernel spacetime-matern`},
		{name: "spacetime without times", args: []string{"simulate", "--kernel", "spacetime-matern", "--theta", "1,0.1,0.5,1,0.5,0.5,0.1", "--out", "s.csv"}, want: "give --times >= 2"},
		{name: "times not dividing n", args: []string{"fit", "--kernel", "spacetime-matern", "--theta", "1,0.1,0.5,1,0.5,0.5,0.1", "--n", "100", "--times", "3"}, want: "--times 3 must divide n = 100"},
		{name: "spacetime alpha above 1", args: []string{"simulate", "--kernel", "spacetime-matern", "--times", "2", "--theta", "1,0.1,0.5,1,1.5,0.5,0.1", "--out", "s.csv"}, want: "alpha must be in (0, 1]"},
		{name: "spacetime theta count", args: []string{"simulate", "--kernel", "spacetime-matern", "--times", "2", "--out", "s.csv"}, want: "spacetime-matern needs 7 parameters"},
		{name: "spacetime ub sep", args: []string{"fit", "--data", "@st.csv", "--kernel", "spacetime-matern", "--ub", "5,5,5,5,1,2,5", "--lb", "0.1,0.1,0.1,0.1,0.1,0.1,0.1"},
			files: map[string]string{"st.csv": st}, want: `key "ub": bounds of sep must lie within (0, 1]`},
		{name: "spacetime grid", args: []string{"fit", "--data", "@st.csv", "--kernel", "spacetime-matern", "--plot", "adir", "--grid", "5x5"}, files: map[string]string{"st.csv": st}, want: "--grid maps 2D locations"},
		{name: "3D great circle", args: []string{"fit", "--data", "@d3.csv", "--coords", "x,y,depth", "--distance", "gc"}, files: map[string]string{"d3.csv": d3}, want: "3D locations need --distance euclidean"},
		{name: "unknown column", args: []string{"fit", "--data", "@u.csv"}, files: map[string]string{"u.csv": "x,y,vlaue\n1,2,3\n"}, want: `u.csv:1: header "x,y,vlaue": no observation column (z, value or obs): name it with --z COL`},
		{name: "times with data", args: []string{"fit", "--data", "@st.csv", "--kernel", "spacetime-matern", "--times", "2"}, files: map[string]string{"st.csv": st}, want: "--times is for simulated data"},
	})
}

// TestBivariateCLI: simulate x,y,z1,z2, fit the parsimonious bivariate
// Matérn (rho may be negative), co-kriging predict of both variables.
func TestBivariateCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "bv.csv")
	if _, stderr, code := run(t, bin, "simulate", "--kernel", "bivariate-matern", "--n", "100",
		"--theta", "1,0.5,0.1,0.5,1,-0.5", "--seed", "2", "--out", data, "--nb", "40"); code != 0 {
		t.Fatalf("simulate exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(data)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); lines[0] != "x,y,z1,z2" || len(lines) != 101 {
		t.Fatalf("simulated file: %q (%d lines)", lines[0], len(lines))
	}
	res := filepath.Join(dir, "r.json")
	if _, stderr, code := run(t, bin, "fit", "--data", data, "--kernel", "bivariate-matern", "--nb", "40", "--max-evals", "30", "--json", res); code != 0 {
		t.Fatalf("fit exit %d: %s", code, stderr)
	}
	var r struct {
		Params []string  `json:"parameters"`
		Theta  []float64 `json:"theta"`
	}
	b, _ = os.ReadFile(res)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Params, ",") != "sigma2_1,sigma2_2,beta,nu1,nu2,rho" || len(r.Theta) != 6 || r.Theta[5] < -1 || r.Theta[5] > 1 {
		t.Fatalf("result %s", b)
	}
	at := writeFile(t, dir, "at.csv", "x,y\n0.5,0.5\n0.1,0.9\n0.3,0.3\n")
	out := filepath.Join(dir, "p.csv")
	if _, stderr, code := run(t, bin, "predict", "--data", data, "--theta-from", res, "--at", at, "--out", out, "--nb", "30"); code != 0 {
		t.Fatalf("predict exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != "x,y,z1_hat,z1_variance,z2_hat,z2_variance" || !strings.HasPrefix(lines[2], "0.1,0.9,") {
		t.Fatalf("predictions:\n%s", b)
	}
	bv := "x,y,z1,z2\n0.1,0.2,1,0.5\n0.7,0.3,-1,-0.2\n0.2,0.9,0.1,0.4\n0.4,0.6,1.1,0\n"
	runCLICases(t, bin, []cliCase{
		{name: "rho above 1", args: []string{"simulate", "--kernel", "bivariate-matern", "--theta", "1,1,0.1,0.5,1,1.5", "--out", "s.csv"}, want: "rho must be in [-1, 1]"},
		{name: "rho bounds", args: []string{"fit", "--data", "@bv.csv", "--kernel", "bivariate-matern", "--lb", "0.1,0.1,0.1,0.1,0.1,-2", "--ub", "5,5,5,5,5,1"},
			files: map[string]string{"bv.csv": bv}, want: `key "lb": bounds of rho must lie within [-1, 1]`},
		{name: "bivariate without z2", args: []string{"fit", "--data", "@d.csv", "--kernel", "bivariate-matern"}, want: "needs two observation columns"},
		{name: "z2 with matern", args: []string{"fit", "--data", "@bv.csv"}, files: map[string]string{"bv.csv": bv}, want: "use --kernel bivariate-matern"},
		{name: "bivariate holdout", args: []string{"fit", "--data", "@bv.csv", "--kernel", "bivariate-matern", "--holdout", "1"}, files: map[string]string{"bv.csv": bv}, want: "--holdout and --plot are for univariate kernels"},
		{name: "bivariate simulated fit", args: []string{"fit", "--kernel", "bivariate-matern", "--theta", "1,1,0.1,0.5,1,0.5"}, want: "fits data"},
	})
}
