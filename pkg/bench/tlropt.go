package bench

import (
	"fmt"
	"time"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/sim"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

// TLROptOptions configures TLROpt: seed 002's optimisations of the TLR
// Cholesky measured in one run.
type TLROptOptions struct {
	Problem
	Accuracy float64 // TLR's absolute accuracy per tile
	// Computation is the approximation (default likelihood.TLR; MP and
	// DST with Band: DST with a band of NT - 1 or more is the exact
	// Cholesky on the approximate path).
	Computation likelihood.Computation
	Band        int
	Lookahead   []int // lookahead depths timed, each alone
	HPotrf      []int // hierarchical potrf sub-tile sizes timed, each alone
	// SimWorkers: each variant's graph is also replayed on one node of
	// this many workers, with the task durations measured in the run.
	SimWorkers []int
	// SimRanks: the baseline's graph (and the last variant's) is replayed
	// on this many nodes of SimCores workers each, block-cyclic against
	// hybrid, over links of Bandwidth bytes/s and Latency s.
	SimRanks []int
	// DistBands are the bands of the hybrid distributions replayed (the
	// sub-diagonals on the dense grid; nil: 0 only).
	DistBands          []int
	SimCores           int
	Bandwidth, Latency float64
	Progress           func(string)
}

// TLROptSim is one variant replayed on one node of Workers workers.
type TLROptSim struct {
	Workers int     `json:"workers"`
	Seconds float64 `json:"seconds"`
	Speedup float64 `json:"speedup_vs_baseline"` // baseline's makespan / this one's
}

// TLROptVariant is one set of switches, timed on this machine.
type TLROptVariant struct {
	Name      string  `json:"name"`
	Lookahead int     `json:"lookahead"`
	HPotrf    int     `json:"hpotrf"`
	Seconds   float64 `json:"seconds"` // median wall time of an evaluation
	Spread    Spread  `json:"seconds_spread"`
	Speedup   float64 `json:"speedup_vs_baseline"` // baseline's median / this one's
	LogLik    float64 `json:"loglik"`
	RelDiff   float64 `json:"rel_diff_vs_baseline"` // |l - l_baseline| / |l_baseline|
	// Utilization is seed 000's: the share of the workers' time in tasks.
	Utilization float64 `json:"utilization"`
	Chol        float64 `json:"chol_busy_s"` // busy seconds in Cholesky tasks
	// PotrfPath is the time from the start of the first potrf (or its
	// first sub-task) of the last diagonal tile to its end, summed over
	// the diagonal tiles: the diagonal factorisations on the critical path.
	PotrfPath float64 `json:"potrf_s"`
	// Work is the sum of the measured task durations of the replayed
	// graph and CritPath its longest chain of dependent tasks (each at its
	// measured duration): no number of workers runs the evaluation in less
	// than CritPath, nor in less than Work / workers.
	Work     float64 `json:"work_s"`
	CritPath float64 `json:"critical_path_s"`
	// PathKinds is the critical path's time by task kind.
	PathKinds map[string]float64 `json:"critical_path_by_kind"`
	Sim       []TLROptSim        `json:"sim,omitempty"`
}

// TLRDistSim is one evaluation replayed on Ranks nodes under one
// distribution.
type TLRDistSim struct {
	Variant  string  `json:"variant"`
	Ranks    int     `json:"ranks"`
	Workers  int     `json:"workers_per_node"`
	Dist     string  `json:"distribution"`
	Seconds  float64 `json:"seconds"`
	Messages int     `json:"messages"`
	Bytes    int64   `json:"bytes"`
	// Imbalance is the largest node's busy time over the mean node's.
	Imbalance float64 `json:"imbalance"`
	// DiagNodes is the number of nodes holding diagonal tiles.
	DiagNodes int `json:"diag_nodes"`
	// Speedup is the block-cyclic makespan over this one's (1 for bc).
	Speedup float64 `json:"speedup_vs_bc"`
}

// TLROptResult is TLROpt's measurement.
type TLROptResult struct {
	Computation likelihood.Computation `json:"computation"`
	Problem
	NT        int             `json:"nt"`
	Accuracy  float64         `json:"accuracy"`
	MeanRank  float64         `json:"mean_rank"`
	MaxRank   int             `json:"max_rank"`
	Variants  []TLROptVariant `json:"variants"`
	Bandwidth float64         `json:"sim_bandwidth"`
	Latency   float64         `json:"sim_latency"`
	Dist      []TLRDistSim    `json:"distributed,omitempty"`
}

type taskKey struct {
	kind string
	tile [3]int
}

// measured is what one variant's last evaluation left for the replays.
type measured struct {
	dur   map[taskKey]float64 // mean seconds per task
	kinds map[string]float64  // mean seconds per kind (for tasks not seen)
	bytes map[string]int      // packed message size per low-rank tile handle
}

// TLROpt times one TLR evaluation of N synthetic points with tile size NB
// without seed 002's optimisations (the baseline), with each lookahead
// depth, with each hierarchical potrf sub-tile size, and with the first of
// each together: every variant has its own evaluator, the timed
// evaluations go round-robin over the variants (after a warm-up each), so
// load on the machine falls on all alike, and the ratios are against the
// baseline of the same run. Each variant's last evaluation is then
// replayed by pkg/sim (the graph each variant's code submits, every task
// at its duration measured here, every low-rank message at the tile's
// actual rank) on one node of SimWorkers workers, and the baseline and the
// last variant on SimRanks nodes under 2D block-cyclic and hybrid
// distributions.
func TLROpt(o TLROptOptions) (*TLROptResult, error) {
	if o.N < 16 || o.NB < 16 || o.Workers < 1 || o.Reps < 1 || len(o.Theta) != 3 {
		return nil, fmt.Errorf("bench tlr-opt: need n and nb >= 16, workers and reps >= 1 and 3 parameters")
	}
	if o.Accuracy <= 0 {
		o.Accuracy = 1e-9
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	d := dataset.Grid(o.N, o.Seed)
	pts := matern.Points{X: d.X, Y: d.Y}
	b := &tlrOptRun{o: o, prob: likelihood.Problem{Points: pts, Obs: dataset.StandardNormal(o.N, o.Seed), Model: likelihood.Matern}}
	b.res = &TLROptResult{Computation: o.Computation, Problem: o.Problem, NT: tile.NewLayout(o.N, o.NB).NT, Accuracy: o.Accuracy,
		Bandwidth: o.Bandwidth, Latency: o.Latency}
	if o.Computation == "" || o.Computation == likelihood.Exact {
		b.o.Computation = likelihood.TLR
	}
	b.vs = tlrOptVariants(o)
	b.rt = runtime.New(runtime.Options{Workers: o.Workers, Trace: true})
	defer b.rt.Close()
	b.evs = make([]*likelihood.Evaluator, len(b.vs))
	defer func() {
		for _, e := range b.evs {
			if e != nil {
				e.Release()
			}
		}
	}()
	if err := b.warmUp(); err != nil {
		return nil, err
	}
	if err := b.timeRounds(); err != nil {
		return nil, err
	}
	b.summarise()
	if err := b.replayNodes(); err != nil {
		return nil, err
	}
	b.res.Variants = b.vs
	if err := b.replayRanks(); err != nil {
		return nil, err
	}
	return b.res, nil
}

// tlrOptVariants lists TLROpt's variants: the baseline, each lookahead
// depth, each hierarchical potrf size, and the first of each together.
func tlrOptVariants(o TLROptOptions) []TLROptVariant {
	vs := []TLROptVariant{{Name: "baseline"}}
	for _, la := range o.Lookahead {
		vs = append(vs, TLROptVariant{Name: fmt.Sprintf("lookahead %d", la), Lookahead: la})
	}
	for _, s := range o.HPotrf {
		vs = append(vs, TLROptVariant{Name: fmt.Sprintf("hpotrf %d", s), HPotrf: s})
	}
	if len(o.Lookahead) > 0 && len(o.HPotrf) > 0 {
		vs = append(vs, TLROptVariant{Name: fmt.Sprintf("lookahead %d + hpotrf %d", o.Lookahead[0], o.HPotrf[0]),
			Lookahead: o.Lookahead[0], HPotrf: o.HPotrf[0]})
	}
	return vs
}

// tlrOptRun is one TLROpt run: per variant its evaluator, wall times,
// utilisations, last evaluation's statistics and measured durations.
type tlrOptRun struct {
	o     TLROptOptions // Computation defaulted to TLR
	prob  likelihood.Problem
	res   *TLROptResult
	vs    []TLROptVariant
	rt    *runtime.Runtime
	evs   []*likelihood.Evaluator
	walls [][]float64
	utils [][]float64
	last  []likelihood.Stats
	meas  []measured
}

// approxOf is the approximation of variant v.
func (b *tlrOptRun) approxOf(v TLROptVariant) likelihood.Approx {
	return likelihood.Approx{Computation: b.o.Computation, Accuracy: b.o.Accuracy, Band: b.o.Band, Lookahead: v.Lookahead, HPotrf: v.HPotrf}
}

// warmUp makes each variant's evaluator and evaluates it once.
func (b *tlrOptRun) warmUp() error {
	for i, v := range b.vs {
		e, err := likelihood.NewWith(b.prob, b.rt, likelihood.Options{NB: b.o.NB, KeepTrace: true, Approx: b.approxOf(v)})
		if err != nil {
			return err
		}
		b.evs[i] = e
		if _, _, err := e.LogLik(b.o.Theta); err != nil { // warm-up
			return fmt.Errorf("bench tlr-opt: %s: %w", v.Name, err)
		}
		b.o.Progress(fmt.Sprintf("%s: warmed up", v.Name))
	}
	return nil
}

// timeRounds times o.Reps evaluations of each variant, round-robin.
func (b *tlrOptRun) timeRounds() error {
	o, vs := b.o, b.vs
	b.walls = make([][]float64, len(vs))
	b.utils = make([][]float64, len(vs))
	b.last = make([]likelihood.Stats, len(vs))
	for r := 0; r < o.Reps; r++ {
		for i, v := range vs {
			t0 := time.Now()
			l, st, err := b.evs[i].LogLik(o.Theta)
			if err != nil {
				return fmt.Errorf("bench tlr-opt: %s: %w", v.Name, err)
			}
			b.walls[i] = append(b.walls[i], time.Since(t0).Seconds())
			vs[i].LogLik, b.last[i] = l, st
			ev := iterEvents(b.evs[i].Events(), st.Evaluate)
			u := trace.UtilizationOf(ev, o.Workers, firstStart(ev), lastEnd(ev))
			b.utils[i] = append(b.utils[i], u.Whole)
			o.Progress(fmt.Sprintf("rep %d: %s %.3f s", r+1, v.Name, b.walls[i][r]))
		}
	}
	return nil
}

// summarise sets each variant's medians and ratios against the baseline
// and measures the task durations of its last evaluation for the replays.
func (b *tlrOptRun) summarise() {
	vs := b.vs
	b.meas = make([]measured, len(vs))
	for i := range vs {
		v := &vs[i]
		v.Seconds, v.Spread = median(b.walls[i]), SpreadOf(b.walls[i], 1)
		v.Utilization = median(b.utils[i])
		v.Speedup = vs[0].Seconds / v.Seconds
		v.RelDiff = abs(v.LogLik-vs[0].LogLik) / abs(vs[0].LogLik)
		v.Chol = b.last[i].Chol
		ev := iterEvents(b.evs[i].Events(), b.last[i].Evaluate)
		v.PotrfPath = potrfPath(ev)
		b.meas[i] = measureTLR(ev, b.evs[i])
	}
	// The replays give a task the baseline also runs (same kernel, same
	// tile, same operands) the baseline's duration, so that they compare
	// the schedules, not the noise of separate measurements; a variant's
	// own tasks (the nested potrf's) keep theirs.
	for i := 1; i < len(b.meas); i++ {
		for k, d := range b.meas[0].dur {
			if _, ok := b.meas[i].dur[k]; ok {
				b.meas[i].dur[k] = d
			}
		}
	}
	if a := b.last[0].Approx; a != nil {
		b.res.MeanRank, b.res.MaxRank = a.MeanRank, a.MaxRank
	}
}

// replayNodes replays each variant on one node of each of o.SimWorkers
// workers.
func (b *tlrOptRun) replayNodes() error {
	o, vs := b.o, b.vs
	for i := range vs {
		for _, w := range o.SimWorkers {
			r, g, err := replay(b.prob, o.NB, b.approxOf(vs[i]), o.Theta, 1, nil, b.meas[i], w, o.Bandwidth, o.Latency)
			if err != nil {
				return err
			}
			vs[i].Work, vs[i].CritPath, vs[i].PathKinds = critPath(g)
			s := TLROptSim{Workers: w, Seconds: r.Makespan}
			if i > 0 {
				for _, bs := range vs[0].Sim {
					if bs.Workers == w {
						s.Speedup = bs.Seconds / s.Seconds
					}
				}
			} else {
				s.Speedup = 1
			}
			vs[i].Sim = append(vs[i].Sim, s)
		}
	}
	return nil
}

// replayRanks replays the baseline and the last variant on each of
// o.SimRanks nodes, block-cyclic then hybrid with each of o.DistBands.
func (b *tlrOptRun) replayRanks() error {
	o, vs := b.o, b.vs
	dv := []int{0}
	if len(vs) > 1 {
		dv = append(dv, len(vs)-1)
	}
	bands := o.DistBands
	if len(bands) == 0 {
		bands = []int{0}
	}
	for _, nodes := range o.SimRanks {
		for _, i := range dv {
			var bcSecs float64
			for bi := -1; bi < len(bands); bi++ {
				dist, band := "bc", 0
				if bi >= 0 {
					dist, band = "hybrid", bands[bi]
				}
				s, err := b.replayDist(i, nodes, dist, band)
				if err != nil {
					return err
				}
				if dist == "bc" {
					bcSecs = s.Seconds
				} else {
					s.Speedup = bcSecs / s.Seconds
				}
				b.res.Dist = append(b.res.Dist, s)
				o.Progress(fmt.Sprintf("%s on %d nodes, %s: %.3f s, %.1f MB", vs[i].Name, nodes, s.Dist, s.Seconds, float64(s.Bytes)/1e6))
			}
		}
	}
	return nil
}

// replayDist replays variant i on nodes nodes under distribution dist
// (band: the hybrid's band), its Speedup set to 1.
func (b *tlrOptRun) replayDist(i, nodes int, dist string, band int) (TLRDistSim, error) {
	o, nt := b.o, b.res.NT
	dd, err := distribution.NewBanded(dist, nodes, 0, 0, band, nil, nt)
	if err != nil {
		return TLRDistSim{}, err
	}
	r, _, err := replay(b.prob, o.NB, b.approxOf(b.vs[i]), o.Theta, nodes, dd.Owner, b.meas[i], o.SimCores, o.Bandwidth, o.Latency)
	if err != nil {
		return TLRDistSim{}, err
	}
	s := TLRDistSim{Variant: b.vs[i].Name, Ranks: nodes, Workers: o.SimCores, Dist: dd.Name(), Seconds: r.Makespan,
		Messages: r.Messages, Bytes: r.Bytes, Speedup: 1}
	var sum, top float64
	for _, rk := range r.Ranks {
		sum += rk.CPU.Busy
		top = max(top, rk.CPU.Busy)
	}
	s.Imbalance = top / (sum / float64(len(r.Ranks)))
	diag := map[int]bool{}
	for m := 0; m < nt; m++ {
		diag[dd.Owner(m, m)] = true
	}
	s.DiagNodes = len(diag)
	return s, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// iterEvents returns the task events of evaluation it.
func iterEvents(ev []trace.Event, it int) []trace.Event {
	var out []trace.Event
	for _, e := range ev {
		if e.Iter == it && e.Kind != trace.MemoryKind {
			out = append(out, e)
		}
	}
	return out
}

func firstStart(ev []trace.Event) int64 {
	t := int64(1) << 62
	for _, e := range ev {
		t = min(t, e.Start)
	}
	return t
}

func lastEnd(ev []trace.Event) int64 {
	var t int64
	for _, e := range ev {
		t = max(t, e.End)
	}
	return t
}

// potrfPath sums, over the diagonal tiles, the time from the start of the
// first to the end of the last of its potrf tasks (potrf, or the nested
// graph's h-* tasks).
func potrfPath(ev []trace.Event) float64 {
	type span struct{ a, b int64 }
	sp := map[int]span{}
	for _, e := range ev {
		switch e.Kind {
		case kind.Potrf, kind.HSplit, kind.HPotrf, kind.HTrsm, kind.HSyrk, kind.HGemm, kind.HJoin:
		default:
			continue
		}
		k := e.Tile[0]
		s, ok := sp[k]
		if !ok {
			s = span{e.Start, e.End}
		}
		sp[k] = span{min(s.a, e.Start), max(s.b, e.End)}
	}
	var sum float64
	for _, s := range sp {
		sum += float64(s.b-s.a) * 1e-9
	}
	return sum
}

// measureTLR collects the task durations of one evaluation's events and the
// packed size of every low-rank tile of e's factor.
func measureTLR(ev []trace.Event, e *likelihood.Evaluator) measured {
	m := measured{dur: map[taskKey]float64{}, kinds: map[string]float64{}, bytes: map[string]int{}}
	n := map[taskKey]int{}
	nk := map[string]int{}
	for _, x := range ev {
		if x.IsTransfer() {
			continue
		}
		d := float64(x.End-x.Start) * 1e-9
		k := taskKey{x.Kind, x.Tile}
		m.dur[k] += d
		n[k]++
		m.kinds[x.Kind] += d
		nk[x.Kind]++
	}
	for k, c := range n {
		m.dur[k] /= float64(c)
	}
	for k, c := range nk {
		m.kinds[k] /= float64(c)
	}
	nt, ranks := e.TileRanks()
	s := e.Factor()
	for mm := 1; mm < nt; mm++ {
		for c := 0; c < mm; c++ {
			r := ranks[mm*nt+c]
			rows, cols := s.Rows(mm), s.Rows(c)
			w := 1 + rows*cols
			if r >= 0 {
				w = 1 + (rows+cols)*r
			}
			m.bytes[fmt.Sprintf("A(%d,%d)", mm, c)] = 8 * w
		}
	}
	return m
}

// critPath returns the sum of the task durations of g (held in Flops by
// replay), the longest chain of dependent nodes (transfers at no cost)
// and that chain's time by task kind.
func critPath(g *runtime.Graph) (work, path float64, kinds map[string]float64) {
	end := make([]float64, len(g.Nodes))
	pred := make([]int, len(g.Nodes))
	last := -1
	for i, nd := range g.Nodes {
		var start float64
		pred[i] = -1
		for _, d := range nd.Deps {
			if end[d] > start || pred[i] < 0 {
				start, pred[i] = max(start, end[d]), d
			}
		}
		d := 0.0
		if nd.Kind != runtime.XferKind && nd.Kind != kind.Barrier {
			d = nd.Flops
		}
		work += d
		end[i] = start + d
		if end[i] > path {
			path, last = end[i], i
		}
	}
	kinds = map[string]float64{}
	for i := last; i >= 0; i = pred[i] {
		if nd := g.Nodes[i]; nd.Kind != runtime.XferKind && nd.Kind != kind.Barrier {
			kinds[nd.Kind] += nd.Flops
		}
	}
	return work, path, kinds
}

// replay records the graph of one evaluation with approximation a on
// ranks ranks (owner: the distribution; nil on one rank), gives every
// task its measured duration and every low-rank message its measured
// size, and simulates it on nodes of workers workers.
func replay(p likelihood.Problem, nb int, a likelihood.Approx, theta []float64, ranks int, owner tile.OwnerFunc,
	m measured, workers int, bw, lat float64) (*sim.Result, *runtime.Graph, error) {
	rt := runtime.New(runtime.Options{Record: true, Ranks: ranks})
	defer rt.Close()
	e, err := likelihood.NewWith(p, rt, likelihood.Options{NB: nb, Owner: owner, Approx: a})
	if err != nil {
		return nil, nil, err
	}
	rt.Graph()
	if _, _, err := e.LogLik(theta); err != nil {
		return nil, nil, err
	}
	g := rt.Graph()
	top := map[string]float64{}
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		switch nd.Kind {
		case runtime.XferKind:
			if b, ok := m.bytes[nd.Handle]; ok {
				nd.Bytes = b
			}
			continue
		case kind.Barrier:
			continue
		}
		d, ok := m.dur[taskKey{nd.Kind, nd.Tile}]
		if !ok {
			d = m.kinds[nd.Kind]
		}
		nd.Flops = max(d, 1e-9)
		top[nd.Kind] = max(top[nd.Kind], nd.Flops)
	}
	cl := config.Cluster{Nodes: ranks, NB: nb, Network: config.Network{Bandwidth: bw, Latency: lat},
		Groups: []config.Group{{Name: "node", Nodes: ranks, CPUs: workers, CPU: config.Durations(top)}}}
	r, err := sim.Run(g, cl, sim.Options{})
	return r, g, err
}
