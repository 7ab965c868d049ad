package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mpiBinary builds exageostat with the mpi tag. MPI is a dependency of the
// test suite (scripts/deps.sh installs OpenMPI): a machine without it fails
// here rather than skipping the distributed tests.
func mpiBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Fatal("mpirun not found: run scripts/deps.sh (make test does) to install OpenMPI")
	}
	bin := filepath.Join(t.TempDir(), "exageostat-mpi")
	out, err := exec.Command("go", "build", "-tags", "mpi", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build -tags mpi: %v\n%s", err, out)
	}
	return bin
}

// mpirun runs bin on np ranks (np = 1: without mpirun) and returns stdout,
// stderr, the exit code and the wall time.
func mpirun(t *testing.T, np int, env []string, bin string, args ...string) (string, string, int, time.Duration) {
	t.Helper()
	var cmd *exec.Cmd
	if np == 1 {
		cmd = exec.Command(bin, args...)
	} else {
		full := append([]string{"--allow-run-as-root", "--oversubscribe", "-np", strconv.Itoa(np), bin}, args...)
		cmd = exec.Command("mpirun", full...)
	}
	// Containers often forbid the cross-memory attach of OpenMPI's
	// shared-memory transport; copying through the shared segment works
	// everywhere.
	cmd.Env = append(os.Environ(), "OMPI_MCA_btl_vader_single_copy_mechanism=none")
	cmd.Env = append(cmd.Env, env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	t0 := time.Now()
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code, time.Since(t0)
}

type mpiResult struct {
	Theta  []float64 `json:"theta"`
	LogLik float64   `json:"loglik"`
	Ranks  int       `json:"ranks"`
	Comm   []struct {
		Phase string `json:"phase"`
		Rank  int    `json:"rank"`
		Bytes int64  `json:"bytes"`
	} `json:"comm_per_evaluation"`
}

func readResult(t *testing.T, path string) mpiResult {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r mpiResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMPILogLikOverRanks: 2, 3 and 4 MPI ranks give the one-rank
// log-likelihood at a fixed theta to 1e-12, block-cyclic and 1D-1D with
// unequal powers (and a block-cyclic generation phase).
func TestMPILogLikOverRanks(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	fixed := []string{"fit", "--n", "900", "--nb", "100", "--lb", "1.2,0.08,0.7", "--ub", "1.2,0.08,0.7", "--workers", "1"}
	one := filepath.Join(dir, "one.json")
	if _, e, code, _ := mpirun(t, 1, nil, bin, append(fixed, "--json", one)...); code != 0 {
		t.Fatalf("one rank: exit %d: %s", code, e)
	}
	want := readResult(t, one).LogLik
	cfg := writeFile(t, dir, "gen.toml", "distribution = \"1d1d\"\n[generation]\ndistribution = \"bc\"\n")
	for _, np := range []int{2, 3, 4} {
		powers := []string{"", "", "1,3", "1,2,4", "1,1,4,4"}[np]
		for _, dist := range [][]string{
			{"--distribution", "bc"},
			{"--distribution", "1d1d", "--powers", powers},
			{"--config", cfg, "--powers", powers},
		} {
			out := filepath.Join(dir, "r.json")
			args := append(append(append([]string{}, fixed...), dist...), "--json", out)
			_, e, code, _ := mpirun(t, np, nil, bin, args...)
			if code != 0 {
				t.Fatalf("%d ranks %v: exit %d: %s", np, dist, code, e)
			}
			r := readResult(t, out)
			if r.Ranks != np || math.Abs(r.LogLik-want) > 1e-12*math.Abs(want) {
				t.Errorf("%d ranks %v: ranks %d, l = %.17g, one rank %.17g", np, dist, r.Ranks, r.LogLik, want)
			}
			if len(r.Comm) == 0 {
				t.Errorf("%d ranks %v: no communication reported", np, dist)
			}
			if err := os.Remove(out); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestMPIFitSameTheta: a full fit on 2 ranks ends at the one-rank estimate.
func TestMPIFitSameTheta(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	args := []string{"fit", "--n", "400", "--nb", "80", "--workers", "1"}
	one, two := filepath.Join(dir, "one.json"), filepath.Join(dir, "two.json")
	if _, e, code, _ := mpirun(t, 1, nil, bin, append(args, "--json", one)...); code != 0 {
		t.Fatalf("one rank: exit %d: %s", code, e)
	}
	if _, e, code, _ := mpirun(t, 2, nil, bin, append(args, "--json", two)...); code != 0 {
		t.Fatalf("two ranks: exit %d: %s", code, e)
	}
	a, b := readResult(t, one), readResult(t, two)
	for i := range a.Theta {
		if math.Abs(a.Theta[i]-b.Theta[i]) > 1e-9*math.Abs(a.Theta[i]) {
			t.Errorf("theta[%d]: one rank %.12g, two ranks %.12g", i, a.Theta[i], b.Theta[i])
		}
	}
	if math.Abs(a.LogLik-b.LogLik) > 1e-12*math.Abs(a.LogLik) {
		t.Errorf("l: one rank %.17g, two ranks %.17g", a.LogLik, b.LogLik)
	}
}

// TestMPIForcedFailure: a task failing on rank 1 ends every rank with a
// non-zero status within seconds, and the message names the rank and task.
func TestMPIForcedFailure(t *testing.T) {
	bin := mpiBinary(t)
	_, e, code, wall := mpirun(t, 3, []string{failTaskEnv + "=1:potrf(1,1,1)"}, bin,
		"fit", "--n", "900", "--nb", "100", "--workers", "1")
	if code == 0 {
		t.Fatalf("exit 0 after a forced failure:\n%s", e)
	}
	if !strings.Contains(e, "rank 1: task potrf(1,1,1): forced failure") {
		t.Errorf("message does not name the rank and task:\n%s", e)
	}
	if wall > 30*time.Second {
		t.Errorf("ranks took %v to end", wall)
	}
}
