package runtime

import (
	"errors"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// eventLog logs task start and end events in the order they happen.
type eventLog struct {
	mu  sync.Mutex
	log []string
}

func (r *eventLog) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *eventLog) index(s string) int { return slices.Index(r.log, s) }

func (r *eventLog) task(name string, d time.Duration) func(Context) error {
	return func(Context) error {
		r.add("start " + name)
		time.Sleep(d)
		r.add("end " + name)
		return nil
	}
}

func TestHazards(t *testing.T) {
	// Each case submits tasks in order; "after" pairs say which task must
	// end before which starts. The first tasks sleep so that a runtime that
	// ignored the hazard would start the later task early.
	type sub struct {
		name  string
		modes []Mode // on handles h0, h1 ... in order; 0 = not accessed
		sleep time.Duration
	}
	cases := []struct {
		name  string
		tasks []sub
		after [][2]string
	}{
		{name: "RaW", tasks: []sub{{"w", []Mode{W}, 20 * time.Millisecond}, {"r", []Mode{R}, 0}},
			after: [][2]string{{"w", "r"}}},
		{name: "WaR", tasks: []sub{{"r1", []Mode{R}, 20 * time.Millisecond}, {"r2", []Mode{R}, 30 * time.Millisecond}, {"w", []Mode{W}, 0}},
			after: [][2]string{{"r1", "w"}, {"r2", "w"}}},
		{name: "WaW", tasks: []sub{{"w1", []Mode{W}, 20 * time.Millisecond}, {"w2", []Mode{W}, 0}},
			after: [][2]string{{"w1", "w2"}}},
		{name: "RW chain", tasks: []sub{{"a", []Mode{RW}, 10 * time.Millisecond}, {"b", []Mode{RW}, 10 * time.Millisecond}, {"c", []Mode{RW}, 0}},
			after: [][2]string{{"a", "b"}, {"b", "c"}}},
		{name: "RaW through second handle", tasks: []sub{{"w0", []Mode{W, 0}, 20 * time.Millisecond}, {"w1", []Mode{0, W}, 20 * time.Millisecond}, {"r", []Mode{R, R}, 0}},
			after: [][2]string{{"w0", "r"}, {"w1", "r"}}},
		{name: "WaR after RaW", tasks: []sub{{"w1", []Mode{W}, 10 * time.Millisecond}, {"r", []Mode{R}, 20 * time.Millisecond}, {"w2", []Mode{W}, 0}},
			after: [][2]string{{"w1", "r"}, {"r", "w2"}, {"w1", "w2"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rt := New(Options{Workers: 4})
			defer rt.Close()
			hs := []*Handle{NewHandle("h0", 0), NewHandle("h1", 0)}
			rec := &eventLog{}
			for _, s := range c.tasks {
				var acc []Access
				for i, m := range s.modes {
					if m != 0 {
						acc = append(acc, Access{H: hs[i], Mode: m})
					}
				}
				rt.Submit(Task{Kind: s.name, Tile: [3]int{-1, -1, -1}, Access: acc, Run: rec.task(s.name, s.sleep)})
			}
			if err := rt.Wait(); err != nil {
				t.Fatal(err)
			}
			for _, p := range c.after {
				e, s := rec.index("end "+p[0]), rec.index("start "+p[1])
				if e < 0 || s < 0 || e > s {
					t.Errorf("%s must end before %s starts; log %v", p[0], p[1], rec.log)
				}
			}
		})
	}
}

func TestReadersRunConcurrently(t *testing.T) {
	rt := New(Options{Workers: 2})
	defer rt.Close()
	h := NewHandle("h", 0)
	var wg sync.WaitGroup
	wg.Add(2)
	both := make(chan struct{})
	go func() { wg.Wait(); close(both) }()
	for i := 0; i < 2; i++ {
		rt.Submit(Task{Kind: "r", Access: []Access{{h, R}}, Run: func(Context) error {
			wg.Done()
			select {
			case <-both:
				return nil
			case <-time.After(5 * time.Second):
				return errors.New("readers of one handle did not run at the same time")
			}
		}})
	}
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestPrioritiesOneWorker(t *testing.T) {
	rt := New(Options{Workers: 1})
	defer rt.Close()
	gate, started := make(chan struct{}), make(chan struct{})
	rt.Submit(Task{Kind: "gate", Run: func(Context) error { close(started); <-gate; return nil }})
	<-started // the only worker is now busy: everything below queues
	prios := []int{3, -1, 7, 0, 7, 2, 10, -5, 3}
	var order []int
	for i, p := range prios {
		rt.Submit(Task{Kind: "p", Priority: p, Tile: [3]int{i, -1, -1}, Access: []Access{{NewHandle("x", 0), W}},
			Run: func(Context) error { order = append(order, i); return nil }})
	}
	close(gate)
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	// Expected: priority descending, ties in submission order.
	want := []int{6, 2, 4, 0, 8, 5, 3, 1, 7}
	if !slices.Equal(order, want) {
		t.Fatalf("execution order %v, want %v", order, want)
	}
}

func TestPriorityAmongReleasedSuccessors(t *testing.T) {
	// One worker; a writer releases three readers of different priority and
	// an unrelated queued task of middle priority: they must run by priority.
	rt := New(Options{Workers: 1})
	defer rt.Close()
	h := NewHandle("h", 0)
	var order []string
	run := func(s string) func(Context) error {
		return func(Context) error { order = append(order, s); return nil }
	}
	gate, started := make(chan struct{}), make(chan struct{})
	rt.Submit(Task{Kind: "gate", Access: []Access{{h, W}}, Run: func(Context) error { close(started); <-gate; return nil }})
	<-started
	rt.Submit(Task{Kind: "lo", Priority: 1, Access: []Access{{h, R}}, Run: run("lo")})
	rt.Submit(Task{Kind: "hi", Priority: 9, Access: []Access{{h, R}}, Run: run("hi")})
	rt.Submit(Task{Kind: "mid", Priority: 5, Access: []Access{{NewHandle("o", 0), W}}, Run: run("mid")})
	rt.Submit(Task{Kind: "top", Priority: 20, Access: []Access{{h, R}}, Run: run("top")})
	close(gate)
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	want := []string{"top", "hi", "mid", "lo"}
	if !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

func TestErrorStopsGraph(t *testing.T) {
	rt := New(Options{Workers: 3})
	defer rt.Close()
	h := NewHandle("h", 0)
	boom := errors.New("boom")
	ran := make(chan string, 100)
	rt.Submit(Task{Kind: "fail", Tile: [3]int{2, 1, -1}, Access: []Access{{h, RW}},
		Run: func(Context) error { time.Sleep(5 * time.Millisecond); return boom }})
	for i := 0; i < 10; i++ {
		rt.Submit(Task{Kind: "dep", Access: []Access{{h, RW}}, Run: func(Context) error { ran <- "dep"; return nil }})
	}
	done := make(chan error)
	go func() { done <- rt.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Wait hung after a task error")
	}
	var te *TaskError
	if !errors.As(err, &te) || !errors.Is(err, boom) || te.Task != "fail(2,1)" {
		t.Fatalf("Wait returned %v, want a TaskError for fail(2,1) wrapping boom", err)
	}
	if len(ran) != 0 {
		t.Fatalf("%d dependent tasks ran after the failure", len(ran))
	}
	// The runtime is usable again after Wait returned the error.
	x := 0
	rt.Submit(Task{Kind: "ok", Access: []Access{{h, RW}}, Run: func(Context) error { x = 42; return nil }})
	if err := rt.Wait(); err != nil || x != 42 {
		t.Fatalf("after an error: Wait %v, x %d", err, x)
	}
}

func TestSubmitAfterFailureIsDropped(t *testing.T) {
	rt := New(Options{Workers: 1})
	defer rt.Close()
	rt.Submit(Task{Kind: "fail", Run: func(Context) error { return errors.New("x") }})
	time.Sleep(20 * time.Millisecond) // let it fail
	ran := false
	rt.Submit(Task{Kind: "late", Run: func(Context) error { ran = true; return nil }})
	if err := rt.Wait(); err == nil {
		t.Fatal("no error from Wait")
	}
	if ran {
		t.Fatal("a task submitted after the failure ran")
	}
}

func TestPanicBecomesError(t *testing.T) {
	rt := New(Options{Workers: 2})
	defer rt.Close()
	rt.Submit(Task{Kind: "p", Tile: [3]int{1, -1, -1}, Run: func(Context) error { panic("bad index") }})
	err := rt.Wait()
	if !errors.Is(err, ErrPanic) {
		t.Fatalf("Wait returned %v, want ErrPanic", err)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := goruntime.NumGoroutine()
	for i := 0; i < 5; i++ {
		rt := New(Options{Workers: 8})
		h := NewHandle("h", 0)
		for j := 0; j < 100; j++ {
			rt.Submit(Task{Kind: "t", Access: []Access{{h, RW}}, Run: func(Context) error { return nil }})
		}
		rt.Submit(Task{Kind: "f", Run: func(Context) error { return errors.New("x") }})
		rt.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for goruntime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := goruntime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines before, %d after Close", before, n)
	}
}

// TestRandomGraphsMatchSequential runs random task graphs whose tasks combine
// the values of the handles they read into the ones they write with a
// non-commutative function, and compares with a sequential execution.
func TestRandomGraphsMatchSequential(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		for seed := uint64(1); seed <= 20; seed++ {
			checkRandomGraph(t, Options{Workers: workers}, seed)
		}
	}
}

// checkRandomGraph runs the random graph of seed on a runtime of options o
// and compares with a sequential execution.
func checkRandomGraph(t *testing.T, o Options, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	const nh, nt = 12, 400
	type op struct {
		idx   []int
		modes []Mode
	}
	ops := make([]op, nt)
	for i := range ops {
		k := 1 + rng.IntN(3)
		perm := rng.Perm(nh)[:k]
		o := op{idx: perm}
		for range perm {
			o.modes = append(o.modes, []Mode{R, W, RW}[rng.IntN(3)])
		}
		ops[i] = o
	}
	apply := func(vals []uint64, i int, o op) {
		var acc uint64 = uint64(i) + 1
		for j, h := range o.idx {
			if o.modes[j]&R != 0 {
				acc = acc*1099511628211 ^ vals[h]
			}
		}
		for j, h := range o.idx {
			if o.modes[j]&W != 0 {
				vals[h] = acc + uint64(j)
			}
		}
	}
	want := make([]uint64, nh)
	for i, o := range ops {
		apply(want, i, o)
	}
	got := make([]uint64, nh)
	rt := New(o)
	hs := make([]*Handle, nh)
	for i := range hs {
		hs[i] = NewHandle(fmt.Sprint(i), 0)
	}
	for i, op := range ops {
		acc := make([]Access, len(op.idx))
		for j, h := range op.idx {
			acc[j] = Access{H: hs[h], Mode: op.modes[j]}
		}
		rt.Submit(Task{Kind: "op", Priority: rng.IntN(5), Device: i%3 == 0, Access: acc, Run: func(Context) error {
			if i%7 == 0 {
				goruntime.Gosched()
			}
			apply(got, i, op)
			return nil
		}})
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s, %d workers, %d devices, seed %d: parallel result differs from sequential", o.Scheduler, o.Workers, len(o.Devices), seed)
	}
}

func TestTraceEvents(t *testing.T) {
	rt := New(Options{Workers: 2, Trace: true})
	defer rt.Close()
	rt.SetIteration(3)
	for i := 0; i < 10; i++ {
		rt.Submit(Task{Kind: "k", Tile: [3]int{i, 0, -1}, Flops: 5, Access: []Access{{NewHandle("x", 0), W}},
			Run: func(Context) error { time.Sleep(time.Millisecond); return nil }})
	}
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	ev := rt.Events()
	if len(ev) != 10 {
		t.Fatalf("%d events, want 10", len(ev))
	}
	seen := map[int]bool{}
	for _, e := range ev {
		if e.Kind != "k" || e.End-e.Start < int64(time.Millisecond) || e.Worker < 0 || e.Worker > 1 || e.Flops != 5 || e.Iter != 3 {
			t.Fatalf("bad event %+v", e)
		}
		seen[e.Tile[0]] = true
	}
	if len(seen) != 10 {
		t.Fatalf("tile indices lost: %v", seen)
	}
	if len(rt.Events()) != 0 {
		t.Fatal("Events did not forget returned events")
	}
}

func BenchmarkChain(b *testing.B) {
	rt := New(Options{Workers: 2})
	defer rt.Close()
	h := NewHandle("h", 0)
	noop := func(Context) error { return nil }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rt.Submit(Task{Kind: "noop", Access: []Access{{h, RW}}, Run: noop})
	}
	rt.Wait()
}

func BenchmarkIndependent(b *testing.B) {
	rt := New(Options{Workers: 2})
	defer rt.Close()
	hs := make([]*Handle, b.N)
	for i := range hs {
		hs[i] = NewHandle("h", 0)
	}
	noop := func(Context) error { return nil }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rt.Submit(Task{Kind: "noop", Access: []Access{{hs[i], W}}, Run: noop})
	}
	rt.Wait()
}

// TestRecordBarrier: a recording runtime records Barrier as a node that
// depends on the previous barrier and every node since, and every later
// node (tasks and messages) depends on it.
func TestRecordBarrier(t *testing.T) {
	rt := New(Options{Record: true, Ranks: 2})
	defer rt.Close()
	a, b := rt.Register("a", 0, Vector{N: 1}), rt.Register("b", 1, Vector{N: 1})
	w := func(h *Handle, k string) Task {
		return Task{Kind: k, Tile: [3]int{-1, -1, -1}, Access: []Access{{H: h, Mode: W}}}
	}
	rt.Submit(w(a, "dcmg"))                                                                                      // 0
	rt.Submit(w(b, "dcmg"))                                                                                      // 1
	rt.Barrier()                                                                                                 // 2
	rt.Submit(Task{Kind: "gemm", Tile: [3]int{-1, -1, -1}, Access: []Access{{H: a, Mode: R}, {H: b, Mode: RW}}}) // 3: xfer of a, 4: gemm
	rt.Barrier()                                                                                                 // 5
	rt.Submit(w(a, "dot"))                                                                                       // 6
	g := rt.Graph()
	want := []struct {
		kind string
		deps []int
	}{{"dcmg", nil}, {"dcmg", nil}, {"barrier", []int{0, 1}}, {XferKind, []int{0, 2}}, {"gemm", []int{1, 2, 3}}, {"barrier", []int{2, 3, 4}}, {"dot", []int{3, 5}}}
	if len(g.Nodes) != len(want) {
		t.Fatalf("%d nodes, want %d: %+v", len(g.Nodes), len(want), g.Nodes)
	}
	for i, n := range g.Nodes {
		if n.Kind != want[i].kind || !slices.Equal(n.Deps, want[i].deps) {
			t.Errorf("node %d: %s deps %v, want %s deps %v", i, n.Kind, n.Deps, want[i].kind, want[i].deps)
		}
	}
	if tasks, _ := g.Work(); tasks[0]+tasks[1] != 4 {
		t.Errorf("Work counts %v tasks, want 4 (barriers are not tasks)", tasks)
	}
}
