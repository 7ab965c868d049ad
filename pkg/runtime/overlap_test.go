package runtime

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestHelpers: with Helpers workers, Workers() counts them, the helpers
// (the last indices) never run a task of an excluded kind, and they do
// run the other tasks, so those finish while the excluded ones occupy
// the other workers.
func TestHelpers(t *testing.T) {
	for _, c := range []struct {
		workers, helpers int
	}{{1, 1}, {2, 1}, {2, 2}} {
		r := New(Options{Workers: c.workers, Helpers: c.helpers, HelperExclude: []string{"slow"}, Trace: true})
		if got := r.Workers(); got != c.workers+c.helpers {
			t.Errorf("%+v: Workers() = %d", c, got)
		}
		var helperRan atomic.Int32
		for i := 0; i < 40; i++ {
			k := "slow"
			d := 2 * time.Millisecond
			if i%4 == 0 {
				k, d = "fast", 0
			}
			r.Submit(Task{Kind: k, Tile: [3]int{i, -1, -1}, Priority: i % 3, Run: func(ctx Context) error {
				if ctx.Worker >= c.workers {
					if k == "slow" {
						return errors.New("a helper ran an excluded task")
					}
					helperRan.Add(1)
				}
				time.Sleep(d)
				return nil
			}})
		}
		if err := r.Wait(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
		for _, e := range r.Events() {
			if e.Worker >= c.workers && e.Kind == "slow" {
				t.Errorf("%+v: helper %d ran %s", c, e.Worker, e.Kind)
			}
		}
		if helperRan.Load() == 0 {
			t.Errorf("%+v: the helpers ran nothing", c)
		}
		r.Close()
	}
}

// TestBarrier: Barrier returns once every task submitted before it has
// ended, and keeps a task's error for Wait.
func TestBarrier(t *testing.T) {
	r := New(Options{Workers: 2})
	defer r.Close()
	var done atomic.Int32
	for i := 0; i < 6; i++ {
		r.Submit(Task{Kind: "k", Tile: [3]int{i, -1, -1}, Run: func(Context) error {
			time.Sleep(3 * time.Millisecond)
			done.Add(1)
			return nil
		}})
	}
	r.Barrier()
	if n := done.Load(); n != 6 {
		t.Fatalf("Barrier returned after %d of 6 tasks", n)
	}
	boom := errors.New("boom")
	r.Submit(Task{Kind: "bad", Tile: [3]int{0, -1, -1}, Run: func(Context) error { return boom }})
	r.Barrier()
	if err := r.Wait(); !errors.Is(err, boom) {
		t.Fatalf("Wait after Barrier: %v, want boom", err)
	}
}

// TestNoPool: without the pool every write of a released handle
// allocates from the system and Reserve pre-allocates nothing; with it
// the second round reuses the first round's buffers.
func TestNoPool(t *testing.T) {
	for _, noPool := range []bool{false, true} {
		r := New(Options{Workers: 1, NoPool: noPool})
		f := Dense{M: 64, N: 64}
		r.Reserve(f, 2)
		wantReserved := int64(2)
		if noPool {
			wantReserved = 0
		}
		if a := r.Mem().Allocs; a != wantReserved {
			t.Errorf("NoPool %v: %d allocations after Reserve(2), want %d", noPool, a, wantReserved)
		}
		hs := []*Handle{r.Register("a", 0, f), r.Register("b", 0, f), r.Register("c", 0, f)}
		var allocs []int64
		for round := 0; round < 2; round++ {
			a0 := r.Mem().Allocs
			for _, h := range hs {
				r.Submit(Task{Kind: "w", Tile: [3]int{-1, -1, -1}, Access: []Access{{H: h, Mode: W}}, Run: func(Context) error { return nil }})
				r.Invalidate(h)
			}
			if err := r.Wait(); err != nil {
				t.Fatal(err)
			}
			allocs = append(allocs, r.Mem().Allocs-a0)
		}
		// With the pool: the reserved buffers serve every write (each is
		// released before the next), so none is allocated; without: one
		// per write.
		want := []int64{0, 0}
		if noPool {
			want = []int64{3, 3}
		}
		if allocs[0] != want[0] || allocs[1] != want[1] {
			t.Errorf("NoPool %v: allocations per round %v, want %v", noPool, allocs, want)
		}
		if m := r.Mem(); m.InUse != 0 || (noPool && m.Held != 0) {
			t.Errorf("NoPool %v: %+v after the handles were invalidated", noPool, m)
		}
		r.Close()
	}
}
