package job

import (
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

// evalTasks counts the tasks of one evaluation with T tiles per side, kind
// by kind: generation (dcmg, one per lower tile; zcpy, one per block of
// z), the Cholesky by inversion (potrf and det on each diagonal tile,
// trtri on all but the last, trmm and syrk below the diagonal, gemm on
// each triple m > n > k), the solve (trsv per block, gemv below the
// diagonal, geadd between blocks) and dot.
func evalTasks(T int) map[string]int {
	below := T * (T - 1) / 2
	return map[string]int{
		"dcmg": T * (T + 1) / 2, "zcpy": T,
		"potrf": T, "trtri": T - 1, "trmm": below, "syrk": below, "gemm": T * (T - 1) * (T - 2) / 6,
		"det": T, "trsv": T, "gemv": below, "geadd": T - 1, "dot": T,
	}
}

func sum(m map[string]int) int {
	s := 0
	for _, v := range m {
		s += v
	}
	return s
}

// TestEvalTasksOnRuntime: evalTasks is what the runtime runs for one
// evaluation (n points, tiles of nb, the last one partial).
func TestEvalTasksOnRuntime(t *testing.T) {
	for _, c := range []struct{ n, nb, T int }{{3, 3, 1}, {4, 2, 2}, {5, 1, 5}, {7, 2, 4}, {18, 3, 6}} {
		rng := rand.New(rand.NewSource(1))
		x, y, z := make([]float64, c.n), make([]float64, c.n), make([]float64, c.n)
		for i := range x {
			x[i], y[i], z[i] = rng.Float64(), rng.Float64(), rng.NormFloat64()
		}
		rt := runtime.New(runtime.Options{Workers: 1, Trace: true})
		ev, err := likelihood.New(likelihood.Problem{Points: matern.Points{X: x, Y: y}, Obs: z, Model: likelihood.Matern, Nugget: 0.1}, c.nb, rt, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ev.LogLik([]float64{1, 0.1, 0.5}); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, e := range ev.Events() {
			if e.Kind != trace.MemoryKind {
				got[e.Kind]++
			}
		}
		rt.Close()
		want := evalTasks(c.T)
		for k, v := range want {
			if v == 0 {
				delete(want, k)
			}
		}
		if len(got) != len(want) {
			t.Errorf("n %d nb %d: kinds %v, want %v", c.n, c.nb, got, want)
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("n %d nb %d: %d %s tasks, want %d (all: %v)", c.n, c.nb, got[k], k, v, got)
			}
		}
	}
}

// TestEvalGraph: the estimate of an evaluation's graph counts its tasks
// (the table's, which TestEvalTasksOnRuntime checks on the runtime) and
// its tiles.
func TestEvalGraph(t *testing.T) {
	for _, c := range []struct {
		n, nb, T int
		tasks    int // evalTasks(T), written out
	}{
		{7, 7, 1, 6},
		{8, 2, 4, 58},
		{400, 4, 100, 182298},
		{401, 4, 101, 187656},
		{400, 2, 200, 1394598},
		{400, 1, 400, 10909198},
	} {
		if s := sum(evalTasks(c.T)); s != c.tasks {
			t.Fatalf("T %d: evalTasks sums to %d, table says %d", c.T, s, c.tasks)
		}
		g := evalGraph(c.n, c.nb)
		if g.tasks != float64(c.tasks) {
			t.Errorf("evalGraph(%d, %d).tasks = %.0f, want %d", c.n, c.nb, g.tasks, c.tasks)
		}
		if want := float64(c.T * (c.T + 1) / 2); g.tiles != want {
			t.Errorf("evalGraph(%d, %d).tiles = %.0f, want %.0f", c.n, c.nb, g.tiles, want)
		}
		if g.phase != "one evaluation" {
			t.Errorf("phase %q", g.phase)
		}
	}
}

// TestGraphNeed: each rank's memory of a graph: its share of the tasks
// (by the bytes of the tiles it owns) at 1800 bytes each, and a 512-byte
// handle for every tile.
func TestGraphNeed(t *testing.T) {
	diag := func(m, c int) int {
		if m == c {
			return 0
		}
		return 1
	}
	lastRow := func(m, c int) int {
		if m == 3 {
			return 1
		}
		return 0
	}
	for _, c := range []struct {
		name  string
		n, nb int
		own   tile.OwnerFunc
		ranks int
		want  []int64
	}{
		// T = 100: 182,298 tasks, 5050 tiles.
		{"one rank", 400, 4, nil, 1, []int64{182298*1800 + 5050*512}},
		// T = 4: 58 tasks (104,400 bytes), 10 tiles (5120 bytes); rank 0
		// owns the 4 diagonal tiles of 10, all of one size.
		{"diagonal on rank 0", 8, 2, diag, 2, []int64{104400*4/10 + 5120, 104400*6/10 + 5120}},
		// Rank 1 owns 7 of the 31 values (floor of 104400*24/31 + 5120
		// = 85945.8 and 104400*7/31 + 5120 = 28694.2).
		{"partial tiles", 7, 2, lastRow, 2, []int64{85945, 28694}},
		{"all on rank 0", 8, 2, nil, 3, []int64{104400 + 5120, 5120, 5120}},
		{"absurd", 1e9, 1, nil, 1, []int64{math.MaxInt64 / 2}},
	} {
		if got := graphNeed(evalGraph(c.n, c.nb), c.n, c.nb, c.own, c.ranks); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCheckScale: the first memory check refuses a run above the limit on
// every rank, naming its size and the bytes needed and available, and the
// graph when its tasks are a large share of the need. The need is (tile
// data + tasks)/ranks + handles + two nb x nb workspaces + 64 MiB, computed
// here by hand: the limit at the need passes, a byte less refuses.
func TestCheckScale(t *testing.T) {
	const note400 = ": one evaluation is a graph of 10.9 million tasks of about 1.8 kB each"
	big := scale{n: 400, nb: 1, g: evalGraph(400, 1)}              // 10,909,198 tasks: 19.6 GB of 19.7
	plain := scale{n: 20000, nb: 2000, g: evalGraph(20000, 2000)}  // 378 tasks
	wide := scale{n: 200000, nb: 2000, g: evalGraph(200000, 2000)} // 182,298 tasks: 328 MB of 162 GB
	for _, c := range []struct {
		name  string
		ranks int
		runs  []scale
		need  int64
		want  string // refused at 1 GB
	}{
		// 8*400*401/2 = 641,600 of tiles, 19,636,556,400 of tasks,
		// 80,200 handles (41,062,400), 16 of workspace, 67,108,864.
		{"graph most of the need", 1, []scale{big}, 19745369280,
			"fit: rank 0 needs 19.7 GB (N=400, nb=1, 1 rank" + note400 + "); 1 GB available (--memory-limit)"},
		{"two ranks", 2, []scale{big}, 9926770280,
			"fit: rank 0 needs 9.93 GB (N=400, nb=1, 2 ranks" + note400 + "); 1 GB available (--memory-limit)"},
		// 1.76e9 of tiles, 680,400 of tasks, 55 handles, 64e6 of workspace.
		{"small graph", 1, []scale{plain}, 1891817424,
			"fit: rank 0 needs 1.89 GB (N=20000, nb=2000, 1 rank); 1 GB available (--memory-limit)"},
		// The graph is over 100 MB but a small share: no note.
		{"large graph, small share", 4, []scale{wide}, 40615728564,
			"fit: rank 0 needs 40.6 GB (N=200000, nb=2000, 4 ranks); 1 GB available (--memory-limit)"},
		{"the largest run", 1, []scale{plain, big}, 19745369280,
			"fit: rank 0 needs 19.7 GB (N=400, nb=1, 1 rank" + note400 + "); 1 GB available (--memory-limit)"},
	} {
		for _, lim := range []int64{1e9, c.need - 1, c.need} {
			errs := ranksWithin(t, 10*time.Second, c.ranks, func(w comm.Comm) error {
				return checkScale(w, "fit", lim, c.runs...)
			})
			for r, err := range errs {
				switch {
				case lim == c.need:
					if err != nil {
						t.Errorf("%s, limit %d = the need, rank %d: %v", c.name, lim, r, err)
					}
				case err == nil || !IsInput(err) || !Agreed(err):
					t.Errorf("%s, limit %d, rank %d: %v, want an agreed input error", c.name, lim, r, err)
				case lim == 1e9 && err.Error() != c.want:
					t.Errorf("%s, rank %d:\n got %q\nwant %q", c.name, r, err, c.want)
				}
			}
		}
	}
}

// TestCheckMemoryFirstRank: the message names the first rank above its
// limit with its need and what it has; a rank exactly at its limit fits.
func TestCheckMemoryFirstRank(t *testing.T) {
	for _, c := range []struct {
		need  []int64
		limit int64
		want  string
	}{
		{[]int64{1e9, 1e9}, 1e9, ""},
		{[]int64{1e9, 1e9 + 1}, 1e9, "predict: rank 1 needs 1 GB (N=9); 1 GB available (--memory-limit)"},
		{[]int64{2500e6, 4e9, 3e9}, 2e9, "predict: rank 0 needs 2.5 GB (N=9); 2 GB available (--memory-limit)"},
		{[]int64{1, 2, 3456789012}, 3e9, "predict: rank 2 needs 3.46 GB (N=9); 3 GB available (--memory-limit)"},
	} {
		errs := ranksWithin(t, 10*time.Second, len(c.need), func(w comm.Comm) error {
			lim, err := checkMemory(w, "predict", c.need, c.limit, "N=9")
			if lim.Bytes != c.limit || lim.Source != "--memory-limit" {
				t.Errorf("rank %d: limit %+v", w.Rank(), lim)
			}
			return err
		})
		wantAgreed(t, "checkMemory", errs, c.want)
	}
}

// TestCount: large counts in messages.
func TestCount(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 999: "999", 999999: "999999", 1e6: "1 million", 10909200: "10.9 million",
		2.5e9: "2.5 billion", 3e12: "3 trillion",
	} {
		if got := count(x); got != want {
			t.Errorf("count(%g) = %q, want %q", x, got, want)
		}
	}
}
