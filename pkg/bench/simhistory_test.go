package bench

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/perfmodel"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestSimCheckHistorySims: the history simulations run on the row's
// history durations (and on the first size's for SimHistoryFrom), with
// the runtime's CPU per task: makespans by hand on a graph dcmg -> potrf
// -> two gemms, the caller's cluster left as it was; with a message
// delay measured in the history runs, on two ranks: dcmg on rank 0 ->
// a message of 8e6 bytes -> potrf -> gemm on rank 1; and a message that
// reaches a busy receiver.
func TestSimCheckHistorySims(t *testing.T) {
	node := func(k string, deps ...int) runtime.Node {
		return runtime.Node{Kind: k, Src: -1, Deps: deps, Tile: [3]int{-1, -1, -1}}
	}
	g := &runtime.Graph{Ranks: 1, Nodes: []runtime.Node{node(kind.Dcmg), node(kind.Potrf, 0), node(kind.Gemm, 1), node(kind.Gemm, 1)}}
	on1 := func(n runtime.Node) runtime.Node { n.Rank = 1; return n }
	g2 := &runtime.Graph{Ranks: 2, Nodes: []runtime.Node{node(kind.Dcmg),
		{Kind: runtime.XferKind, Rank: 1, Src: 0, Bytes: 8e6, Deps: []int{0}, Handle: "A(0,0)"}, on1(node(kind.Potrf, 1)), on1(node(kind.Gemm, 2))}}
	hist := config.Durations{kind.Dcmg: 1, kind.Potrf: 2, kind.Gemm: 4}
	firstHist := config.Durations{kind.Dcmg: 0.5, kind.Potrf: 0.25, kind.Gemm: 0.125}
	cases := []struct {
		name           string
		cpus           int
		taskCPU        float64
		first          *SimCheckRow
		sim, simFrom   float64
		wantFrom       int
		real, unloaded float64
		delay          float64 // SimCheckRow.MessageDelay.Delay of the row, and 2 x that of first: g2
	}{
		// One worker: 1 + 2 + 4 + 4; no other size.
		{"one size", 1, 0, nil, 11, 0, 0, 10, 5.5, 0},
		// The first size's own row predicts nothing more.
		{"first row", 1, 0, &SimCheckRow{N: 64, History: firstHist}, 11, 0, 0, 10, 5.5, 0},
		// task_cpu 1/16 on each of the 4 tasks; the first size's history
		// gives 0.5 + 0.25 + 2 x 0.125 + 4/16.
		{"from the first size", 1, 0.0625, &SimCheckRow{N: 32, History: firstHist}, 11.25, 1.25, 32, 9, 4.5, 0},
		// Two workers run the gemms side by side: 1 + 2 + 4, and
		// 0.5 + 0.25 + 0.125.
		{"two workers", 2, 0, &SimCheckRow{N: 32, History: firstHist}, 7, 0.875, 32, 8, 3.5, 0},
		// Links of 1 ms and 1e9 B/s: the message takes 0.001 + 0.008 s
		// and the measured 0.25 s more: 1 + 0.259 + 2 + 4; from the
		// first size (its delay 0.5 s): 0.5 + 0.509 + 0.25 + 0.125.
		// Drawn from the delays 0.1, 0.25, 0.4 trimmed at their 95th
		// percentile (0.25 + 0.9 x 0.15 = 0.385: 0.1 and 0.25), the
		// mean over seeds 1 ... 16 of their draws; the receiver is idle,
		// so the busy receives (drawn or their median) add nothing; the
		// timed runs' delay 0.5: 7.509.
		{"message delay", 1, 0, &SimCheckRow{N: 32, History: firstHist}, 7.259, 1.384, 32, 7, 3.5, 0.25},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := config.DefaultCluster()
			cl.NB = 1
			gr := g
			if c.delay > 0 {
				gr = g2
				c.first.MessageDelay.Delay = 2 * c.delay
				cl.Network = config.Network{Bandwidth: 1e9, Latency: 1e-3}
			}
			cl.Nodes = gr.Ranks
			cl.Groups = []config.Group{{Name: "g", Nodes: gr.Ranks, CPUs: c.cpus, CPU: config.Durations{kind.Gemm: 100}, TaskCPU: c.taskCPU}}
			row := &SimCheckRow{N: 64, History: hist, Real: c.real, RealLoaded: c.unloaded}
			if c.delay > 0 {
				row.MessageDelay = MessageDelay{Messages: 3, Delay: c.delay, Extra: []float64{0.1, 0.25, 0.4}, Busy: 2, After: []float64{3, 3}, BusyMedian: 3}
				row.TimedDelay = MessageDelay{Delay: 0.5}
			}
			if err := simCheckHistorySims(gr, cl, c.first, row); err != nil {
				t.Fatal(err)
			}
			if math.Abs(row.SimHistory-c.sim) > 1e-12 || math.Abs(row.ErrHistory-(c.sim/c.real-1)) > 1e-12 ||
				math.Abs(row.ErrHistoryLoaded-(c.sim/c.unloaded-1)) > 1e-12 {
				t.Errorf("history: %.15g s, error %g, unloaded %g; want %g s against %g and %g", row.SimHistory, row.ErrHistory, row.ErrHistoryLoaded, c.sim, c.real, c.unloaded)
			}
			if row.HistoryFrom != c.wantFrom || math.Abs(row.SimHistoryFrom-c.simFrom) > 1e-12 ||
				(c.wantFrom > 0 && math.Abs(row.ErrHistoryFrom-(c.simFrom/c.real-1)) > 1e-12) {
				t.Errorf("from N=%d: %.15g s, error %g; want N=%d, %g s", row.HistoryFrom, row.SimHistoryFrom, row.ErrHistoryFrom, c.wantFrom, c.simFrom)
			}
			// The tasks' seconds per rank without the runtime's CPU:
			// 1 + 2 + 4 + 4 on one rank; 1, and 2 + 4, on two.
			if want := map[bool]float64{false: 11, true: 3.5}[c.delay > 0]; math.Abs(row.SimHistoryTasks-want) > 1e-12 {
				t.Errorf("the tasks: %.15g s per rank, want %g", row.SimHistoryTasks, want)
			}
			// Without the delay, the links alone: 0.25 s less.
			want := [5]float64{}
			if c.delay > 0 {
				var drawn float64
				for seed := range uint64(16) {
					drawn += []float64{0.1, 0.25}[rand.New(rand.NewPCG(seed+1, 0)).IntN(2)] / 16
				}
				want = [5]float64{c.sim - c.delay, c.sim - c.delay + drawn, c.sim - c.delay + drawn, c.sim, c.sim - c.delay + 0.5}
			}
			if got := [5]float64{row.SimHistoryNoDelay, row.SimHistoryDrawn, row.SimHistoryBusy, row.SimHistoryMedianDelay, row.SimHistoryTimedDelay}; !nearAll(got[:], want[:]) {
				t.Errorf("without the delay, drawn, with busy receives drawn and at their median, the timed runs' delay: %.15g s, want %.15g", got, want)
			}
			if !reflect.DeepEqual(cl.Groups[0].CPU, config.Durations{kind.Gemm: 100}) {
				t.Errorf("the caller's durations changed: %v", cl.Groups[0].CPU)
			}
		})
	}
	// A busy receiver: rank 1 runs a gemm (0-4) when the message, ready
	// at 1, arrives (1.259); sim history completes it the busy receives'
	// median (3 s) after the gemm ends, and runs the potrf then:
	// 4 + 3 + 2; with the median delay alone, the potrf follows the
	// gemm: 4 + 2.
	g3 := &runtime.Graph{Ranks: 2, Nodes: []runtime.Node{node(kind.Dcmg),
		{Kind: runtime.XferKind, Rank: 1, Src: 0, Bytes: 8e6, Deps: []int{0}, Handle: "A(0,0)"}, on1(node(kind.Potrf, 1)), on1(node(kind.Gemm))}}
	cl := config.DefaultCluster()
	cl.NB, cl.Nodes, cl.Network = 1, 2, config.Network{Bandwidth: 1e9, Latency: 1e-3}
	cl.Groups = []config.Group{{Name: "g", Nodes: 2, CPUs: 1}}
	row := &SimCheckRow{N: 64, History: hist, Real: 10, RealLoaded: 10,
		MessageDelay: MessageDelay{Messages: 1, Delay: 0.25, Extra: []float64{0.25}, Busy: 1, After: []float64{3}, BusyMedian: 3}}
	if err := simCheckHistorySims(g3, cl, nil, row); err != nil {
		t.Fatal(err)
	}
	if row.SimHistory != 9 || row.SimHistoryMedianDelay != 6 || row.SimHistoryBusy != 9 {
		t.Errorf("busy receiver: sim history %.15g s, the median delay alone %.15g s, busy receives drawn %.15g s; want 9, 6, 9",
			row.SimHistory, row.SimHistoryMedianDelay, row.SimHistoryBusy)
	}
	// The workers' wait for a core, on g2 (rank 0: the dcmg; rank 1:
	// the potrf and the gemm, after the message's 0.009 + 0.25 s): sim
	// history takes the wait beyond the other threads' CPU over the
	// workers' (0 and 0.2 in the calmest evaluation: HistoryExcess):
	// 1 + 0.259 + 1.2 x 6, and so does the second size predicted from
	// it; without the wait:
	// 7.259; the history's whole waits 0.25 and 1.2 s stretch the tasks
	// 1.25 and 1.3 times: 1.25 + 0.259 + 1.3 x (2 + 4); one wait per
	// task, 0.25 / 1 and 1.2 / 2: 1.25 + 0.259 + 2.6 + 4.6; the tasks'
	// wall over CPU 1.25 and 1.1: 1.25 + 0.259 + 1.1 x 6. Without a
	// history of the waits, sim history is 7.259, and no model of them.
	cl.Groups[0].TaskCPU = 0
	waits := SimCheckRow{N: 32, History: hist, MessageDelay: MessageDelay{Messages: 1, Delay: 0.25, Extra: []float64{0.25}},
		HistoryWait: []float64{0.25, 1.2}, HistoryCPU: []float64{1, 4}, HistoryOther: []float64{0.5, 0.4}, HistoryExcess: []float64{0, 0.2}, HistoryTaskStretch: []float64{1.25, 1.1}}
	first := waits
	row = &waits
	row.N, row.Real, row.RealLoaded = 64, 10, 10
	if err := simCheckHistorySims(g2, cl, &first, row); err != nil {
		t.Fatal(err)
	}
	if got, want := []float64{row.SimHistory, row.SimHistoryFrom, row.SimHistoryNoWait, row.SimHistoryStretch, row.SimHistoryTaskWait, row.SimHistoryWallStretch},
		[]float64{1.259 + 7.2, 1.259 + 7.2, 7.259, 1.509 + 7.8, 1.509 + 7.2, 1.509 + 6.6}; !nearAll(got, want) {
		t.Errorf("wait for a core: sim history, from N=32, without the wait, stretched by all of it, a wait per task, the tasks' wall / CPU %.15g s; want %.15g", got, want)
	}
	row.HistoryWait, row.HistoryCPU, row.HistoryOther, row.HistoryExcess, row.HistoryTaskStretch = nil, nil, nil, nil, nil
	if err := simCheckHistorySims(g2, cl, nil, row); err != nil || math.Abs(row.SimHistory-7.259) > 1e-12 || row.SimHistoryNoWait != 0 || row.SimHistoryStretch != 0 || row.SimHistoryTaskWait != 0 || row.SimHistoryWallStretch != 0 {
		t.Errorf("no history of the waits: %v, sim history %g s, models %g, %g, %g, %g s", err, row.SimHistory, row.SimHistoryNoWait, row.SimHistoryStretch, row.SimHistoryTaskWait, row.SimHistoryWallStretch)
	}
	// HistoryExcess: the calmest evaluation's (wait - other) / CPU, at
	// least 0: 0.2, 0.2 and 0.3 over three evaluations give 0.2; one
	// whose wait is within the other CPU gives 0.
	for _, c := range []struct {
		u    coreUse
		want float64
	}{
		{coreUse{wait: []float64{0.3, 0.5, 0.7}, cpu: []float64{1, 2, 2}, other: []float64{0.1, 0.1, 0.1}}, 0.2},
		{coreUse{wait: []float64{0.3, 0.1}, cpu: []float64{1, 2}, other: []float64{0.1, 0.2}}, 0},
		{coreUse{}, 0},
	} {
		if got := c.u.excess(); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("excess of %+v: %g, want %g", c.u, got, c.want)
		}
	}
}

// nearAll reports whether a and b have the same length and agree within
// 1e-12 entry by entry.
func nearAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// TestHistoryDurations: each kind's mean at full tiles (footprint nb*nb,
// nb for the vector kinds) over its samples, averaged over the ranks that
// have it; a partial tile's samples are not a full tile's; a kind without
// samples takes its calibrated duration.
func TestHistoryDurations(t *testing.T) {
	const nb = 4
	samples := [][]struct {
		kind    string
		size    int
		seconds float64
	}{
		{{kind.Gemm, 16, 0.001}, {kind.Gemm, 16, 0.003}, {kind.Gemm, 9, 0.5}, {kind.Zcpy, 4, 0.0005}},
		{{kind.Gemm, 16, 0.004}, {kind.Potrf, 16, 0.005}},
	}
	cal := config.Durations{kind.Gemm: 1, kind.Potrf: 1, kind.Dcmg: 0.007}
	want := config.Durations{kind.Gemm: 0.003, kind.Potrf: 0.005, kind.Zcpy: 0.0005, kind.Dcmg: 0.007}
	g := comm.NewGroup(2)
	got := make([]config.Durations, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := perfmodel.New()
			for _, s := range samples[r] {
				m.Record(perfmodel.CPU, s.kind, s.size, s.seconds)
			}
			got[r], errs[r] = historyDurations(g.Endpoint(r), nb, m, cal)
		}()
	}
	wg.Wait()
	for r := range 2 {
		if errs[r] != nil {
			t.Fatalf("rank %d: %v", r, errs[r])
		}
		if len(got[r]) != len(want) {
			t.Errorf("rank %d: %v, want %v", r, got[r], want)
		}
		for k, w := range want {
			if math.Abs(got[r][k]-w) > 1e-12 {
				t.Errorf("rank %d: %s %.15g s, want %g", r, k, got[r][k], w)
			}
		}
	}
}
