package runtime

import (
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestSchedulersMatchSequential: every scheduler, on 1-3 workers, with and
// without a host-test device, runs random graphs to the sequential
// result (results never depend on the schedule).
func TestSchedulersMatchSequential(t *testing.T) {
	for _, s := range Schedulers() {
		for workers := 1; workers <= 3; workers++ {
			for _, dev := range []bool{false, true} {
				o := Options{Workers: workers, Scheduler: s, PerfModel: fixedModel{"cpu": {"op": 1e-6}, "host-test": {"op": 2e-6}}}
				if dev {
					o.Devices = []Device{&HostTest{Bytes: 1 << 20}}
				}
				for seed := uint64(1); seed <= 3; seed++ {
					checkRandomGraph(t, o, seed)
				}
			}
		}
	}
}

// TestQueueOrder: with the only worker busy, queued tasks run in priority
// order (ties in submission order) under prio and ws, in the order they
// became ready under eager.
func TestQueueOrder(t *testing.T) {
	prios := []int{3, -1, 7, 0, 7, 2, 10, -5, 3}
	for _, c := range []struct {
		sched string
		want  []int
	}{
		{Prio, []int{6, 2, 4, 0, 8, 5, 3, 1, 7}},
		{"", []int{6, 2, 4, 0, 8, 5, 3, 1, 7}},
		{WS, []int{6, 2, 4, 0, 8, 5, 3, 1, 7}},
		{Eager, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		rt := New(Options{Workers: 1, Scheduler: c.sched})
		gate, started := make(chan struct{}), make(chan struct{})
		rt.Submit(Task{Kind: "gate", Run: func(Context) error { close(started); <-gate; return nil }})
		<-started
		var order []int
		for i, p := range prios {
			rt.Submit(Task{Kind: "p", Priority: p, Access: []Access{{NewHandle("x", 0), W}},
				Run: func(Context) error { order = append(order, i); return nil }})
		}
		close(gate)
		if err := rt.Close(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(order, c.want) {
			t.Errorf("%q: order %v, want %v", c.sched, order, c.want)
		}
	}
}

// TestWorkStealing: under ws and lws, with worker 0 blocked in a task,
// the tasks submitted meanwhile go to the workers in turn, and worker 1
// steals those queued on worker 0: all of them run on worker 1 while
// worker 0 waits for them (a deadlock otherwise).
func TestWorkStealing(t *testing.T) {
	for _, s := range []string{WS, LWS} {
		rt := New(Options{Workers: 2, Scheduler: s, Trace: true})
		gate, started := make(chan struct{}), make(chan struct{})
		var done atomic.Int32
		const n = 20
		rt.Submit(Task{Kind: "gate", Run: func(Context) error { close(started); <-gate; return nil }})
		<-started
		for range n {
			rt.Submit(Task{Kind: "t", Access: []Access{{NewHandle("x", 0), W}}, Run: func(Context) error {
				if done.Add(1) == n {
					close(gate)
				}
				return nil
			}})
		}
		finished := make(chan error)
		go func() { finished <- rt.Wait() }()
		select {
		case err := <-finished:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the tasks queued behind a blocked worker were not stolen", s)
		}
		gateWorker, others := -1, map[int]int{}
		for _, e := range rt.Events() {
			if e.Kind == "gate" {
				gateWorker = e.Worker
			} else {
				others[e.Worker]++
			}
		}
		if gateWorker < 0 || others[1-gateWorker] != n {
			t.Errorf("%s: gate on worker %d, tasks per worker %v, want all %d on the other", s, gateWorker, others, n)
		}
		if err := rt.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVictim: ws steals from the worker with the most queued tasks, lws
// from the nearest one that has a task.
func TestVictim(t *testing.T) {
	ws := make([]*worker, 5)
	for i := range ws {
		ws[i] = &worker{id: i, class: classCPU}
	}
	queue := func(w, n int) {
		for range n {
			ws[w].ready.push(&task{mask: classCPU})
		}
	}
	queue(1, 1)
	queue(3, 4)
	r := &Runtime{workers: ws}
	r.pol = polWS
	if v := r.victim(ws[0]); v != ws[3] {
		t.Errorf("ws: victim of worker 0 is %v, want worker 3", v)
	}
	r.pol = polLWS
	if v := r.victim(ws[0]); v != ws[1] {
		t.Errorf("lws: victim of worker 0 is %v, want worker 1", v)
	}
	if v := r.victim(ws[4]); v != ws[3] {
		t.Errorf("lws: victim of worker 4 is %v, want worker 3", v)
	}
	if v := r.victim(ws[2]); v != ws[3] && v != ws[1] {
		t.Errorf("lws: victim of worker 2 is %v, want a neighbour", v)
	}
}

// TestDMDASAhead: dmda counts all the work queued on a worker, dmdas only
// that of the task's priority or higher (what it cannot overtake).
func TestDMDASAhead(t *testing.T) {
	w := &worker{}
	for _, q := range []struct {
		prio int
		dur  float64
	}{{1, 1}, {5, 2}, {9, 4}} {
		tk := &task{Task: Task{Priority: q.prio}, expDur: q.dur, key: int64(q.prio)}
		w.queue = append(w.queue, tk)
		w.queued += q.dur
	}
	tk := &task{Task: Task{Priority: 5}}
	for _, c := range []struct {
		pol  policy
		want float64
	}{{polDMDA, 7}, {polDMDAS, 6}} {
		r := &Runtime{pol: c.pol}
		if got := r.ahead(w, tk); got != c.want {
			t.Errorf("policy %d: ahead = %g, want %g", c.pol, got, c.want)
		}
	}
}

// TestModelledAbsurdModel: under dmda and dmdas, a model whose durations
// are huge, infinite or not a number (every expected finish +Inf before)
// still places every task (no worker is nil under the scheduler's lock)
// and the graph runs to the sequential result, on CPU workers and a
// device.
func TestModelledAbsurdModel(t *testing.T) {
	for _, d := range []float64{1e308, math.Inf(1), math.NaN(), -1} {
		m := fixedModel{"cpu": {"op": d, "xfer": d}, "host-test": {"op": d}, TransferArch("host-test"): {"xfer": d}}
		for _, s := range []string{DMDA, DMDAS} {
			o := Options{Workers: 2, Scheduler: s, PerfModel: m, Devices: []Device{&HostTest{Bytes: 1 << 20}}}
			checkRandomGraph(t, o, 1)
		}
	}
}
