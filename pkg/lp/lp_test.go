package lp

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/cputime"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-7*math.Max(1, math.Abs(b)) }

// cpuGroup is a CPU-only group whose tasks all take the given durations.
func cpuGroup(name string, nodes, workers int, d [NumTasks]float64) Group {
	g := Group{Name: name, Nodes: nodes}
	g.Workers[CPU] = workers
	g.Durations[CPU] = d
	return g
}

// paperGroups looks like the 4+4+1 machines of the paper (Chetemi without
// GPU, Chifflet with two GTX 1080, Chifflot with two P100), tiles of 960.
func paperGroups() []Group {
	cpu := [NumTasks]float64{DCMG: 0.12, POTRF: 0.025, TRSM: 0.045, SYRK: 0.045, GEMM: 0.085}
	chetemi := cpuGroup("chetemi", 4, 20, cpu)
	chifflet := cpuGroup("chifflet", 4, 26, cpu)
	chifflet.Workers[GPU] = 2
	chifflet.Durations[GPU] = [NumTasks]float64{POTRF: 0.012, TRSM: 0.008, SYRK: 0.006, GEMM: 0.0075}
	chifflot := cpuGroup("chifflot", 1, 30, cpu)
	chifflot.Workers[GPU] = 2
	chifflot.Durations[GPU] = [NumTasks]float64{POTRF: 0.004, TRSM: 0.0008, SYRK: 0.0006, GEMM: 0.0005}
	return []Group{chetemi, chifflet, chifflot}
}

func TestTaskCounts(t *testing.T) {
	// 3 x 3 tiles: steps floor((m+n)/2) of the lower tiles
	//   0
	//   0 1
	//   1 1 2
	// step 0: dcmg (0,0) (1,0); potrf 0; trsm (1,0).
	// step 1: dcmg (2,0) (1,1) (2,1); potrf 1; trsm (2,0) (2,1); syrk (1,0);
	//         gemm (2,1,0).
	// step 2: dcmg (2,2); potrf 2; syrk (2,0) (2,1).
	want := [][NumTasks]int{
		{2, 1, 1, 0, 0},
		{3, 1, 2, 1, 1},
		{1, 1, 0, 2, 0},
	}
	got := TaskCounts(3)
	if len(got) != len(want) {
		t.Fatalf("%d steps", len(got))
	}
	for s := range want {
		if got[s] != want[s] {
			t.Errorf("step %d: %v, want %v", s, got[s], want[s])
		}
	}
	for _, nt := range []int{1, 2, 5, 17, 101} {
		var tot [NumTasks]int
		for _, row := range TaskCounts(nt) {
			for k, c := range row {
				tot[k] += c
			}
		}
		w := [NumTasks]int{nt * (nt + 1) / 2, nt, nt * (nt - 1) / 2, nt * (nt - 1) / 2, nt * (nt - 1) * (nt - 2) / 6}
		if tot != w {
			t.Errorf("nt %d: totals %v, want %v", nt, tot, w)
		}
	}
}

func TestSolveByHand(t *testing.T) {
	// 2 x 2 tiles: step 0 = dcmg x2, potrf, trsm; step 1 = dcmg, syrk, potrf.
	// Durations dcmg 2, potrf 1, trsm 3, syrk 4, on one group of W CPU
	// workers (w = d / W); the LP is then fixed but for G and F, each at the
	// largest of its lower bounds.
	//
	// W = 1: G0 = 2 (18); G1 = G0 + 2 = 4 (14); F0 = max(G0 + 4 (15),
	// 2*2 + 1 + 3 (17)) = 8; F1 = max(G1 + 5 (15), F0 + 5 (16), 15 (17)) = 15.
	// W = 2: G0 = 2 (18: a whole task); G1 = G0 + 1 = 3; F0 = max(G0 + 2,
	// 4) = 4; F1 = max(G1 + 2.5, F0 + 2.5, 7.5) = 7.5.
	// W = 8: G0 = 2; G1 = 2.25; F0 = max(2 + 0.5, 1) = 2.5; F1 = max(2.25 +
	// 0.625, 2.5 + 0.625, 1.875) = 3.125: the dependencies bind, not the
	// total work 15/8.
	d := [NumTasks]float64{DCMG: 2, POTRF: 1, TRSM: 3, SYRK: 4}
	cases := []struct {
		workers int
		g, f    []float64
	}{
		{1, []float64{2, 4}, []float64{8, 15}},
		{2, []float64{2, 3}, []float64{4, 7.5}},
		{8, []float64{2, 2.25}, []float64{2.5, 3.125}},
	}
	for _, c := range cases {
		res, err := Solve(2, []Group{cpuGroup("a", 1, c.workers, d)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 2; s++ {
			if !near(res.G[s], c.g[s]) || !near(res.F[s], c.f[s]) {
				t.Fatalf("W = %d: G %v F %v, want %v %v", c.workers, res.G, res.F, c.g, c.f)
			}
		}
		obj := c.g[0] + c.g[1] + c.f[0] + c.f[1]
		if !near(res.Makespan, c.f[1]) || !near(res.Objective, obj) {
			t.Fatalf("W = %d: makespan %g objective %g, want %g %g", c.workers, res.Makespan, res.Objective, c.f[1], obj)
		}
		gr := res.Groups[0]
		if !near(gr.GenTiles, 3) || !near(gr.GenShare, 1) || !near(gr.FactShare, 1) || !near(gr.Busy[CPU], 15/float64(c.workers)) {
			t.Fatalf("W = %d: group %+v", c.workers, gr)
		}
	}
}

func TestSolveWorkBound(t *testing.T) {
	// Unit tasks on a few workers: no dependency binds and the makespan is
	// the total work over the workers, (55 + 10 + 45 + 45 + 120) / W on
	// 10 x 10 tiles; two identical groups halve it and split the work.
	unit := [NumTasks]float64{1, 1, 1, 1, 1}
	const total = 55 + 10 + 45 + 45 + 120
	cases := []struct {
		name   string
		groups []Group
		want   float64
	}{
		{"one group", []Group{cpuGroup("a", 1, 4, unit)}, total / 4.0},
		{"nodes x workers", []Group{cpuGroup("a", 2, 2, unit)}, total / 4.0},
		{"two identical", []Group{cpuGroup("a", 1, 2, unit), cpuGroup("b", 1, 2, unit)}, total / 4.0},
		{"two unequal", []Group{cpuGroup("a", 1, 1, unit), cpuGroup("b", 1, 3, unit)}, total / 4.0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Solve(10, c.groups, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !near(res.Makespan, c.want) {
				t.Fatalf("makespan %g, want %g", res.Makespan, c.want)
			}
			// At the work bound every group is busy to the end: its share
			// of the work is its share of the workers.
			var gen, fact float64
			for _, g := range res.Groups {
				if !near(g.Busy[CPU], c.want) {
					t.Errorf("%s busy %g, want %g", g.Name, g.Busy[CPU], c.want)
				}
				gen += g.GenShare
				fact += g.FactShare
			}
			if !near(gen, 1) || !near(fact, 1) {
				t.Errorf("shares sum to %g and %g", gen, fact)
			}
		})
	}
}

func TestSolveExcludeCPUOnly(t *testing.T) {
	groups := paperGroups()
	all, err := Solve(30, groups, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := Solve(30, groups, Options{ExcludeCPUOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if gpu.Groups[0].FactShare != 0 || gpu.Groups[0].Tasks[CPU][GEMM] != 0 {
		t.Fatalf("excluded chetemi still factorises: %+v", gpu.Groups[0])
	}
	if !(gpu.Groups[0].GenShare > 0) {
		t.Fatalf("excluded chetemi generates nothing: %+v", gpu.Groups[0])
	}
	if gpu.Makespan < all.Makespan-1e-9 {
		t.Fatalf("excluding resources shortened the makespan: %g < %g", gpu.Makespan, all.Makespan)
	}
	for _, res := range []*Result{all, gpu} {
		var gen, fact float64
		for _, g := range res.Groups {
			gen += g.GenShare
			fact += g.FactShare
			if g.Tasks[GPU][DCMG] != 0 {
				t.Fatalf("%s runs dcmg on GPU", g.Name)
			}
		}
		if !near(gen, 1) || !near(fact, 1) {
			t.Fatalf("shares sum to %g and %g", gen, fact)
		}
	}
	// Only CPU-only groups left for the factorisation: nothing can run it.
	_, err = Solve(5, groups[:1], Options{ExcludeCPUOnly: true})
	if err == nil || !strings.Contains(err.Error(), "no group can run potrf tasks with the CPU-only groups excluded") {
		t.Fatalf("error %v", err)
	}
}

// TestSolveTiming: the LP of NT = 101 (the paper's N = 96600 with tiles of
// 960) on three groups solves in under 5 s of the process's CPU time (not
// wall time: a loaded machine stretches that, 5.4 s at load 17 on 2
// cores), the paper's "under 1 s" with a margin for this machine.
func TestSolveTiming(t *testing.T) {
	c0, cpu := cputime.Process()
	start := time.Now()
	res, err := Solve(101, paperGroups(), Options{})
	el := time.Since(start)
	if c1, ok := cputime.Process(); cpu && ok {
		el = time.Duration(c1 - c0)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("NT = 101, 3 groups: solved in %v, makespan %.2f", el, res.Makespan)
	for _, g := range res.Groups {
		t.Logf("  %-9s gen %5.1f%%  fact %5.1f%%  busy cpu %.2f gpu %.2f", g.Name, 100*g.GenShare, 100*g.FactShare, g.Busy[CPU], g.Busy[GPU])
	}
	if el > 5*time.Second {
		t.Fatalf("took %v of CPU, want under 5 s (paper: under 1 s)", el)
	}
	// The ends are ordered and the makespan is at least the F and G chains.
	for s := 1; s < len(res.F); s++ {
		if res.G[s] < res.G[s-1]-1e-9 || res.F[s] < res.F[s-1]-1e-9 || res.F[s] < res.G[s]-1e-9 {
			t.Fatalf("step %d: G %g %g F %g %g", s, res.G[s-1], res.G[s], res.F[s-1], res.F[s])
		}
	}
}

func TestSolveConcurrent(t *testing.T) {
	// GLPK keeps per-thread state: concurrent solves must not interfere.
	var wg sync.WaitGroup
	out := make([]float64, 4)
	errs := make([]error, 4)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Solve(20, paperGroups(), Options{})
			if err == nil {
				out[i] = res.Makespan
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i := range out {
		if errs[i] != nil || out[i] != out[0] {
			t.Fatalf("run %d: %g, %v (run 0: %g)", i, out[i], errs[i], out[0])
		}
	}
}

func TestSolveErrors(t *testing.T) {
	unit := [NumTasks]float64{1, 1, 1, 1, 1}
	noGemm := unit
	noGemm[GEMM] = math.Inf(1)
	bad := unit
	bad[TRSM] = -1
	cases := []struct {
		name   string
		nt     int
		groups []Group
		want   string
	}{
		{"nt", 0, []Group{cpuGroup("a", 1, 1, unit)}, "at least one tile"},
		{"no groups", 3, nil, "no resource groups"},
		{"nodes", 3, []Group{cpuGroup("a", 0, 1, unit)}, "group 0 (a): need at least one node"},
		{"workers", 3, []Group{cpuGroup("a", 1, -1, unit)}, "negative number of cpu workers"},
		{"duration", 3, []Group{cpuGroup("a", 1, 1, bad)}, "trmm duration on cpu is -1"},
		{"no gemm", 3, []Group{cpuGroup("a", 1, 1, noGemm)}, "no group can run gemm tasks"},
		{"no workers", 3, []Group{cpuGroup("a", 1, 0, unit)}, "no group can run dcmg tasks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Solve(c.nt, c.groups, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	// No gemm at nt = 2: a group without gemm is enough.
	if _, err := Solve(2, []Group{cpuGroup("a", 1, 1, noGemm)}, Options{}); err != nil {
		t.Fatal(err)
	}
}
