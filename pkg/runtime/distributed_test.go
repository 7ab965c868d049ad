package runtime

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
)

// randomProgram is a sequential program over nh handles of len 3: each step
// writes handle out from its old value (RW) or from scratch (W) and the
// handles in; owners and pins place the steps on ranks.
type randomStep struct {
	out  int
	mode Mode
	in   []int
	pin  int // -1: owner computes
}

func randomProgram(seed uint64, nh, steps, ranks int) (owners []int, prog []randomStep) {
	rng := rand.New(rand.NewPCG(seed, 7))
	owners = make([]int, nh)
	for i := range owners {
		owners[i] = rng.IntN(ranks)
	}
	for s := 0; s < steps; s++ {
		st := randomStep{out: rng.IntN(nh), mode: RW, pin: -1}
		if rng.IntN(4) == 0 {
			st.mode = W
		}
		if rng.IntN(5) == 0 {
			st.pin = rng.IntN(ranks)
		}
		for k := rng.IntN(3); k > 0; k-- {
			if in := rng.IntN(nh); in != st.out {
				st.in = append(st.in, in)
			}
		}
		prog = append(prog, st)
	}
	return owners, prog
}

// apply is the step's arithmetic: out = 0.5 out (RW) + sum of in + step.
func apply(step int, st randomStep, out []float64, in [][]float64) {
	for i := range out {
		v := float64(step)
		if st.mode == RW {
			v += 0.5 * out[i]
		}
		for _, x := range in {
			v += x[i] * float64(i+1)
		}
		out[i] = v
	}
}

func sequential(nh int, prog []randomStep) [][]float64 {
	data := make([][]float64, nh)
	for i := range data {
		data[i] = []float64{float64(i), 1, 2}
	}
	for s, st := range prog {
		in := make([][]float64, len(st.in))
		for k, h := range st.in {
			in[k] = data[h]
		}
		apply(s, st, data[st.out], in)
	}
	return data
}

// submitProgram submits prog on rt over fresh handles, each task reading and
// writing the buffers the runtime hands it, and fetches them all.
func submitProgram(rt *Runtime, owners []int, prog []randomStep, slow bool) []*Handle {
	hs := make([]*Handle, len(owners))
	for i := range hs {
		hs[i] = rt.RegisterData(fmt.Sprint("h", i), owners[i], []float64{float64(i), 1, 2})
	}
	for s, st := range prog {
		acc := []Access{{H: hs[st.out], Mode: st.mode}}
		for _, h := range st.in {
			acc = append(acc, Access{H: hs[h], Mode: R})
		}
		t := Task{Kind: "step", Tile: [3]int{s, -1, -1}, Priority: s % 3, Access: acc,
			Run: func(c Context) error {
				if slow && s%7 == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				in := make([][]float64, len(st.in))
				for k := range in {
					in[k] = c.Vector(k + 1)
				}
				apply(s, st, c.Vector(0), in)
				return nil
			}}
		if st.pin >= 0 {
			t.Pin, t.Rank = true, st.pin
		}
		rt.Submit(t)
	}
	for _, h := range hs {
		rt.Fetch(h)
	}
	return hs
}

// values returns this rank's copies of hs (after Wait).
func values(rt *Runtime, hs []*Handle) [][]float64 {
	out := make([][]float64, len(hs))
	for i, h := range hs {
		out[i] = slices.Clone(rt.Local(h))
	}
	return out
}

// runRanks runs f on size goroutine ranks sharing a comm.Group.
func runRanks(t *testing.T, size int, f func(c comm.Comm)) {
	t.Helper()
	g := comm.NewGroup(size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(g.Endpoint(r))
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("ranks hang")
	}
}

func TestDistributedMatchesSequential(t *testing.T) {
	for _, tc := range []struct {
		ranks, workers int
		budget         int64 // Options.ReplicaBudget; 1: only the earliest receive is posted ahead
	}{{2, 1, 0}, {3, 2, 0}, {4, 2, 0}, {5, 1, 0}, {3, 2, 1}, {4, 1, -1}} {
		for seed := uint64(1); seed <= 12; seed++ {
			owners, prog := randomProgram(seed, 9, 80, tc.ranks)
			want := sequential(len(owners), prog)
			traffic := make([]map[TrafficKey]Traffic, tc.ranks)
			runRanks(t, tc.ranks, func(c comm.Comm) {
				rt := New(Options{Workers: tc.workers, Comm: c, Trace: true, ReplicaBudget: tc.budget})
				defer rt.Close()
				hs := submitProgram(rt, owners, prog, true)
				if err := rt.Wait(); err != nil {
					t.Errorf("rank %d: %v", c.Rank(), err)
					return
				}
				got := values(rt, hs)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("ranks %d seed %d: rank %d holds %v, sequential %v", tc.ranks, seed, c.Rank(), got, want)
				}
				traffic[c.Rank()] = rt.Traffic()
				for _, e := range rt.Events() {
					if e.Rank != c.Rank() {
						t.Errorf("event of rank %d on rank %d", e.Rank, c.Rank())
					}
				}
			})
			for r := 1; r < tc.ranks; r++ {
				if !reflect.DeepEqual(traffic[r], traffic[0]) {
					t.Fatalf("ranks %d seed %d: rank %d counts other messages than rank 0", tc.ranks, seed, r)
				}
			}
			// The recorded graph has the same messages, computed apart.
			rec := New(Options{Record: true, Ranks: tc.ranks})
			submitProgram(rec, owners, prog, false)
			g := rec.Graph()
			recTraffic := rec.Traffic()
			if !reflect.DeepEqual(recTraffic, traffic[0]) {
				t.Fatalf("ranks %d seed %d: recorded messages %v, run %v", tc.ranks, seed, recTraffic, traffic[0])
			}
			tasks, _ := g.Work()
			total := 0
			for _, n := range tasks {
				total += n
			}
			if total != len(prog) {
				t.Fatalf("recorded %d tasks, want %d", total, len(prog))
			}
		}
	}
}

// TestNoVersionSentTwice: a handle written once and read by many tasks on
// another rank travels once; written again, once more.
func TestNoVersionSentTwice(t *testing.T) {
	runRanks(t, 2, func(c comm.Comm) {
		rt := New(Options{Workers: 2, Comm: c})
		defer rt.Close()
		a := rt.Register("a", 0, Vector{N: 10})
		bs := make([]*Handle, 5)
		for i := range bs {
			bs[i] = rt.RegisterData(fmt.Sprint("b", i), 1, make([]float64, 10))
		}
		for round := 0; round < 2; round++ {
			rt.Submit(Task{Kind: "w", Access: []Access{{H: a, Mode: W}}, Run: func(Context) error { return nil }})
			for _, b := range bs {
				rt.Submit(Task{Kind: "r", Access: []Access{{H: b, Mode: RW}, {H: a, Mode: R}}, Run: func(Context) error { return nil }})
			}
		}
		if err := rt.Wait(); err != nil {
			t.Error(err)
		}
		tr := rt.Traffic()
		want := map[TrafficKey]Traffic{{Src: 0, Dst: 1, Writer: "w", Reader: "r"}: {Messages: 2, Bytes: 160}}
		if !reflect.DeepEqual(tr, want) {
			t.Errorf("rank %d: traffic %v, want %v", c.Rank(), tr, want)
		}
	})
}

type classedErr struct{}

func (classedErr) Error() string      { return "not positive definite" }
func (classedErr) ErrorClass() string { return "npd" }

// TestDistributedFailure: a task failing on one rank makes Wait return the
// same error, naming that rank and task, on every rank; the next graph runs.
func TestDistributedFailure(t *testing.T) {
	for _, forced := range []bool{false, true} {
		errs := make([]error, 3)
		second := make([]error, 3)
		runRanks(t, 3, func(c comm.Comm) {
			opts := Options{Workers: 2, Comm: c}
			if forced {
				opts.FailTask, opts.FailRank = "fail(1,2)", 2
			}
			rt := New(opts)
			defer rt.Close()
			owners, prog := randomProgram(3, 6, 40, 3)
			h := rt.Register("x", 1, Vector{N: 3})
			rt.Submit(Task{Kind: "fail", Tile: [3]int{1, 2, -1}, Access: []Access{{H: h, Mode: W}},
				Pin: forced, Rank: 2, Run: func(Context) error {
					if forced {
						return nil
					}
					return classedErr{}
				}})
			submitProgram(rt, owners, prog, false)
			errs[c.Rank()] = rt.Wait()
			submitProgram(rt, owners, prog, false)
			second[c.Rank()] = rt.Wait()
		})
		for r, err := range errs {
			var te *TaskError
			if !errors.As(err, &te) {
				t.Fatalf("forced %v: rank %d: error %v, want a TaskError", forced, r, err)
			}
			want := "rank 1: task fail(1,2): not positive definite"
			if forced {
				want = "rank 2: task fail(1,2): " + ErrForced.Error()
			} else if ClassOf(err) != "npd" {
				t.Errorf("rank %d: class %q, want npd", r, ClassOf(err))
			}
			if err.Error() != want {
				t.Errorf("forced %v: rank %d: %q, want %q", forced, r, err, want)
			}
			if !forced && second[r] != nil {
				t.Errorf("rank %d: second graph: %v", r, second[r])
			}
		}
	}
}
