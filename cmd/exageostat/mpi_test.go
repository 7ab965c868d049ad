package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	// Distribution names the distributions of the run.
	Distribution string `json:"distribution"`
	Comm         []struct {
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

// lpCluster models 3 nodes: one CPU-only node, two with a GPU that runs the
// factorisation kernels 8 times faster than a core.
const lpCluster = `nb = 100
[network]
bandwidth = 4e9
latency = 2e-6
[[group]]
name = "cpu"
nodes = 1
cpus = 1
[group.cpu]
dcmg = 0.004
potrf = 0.001
trtri = 0.001
trsm = 0.002
syrk = 0.002
gemm = 0.004
[[group]]
name = "gpu"
nodes = 2
cpus = 1
gpus = 1
[group.cpu]
dcmg = 0.004
potrf = 0.001
trtri = 0.001
trsm = 0.002
syrk = 0.002
gemm = 0.004
[group.gpu]
trsm = 0.00025
syrk = 0.00025
gemm = 0.0005
`

// TestMPILinearProgram: distribution lp over a modelled cluster (the
// LP's 1D-1D factorisation and its Algorithm 2 generation, tiles moved
// between the phases by the runtime) gives the one-rank log-likelihood,
// also with the CPU-only node kept out of the factorisation; bc-fast runs
// on the GPU nodes only.
func TestMPILinearProgram(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	cl := writeFile(t, dir, "cluster.toml", lpCluster)
	fixed := []string{"fit", "--n", "900", "--nb", "100", "--lb", "1.2,0.08,0.7", "--ub", "1.2,0.08,0.7", "--workers", "1"}
	one := filepath.Join(dir, "one.json")
	if _, e, code, _ := mpirun(t, 1, nil, bin, append(fixed, "--json", one)...); code != 0 {
		t.Fatalf("one rank: exit %d: %s", code, e)
	}
	want := readResult(t, one).LogLik
	for _, c := range []struct {
		args []string
		name string // in the distribution the run reports
		gen  bool   // tiles move between the phases
	}{
		{[]string{"--distribution", "lp"}, "1d1d-lp", true},
		{[]string{"--distribution", "lp", "--exclude-cpu-only"}, "1d1d-lp", true},
		{[]string{"--distribution", "bc-fast"}, "bc-fast", false},
	} {
		out := filepath.Join(dir, "r.json")
		args := append(append(append([]string{}, fixed...), c.args...), "--cluster", cl, "--json", out)
		_, e, code, _ := mpirun(t, 3, nil, bin, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, e)
		}
		r := readResult(t, out)
		if r.Ranks != 3 || math.Abs(r.LogLik-want) > 1e-12*math.Abs(want) {
			t.Errorf("%v: ranks %d, l = %.17g, one rank %.17g", c.args, r.Ranks, r.LogLik, want)
		}
		if !strings.Contains(r.Distribution, c.name) || strings.Contains(r.Distribution, "tiles move") != c.gen {
			t.Errorf("%v: distribution %q, want %q and tiles moving between phases = %v", c.args, r.Distribution, c.name, c.gen)
		}
		var redis, rank0 int64
		for _, s := range r.Comm {
			if s.Phase == "redistribution" {
				redis += s.Bytes
			}
			if s.Rank == 0 && s.Phase == "cholesky" {
				rank0 += s.Bytes
			}
		}
		if (redis > 0) != c.gen {
			t.Errorf("%v: %d bytes of redistribution, want some = %v", c.args, redis, c.gen)
		}
		if slices.Contains(c.args, "--exclude-cpu-only") && rank0 != 0 {
			t.Errorf("%v: the CPU-only rank 0 sent %d bytes in the Cholesky, want none (it holds no factor tile)", c.args, rank0)
		}
		if err := os.Remove(out); err != nil {
			t.Fatal(err)
		}
	}
	// The groups must hold one node per rank.
	_, e, code, _ := mpirun(t, 2, nil, bin, append(append([]string{}, fixed...), "--distribution", "lp", "--cluster", cl)...)
	if code != 2 || !strings.Contains(e, "models 3 nodes, but the run has 2 MPI ranks") {
		t.Errorf("2 ranks on a 3-node cluster file: exit %d, stderr %q", code, e)
	}
	_, e, code, _ = mpirun(t, 2, nil, bin, append(append([]string{}, fixed...), "--distribution", "lp")...)
	if code != 2 || !strings.Contains(e, `key "distribution": "lp" is computed from the node groups`) {
		t.Errorf("lp without a cluster file: exit %d, stderr %q", code, e)
	}
	missing := filepath.Join(dir, "missing.toml")
	_, e, code, _ = mpirun(t, 1, nil, bin, append(append([]string{}, fixed...), "--cluster", missing)...)
	if code != 2 || !strings.Contains(e, missing+": no such file") {
		t.Errorf("missing cluster file: exit %d, stderr %q", code, e)
	}
}

// TestMPIBenchSimulator: the simulator check runs over 2 MPI ranks, and the
// simulated evaluation sends exactly the messages the real one sent.
func TestMPIBenchSimulator(t *testing.T) {
	bin := mpiBinary(t)
	o, e, code, _ := mpirun(t, 2, nil, bin, "bench", "simulator", "--n", "256,320", "--nb", "64", "--workers", "1",
		"--reps", "1", "--cal-reps", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		Ranks int `json:"ranks"`
		Rows  []struct {
			N            int   `json:"n"`
			Messages     int   `json:"sim_messages"`
			Bytes        int64 `json:"sim_bytes"`
			RealMessages int   `json:"real_messages"`
			RealBytes    int64 `json:"real_bytes"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatalf("%v: %q", err, o)
	}
	if r.Ranks != 2 || len(r.Rows) != 2 {
		t.Fatalf("result %+v", r)
	}
	for _, row := range r.Rows {
		if row.Bytes == 0 || row.Messages != row.RealMessages || row.Bytes != row.RealBytes {
			t.Errorf("N=%d: simulated %d messages %d bytes, real %d messages %d bytes", row.N, row.Messages, row.Bytes, row.RealMessages, row.RealBytes)
		}
	}
}
