package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// task returns a task node of the given kind on rank 0.
func task(kind string, prio int, deps ...int) runtime.Node {
	return runtime.Node{Kind: kind, Priority: prio, Src: -1, Deps: deps, Tile: [3]int{-1, -1, -1}}
}

func on(n runtime.Node, rank int) runtime.Node { n.Rank = rank; return n }

func withFlops(n runtime.Node, f float64) runtime.Node { n.Flops = f; return n }

func xfer(src, dst, bytes int, deps ...int) runtime.Node {
	return runtime.Node{Kind: runtime.XferKind, Rank: dst, Src: src, Bytes: bytes, Deps: deps, Handle: "h"}
}

// cluster returns one group of nodes identical nodes.
func cluster(nodes, cpus, gpus int, cpu, gpu config.Durations) config.Cluster {
	c := config.DefaultCluster()
	c.NB = 1
	c.Nodes = nodes
	c.Network = config.Network{Bandwidth: 1e9, Latency: 1e-3}
	c.Groups = []config.Group{{Name: "g", Nodes: nodes, CPUs: cpus, GPUs: gpus, CPU: cpu, GPU: gpu}}
	return c
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func mustRun(t *testing.T, g *runtime.Graph, c config.Cluster) *Result {
	t.Helper()
	return mustRunWith(t, g, c, Options{})
}

// mustRunWith runs g on c with opt and the transfers traced.
func mustRunWith(t *testing.T, g *runtime.Graph, c config.Cluster, opt Options) *Result {
	t.Helper()
	if err := c.Validate("test"); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	opt.TraceTransfers = true
	r, err := Run(g, c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// span returns the start and end in seconds of the first event of tile row
// tile (the tests give their tasks distinct tile rows).
func span(r *Result, tile int) (start, end float64) {
	for _, e := range r.Events {
		if e.Tile[0] == tile {
			return float64(e.Start) * 1e-9, float64(e.End) * 1e-9
		}
	}
	return math.NaN(), math.NaN()
}

func tiled(n runtime.Node, i int) runtime.Node { n.Tile = [3]int{i, -1, -1}; return n }

func TestMakespan(t *testing.T) {
	durs := config.Durations{"potrf": 1, "trmm": 2, "gemm": 3, "syrk": 0.5, "dcmg": 10}
	cases := []struct {
		name  string
		nodes []runtime.Node
		c     config.Cluster
		want  float64
		delay float64 // Options.MessageDelay
		// MessageDelays and BusyReceives (Seed 2), Stretch and TaskWait,
		// if not nil
		draws *Options
	}{
		// 1 + 2 + 3, one after the other.
		{"chain", []runtime.Node{task("potrf", 0), task("trmm", 0, 0), task("gemm", 0, 1)},
			cluster(1, 1, 0, durs, nil), 6, 0, nil},
		// The chain ignores extra workers.
		{"chain on 4 workers", []runtime.Node{task("potrf", 0), task("trmm", 0, 0), task("gemm", 0, 1)},
			cluster(1, 4, 0, durs, nil), 6, 0, nil},
		// 7 independent gemms of 3 s on 3 workers: ceil(7/3) = 3 rounds.
		{"independent 7 on 3", repeat(task("gemm", 0), 7), cluster(1, 3, 0, durs, nil), 9, 0, nil},
		{"independent 6 on 3", repeat(task("gemm", 0), 6), cluster(1, 3, 0, durs, nil), 6, 0, nil},
		{"independent 1 on 3", repeat(task("gemm", 0), 1), cluster(1, 3, 0, durs, nil), 3, 0, nil},
		// A diamond: potrf, then trmm and gemm in parallel, then syrk:
		// 1 + max(2, 3) + 0.5.
		{"diamond", []runtime.Node{task("potrf", 0), task("trmm", 0, 0), task("gemm", 0, 0), task("syrk", 0, 1, 2)},
			cluster(1, 2, 0, durs, nil), 4.5, 0, nil},
		// The same on one worker: the sum.
		{"diamond on 1", []runtime.Node{task("potrf", 0), task("trmm", 0, 0), task("gemm", 0, 0), task("syrk", 0, 1, 2)},
			cluster(1, 1, 0, durs, nil), 6.5, 0, nil},
		// Ragged tiles: a gemm of half the largest gemm's flops takes half
		// its time (3 + 1.5); a task without flops takes the full time.
		{"ragged", []runtime.Node{withFlops(task("gemm", 0), 2e9), withFlops(task("gemm", 0, 0), 1e9), task("trmm", 0, 1)},
			cluster(1, 1, 0, durs, nil), 3 + 1.5 + 2, 0, nil},
		// A transfer of 1e6 bytes at 1e9 B/s with 1 ms latency between a
		// potrf on rank 0 and a trmm on rank 1: 1 + (0.001 + 0.001) + 2.
		{"transfer", []runtime.Node{task("potrf", 0), xfer(0, 1, 1e6, 0), on(task("trmm", 0, 1), 1)},
			cluster(2, 1, 0, durs, nil), 3.002, 0, nil},
		// The same with a measured message delay of 10 ms: the trmm
		// starts 1 + 0.002 + 0.010 s in.
		{"transfer, delay", []runtime.Node{task("potrf", 0), xfer(0, 1, 1e6, 0), on(task("trmm", 0, 1), 1)},
			cluster(2, 1, 0, durs, nil), 3.012, 0.010, nil},
		// The delay does not hold the links: the second message leaves
		// them at 0.004 and ends at 0.004 + 0.010 (not 0.024).
		{"same link, delay", []runtime.Node{xfer(0, 1, 1e6), xfer(0, 1, 1e6)}, cluster(2, 1, 0, durs, nil), 0.014, 0.010, nil},
		// A sample of one delay is that delay for every message.
		{"same link, one sampled delay", []runtime.Node{xfer(0, 1, 1e6), xfer(0, 1, 1e6)}, cluster(2, 1, 0, durs, nil), 0.014, 0, &Options{MessageDelays: []float64{0.010}}},
		// Sampled delays of 10 or 30 ms: the first message to start
		// takes the first draw of seed 2's generator (30 ms), the second
		// the second (10 ms); they leave the links at 0.002 and 0.004:
		// max(0.032, 0.014).
		{"same link, sampled delays", []runtime.Node{xfer(0, 1, 1e6), xfer(0, 1, 1e6)}, cluster(2, 1, 0, durs, nil),
			max(0.002+draw(2, 0, 0.010, 0.030), 0.004+draw(2, 1, 0.010, 0.030)), 0, &Options{MessageDelays: []float64{0.010, 0.030}}},
		// The draw (40 ms) replaces MessageDelay; the trmm waits for its
		// message: 1 + 0.002 + 0.040 + 2.
		{"transfer, sampled delays", []runtime.Node{task("potrf", 0), xfer(0, 1, 1e6, 0), on(task("trmm", 0, 1), 1)},
			cluster(2, 1, 0, durs, nil), 3.002 + draw(2, 0, 0.001, 0.002, 0.040), 0.5, &Options{MessageDelays: []float64{0.001, 0.002, 0.040}}},
		// Receives that complete on a busy receiver: rank 1's dcmg runs
		// until 10 when the message arrives (1.002), so it completes a
		// draw from BusyReceives after (0.5 s), and the trmm runs then:
		// 10 + 0.5 + 2.
		{"busy receiver", []runtime.Node{task("potrf", 0), xfer(0, 1, 1e6, 0), on(task("trmm", 0, 1), 1), on(task("dcmg", 0), 1)},
			cluster(2, 1, 0, durs, nil), 12.5, 0, &Options{BusyReceives: []float64{0.5}}},
		// Rank 1's two workers run a potrf and a gemm when the message
		// arrives (0.502): the first to free (the potrf, at 1)
		// completes it, 0.9 s later (seed 2 draws the third value of
		// three), then the trmm: 1 + 0.9 + 2.
		{"busy receiver, two workers", []runtime.Node{on(task("potrf", 0), 1), on(task("gemm", 0), 1), task("syrk", 0), xfer(0, 1, 1e6, 2), on(task("trmm", 0, 3), 1)},
			cluster(2, 2, 0, durs, nil), 1 + draw(2, 0, 0.1, 0.5, 0.9) + 2, 0, &Options{BusyReceives: []float64{0.1, 0.5, 0.9}}},
		// An idle receiver completes it on arrival: 1 + 0.002 + 2; the
		// delay is drawn, the busy receive is not.
		{"idle receiver", []runtime.Node{task("potrf", 0), xfer(0, 1, 1e6, 0), on(task("trmm", 0, 1), 1)},
			cluster(2, 1, 0, durs, nil), 3.002 + draw(2, 0, 0.001, 0.003), 0, &Options{MessageDelays: []float64{0.001, 0.003}, BusyReceives: []float64{0.5}}},
		// A stretch per rank: the chain 1 + 2 + 3 on rank 0 at 1.1 times
		// with 0.25 s of runtime CPU per task: 1.1 x 6 + 3 x 0.25.
		{"stretch", []runtime.Node{task("potrf", 0), task("trmm", 0, 0), task("gemm", 0, 1)},
			withCPU(cluster(2, 1, 0, durs, nil), 0.25), 1.1*6 + 0.75, 0, &Options{Stretch: []float64{1.1, 3}}},
		// The potrf on rank 0 at 2 times, its message (0.002 s), the trmm
		// and a gemm on rank 1 at 1.5 times: 2 + 0.002 + 1.5 x (2 + 3);
		// a ragged gemm (half the flops) on rank 0 after the potrf ends
		// at 2 + 2 x 1.5.
		{"stretch per rank", []runtime.Node{task("potrf", 0), xfer(0, 1, 1e6, 0), on(task("trmm", 0, 1), 1),
			on(withFlops(task("gemm", 0, 2), 2e9), 1), withFlops(task("gemm", 0, 0), 1e9)},
			cluster(2, 1, 0, durs, nil), 2 + 0.002 + 1.5*(2+3), 0, &Options{Stretch: []float64{2, 1.5}}},
		// A wait per task: the chain, 0.1 s more per task on rank 0.
		{"task wait", []runtime.Node{task("potrf", 0), task("trmm", 0, 0), task("gemm", 0, 1)},
			cluster(1, 1, 0, durs, nil), 6.3, 0, &Options{TaskWait: []float64{0.1}}},
		// Both, and a GPU task keeps its duration: the gemm on the GPU
		// (1 s), then the CPU's potrf (1 x 2 + 0.1) and dcmg (10 x 2 +
		// 0.1) on rank 0.
		{"stretch, task wait, gpu", []runtime.Node{task("gemm", 0), task("potrf", 0, 0), task("dcmg", 0, 1)},
			cluster(1, 1, 1, durs, config.Durations{"gemm": 1}), 1 + 2.1 + 20.1, 0, &Options{Stretch: []float64{2}, TaskWait: []float64{0.1}}},
		// Two messages on the same pair of links go one after the other.
		{"same link", []runtime.Node{xfer(0, 1, 1e6), xfer(0, 1, 1e6)}, cluster(2, 1, 0, durs, nil), 0.004, 0, nil},
		// Same sender, two receivers: the sender's link is shared.
		{"same sender", []runtime.Node{xfer(0, 1, 1e6), xfer(0, 2, 1e6)}, cluster(3, 1, 0, durs, nil), 0.004, 0, nil},
		// Two senders, one receiver: the receiver's link is shared.
		{"same receiver", []runtime.Node{xfer(0, 2, 1e6), xfer(1, 2, 1e6)}, cluster(3, 1, 0, durs, nil), 0.004, 0, nil},
		// Disjoint pairs, and both directions of one full-duplex pair, in
		// parallel.
		{"disjoint", []runtime.Node{xfer(0, 1, 1e6), xfer(2, 3, 1e6)}, cluster(4, 1, 0, durs, nil), 0.002, 0, nil},
		{"duplex", []runtime.Node{xfer(0, 1, 1e6), xfer(1, 0, 1e6)}, cluster(2, 1, 0, durs, nil), 0.002, 0, nil},
		// 3 gemms of 10 s on the CPU or 1 s on the GPU: each would end
		// first on the GPU (1, 2, 3 < 10), so all three queue there.
		{"gpu queue", repeat(task("gemm", 0), 3),
			cluster(1, 1, 1, config.Durations{"gemm": 10}, config.Durations{"gemm": 1}), 3, 0, nil},
		// 12 of them: the 11th would end at 11 on the GPU, 10 on the idle
		// CPU, so it goes to the CPU; the GPU runs the other 11: 11 s.
		{"gpu and cpu", repeat(task("gemm", 0), 12),
			cluster(1, 1, 1, config.Durations{"gemm": 10}, config.Durations{"gemm": 1}), 11, 0, nil},
		// A kind only the CPU runs goes to the CPU even with an idle GPU.
		{"cpu only kind", []runtime.Node{task("dcmg", 0), task("gemm", 0)},
			cluster(1, 1, 1, config.Durations{"dcmg": 10, "gemm": 10}, config.Durations{"gemm": 1}), 10, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &runtime.Graph{Ranks: c.c.Nodes, Nodes: c.nodes}
			opt := Options{MessageDelay: c.delay}
			if c.draws != nil {
				opt.MessageDelays, opt.BusyReceives, opt.Seed = c.draws.MessageDelays, c.draws.BusyReceives, 2
				opt.Stretch, opt.TaskWait = c.draws.Stretch, c.draws.TaskWait
			}
			r := mustRunWith(t, g, c.c, opt)
			if !near(r.Makespan, c.want) {
				t.Fatalf("makespan %.15g, want %.15g", r.Makespan, c.want)
			}
			checkScheduleWith(t, g, c.c, opt)
		})
	}
}

// draw returns the value of v that the i-th draw (from 0) of a PCG
// generator seeded with (seed, 0) picks uniformly: Options.MessageDelays'
// contract (seed 2 draws 1, 0 from two values and 2 from three: the
// tests' cases say so by hand).
func draw(seed uint64, i int, v ...float64) float64 {
	r := rand.New(rand.NewPCG(seed, 0))
	for range i {
		r.IntN(len(v))
	}
	return v[r.IntN(len(v))]
}

// withCPU returns c with task_cpu seconds of runtime CPU per task.
func withCPU(c config.Cluster, taskCPU float64) config.Cluster {
	c.Groups[0].TaskCPU = taskCPU
	return c
}

func repeat(n runtime.Node, k int) []runtime.Node {
	out := make([]runtime.Node, k)
	for i := range out {
		out[i] = tiled(n, i)
	}
	return out
}

// checkSchedule simulates g on c again and checks the schedule: no node
// starts before its dependencies end, no worker runs two tasks at once, no
// link carries two messages at once, and tasks run on worker types that can
// run them.
func checkSchedule(t *testing.T, g *runtime.Graph, c config.Cluster) {
	t.Helper()
	checkScheduleWith(t, g, c, Options{})
}

// checkScheduleWith is checkSchedule with options (a transfer holds its
// links until its end less its message delay).
func checkScheduleWith(t *testing.T, g *runtime.Graph, c config.Cluster, opt Options) {
	t.Helper()
	s, err := newSimulator(g, c, opt)
	if err != nil {
		t.Fatal(err)
	}
	s.run()
	type lane struct{ rank, worker int }
	busy := map[lane][][2]float64{}
	for i, n := range g.Nodes {
		for _, d := range n.Deps {
			if s.end[d] > s.start[i] {
				t.Fatalf("node %d (%s) starts at %g before its dependency %d ends at %g", i, n.Kind, s.start[i], d, s.end[d])
			}
		}
		if n.Kind == runtime.XferKind {
			link := [2]float64{s.start[i], s.linkEnd[i]}
			busy[lane{n.Src, -1}] = append(busy[lane{n.Src, -1}], link)
			busy[lane{n.Rank, -2}] = append(busy[lane{n.Rank, -2}], link)
			continue
		}
		m := &s.ranks[n.Rank]
		w := int(s.worker[i])
		if m.dur[m.kindOf[w]][s.kindID[i]] == 0 {
			t.Fatalf("node %d (%s) ran on a %s worker", i, n.Kind, m.kindOf[w])
		}
		busy[lane{n.Rank, w}] = append(busy[lane{n.Rank, w}], [2]float64{s.start[i], s.end[i]})
	}
	for l, iv := range busy {
		slices.SortFunc(iv, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
		for j := 1; j < len(iv); j++ {
			if iv[j][0] < iv[j-1][1] {
				t.Fatalf("lane %+v runs two things at once: %v and %v", l, iv[j-1], iv[j])
			}
		}
	}
}

func TestPriorityOrder(t *testing.T) {
	// Four independent tasks on one worker, priorities 1, 5, 3, 5: the
	// two of priority 5 first in submission order, then 3, then 1.
	durs := config.Durations{"potrf": 1, "trmm": 2, "syrk": 4, "gemm": 8}
	nodes := []runtime.Node{tiled(task("potrf", 1), 0), tiled(task("trmm", 5), 1), tiled(task("syrk", 3), 2), tiled(task("gemm", 5), 3)}
	r := mustRun(t, &runtime.Graph{Ranks: 1, Nodes: nodes}, cluster(1, 1, 0, durs, nil))
	// Order: trmm (0-2), gemm (2-10), syrk (10-14), potrf (14-15).
	want := [][2]float64{0: {14, 15}, 1: {0, 2}, 2: {10, 14}, 3: {2, 10}}
	for i, w := range want {
		s, e := span(r, i)
		if !near(s, w[0]) || !near(e, w[1]) {
			t.Errorf("task %d (%s) ran %g-%g, want %g-%g", i, nodes[i].Kind, s, e, w[0], w[1])
		}
	}
	// A task made ready later with a higher priority overtakes the waiting
	// ones: potrf (prio 0) runs 0-1 and releases gemm (prio 9); syrk
	// (prio 1) was ready at 0 but gemm goes first.
	nodes = []runtime.Node{tiled(task("potrf", 10), 0), tiled(task("syrk", 1), 1), tiled(task("gemm", 9, 0), 2)}
	r = mustRun(t, &runtime.Graph{Ranks: 1, Nodes: nodes}, cluster(1, 1, 0, durs, nil))
	for i, w := range [][2]float64{{0, 1}, {9, 13}, {1, 9}} {
		if s, e := span(r, i); !near(s, w[0]) || !near(e, w[1]) {
			t.Errorf("task %d (%s) ran %g-%g, want %g-%g", i, nodes[i].Kind, s, e, w[0], w[1])
		}
	}
}

func TestStats(t *testing.T) {
	// Rank 0 (2 CPUs): gemm 3 s and trmm 1 s in parallel, then a 1e6-byte
	// message to rank 1 (1 CPU, 1 GPU), which runs a gemm on its GPU
	// (0.5 s) and a dcmg on its CPU (10 s, from time 0).
	cpu := config.Durations{"gemm": 3, "trmm": 1, "dcmg": 10}
	c := cluster(2, 2, 0, cpu, nil)
	c.Groups = []config.Group{
		{Name: "a", Nodes: 1, CPUs: 2, CPU: cpu},
		{Name: "b", Nodes: 1, CPUs: 1, GPUs: 1, CPU: cpu, GPU: config.Durations{"gemm": 0.5}},
	}
	nodes := []runtime.Node{
		tiled(task("gemm", 0), 0), tiled(task("trmm", 0), 1),
		xfer(0, 1, 1e6, 0),
		tiled(on(task("gemm", 0, 2), 1), 3), tiled(on(task("dcmg", 0), 1), 4),
	}
	r := mustRun(t, &runtime.Graph{Ranks: 2, Nodes: nodes}, c)
	// Makespan: max(3 + 0.002 + 0.5, 10) = 10.
	if !near(r.Makespan, 10) || r.Tasks != 4 || r.Messages != 1 || r.Bytes != 1e6 {
		t.Fatalf("result %+v", r)
	}
	r0, r1 := r.Ranks[0], r.Ranks[1]
	if r0.Group != "a" || r1.Group != "b" || r0.CPU.Workers != 2 || r0.GPU.Workers != 0 || r1.GPU.Workers != 1 {
		t.Fatalf("ranks %+v", r.Ranks)
	}
	// Rank 0: 4 busy CPU seconds over 2 workers x 10 s; rank 1: 10 s of
	// CPU over 1 x 10, 0.5 s of GPU over 1 x 10.
	if !near(r0.CPU.Busy, 4) || !near(r0.CPU.Utilisation, 0.2) || r0.CPU.Tasks != 2 {
		t.Errorf("rank 0 cpu %+v", r0.CPU)
	}
	if !near(r1.CPU.Busy, 10) || !near(r1.CPU.Utilisation, 1) || !near(r1.GPU.Busy, 0.5) || !near(r1.GPU.Utilisation, 0.05) {
		t.Errorf("rank 1 cpu %+v gpu %+v", r1.CPU, r1.GPU)
	}
	if r0.MessagesSent != 1 || r0.BytesSent != 1e6 || r1.MessagesReceived != 1 || r1.BytesReceived != 1e6 || r1.MessagesSent != 0 {
		t.Errorf("messages %+v %+v", r0, r1)
	}
	if g := r.Groups[1]; g.Name != "b" || g.Nodes != 1 || !near(g.GPU.Utilisation, 0.05) || r.Groups[0].BytesSent != 1e6 {
		t.Errorf("groups %+v", r.Groups)
	}
	want := map[string]KindStats{"gemm": {Count: 2, CPU: 1, GPU: 1, Busy: 3.5}, "trmm": {Count: 1, CPU: 1, Busy: 1}, "dcmg": {Count: 1, CPU: 1, Busy: 10}}
	if !reflect.DeepEqual(r.Kinds, want) {
		t.Errorf("kinds %+v, want %+v", r.Kinds, want)
	}
	// Trace: the GPU worker of rank 1 is worker 1 (after its one CPU), a
	// "gpu" resource; the transfer of handle h from rank 0 to rank 1 (1 MB)
	// is on no worker, from 3 to 3.002 s.
	for _, e := range r.Events {
		switch {
		case e.Rank == 1 && e.Kind == "gemm" && (e.Worker != 1 || e.Resource != "gpu" || e.Start != 3_002_000_000 || e.End != 3_502_000_000):
			t.Errorf("gpu gemm event %+v", e)
		case e.Kind == runtime.XferKind && (e.Rank != 1 || e.Worker != -1 || e.Start != 3e9 || e.End != 3_002_000_000 ||
			e.Src != 0 || e.Dst != 1 || e.Handle != "h" || e.Bytes != 1_000_000):
			t.Errorf("transfer event %+v", e)
		}
	}
	if len(r.Events) != 5 {
		t.Errorf("%d events, want 5", len(r.Events))
	}
	r2, err := Run(&runtime.Graph{Ranks: 2, Nodes: nodes}, c, Options{})
	if err != nil || len(r2.Events) != 4 {
		t.Fatalf("without transfers in the trace: %v, %d events", err, len(r2.Events))
	}
}

func TestErrors(t *testing.T) {
	durs := config.Durations{"gemm": 1}
	cases := []struct {
		name string
		g    runtime.Graph
		c    config.Cluster
		want string
	}{
		{"no groups", runtime.Graph{Ranks: 1}, config.DefaultCluster(), "no [[group]] tables"},
		{"ranks", runtime.Graph{Ranks: 3}, cluster(2, 1, 0, durs, nil), "recorded for 3 ranks, the cluster has 2 nodes"},
		{"kind", runtime.Graph{Ranks: 1, Nodes: []runtime.Node{task("potrf", 0)}}, cluster(1, 1, 0, durs, nil), `node 0 (potrf [-1 -1 -1]): rank 0 (group "g") has no worker that can run potrf`},
		{"gpu kind without gpus", runtime.Graph{Ranks: 1, Nodes: []runtime.Node{task("potrf", 0)}}, cluster(1, 1, 0, durs, config.Durations{"potrf": 1}), "no worker that can run potrf"},
		{"dep", runtime.Graph{Ranks: 1, Nodes: []runtime.Node{task("gemm", 0, 0)}}, cluster(1, 1, 0, durs, nil), "node 0 (gemm): dependency 0 is not an earlier node"},
		{"rank", runtime.Graph{Ranks: 1, Nodes: []runtime.Node{on(task("gemm", 0), 1)}}, cluster(1, 1, 0, durs, nil), "rank 1 out of [0, 1)"},
		{"self", runtime.Graph{Ranks: 2, Nodes: []runtime.Node{xfer(1, 1, 8)}}, cluster(2, 1, 0, durs, nil), "from rank 1 to itself"},
		{"bandwidth", runtime.Graph{Ranks: 2, Nodes: []runtime.Node{xfer(0, 1, 8)}},
			func() config.Cluster { c := cluster(2, 1, 0, durs, nil); c.Network.Bandwidth = 0; return c }(), "rank 0 (group \"g\") has no link bandwidth"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(&c.g, c.c, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	for _, d := range []float64{-1e-3, math.NaN(), math.Inf(1)} {
		for _, opt := range []Options{{MessageDelay: d}, {MessageDelays: []float64{0.001, d}}} {
			_, err := Run(&runtime.Graph{Ranks: 1}, cluster(1, 1, 0, durs, nil), opt)
			if want := fmt.Sprintf("message delay %g s", d); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("delay %g: error %v, want %q", d, err, want)
			}
		}
	}
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Stretch: []float64{1}}, "2 ranks, 1 values of stretch"},
		{Options{Stretch: []float64{1, 0.9}}, "rank 1: stretch 0.9 (want >= 1"},
		{Options{Stretch: []float64{math.Inf(1), 1}}, "rank 0: stretch +Inf"},
		{Options{TaskWait: []float64{0, 0, 0}}, "2 ranks, 3 values of task wait"},
		{Options{TaskWait: []float64{math.NaN(), 0}}, "rank 0: task wait NaN (want >= 0"},
	} {
		if _, err := Run(&runtime.Graph{Ranks: 2}, cluster(2, 1, 0, durs, nil), c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.want)
		}
	}
}

// recorder builds a runtime.Graph the way the distributed runtime does
// (seed 003): every task runs on the owner of the handle it writes, reads
// of a handle last written on another rank go through one transfer per
// (version, rank), and dependencies follow RaW, WaR and WaW order.
type recorder struct {
	g       runtime.Graph
	owner   map[string]int
	writer  map[string]int         // last writer node
	readers map[string][]int       // nodes reading the current version (tasks and transfers)
	copies  map[string]map[int]int // current version's transfer node per rank
}

type acc struct {
	h     string
	write bool
}

func newRecorder(ranks int) *recorder {
	return &recorder{g: runtime.Graph{Ranks: ranks}, owner: map[string]int{}, writer: map[string]int{},
		readers: map[string][]int{}, copies: map[string]map[int]int{}}
}

func (r *recorder) submit(kind string, tile [3]int, prio int, flops float64, access ...acc) {
	rank := 0
	for _, a := range access {
		if a.write {
			rank = r.owner[a.h]
		}
	}
	var deps []int
	for _, a := range access {
		w, written := r.writer[a.h]
		if r.owner[a.h] != rank && !a.write {
			if !written {
				continue
			}
			x, ok := r.copies[a.h][rank]
			if !ok {
				x = len(r.g.Nodes)
				r.g.Nodes = append(r.g.Nodes, runtime.Node{Kind: runtime.XferKind, Tile: tile, Rank: rank,
					Src: r.owner[a.h], Bytes: 8 * 100, Deps: []int{w}, Handle: a.h, Priority: prio})
				if r.copies[a.h] == nil {
					r.copies[a.h] = map[int]int{}
				}
				r.copies[a.h][rank] = x
				r.readers[a.h] = append(r.readers[a.h], x)
			}
			deps = append(deps, x)
			continue
		}
		if written {
			deps = append(deps, w)
		}
		if a.write {
			deps = append(deps, r.readers[a.h]...)
		}
	}
	n := len(r.g.Nodes)
	r.g.Nodes = append(r.g.Nodes, runtime.Node{Kind: kind, Tile: tile, Priority: prio, Flops: flops, Rank: rank, Src: -1, Deps: dedup(deps)})
	for _, a := range access {
		if a.write {
			r.writer[a.h] = n
			r.readers[a.h] = nil
			r.copies[a.h] = nil
		} else if r.owner[a.h] == rank {
			r.readers[a.h] = append(r.readers[a.h], n)
		}
	}
}

func dedup(x []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, v := range x {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func tileName(m, n int) string { return string(rune('A'+m)) + string(rune('a'+n)) }

// cholesky records the tiled Cholesky of pkg/cholesky (potrf, trtri,
// trsm, syrk, gemm with its priorities and flop counts) of an n x n matrix
// in tiles of nb, tile (m, k) owned by owner(m, k).
func cholesky(ranks, n, nb int, owner func(m, k int) int) *runtime.Graph {
	r := newRecorder(ranks)
	nt := (n + nb - 1) / nb
	rows := func(k int) float64 { return float64(min(nb, n-k*nb)) }
	for m := 0; m < nt; m++ {
		for k := 0; k <= m; k++ {
			r.owner[tileName(m, k)] = owner(m, k)
		}
		r.owner["W"+tileName(m, m)] = owner(m, m)
	}
	for k := 0; k < nt; k++ {
		b := rows(k)
		r.submit("potrf", [3]int{k, k, k}, 3*(nt-k), b*b*b/3+b*b/2+b/6, acc{tileName(k, k), true})
		if k+1 == nt {
			break
		}
		r.submit("trtri", [3]int{k, k, k}, 3*(nt-k), b*b*b/3, acc{tileName(k, k), false}, acc{"W" + tileName(k, k), true})
		for m := k + 1; m < nt; m++ {
			r.submit("trmm", [3]int{m, k, k}, 3*(nt-k)-(m-k), rows(m)*b*b, acc{"W" + tileName(k, k), false}, acc{tileName(m, k), true})
		}
		for j := k + 1; j < nt; j++ {
			r.submit("syrk", [3]int{j, j, k}, 3*(nt-k)-2*(j-k), b*rows(j)*(rows(j)+1), acc{tileName(j, k), false}, acc{tileName(j, j), true})
			for m := j + 1; m < nt; m++ {
				r.submit("gemm", [3]int{m, j, k}, 3*(nt-k)-(j-k)-(m-k), 2*rows(m)*rows(j)*b,
					acc{tileName(m, k), false}, acc{tileName(j, k), false}, acc{tileName(m, j), true})
			}
		}
	}
	return &r.g
}

func TestCholeskyGraph(t *testing.T) {
	durs := config.Durations{"potrf": 0.3, "trtri": 0.25, "trmm": 0.9, "syrk": 1.0, "gemm": 2.0}
	// N = 50 in tiles of 12: 5 tile rows, the last one 2 rows (ragged).
	g := cholesky(1, 50, 12, func(int, int) int { return 0 })
	// On one worker the makespan is the sum of the (scaled) durations.
	maxFlops := map[string]float64{}
	for _, n := range g.Nodes {
		maxFlops[n.Kind] = math.Max(maxFlops[n.Kind], n.Flops)
	}
	sum := 0.0
	count := map[string]int{}
	for _, n := range g.Nodes {
		sum += durs[n.Kind] * n.Flops / maxFlops[n.Kind]
		count[n.Kind]++
	}
	// 5 potrf, 4 trtri, 10 trmm and syrk, 10 gemm (nt(nt-1)(nt-2)/6).
	if count["potrf"] != 5 || count["trtri"] != 4 || count["trmm"] != 10 || count["syrk"] != 10 || count["gemm"] != 10 {
		t.Fatalf("counts %v", count)
	}
	r := mustRun(t, g, cluster(1, 1, 0, durs, nil))
	if !near(r.Makespan, sum) {
		t.Fatalf("1 worker: makespan %.15g, want the sum %.15g", r.Makespan, sum)
	}
	if !near(r.Ranks[0].CPU.Busy, sum) || !near(r.Ranks[0].CPU.Utilisation, 1) {
		t.Fatalf("busy %+v", r.Ranks[0].CPU)
	}
	checkSchedule(t, g, cluster(1, 1, 0, durs, nil))
	// More workers: faster, not below the critical path, never idle while
	// something is ready... and the dependencies hold.
	r4 := mustRun(t, g, cluster(1, 4, 0, durs, nil))
	if !(r4.Makespan < r.Makespan) || r4.Makespan < critical(g, durs, maxFlops)-1e-12 {
		t.Fatalf("4 workers: makespan %g (1 worker %g, critical path %g)", r4.Makespan, r.Makespan, critical(g, durs, maxFlops))
	}
	checkSchedule(t, g, cluster(1, 4, 0, durs, nil))
	// Unlimited workers: exactly the critical path.
	rInf := mustRun(t, g, cluster(1, 64, 0, durs, nil))
	if !near(rInf.Makespan, critical(g, durs, maxFlops)) {
		t.Fatalf("64 workers: makespan %g, critical path %g", rInf.Makespan, critical(g, durs, maxFlops))
	}
}

// critical returns the longest path through g with zero-time transfers.
func critical(g *runtime.Graph, durs config.Durations, maxFlops map[string]float64) float64 {
	end := make([]float64, len(g.Nodes))
	best := 0.0
	for i, n := range g.Nodes {
		s := 0.0
		for _, d := range n.Deps {
			s = math.Max(s, end[d])
		}
		d := 0.0
		if n.Kind != runtime.XferKind {
			d = durs[n.Kind] * n.Flops / maxFlops[n.Kind]
		}
		end[i] = s + d
		best = math.Max(best, end[i])
	}
	return best
}

func TestDistributedCholesky(t *testing.T) {
	// 2 x 2 block-cyclic over a CPU-only and a GPU group.
	c := cluster(4, 2, 0, nil, nil)
	c.Groups = []config.Group{
		{Name: "cpu", Nodes: 2, CPUs: 4, CPU: config.Durations{"potrf": 0.3, "trtri": 0.25, "trmm": 0.9, "syrk": 1.0, "gemm": 2.0}},
		{Name: "gpu", Nodes: 2, CPUs: 2, GPUs: 1,
			CPU: config.Durations{"potrf": 0.3, "trtri": 0.25, "trmm": 0.9, "syrk": 1.0, "gemm": 2.0},
			GPU: config.Durations{"potrf": 0.1, "trmm": 0.1, "syrk": 0.1, "gemm": 0.2}},
	}
	g := cholesky(4, 100, 10, func(m, k int) int { return (m%2)*2 + k%2 })
	r := mustRun(t, g, c)
	if r.Messages == 0 || r.Ranks[2].GPU.Tasks == 0 || r.Kinds["gemm"].GPU == 0 || r.Kinds["trtri"].GPU != 0 {
		t.Fatalf("result %+v", r)
	}
	tasks, recv := g.Work()
	for rk := range 4 {
		rs := r.Ranks[rk]
		if rs.CPU.Tasks+rs.GPU.Tasks != tasks[rk] || rs.BytesReceived != recv[rk] {
			t.Errorf("rank %d: %d tasks, %d bytes received; the graph says %d, %d", rk, rs.CPU.Tasks+rs.GPU.Tasks, rs.BytesReceived, tasks[rk], recv[rk])
		}
	}
	// Deterministic.
	r2 := mustRun(t, g, c)
	if !reflect.DeepEqual(r, r2) {
		t.Fatal("two runs differ")
	}
	checkSchedule(t, g, c)
}

// TestBarrier: a barrier node makes the tasks after it wait for every task
// before it, on every rank, and takes no time. Rank 1's gemm (1 s) does
// not depend on rank 0's dcmg (2 s) but follows the barrier: it runs from
// 2 to 3 s, and without the barrier from 0 to 1 s.
func TestBarrier(t *testing.T) {
	c := cluster(2, 1, 0, config.Durations{"dcmg": 2, "gemm": 1}, nil)
	dcmg := on(task("dcmg", 0), 0)
	dcmg.Tile[0] = 1
	gemm := on(task("gemm", 0), 1)
	gemm.Tile[0] = 2
	barrier := runtime.Node{Kind: "barrier", Src: -1, Tile: [3]int{-1, -1, -1}, Deps: []int{0}}
	fenced := gemm
	fenced.Deps = []int{1}
	r := mustRun(t, &runtime.Graph{Ranks: 2, Nodes: []runtime.Node{dcmg, barrier, fenced}}, c)
	if s, e := span(r, 2); !near(s, 2) || !near(e, 3) || !near(r.Makespan, 3) || r.Tasks != 2 || len(r.Events) != 2 {
		t.Errorf("with the barrier: gemm %g-%g s, makespan %g, %d tasks, %d events", s, e, r.Makespan, r.Tasks, len(r.Events))
	}
	r = mustRun(t, &runtime.Graph{Ranks: 2, Nodes: []runtime.Node{dcmg, gemm}}, c)
	if s, e := span(r, 2); !near(s, 0) || !near(e, 1) || !near(r.Makespan, 2) {
		t.Errorf("without: gemm %g-%g s, makespan %g", s, e, r.Makespan)
	}
}

// TestRuntimeCPU: the runtime's CPU time taken from the workers. With
// [network] cpu_per_message 0.1 s and cpu_per_byte 1e-7 s, a message of
// 1e6 bytes takes 0.2 s of CPU on each of its ranks, which lengthens the
// next task a CPU worker of the rank starts; a group's task_cpu lengthens
// each of its tasks (makespans by hand; potrf 1 s, trmm 2 s, gemm 3 s, the
// transfer 0.002 s).
func TestRuntimeCPU(t *testing.T) {
	durs := config.Durations{"potrf": 1, "trmm": 2, "gemm": 3}
	cases := []struct {
		name       string
		nodes      []runtime.Node
		cpus       int
		taskCPU    float64
		msgs       bool // charge the messages
		want       float64
		runtimeCPU []float64 // per rank
	}{
		// The receiver waits for the message: trmm starts after it,
		// 1 + 0.002, and takes 2 + 0.2; the sender starts no task after
		// the send, so its cost lengthens nothing.
		{"receiver waits", []runtime.Node{tiled(task("potrf", 0), 0), xfer(0, 1, 1e6, 0), on(tiled(task("trmm", 0, 1), 1), 1)},
			1, 0, true, 3.202, []float64{0, 0.2}},
		// The sender starts gemm as the transfer starts: 1 + 3 + 0.2.
		{"sender pays", []runtime.Node{tiled(task("potrf", 0), 0), xfer(0, 1, 1e6, 0), on(tiled(task("trmm", 0, 1), 1), 1),
			tiled(task("gemm", 0, 0), 2)}, 1, 0, true, 4.2, []float64{0.2, 0.2}},
		// The receiver's worker is busy with gemm (0 to 3) when the
		// message arrives at 0.002: the next task, trmm, pays: 3 + 2 + 0.2.
		{"busy receiver", []runtime.Node{xfer(0, 1, 1e6), on(tiled(task("gemm", 0), 0), 1), on(tiled(task("trmm", 0, 0), 1), 1)},
			1, 0, true, 5.2, []float64{0, 0.2}},
		// task_cpu 0.5 on a chain: 1 + 2 + 3 + 3 x 0.5.
		{"task chain", []runtime.Node{tiled(task("potrf", 0), 0), tiled(task("trmm", 0, 0), 1), tiled(task("gemm", 0, 1), 2)},
			1, 0.5, false, 7.5, []float64{1.5, 0}},
		// 4 independent gemms on 2 workers, task_cpu 0.25: 2 x 3.25.
		{"task rounds", repeat(task("gemm", 0), 4), 2, 0.25, false, 6.5, []float64{1, 0}},
		// Both: potrf 1.1, the transfer to 1.102, trmm 2 + 0.1 + 0.2.
		{"tasks and messages", []runtime.Node{tiled(task("potrf", 0), 0), xfer(0, 1, 1e6, 0), on(tiled(task("trmm", 0, 1), 1), 1)},
			1, 0.1, true, 3.402, []float64{0.1, 0.3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := cluster(2, c.cpus, 0, durs, nil)
			cl.Groups[0].TaskCPU = c.taskCPU
			if c.msgs {
				cl.Network.CPUPerMessage, cl.Network.CPUPerByte = 0.1, 1e-7
			}
			g := &runtime.Graph{Ranks: 2, Nodes: c.nodes}
			r := mustRun(t, g, cl)
			if !near(r.Makespan, c.want) {
				t.Errorf("makespan %.15g, want %.15g", r.Makespan, c.want)
			}
			for i, want := range c.runtimeCPU {
				if got := r.Ranks[i].RuntimeCPU; !near(got, want) {
					t.Errorf("rank %d: runtime CPU %.15g, want %.15g", i, got, want)
				}
			}
			checkSchedule(t, g, cl)
			// Without the runtime's CPU: the tasks' durations alone.
			cl.Network.CPUPerMessage, cl.Network.CPUPerByte, cl.Groups[0].TaskCPU = 0, 0, 0
			if r0 := mustRun(t, g, cl); r0.Makespan >= r.Makespan {
				t.Errorf("makespan %g without the runtime's CPU, %g with it", r0.Makespan, r.Makespan)
			}
		})
	}
}
