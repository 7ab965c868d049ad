package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// mpiBinary builds exageostat with the mpi tag. MPI is a dependency of the
// test suite (scripts/deps.sh installs OpenMPI): a machine without it fails
// here rather than skipping the distributed tests.
func mpiBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Fatal("mpirun not found: run scripts/deps.sh (make test does) to install OpenMPI")
	}
	return builds.mpi.get(t, "exageostat-mpi", "-tags", mpiTags())
}

// mpiTags is "mpi", with "gdal" where gdal-config exists (as the Makefile
// decides): the MPI build is also the docs' binary, whose GIS pages need
// GDAL.
func mpiTags() string {
	if hasGDAL() {
		return "mpi gdal"
	}
	return "mpi"
}

// hasGDAL reports whether GDAL's development files are installed.
func hasGDAL() bool {
	_, err := exec.LookPath("gdal-config")
	return err == nil
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

// TestMPIBenchSimulator: the simulator check runs over 2 MPI ranks, the
// simulated evaluation sends exactly the messages the real one sent, and
// the history-fed simulations ran (the second size also from the first
// size's history), and the history runs measured the messages' delay
// (over MPI: the ranks' clocks aligned by round trips).
func TestMPIBenchSimulator(t *testing.T) {
	bin := mpiBinary(t)
	type delay struct {
		Messages int     `json:"messages"`
		Median   float64 `json:"median_seconds"`
		Link     float64 `json:"link_seconds"`
		Delay    float64 `json:"delay_seconds"`
		P90      float64 `json:"extra_p90_seconds"`
		Max      float64 `json:"extra_max_seconds"`
	}
	o, e, code, _ := mpirun(t, 2, nil, bin, "bench", "simulator", "--n", "256,320", "--nb", "64", "--workers", "1",
		"--reps", "1", "--cal-reps", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		Ranks    int  `json:"ranks"`
		Measured bool `json:"network_measured"`
		Network  struct {
			Bandwidth, Latency float64
		} `json:"network"`
		Rows []struct {
			N            int   `json:"n"`
			Messages     int   `json:"sim_messages"`
			Bytes        int64 `json:"sim_bytes"`
			RealMessages int   `json:"real_messages"`
			RealBytes    int64 `json:"real_bytes"`
			// The history recorded over MPI before the timed runs, and
			// the second size predicted from the first's.
			History        map[string]float64 `json:"history"`
			SimHistory     float64            `json:"sim_history_seconds"`
			HistoryFrom    int                `json:"history_from_n"`
			SimHistoryFrom float64            `json:"sim_history_from_seconds"`
			MessageDelay   delay              `json:"message_delay"`
			// The timed runs' own delays, and sim history with the
			// delays drawn from the history's.
			TimedDelay delay   `json:"timed_message_delay"`
			SimDrawn   float64 `json:"sim_history_drawn_seconds"`
			// Each rank's workers' wait for a core and CPU in the
			// history, and the ranks' start skew.
			HistoryWait []float64 `json:"history_core_wait_seconds"`
			HistoryCPU  []float64 `json:"history_worker_cpu_seconds"`
			StartSkew   float64   `json:"start_skew_seconds"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatalf("%v: %q", err, o)
	}
	if r.Ranks != 2 || len(r.Rows) != 2 || !r.Measured || !(r.Network.Bandwidth > 0) || !(r.Network.Latency > 0) {
		t.Fatalf("result %+v", r)
	}
	for i, row := range r.Rows {
		if row.Bytes == 0 || row.Messages != row.RealMessages || row.Bytes != row.RealBytes {
			t.Errorf("N=%d: simulated %d messages %d bytes, real %d messages %d bytes", row.N, row.Messages, row.Bytes, row.RealMessages, row.RealBytes)
		}
		if wantFrom := []int{0, 256}[i]; !(row.History["gemm"] > 0) || !(row.SimHistory > 0) || row.HistoryFrom != wantFrom || (wantFrom > 0) != (row.SimHistoryFrom > 0) {
			t.Errorf("N=%d: history gemm %g s, simulated %g s, from N=%d %g s", row.N, row.History["gemm"], row.SimHistory, row.HistoryFrom, row.SimHistoryFrom)
		}
		for _, d := range []delay{row.MessageDelay, row.TimedDelay} {
			if d.Messages < 1 || !(d.Median > 0) || !(d.Link > 0) || !(d.Delay >= 0 && d.Delay <= d.Median) || !(d.Delay <= d.P90 && d.P90 <= d.Max) {
				t.Errorf("N=%d: message delay %+v", row.N, d)
			}
		}
		if !(row.SimDrawn > 0) {
			t.Errorf("N=%d: sim history with drawn delays %g s", row.N, row.SimDrawn)
		}
		if len(row.HistoryWait) != 2 || len(row.HistoryCPU) != 2 || !(row.HistoryCPU[0] > 0 && row.HistoryCPU[1] > 0) || !(row.StartSkew >= 0) {
			t.Errorf("N=%d: the history's waits for a core %v, workers' CPU %v, start skew %g s", row.N, row.HistoryWait, row.HistoryCPU, row.StartSkew)
		}
	}
}

// TestMPIBenchOverlap: bench overlap on 2 ranks x 1 worker prints one
// JSON object (rank 0) with Figure 5's steps in order, and every step's l
// is the one-rank value bitwise (the bench itself checks the steps agree).
func TestMPIBenchOverlap(t *testing.T) {
	bin := mpiBinary(t)
	args := []string{"bench", "overlap", "--n", "500", "--nb", "100", "--workers", "1", "--reps", "1", "--json"}
	type result struct {
		Ranks int `json:"ranks"`
		Steps []struct {
			Name        string  `json:"name"`
			Seconds     float64 `json:"seconds"`
			Utilization float64 `json:"utilization"`
			LogLik      float64 `json:"loglik"`
		} `json:"steps"`
	}
	var rs [2]result
	for i, np := range []int{1, 2} {
		o, e, code, _ := mpirun(t, np, nil, bin, args...)
		if code != 0 {
			t.Fatalf("%d ranks: exit %d: %s", np, code, e)
		}
		if err := json.Unmarshal([]byte(o), &rs[i]); err != nil {
			t.Fatalf("%d ranks: %v: %q", np, err, o)
		}
	}
	want := []string{"sync", "async", "+local-solve+memory", "+priorities", "+submission-order", "+oversubscription"}
	if rs[1].Ranks != 2 || len(rs[1].Steps) != len(want) || len(rs[0].Steps) != len(want) {
		t.Fatalf("result %+v", rs[1])
	}
	for i, s := range rs[1].Steps {
		if s.Name != want[i] || !(s.Seconds > 0) || !(s.Utilization > 0 && s.Utilization <= 1) || s.LogLik != rs[0].Steps[i].LogLik {
			t.Errorf("step %d: %+v, want %s with l = %v", i, s, want[i], rs[0].Steps[i].LogLik)
		}
	}
}

// TestMPISimulatePredict: simulate writes the same bytes on 1, 2 and 4
// ranks (block-cyclic and 1D-1D), and predict on 2 ranks writes the
// one-rank file.
func TestMPISimulatePredict(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	sim := []string{"simulate", "--n", "2000", "--nb", "250", "--seed", "4", "--workers", "1"}
	one := filepath.Join(dir, "one.csv")
	if _, e, code, _ := mpirun(t, 1, nil, bin, append(sim, "--out", one)...); code != 0 {
		t.Fatalf("one rank: exit %d: %s", code, e)
	}
	want, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(want), "\n"); lines != 2001 {
		t.Fatalf("one rank wrote %d lines, want a header and 2000 rows", lines)
	}
	for _, c := range []struct {
		np   int
		dist []string
	}{
		{2, nil},
		{4, nil},
		{4, []string{"--distribution", "1d1d", "--powers", "1,2,3,4"}},
	} {
		out := filepath.Join(dir, "p.csv")
		_, e, code, _ := mpirun(t, c.np, nil, bin, append(append(append([]string{}, sim...), c.dist...), "--out", out)...)
		if code != 0 {
			t.Fatalf("%d ranks %v: exit %d: %s", c.np, c.dist, code, e)
		}
		if got, err := os.ReadFile(out); err != nil || string(got) != string(want) {
			t.Errorf("%d ranks %v: the file differs from the one-rank file (%v)", c.np, c.dist, err)
		}
	}
	at := writeFile(t, dir, "at.csv", "x,y\n0.9,0.1\n0.2,0.3\n0.55,0.5\n0.013,0.987\n0.5,0.5\n")
	pred := []string{"predict", "--data", one, "--theta", "1,0.1,0.5", "--at", at, "--nb", "250", "--workers", "1"}
	p1, p2 := filepath.Join(dir, "p1.csv"), filepath.Join(dir, "p2.csv")
	if _, e, code, _ := mpirun(t, 1, nil, bin, append(pred, "--out", p1)...); code != 0 {
		t.Fatalf("predict, one rank: exit %d: %s", code, e)
	}
	if _, e, code, _ := mpirun(t, 2, nil, bin, append(pred, "--out", p2)...); code != 0 {
		t.Fatalf("predict, two ranks: exit %d: %s", code, e)
	}
	a, _ := os.ReadFile(p1)
	b, _ := os.ReadFile(p2)
	if lines := strings.Split(strings.TrimSpace(string(a)), "\n"); len(lines) != 6 || lines[0] != "x,y,z_hat,variance" {
		t.Fatalf("one-rank predictions:\n%s", a)
	}
	if string(a) != string(b) {
		t.Errorf("predictions on two ranks differ:\n%s\none rank:\n%s", b, a)
	}
	// Cross-validation (leave one out and K-fold, with a mean model) and
	// conditional draws: the one-rank file on 2 ranks and on 4 (1D-1D).
	for _, args := range [][]string{
		{"cv", "--data", one, "--theta", "1,0.1,0.5,0.05", "--mean", "linear"},
		{"cv", "--data", one, "--theta", "1,0.1,0.5,0.05", "--mean", "constant", "--folds", "5", "--seed", "2"},
		{"simulate", "--conditional", "--data", one, "--theta", "1,0.1,0.5,0.05", "--at", at, "--draws", "3"},
	} {
		args = append(args, "--nb", "250", "--workers", "1")
		var first []byte
		for _, c := range []struct {
			np   int
			dist []string
		}{{1, nil}, {2, nil}, {4, []string{"--distribution", "1d1d", "--powers", "1,2,3,4"}}} {
			out := filepath.Join(dir, fmt.Sprintf("cv%d.csv", c.np))
			if _, e, code, _ := mpirun(t, c.np, nil, bin, append(append(slices.Clone(args), c.dist...), "--out", out)...); code != 0 {
				t.Fatalf("%v on %d ranks: exit %d: %s", args, c.np, code, e)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got
			} else if string(got) != string(first) {
				t.Errorf("%v on %d ranks %v: the file differs from the one-rank file", args, c.np, c.dist)
			}
		}
	}
}

// fitReport is the part of fit's JSON result the distributed tests read.
type fitReport struct {
	Theta    []float64 `json:"theta"`
	LogLik   float64   `json:"loglik"`
	MSPE     float64   `json:"mspe"`
	Coverage float64   `json:"coverage_95"`
	StdErr   []float64 `json:"stderr"`
	Ranks    int       `json:"ranks"`
	Memory   []struct {
		Rank          int   `json:"rank"`
		Owned         int64 `json:"owned_tile_bytes"`
		Peak          int64 `json:"peak_tile_bytes"`
		PeakReplicas  int64 `json:"peak_replica_bytes"`
		ReplicaBudget int64 `json:"replica_budget_bytes"`
		PeakRSS       int64 `json:"peak_rss_bytes"`
	} `json:"memory"`
}

func readFitReport(t *testing.T, path string) fitReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r fitReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMPIFitAssessment: fit --holdout --stderr on 2 ranks gives the
// one-rank estimate, log-likelihood, MSPE, coverage and standard errors
// (to 1e-12 relative; the runtime makes them bitwise equal); its trace has
// the tasks of both ranks, and its memory report one entry per rank.
func TestMPIFitAssessment(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if _, e, code, _ := mpirun(t, 1, nil, bin, "simulate", "--n", "1100", "--seed", "6", "--out", data); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, e)
	}
	args := []string{"fit", "--data", data, "--nb", "125", "--workers", "1", "--holdout", "100", "--stderr", "--max-evals", "12"}
	one, two, tr := filepath.Join(dir, "one.json"), filepath.Join(dir, "two.json"), filepath.Join(dir, "trace.json")
	if _, e, code, _ := mpirun(t, 1, nil, bin, append(args, "--json", one)...); code != 0 {
		t.Fatalf("one rank: exit %d: %s", code, e)
	}
	o, e, code, _ := mpirun(t, 2, nil, bin, append(args, "--json", two, "--trace", tr)...)
	if code != 0 {
		t.Fatalf("two ranks: exit %d: %s", code, e)
	}
	a, b := readFitReport(t, one), readFitReport(t, two)
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Abs(x) }
	bitwise := true
	check := func(name string, x, y []float64) {
		if len(x) != len(y) || len(x) == 0 {
			t.Errorf("%s: one rank %v, two ranks %v", name, x, y)
			return
		}
		for i := range x {
			if !near(x[i], y[i]) {
				t.Errorf("%s[%d]: one rank %.17g, two ranks %.17g", name, i, x[i], y[i])
			}
			bitwise = bitwise && x[i] == y[i]
		}
	}
	check("theta", a.Theta, b.Theta)
	check("loglik", []float64{a.LogLik}, []float64{b.LogLik})
	check("mspe", []float64{a.MSPE}, []float64{b.MSPE})
	check("coverage", []float64{a.Coverage}, []float64{b.Coverage})
	check("stderr", a.StdErr, b.StdErr)
	t.Logf("two ranks equal one rank bitwise: %v", bitwise)
	if len(b.Memory) != 2 || len(a.Memory) != 1 {
		t.Fatalf("memory reports: %d on one rank, %d on two", len(a.Memory), len(b.Memory))
	}
	for i, m := range b.Memory {
		if m.Rank != i || m.Peak <= 0 || m.Owned <= 0 || m.PeakRSS <= 0 {
			t.Errorf("memory of rank %d: %+v", i, m)
		}
	}
	if !strings.Contains(o, "memory per rank") {
		t.Errorf("no memory table on stdout:\n%s", o)
	}
	var tj struct {
		TraceEvents []struct {
			Ph  string `json:"ph"`
			Pid int    `json:"pid"`
		} `json:"traceEvents"`
	}
	tb, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(tb, &tj); err != nil {
		t.Fatal(err)
	}
	tasks := map[int]int{}
	for _, ev := range tj.TraceEvents {
		if ev.Ph == "X" {
			tasks[ev.Pid]++
		}
	}
	if len(tasks) != 2 || tasks[0] == 0 || tasks[1] == 0 {
		t.Errorf("trace: tasks per rank %v, want both ranks", tasks)
	}
}

// TestMPIMemoryLimit: a run that needs more than --memory-limit stops
// before it starts, with exit status 2 and one line naming the first rank
// that lacks memory, on 1 rank and on 2 (all ranks agree, none hangs),
// and writes no file.
func TestMPIMemoryLimit(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	const n, nb = 4000, 400
	// 1D-1D with powers 1, 3: rank 1 owns three quarters of the tiles, so
	// a limit between the two ranks' needs stops rank 1 only.
	d, err := distribution.New("1d1d", 2, 0, 0, []float64{1, 3}, tile.NewLayout(n, nb).NT)
	if err != nil {
		t.Fatal(err)
	}
	need := likelihood.MemoryNeed(n, likelihood.Options{NB: nb, Owner: d.Owner}, 2)
	if need[1] <= need[0] {
		t.Fatalf("needs %v: want rank 1's larger", need)
	}
	mid := strconv.FormatInt((need[0]+need[1])/2, 10)
	// fit's need adds its task graph to rank 1's: one evaluation's 378
	// tasks (NT = 10) at 1800 bytes, by rank 1's share of the tile
	// entries, and a 512-byte handle for each of the 55 tiles.
	l := tile.NewLayout(n, nb)
	var mine, all float64
	for m := 0; m < l.NT; m++ {
		for c := 0; c <= m; c++ {
			e := float64(l.Rows(m) * l.Rows(c))
			all += e
			if d.Owner(m, c) == 1 {
				mine += e
			}
		}
	}
	fitNeed1 := need[1] + int64(378*1800*mine/all+55*512)
	out := filepath.Join(dir, "r.json")
	csv := filepath.Join(dir, "s.csv")
	for _, c := range []struct {
		np   int
		args []string
		want string
	}{
		{1, []string{"fit", "--n", "4000", "--nb", "400", "--memory-limit", "50MB", "--json", out},
			"fit: rank 0 needs 1"},
		{2, []string{"fit", "--n", "4000", "--nb", "400", "--distribution", "1d1d", "--powers", "1,3", "--memory-limit", mid, "--json", out},
			"fit: rank 1 needs " + memory.Format(fitNeed1) + " (N=4000, nb=400, 2 ranks); " + memory.Format((need[0]+need[1])/2) + " available (--memory-limit)"},
		{2, []string{"simulate", "--n", "4000", "--nb", "400", "--memory-limit", "10MB", "--out", csv},
			"simulate: rank 0 needs "},
	} {
		_, e, code, wall := mpirun(t, c.np, nil, bin, c.args...)
		if code != 2 || strings.Count(e, c.want) != 1 || strings.Count(e, "exageostat:") != 1 {
			t.Errorf("%d ranks %v: exit %d, stderr:\n%s\nwant status 2 and one line with %q", c.np, c.args, code, e, c.want)
		}
		if wall > 30*time.Second {
			t.Errorf("%d ranks %v: took %v", c.np, c.args, wall)
		}
	}
	for _, p := range []string{out, csv} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written by a run that did not start", p)
		}
	}
}

// TestMPIMemoryShare: on 2 and 4 ranks (block-cyclic and 1D-1D), each
// rank's peak of tile memory stays within its share of the matrix plus
// the replicas its part of the graph needs: (a) the owned bytes reported
// are those of the lower tiles the distribution gives the rank, and (b)
// the peak is at most owned + max(replica budget, the program-order peak
// of replicas of the recorded evaluation graph) + two tiles of workspace
// + a few vectors; and it is well below the whole matrix.
func TestMPIMemoryShare(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	const n, nb = 3600, 300
	theta := []float64{1, 0.1, 0.5}
	data := filepath.Join(dir, "d.csv")
	if _, e, code, _ := mpirun(t, 1, nil, bin, "simulate", "--n", "3600", "--out", data); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, e)
	}
	l := tile.NewLayout(n, nb)
	var total int64
	for m := 0; m < l.NT; m++ {
		for c := 0; c <= m; c++ {
			total += int64(8 * l.Rows(m) * l.Rows(c))
		}
	}
	for _, c := range []struct {
		np    int
		dist  string
		share float64 // the most of the whole lower matrix one rank may hold
	}{
		{2, "bc", 0.65}, {2, "1d1d", 0.65}, {4, "bc", 0.4}, {4, "1d1d", 0.4},
	} {
		out := filepath.Join(dir, "r.json")
		_, e, code, _ := mpirun(t, c.np, nil, bin, "fit", "--data", data, "--nb", "300", "--lb", "1,0.1,0.5", "--ub", "1,0.1,0.5",
			"--workers", "1", "--distribution", c.dist, "--json", out)
		if code != 0 {
			t.Fatalf("%d ranks %s: exit %d: %s", c.np, c.dist, code, e)
		}
		r := readFitReport(t, out)
		d, err := distribution.New(c.dist, c.np, 0, 0, nil, l.NT)
		if err != nil {
			t.Fatal(err)
		}
		owned := make([]int64, c.np)
		for m := 0; m < l.NT; m++ {
			for k := 0; k <= m; k++ {
				owned[d.Owner(m, k)] += int64(8 * l.Rows(m) * l.Rows(k))
			}
		}
		// The recorded graph of one evaluation with the same distribution.
		rt := runtime.New(runtime.Options{Record: true, Ranks: c.np})
		pts := dataset.Grid(n, 1)
		ev, err := likelihood.NewWith(likelihood.Problem{Points: matern.Points{X: pts.X, Y: pts.Y}, Metric: matern.Euclidean,
			Obs: make([]float64, n), Model: likelihood.Matern}, rt, likelihood.Options{NB: nb, Owner: d.Owner})
		if err != nil {
			t.Fatal(err)
		}
		rt.Graph()
		if _, _, err := ev.LogLik(theta); err != nil {
			t.Fatal(err)
		}
		g := rt.Graph()
		rt.Close()
		if len(r.Memory) != c.np {
			t.Fatalf("%d ranks %s: %d memory reports", c.np, c.dist, len(r.Memory))
		}
		tileBytes, vectors := int64(8*nb*nb), int64(8*8*n)
		for q, m := range r.Memory {
			bound := owned[q] + max(m.ReplicaBudget, g.Memory[q].PeakReplicas) + 2*tileBytes + vectors
			if m.Owned != owned[q] || m.Peak <= 0 || m.Peak > bound || float64(m.Peak) > c.share*float64(total) {
				t.Errorf("%d ranks %s, rank %d: owned %d (distribution: %d), peak %d (bound %d = owned + max(budget %d, recorded replicas %d) + 2 tiles + vectors; %.3f of the matrix, at most %.2f)",
					c.np, c.dist, q, m.Owned, owned[q], m.Peak, bound, m.ReplicaBudget, g.Memory[q].PeakReplicas, float64(m.Peak)/float64(total), c.share)
			}
			t.Logf("%d ranks %s, rank %d: owned %.3f, peak %.3f of the matrix; peak replicas %d, budget %d, recorded %d",
				c.np, c.dist, q, float64(owned[q])/float64(total), float64(m.Peak)/float64(total), m.PeakReplicas, m.ReplicaBudget, g.Memory[q].PeakReplicas)
		}
	}
}

// TestMPICalibrate: calibrate on 2 ranks measures with every rank busy and
// writes a cluster file of 2 nodes whose link was measured by ping-pong
// (between shared-memory ranks: microseconds to a millisecond, above
// 100 MB/s).
func TestMPICalibrate(t *testing.T) {
	bin := mpiBinary(t)
	o, e, code, _ := mpirun(t, 2, nil, bin, "calibrate", "--nb", "32", "--reps", "2", "--workers", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		Network struct {
			Bandwidth, Latency float64
			Measured           bool
		}
		Group []struct {
			Nodes, CPUs int
		}
		Ranks, Workers int
	}
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatalf("%v: %q (one JSON object from rank 0 only)", err, o)
	}
	n := r.Network
	if !n.Measured || n.Latency < 1e-7 || n.Latency > 1e-3 || n.Bandwidth < 1e8 || len(r.Group) != 1 ||
		r.Group[0].Nodes != 2 || r.Group[0].CPUs != 1 || r.Ranks != 2 || r.Workers != 1 {
		t.Fatalf("result %+v", r)
	}
}

// TestMPITraceScript: a 2-rank fit's trace and a simulated cluster's trace
// read by scripts/check-trace.py, as a user's script would: every transfer
// names its source, destination, tile and bytes, no lane has partially
// overlapping slices, every flow has both ends; and the real trace has one
// flow per message pair.
func TestMPITraceScript(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	real, simulated := filepath.Join(dir, "real.json"), filepath.Join(dir, "sim.json")
	if _, e, code, _ := mpirun(t, 2, nil, bin, "fit", "--n", "400", "--nb", "100", "--workers", "1", "--max-evals", "2",
		"--trace", real, "-q"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, e)
	}
	if _, e, code := run(t, bin, "simulate-cluster", "--config", "../../configs/cluster-chetemi-chifflet.toml",
		"--n", "7680", "--nb", "960", "--dist", "lp", "--trace", simulated); code != 0 {
		t.Fatalf("simulate-cluster: exit %d: %s", code, e)
	}
	for _, p := range []string{real, simulated} {
		out, err := exec.Command("python3", "../../scripts/check-trace.py", p).CombinedOutput()
		if err != nil || !strings.Contains(string(out), ", 0 problems") {
			t.Errorf("check-trace.py %s: %v\n%s", filepath.Base(p), err, out)
		}
		var n [4]int
		if _, err := fmt.Sscanf(string(out[strings.Index(string(out), ": ")+2:]), "%d tasks, %d transfer slices, %d flows, %d lanes",
			&n[0], &n[1], &n[2], &n[3]); err != nil || n[0] == 0 || n[1] == 0 || n[1] != 2*n[2] {
			t.Errorf("%s: %v %v (every transfer drawn on both ranks, one flow each)\n%s", filepath.Base(p), n, err, out)
		}
	}
}
