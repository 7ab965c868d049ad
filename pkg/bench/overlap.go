package bench

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// OverlapOptions configure OverlapBench.
type OverlapOptions struct {
	Problem
	// Comm connects the ranks of an mpirun (nil: one rank); the tiles are
	// 2D block-cyclic over them.
	Comm     comm.Comm
	Progress func(string)
}

// OverlapStep is one step of the ablation: the median wall time of an
// evaluation with the step's switches, its spread, the gains
// 1 - t/t_previous and 1 - t/t_sync, seed 000's utilisation (median over
// the evaluations, rank 0's workers) and the floor of the evaluation.
type OverlapStep struct {
	Name     string  `json:"name"`
	Switches string  `json:"switches"`
	Seconds  float64 `json:"seconds"`
	Spread   Spread  `json:"seconds_spread"`
	GainPrev float64 `json:"gain_vs_previous"`
	GainSync float64 `json:"gain_vs_sync"`
	// Utilization is the median of the evaluations' whole-evaluation
	// utilisation, First90 over their first 90 % of wall time.
	Utilization float64 `json:"utilization"`
	First90     float64 `json:"utilization_first90"`
	// Floor is the median floor of the evaluations (Floor) and FloorRatio
	// the median of wall / floor.
	Floor      float64 `json:"floor_seconds"`
	FloorRatio float64 `json:"floor_ratio"`
	LogLik     float64 `json:"loglik"`
}

// OverlapResult is Figure 5's cumulative ablation measured here.
type OverlapResult struct {
	N       int           `json:"n"`
	NB      int           `json:"nb"`
	Ranks   int           `json:"ranks"`
	Workers int           `json:"workers"` // per rank, without the helper of oversubscription
	Reps    int           `json:"reps"`
	Theta   []float64     `json:"theta"`
	Core    string        `json:"openblas_core"`
	Dgemm   float64       `json:"dgemm_gflops"` // the rate of the floors: one dgemm on Workers threads
	Steps   []OverlapStep `json:"steps"`
}

// Floor returns the time under which an evaluation cannot run on workers
// workers: its Cholesky's flops at the dgemm rate (flop/s) plus its
// generation's busy seconds spread evenly over the workers,
//
//	floor = flops / rate + gen / workers.
func Floor(flops, rate, gen float64, workers int) float64 {
	return flops/rate + gen/float64(workers)
}

// OverlapBench runs Figure 5's cumulative ablation (likelihood.Ablation)
// on ExaGeoStat's synthetic locations: per step a runtime and evaluator
// with the step's switches, one warm-up evaluation, then Reps timed
// evaluations, the steps taken in turn (round robin) so that a drift of
// the shared machine's speed falls on all of them. l is checked to be
// bitwise the same at every step.
func OverlapBench(o OverlapOptions) (*OverlapResult, error) {
	if o.N < 3 || o.NB < 1 || o.Workers < 1 || o.Reps < 1 || len(o.Theta) != 3 {
		return nil, fmt.Errorf("bench overlap: need n >= 3, nb, workers, reps >= 1 and 3 parameters")
	}
	w := o.Comm
	if w == nil {
		w = comm.Self{}
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	kern, thr := kernels.Default(), kernels.DefaultThreads()
	res := &OverlapResult{N: o.N, NB: o.NB, Ranks: w.Size(), Workers: o.Workers, Reps: o.Reps, Theta: o.Theta, Core: thr.CoreName()}
	thr.SetThreads(o.Workers)
	res.Dgemm = dgemmRate(kern, 2048, 3) // a size where dgemm runs at its rate, whatever N
	thr.SetThreads(1)
	progress(fmt.Sprintf("dgemm %d threads: %.1f GFLOP/s", o.Workers, res.Dgemm))

	d := dataset.Grid(o.N, o.Seed)
	p := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: dataset.StandardNormal(o.N, o.Seed), Model: likelihood.Matern}
	var owner tile.OwnerFunc
	if w.Size() > 1 {
		dist, err := distribution.New("bc", w.Size(), 0, 0, nil, tile.NewLayout(o.N, o.NB).NT)
		if err != nil {
			return nil, err
		}
		owner = dist.Owner
	}
	steps := likelihood.Ablation()
	evs := make([]*likelihood.Evaluator, len(steps))
	for i, s := range steps {
		ov := s.Overlap
		rt := runtime.New(ov.RuntimeOptions(runtime.Options{Workers: o.Workers, Trace: true, Comm: w}))
		defer rt.Close()
		ev, err := likelihood.NewWith(p, rt, likelihood.Options{NB: o.NB, Owner: owner, Overlap: &ov})
		if err != nil {
			return nil, err
		}
		if _, _, err := ev.LogLik(o.Theta); err != nil { // warm-up
			return nil, err
		}
		evs[i] = ev
	}
	type sample struct{ wall, util, u90, floor, ratio []float64 }
	samples := make([]sample, len(steps))
	ls := make([]float64, len(steps))
	for rep := 0; rep < o.Reps; rep++ {
		for i, ev := range evs {
			l, st, err := ev.LogLik(o.Theta)
			if err != nil {
				return nil, err
			}
			ls[i] = l
			// The evaluation lasts until its slowest rank is done.
			wall := st.Wall
			if w.Size() > 1 {
				slowest, err := w.AllreduceMin(-int64(math.Round(wall * 1e9)))
				if err != nil {
					return nil, err
				}
				wall = float64(-slowest) * 1e-9
			}
			s := &samples[i]
			fl := Floor(st.Flops, res.Dgemm*1e9, st.Gen, o.Workers)
			s.wall, s.util, s.u90 = append(s.wall, wall), append(s.util, st.Utilization.Whole), append(s.u90, st.Utilization.First90)
			s.floor, s.ratio = append(s.floor, fl), append(s.ratio, wall/fl)
		}
		progress(fmt.Sprintf("round %d of %d", rep+1, o.Reps))
	}
	for i, s := range steps {
		if ls[i] != ls[0] {
			return nil, fmt.Errorf("bench overlap: step %s gives l = %.17g, step %s %.17g: the switches changed the arithmetic", s.Name, ls[i], steps[0].Name, ls[0])
		}
		sm := samples[i]
		st := OverlapStep{Name: s.Name, Switches: s.Overlap.String(), Seconds: median(sm.wall), Spread: SpreadOf(sm.wall, 1),
			Utilization: median(sm.util), First90: median(sm.u90), Floor: median(sm.floor), FloorRatio: median(sm.ratio), LogLik: ls[i]}
		res.Steps = append(res.Steps, st)
	}
	res.gains()
	return res, nil
}

// gains fills each step's gains from the medians.
func (r *OverlapResult) gains() {
	for i := range r.Steps {
		s := &r.Steps[i]
		if i > 0 {
			s.GainPrev = 1 - s.Seconds/r.Steps[i-1].Seconds
			s.GainSync = 1 - s.Seconds/r.Steps[0].Seconds
		}
	}
}
