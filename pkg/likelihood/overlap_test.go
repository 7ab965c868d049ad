package likelihood

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

// combos returns the 64 combinations of the six switches.
func combos() []Overlap {
	var out []Overlap
	for bits := 0; bits < 64; bits++ {
		var o Overlap
		for i, name := range OverlapNames() {
			o.Set(name, bits&(1<<i) != 0)
		}
		out = append(out, o)
	}
	return out
}

// TestOverlapBitwise: l is bitwise the same with each of the 64
// combinations of the switches, on 1 and 2 workers, over two evaluations
// at different theta (the second one reuses, or with memory off drops,
// the first one's tiles), and equals the dense reference to 1e-10.
func TestOverlapBitwise(t *testing.T) {
	p := problem(170, 3)
	thetas := [][]float64{{1.3, 0.08, 0.8}, {0.9, 0.12, 1.1}}
	want := make([]float64, len(thetas))
	for i, th := range thetas {
		want[i] = denseLogLik(t, p, th)
	}
	var first []float64
	for _, workers := range []int{1, 2} {
		for _, ov := range combos() {
			rt := runtime.New(ov.RuntimeOptions(runtime.Options{Workers: workers, Trace: true}))
			ev, err := NewWith(p, rt, Options{NB: 32, Overlap: &ov})
			if err != nil {
				t.Fatal(err)
			}
			for i, th := range thetas {
				l, _, err := ev.LogLik(th)
				if err != nil {
					t.Fatalf("%d workers, %s: %v", workers, ov, err)
				}
				if first == nil || len(first) <= i {
					first = append(first, l)
					if math.Abs(l-want[i]) > 1e-10*math.Abs(want[i]) {
						t.Errorf("theta %v: l = %.17g, dense %.17g", th, l, want[i])
					}
				}
				if l != first[i] {
					t.Errorf("%d workers, %s, theta %v: l = %.17g, want bitwise %.17g", workers, ov, th, l, first[i])
				}
			}
			rt.Close()
		}
	}
}

// TestOverlapBitwiseTwoRanks: on 2 in-process ranks (block-cyclic on 1 x 2),
// each combination gives every rank the single-rank l bitwise.
func TestOverlapBitwiseTwoRanks(t *testing.T) {
	p := problem(150, 5)
	th := []float64{1.1, 0.1, 0.9}
	const nb = 30
	nt := tile.NewLayout(len(p.Obs), nb).NT
	rt := runtime.New(runtime.Options{Workers: 1})
	ev, err := New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ev.LogLik(th)
	rt.Close()
	if err != nil {
		t.Fatal(err)
	}
	if d := denseLogLik(t, p, th); math.Abs(want-d) > 1e-10*math.Abs(d) {
		t.Fatalf("single rank %.17g, dense %.17g", want, d)
	}
	fact := blockCyclic2(t, nt)
	for _, ov := range combos() {
		g := comm.NewGroup(2)
		var wg sync.WaitGroup
		ls := make([]float64, 2)
		errs := make([]error, 2)
		for r := 0; r < 2; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rt := runtime.New(ov.RuntimeOptions(runtime.Options{Workers: 1, Comm: g.Endpoint(r), Trace: true}))
				defer rt.Close()
				ev, err := NewWith(p, rt, Options{NB: nb, Owner: fact.Owner, Overlap: &ov})
				if err != nil {
					errs[r] = err
					return
				}
				for range 2 {
					ls[r], _, errs[r] = ev.LogLik(th)
				}
			}()
		}
		wg.Wait()
		for r := range 2 {
			if errs[r] != nil || ls[r] != want {
				t.Errorf("%s: rank %d: l = %.17g (%v), want bitwise %.17g", ov, r, ls[r], errs[r], want)
			}
		}
	}
}

// blockCyclic2 is the block-cyclic distribution of nt x nt tiles on a
// 1 x 2 grid of ranks: tile (m, n) on rank n mod 2, so the off-diagonal
// tiles of half the rows live away from z(m).
func blockCyclic2(t *testing.T, nt int) distribution.Distribution {
	d, err := distribution.New("bc", 2, 1, 2, nil, nt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// phaseOf numbers the phases the synchronous mode separates.
func phaseOf(k string) int {
	switch k {
	case kind.Dcmg, kind.Zcpy:
		return 0
	case kind.Potrf, kind.Trtri, kind.Trmm, kind.Syrk, kind.Gemm:
		return 1
	case kind.Det:
		return 2
	case kind.Trsv, kind.Gemv, kind.Geadd:
		return 3
	case kind.Dot:
		return 4
	}
	return -1
}

// TestOverlapGraph: each switch changes the submitted graph and its run as
// Figure 5's ablation says, checked from the runtime's trace and the
// recorded graph (runtime.Options.Record), one row per switch.
func TestOverlapGraph(t *testing.T) {
	p := problem(260, 7)
	th := []float64{1, 0.1, 0.5}
	const nb = 40
	nt := tile.NewLayout(len(p.Obs), nb).NT
	// run evaluates twice on 2 workers (plus the helper) and returns the
	// second evaluation's events, its workers and the allocations it made.
	run := func(t *testing.T, ov Overlap) ([]trace.Event, int, int64) {
		rt := runtime.New(ov.RuntimeOptions(runtime.Options{Workers: 2, Trace: true}))
		defer rt.Close()
		ev, err := NewWith(p, rt, Options{NB: nb, Overlap: &ov, KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ev.LogLik(th); err != nil {
			t.Fatal(err)
		}
		a0 := rt.Mem().Allocs
		if _, _, err := ev.LogLik(th); err != nil {
			t.Fatal(err)
		}
		var second []trace.Event
		for _, e := range ev.Events() {
			if e.Iter == 2 {
				second = append(second, e)
			}
		}
		return second, rt.Workers(), rt.Mem().Allocs - a0
	}
	// record returns the graph of one evaluation on 2 ranks (block-cyclic
	// on 1 x 2).
	record := func(t *testing.T, ov Overlap) *runtime.Graph {
		rt := runtime.New(runtime.Options{Record: true, Ranks: 2})
		ev, err := NewWith(p, rt, Options{NB: nb, Owner: blockCyclic2(t, nt).Owner, Overlap: &ov})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ev.LogLik(th); err != nil {
			t.Fatal(err)
		}
		return rt.Graph()
	}
	off := func(name string) Overlap {
		o := AllOverlap()
		o.Set(name, false)
		return o
	}
	// Phases separated: every task of phase i ends before any of phase
	// i+1 starts.
	separated := func(ev []trace.Event) bool {
		end := make([]int64, 5)
		start := make([]int64, 5)
		for i := range start {
			start[i] = math.MaxInt64
		}
		for _, e := range ev {
			if ph := phaseOf(e.Kind); ph >= 0 {
				end[ph] = max(end[ph], e.End)
				start[ph] = min(start[ph], e.Start)
			}
		}
		for i := 0; i+1 < 5; i++ {
			if end[i] > start[i+1] {
				return false
			}
		}
		return true
	}
	prios := func(g *runtime.Graph, kinds ...string) (nonzero int) {
		for _, n := range g.Nodes {
			if slices.Contains(kinds, n.Kind) && n.Priority != 0 {
				nonzero++
			}
		}
		return nonzero
	}
	genOrder := func(g *runtime.Graph) [][2]int {
		var out [][2]int
		for _, n := range g.Nodes {
			if n.Kind == kind.Dcmg {
				out = append(out, [2]int{n.Tile[0], n.Tile[1]})
			}
		}
		return out
	}
	var natural, priority [][2]int
	for m := 0; m < nt; m++ {
		for c := 0; c <= m; c++ {
			natural = append(natural, [2]int{m, c})
		}
	}
	for d := 0; d <= 2*(nt-1); d++ { // anti-diagonals m + n = d, n ascending
		for c := 0; c <= d/2; c++ {
			if m := d - c; m < nt {
				priority = append(priority, [2]int{m, c})
			}
		}
	}
	// solveTileMoves counts the messages of tiles of L (A(m,k), m > k)
	// read by the solve: transfers recorded after the last Cholesky task.
	solveTileMoves := func(g *runtime.Graph) int {
		last := 0
		for i, n := range g.Nodes {
			if phaseOf(n.Kind) == 1 {
				last = i
			}
		}
		moves := 0
		for _, n := range g.Nodes[last+1:] {
			if n.Kind == runtime.XferKind && n.Bytes == 8*nb*nb && n.Handle[0] == 'A' {
				moves++
			}
		}
		return moves
	}
	for _, c := range []struct {
		name  string
		ov    Overlap
		check func(t *testing.T)
	}{
		{"all on", AllOverlap(), nil},
		{"async off", off("async"), nil},
		{"local-solve off", off("local-solve"), nil},
		{"memory off", off("memory"), nil},
		{"priorities off", off("priorities"), nil},
		{"submission-order off", off("submission-order"), nil},
		{"oversubscription off", off("oversubscription"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ov := c.ov
			ev, workers, allocs := run(t, ov)
			g := record(t, ov)
			// 1. Barriers.
			if !ov.Async && !separated(ev) {
				t.Error("async off: phases overlap")
			}
			// 2. Local solve: the tiles of L travel to z's owner only
			// when it is off (on 2 ranks, block-cyclic on 1 x 2).
			if mv := solveTileMoves(g); (mv > 0) == ov.LocalSolve {
				t.Errorf("local-solve %v: %d tiles of L moved for the solve", ov.LocalSolve, mv)
			}
			// 3. Memory: the second evaluation allocates almost no tile
			// buffer with the pool (a worker's first scratch buffer, or a
			// temporary held longer than in the first evaluation: timing,
			// 4 seen under the race detector), one per tile and vector
			// block without.
			tiles := int64(nt * (nt + 1) / 2)
			if ov.Memory && allocs > 2+tiles/4 {
				t.Errorf("memory on: %d allocations in the second evaluation, want at most %d", allocs, 2+tiles/4)
			}
			if !ov.Memory && allocs < tiles {
				t.Errorf("memory off: %d allocations in the second evaluation, want >= %d tiles", allocs, tiles)
			}
			// 4. Priorities: generation and solve at 0 when off; the
			// Cholesky keeps its own.
			gs := prios(g, kind.Dcmg, kind.Zcpy, kind.Trsv, kind.Gemv, kind.Geadd)
			if (gs > 0) != ov.Priorities {
				t.Errorf("priorities %v: %d generation/solve tasks with a priority", ov.Priorities, gs)
			}
			if prios(g, kind.Potrf, kind.Gemm) == 0 {
				t.Error("the Cholesky lost its priorities")
			}
			// 5. Submission order of the generation.
			want := natural
			if ov.GenOrder {
				want = priority
			}
			if got := genOrder(g); !slices.Equal(got, want) {
				t.Errorf("submission-order %v: dcmg submitted %v, want %v", ov.GenOrder, got, want)
			}
			// 6. Oversubscription: one more worker, and it never runs
			// dcmg.
			wantW := 2
			if ov.Oversubscribe {
				wantW = 3
			}
			if workers != wantW {
				t.Errorf("oversubscription %v: %d workers, want %d", ov.Oversubscribe, workers, wantW)
			}
			for _, e := range ev {
				if ov.Oversubscribe && e.Worker == 2 && e.Kind == kind.Dcmg {
					t.Fatalf("the helper worker ran %s%v", e.Kind, e.Tile)
				}
			}
		})
	}
}
