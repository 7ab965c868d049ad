package job

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// RankMemory is the memory one rank of a run used, in bytes.
type RankMemory struct {
	Rank int `json:"rank"`
	// Busy is the rank's own busy seconds per evaluation, summed over its
	// workers (gen, chol, solve) and its wall seconds: the load balance
	// between ranks (FitResult.PerEval is rank 0's); simulate and
	// predict give the wall seconds of their run.
	Busy map[string]float64 `json:"busy_seconds_per_evaluation,omitempty"`
	// OwnedTileBytes is the size of the lower tiles of the covariance
	// matrix (and its Cholesky factor) this rank owns under the
	// factorisation distribution, computed from the distribution: the
	// rank's share of the matrix. (It is not runtime.OwnedBytes, which
	// counts every handle registered so far: vectors, prediction and
	// Fisher matrices, the simulation's tiles.)
	OwnedTileBytes int64 `json:"owned_tile_bytes"`
	// PeakTileBytes is the most tile data the rank held at once over the
	// whole run (runtime.MemStats.Peak), its own tiles and replicas.
	PeakTileBytes int64 `json:"peak_tile_bytes"`
	// PeakReplicaBytes is the most of it in copies of tiles other ranks
	// own (received replicas, tiles generated for another rank).
	PeakReplicaBytes int64 `json:"peak_replica_bytes"`
	// ReplicaBudgetBytes is the runtime's budget of replicas received
	// ahead of need during the fit (runtime.ReplicaBudget).
	ReplicaBudgetBytes int64 `json:"replica_budget_bytes"`
	// PeakRSSBytes is the process's peak resident set size (VmHWM).
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// NeedBytes is the estimate checked before the run started
	// (likelihood.MemoryNeed and the assessment's needs), and
	// AvailableBytes what the rank had then, from AvailableSource
	// (--memory-limit, MemAvailable, cgroup); 0 and "" when unknown.
	NeedBytes       int64  `json:"need_bytes"`
	AvailableBytes  int64  `json:"available_bytes,omitempty"`
	AvailableSource string `json:"available_source,omitempty"`
}

// checkMemory compares each rank's need (need[r], the same table on every
// rank) with the memory that rank has (memory.Available with userLimit,
// shared by the ranks of its node), and returns the same error on every
// rank when some rank lacks memory: one line naming the first such rank,
// the bytes it needs (what describes the problem), the bytes it has and
// where that figure comes from. Every rank must call it (collective); it
// returns what this rank has.
func checkMemory(w comm.Comm, cmd string, need []int64, userLimit int64, what string) (memory.Limit, error) {
	me := w.Rank()
	lim, ok := memory.Available(userLimit, memory.LocalRanks())
	first := int64(w.Size())
	msg := ""
	if ok && need[me] > lim.Bytes {
		first = int64(me)
		msg = fmt.Sprintf("%s: rank %d needs %s (%s); %s available (%s)",
			cmd, me, memory.Format(need[me]), what, memory.Format(lim.Bytes), lim.Source)
	}
	if !ok {
		lim = memory.Limit{}
	}
	first, err := w.AllreduceMin(first)
	if err != nil {
		return lim, err
	}
	if first >= int64(w.Size()) {
		return lim, nil
	}
	b, err := w.Bcast(int(first), []byte(msg))
	if err != nil {
		return lim, err
	}
	return lim, &InputError{Err: fmt.Errorf("%s", b), Agreed: true}
}

// gatherMemory returns, on rank 0, every rank's report (nil elsewhere).
// Every rank must call it.
func gatherMemory(rt *runtime.Runtime, mine RankMemory) ([]RankMemory, error) {
	b, err := json.Marshal(mine)
	if err != nil {
		return nil, err
	}
	all, err := rt.GatherBytes(b, 0)
	if err != nil || rt.Rank() != 0 {
		return nil, err
	}
	out := make([]RankMemory, len(all))
	for i, p := range all {
		if err := json.Unmarshal(p, &out[i]); err != nil {
			return nil, fmt.Errorf("memory report of rank %d: %w", i, err)
		}
	}
	return out, nil
}

// addTo adds b to a element by element.
func addTo(a, b []int64) {
	for i := range a {
		a[i] += b[i]
	}
}

// problem describes a run's size for messages: "N=4000, nb=400, 2 ranks".
func problem(n, nb, ranks int) string {
	s := "s"
	if ranks == 1 {
		s = ""
	}
	return fmt.Sprintf("N=%d, nb=%d, %d rank%s", n, nb, ranks, s)
}

// The task graph's own memory. A rank holds every task of a graph it runs
// from submission to the Wait that ends the graph (the task, its accesses,
// dependency edges and trace event), and a handle for every tile of the
// matrix (every rank submits the whole graph). With small tiles that
// overhead, not the tiles, is what runs out: at N = 400 and nb = 1 one
// evaluation is 10.9 million tasks. Measured on the peak resident set of
// fits of one evaluation (N = 400, nb = 4 and 2; N = 600, nb = 2: 0.18, 1.4
// and 4.6 million tasks, 217 MB, 1.71 GB, 3.89 GB), a task cost 850-1230
// bytes with the garbage collector's slack; a tile handle about 450 bytes
// beyond its data. The trace event of a task has grown since (CPU time,
// submission and ready times): one traced evaluation at N = 400 now
// measures 1460-1540 bytes a task between nb = 8 and nb = 5 or 4 (the
// difference of the peaks over that of the tasks), and fit --n 400 --nb 4
// peaked at 333 MB where 1200 bytes a task estimated 289 MB; hence 1800
// (TestMemoryPeak measures it).
const (
	taskBytes   = 1800
	handleBytes = 512
)

// graph is the largest task graph of a job: its tasks and the tile handles
// registered while it runs, and a name for messages.
type graph struct {
	tasks, tiles float64
	phase        string
}

// bytes returns g's memory over all ranks of a run (tasks) and on each rank
// (handles).
func (g graph) bytes() (tasks, handles float64) { return g.tasks * taskBytes, g.tiles * handleBytes }

// larger returns the larger of g and h.
func (g graph) larger(h graph) graph {
	if h.tasks*taskBytes+h.tiles*handleBytes > g.tasks*taskBytes+g.tiles*handleBytes {
		return h
	}
	return g
}

// tilesPerSide returns NT = ceil(n/nb) as a float (no overflow).
func tilesPerSide(n, nb int) float64 { return math.Ceil(float64(n) / float64(max(nb, 1))) }

// evalGraph is one likelihood evaluation (or simulation) of n points with
// tile size nb: the Cholesky's tasks (cholesky.Tasks), and NT^2 + 5 NT - 1
// of the generation (dcmg NT(NT+1)/2, zcpy NT), the log-determinant (det
// NT), the solve (trsv NT, gemv NT(NT-1)/2, geadd NT - 1) and the dot
// product (dot NT), (NT^3 + 9 NT^2 + 38 NT - 12)/6 in all (as counted on
// the runtime: 182,298 at NT = 100, 1,394,598 at NT = 200); and NT(NT+1)/2
// tiles.
func evalGraph(n, nb int) graph {
	x := tilesPerSide(n, nb)
	return graph{tasks: cholesky.Tasks(x) + x*x + 5*x - 1, tiles: x * (x + 1) / 2, phase: "one evaluation"}
}

// fisherGraph is the Fisher information of free parameters (predict.FisherInfo):
// per parameter NT^2 derivative tiles and two triangular solves of NT^3/2
// tasks each, then the traces, on top of the factor's tiles.
func fisherGraph(n, nb, free int) graph {
	x, f := tilesPerSide(n, nb), float64(free)
	return graph{tasks: f*(x*x*x+3*x*x) + f*(f+1)/2*x*x, tiles: x*(x+1)/2 + f*x*x, phase: "the Fisher information"}
}

// krigeGraph is one batch of kriging n2 locations from n1 (predict.Krige):
// the cross-covariance's column tiles (the batch's width over
// max(nb, 1024)), each a triangular solve of NT(NT+1)/2 tasks, and the
// products.
func krigeGraph(n1, n2, nb int) graph {
	x := tilesPerSide(n1, nb)
	cw := min(n2, max(nb, 1024))
	per := max(cw, (512<<20)/(8*max(n1, 1))/cw*cw)
	cols := math.Ceil(float64(min(n2, per)) / float64(max(cw, 1)))
	return graph{tasks: cols*(x*(x+1)/2+3*x) + x, tiles: x*(x+1)/2 + cols*x, phase: fmt.Sprintf("kriging %d locations", n2)}
}

// graphNeed returns, per rank, the memory of g on a run of n points with
// tile size nb distributed by own over ranks: the rank's share of the
// tasks (its share of the matrix's tiles) and every tile's handle.
func graphNeed(g graph, n, nb int, own tile.OwnerFunc, ranks int) []int64 {
	tasks, handles := g.bytes()
	out := make([]int64, ranks)
	share := make([]float64, ranks)
	if ranks == 1 {
		share[0] = 1
	} else {
		owned := tile.NewLayout(n, nb).LowerBytes(own, ranks, nil)
		var total float64
		for _, b := range owned {
			total += float64(b)
		}
		for r, b := range owned {
			share[r] = float64(b) / max(total, 1)
		}
	}
	for r := range out {
		out[r] = clampBytes(tasks*share[r] + handles)
	}
	return out
}

// clampBytes converts b to int64, saturating (the estimates of absurd runs
// overflow).
func clampBytes(b float64) int64 {
	if b >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(b)
}

// scale is a problem a job runs: n points in tiles of nb, and its largest
// task graph.
type scale struct {
	n, nb int
	g     graph
	// tiles, when > 0, is the run's tile data in bytes instead of the
	// dense lower triangle (an approximate computation's, from
	// likelihood.ApproxNeed), which note describes in messages.
	tiles float64
	note  string
}

// checkScale is a job's first memory check, made before the tile
// distributions and their owner tables are built and before anything of
// the size of the problem is allocated (collective). It needs no
// distribution: each rank's even share of the lower tiles and of the
// largest graph's tasks, every tile's handle, and likelihood.Overhead; a
// run that does not fit stops with the agreed message of checkMemory,
// which names the graph when it is most of the need. The detailed
// per-rank check (checkMemory after the distribution) follows.
func checkScale(w comm.Comm, cmd string, userLimit int64, runs ...scale) error {
	ranks := float64(w.Size())
	var need float64
	var worst scale
	for _, s := range runs {
		tileData := 8 * float64(s.n) * (float64(s.n) + float64(s.nb)) / 2
		if s.tiles > 0 {
			tileData = s.tiles
		}
		tasks, handles := s.g.bytes()
		b := (tileData+tasks)/ranks + handles + 2*8*float64(s.nb)*float64(s.nb) + likelihood.Overhead
		if b > need {
			need, worst = b, s
		}
	}
	what := problem(worst.n, worst.nb, w.Size()) + worst.note + graphNote(worst.g, clampBytes(need*ranks))
	needs := make([]int64, w.Size())
	for r := range needs {
		needs[r] = clampBytes(need)
	}
	_, err := checkMemory(w, cmd, needs, userLimit, what)
	return err
}

// graphNote describes g for the message of a run that needs need bytes on
// its largest rank, when g's tasks are a quarter of that or more: ": one
// evaluation is a graph of 10.9 million tasks of about 1.8 kB each".
func graphNote(g graph, need int64) string {
	if tasks, _ := g.bytes(); tasks < float64(need)/4 || tasks < 100e6 {
		return ""
	}
	return fmt.Sprintf(": %s is a graph of %s tasks of about %s each", g.phase, count(g.tasks), memory.Format(taskBytes))
}

// count formats a large count: "10.9 million".
func count(x float64) string {
	switch {
	case x >= 1e12:
		return fmt.Sprintf("%.3g trillion", x/1e12)
	case x >= 1e9:
		return fmt.Sprintf("%.3g billion", x/1e9)
	case x >= 1e6:
		return fmt.Sprintf("%.3g million", x/1e6)
	}
	return fmt.Sprintf("%.0f", x)
}

// CheckLocal checks the need of a command that runs on one process (plan,
// bench, simulate-cluster) against the memory it has (memory.Available,
// no user limit): an *InputError "plan: needs 1.2 TB (what); 24.3 GB
// available (MemAvailable)" when it does not fit, nil when it does or when
// nothing could be read.
func CheckLocal(cmd string, need float64, what string) error {
	lim, ok := memory.Available(0, memory.LocalRanks())
	if !ok || need <= float64(lim.Bytes) {
		return nil
	}
	return badInput("%s: needs %s (%s); %s available (%s)", cmd, memory.Format(clampBytes(need)), what, memory.Format(lim.Bytes), lim.Source)
}

// fitScales returns the problems of a fit for checkScale and graphNeed:
// the search over n points with tile size nb, whose largest graph is an
// evaluation's or an assessment phase's (the Fisher information of the
// free parameters, kriging the held-out locations or the --grid), and, for
// the simulated default problem, the simulation of all nAll points.
func fitScales(cfg config.Fit, n, nb, nAll, held int) []scale {
	g := evalGraph(n, nb)
	free := 0
	for i := range cfg.Lower {
		if i < len(cfg.Upper) && cfg.Lower[i] != cfg.Upper[i] {
			free++
		}
	}
	if (cfg.StdErr || cfg.Holdout > 0) && free > 0 {
		g = g.larger(fisherGraph(n, nb, free))
	}
	if held > 0 {
		g = g.larger(krigeGraph(n, held, nb))
	}
	if gx, gy, _ := cfg.GridSize(); gx*gy > 0 {
		g = g.larger(krigeGraph(n, gx*gy, nb))
	}
	out := []scale{{n: n, nb: nb, g: g}}
	if cfg.Simulated() {
		simNB := cfg.NB
		if simNB == 0 {
			simNB = tile.AutoNB(nAll)
		}
		out = append(out, scale{n: nAll, nb: simNB, g: evalGraph(nAll, simNB)})
	}
	return out
}

// most returns the largest of need.
func most(need []int64) int64 {
	m := int64(0)
	for _, b := range need {
		m = max(m, b)
	}
	return m
}

// drawsNeed returns the bytes rank 0 needs, beyond kriging's
// (predict.KrigeNeed), for k conditional simulations at n2 new locations
// given n1 observations (predict.ConditionalDrawsUniversal): V = L^-1
// Sigma12 whole (n1 n2 words), the lower tiles of V^T V (about n2^2/2
// words), the n2 x n2 conditional covariance and its Cholesky factor (n2^2
// words each) and the draws (k n2 words).
func drawsNeed(n1, n2, k int) int64 {
	return 8*int64(n1)*int64(n2) + 20*int64(n2)*int64(n2) + 8*int64(n2)*int64(k)
}
