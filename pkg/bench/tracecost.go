package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TraceCostOptions configure TraceCost.
type TraceCostOptions struct {
	Problem
	// Approx is the computation of the evaluations (zero: exact).
	Approx likelihood.Approx
}

// TraceCostResult compares evaluations with and without the runtime's
// trace (one event per task and message, memory samples, submission and
// ready times).
type TraceCostResult struct {
	Problem
	// Computation is the evaluations' (exact, tlr, mp, dst).
	Computation likelihood.Computation `json:"computation"`
	// On and Off are the spreads of the wall time of one evaluation with
	// and without the trace, Overhead = On.Median / Off.Median - 1, and
	// PairedOverhead the median over the pairs (evaluations run in
	// alternating order) of on / off - 1, less sensitive to the drift of
	// a shared machine.
	On             Spread  `json:"traced_seconds"`
	Off            Spread  `json:"untraced_seconds"`
	Overhead       float64 `json:"overhead"`
	PairedOverhead float64 `json:"paired_overhead"`
	Tasks          int     `json:"traced_tasks"` // task events of one traced evaluation
	Same           bool    `json:"same_loglik"`  // the two give the same l, bitwise
}

// TraceCost times Reps evaluations of the log-likelihood on two runtimes of
// Workers workers, one recording the trace and one not, alternating which
// goes first in each pair.
func TraceCost(o TraceCostOptions) (*TraceCostResult, error) {
	if o.N < 3 || o.NB < 1 || o.Workers < 1 || o.Reps < 1 || len(o.Theta) != 3 {
		return nil, fmt.Errorf("bench tracing: need n >= 3, nb, workers, reps >= 1 and 3 parameters")
	}
	d := dataset.Grid(o.N, o.Seed)
	prob := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: dataset.StandardNormal(o.N, o.Seed), Model: likelihood.Matern}
	var evs [2]*likelihood.Evaluator
	for i, tr := range []bool{true, false} {
		rt := runtime.New(runtime.Options{Workers: o.Workers, Trace: tr})
		defer rt.Close()
		ev, err := likelihood.NewWith(prob, rt, likelihood.Options{NB: o.NB, Approx: o.Approx})
		if err != nil {
			return nil, err
		}
		evs[i] = ev
		if _, _, err := ev.LogLik(o.Theta); err != nil { // warm-up
			return nil, err
		}
	}
	res := &TraceCostResult{Problem: o.Problem, Same: true, Computation: evs[0].Computation()}
	var on, off, ratio []float64
	var ls [2]float64
	for r := range o.Reps {
		var t [2]float64
		for j := range 2 {
			i := (j + r) % 2
			t0 := time.Now()
			l, st, err := evs[i].LogLik(o.Theta)
			t[i] = time.Since(t0).Seconds()
			if err != nil {
				return nil, err
			}
			ls[i] = l
			if i == 0 {
				res.Tasks = st.Tasks
			}
		}
		if math.Float64bits(ls[0]) != math.Float64bits(ls[1]) {
			res.Same = false
		}
		on, off, ratio = append(on, t[0]), append(off, t[1]), append(ratio, t[0]/t[1]-1)
	}
	res.On, res.Off = SpreadOf(on, 1), SpreadOf(off, 1)
	res.Overhead = res.On.Median/res.Off.Median - 1
	res.PairedOverhead = median(ratio)
	return res, nil
}
