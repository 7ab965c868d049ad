package bench

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// PinResult compares log-likelihood evaluations with the workers pinned to
// their cores and not, in one run: two runtimes on the same data, their
// evaluations alternated (pinned first in even pairs, unpinned first in
// odd ones), so that both see the same machine.
type PinResult struct {
	N       int       `json:"n"`
	NB      int       `json:"nb"`
	Workers int       `json:"workers"`
	Reps    int       `json:"reps"`
	Theta   []float64 `json:"theta"`
	LogLik  float64   `json:"loglik"` // the same bitwise both ways (checked)
	// Pinned and Unpinned are the wall times of the evaluations; Ratio the
	// median of the pairs' pinned / unpinned ratios (below 1: pinning
	// gains).
	Pinned   Spread    `json:"pinned_seconds"`
	Unpinned Spread    `json:"unpinned_seconds"`
	Ratios   []float64 `json:"pair_ratios"`
	Ratio    float64   `json:"ratio"`
	// CPU is the ratio of the medians of the busy CPU time (the tasks'
	// thread CPU, summed over workers), pinned / unpinned: the work
	// itself, without the time the OS took the cores away.
	CPU float64 `json:"cpu_ratio"`
	// PinNote says where the workers were pinned.
	PinNote string `json:"pin"`
}

// PinBench times o.Reps pairs of evaluations of l(theta) on o's data: one
// on a runtime whose options pin sets (pinned workers), one on a runtime
// without; pairs alternate which goes first.
func PinBench(o LikelihoodOptions, pin func(*runtime.Options), note string) (*PinResult, error) {
	if o.N < 3 || o.NB < 1 || o.Workers < 1 || o.Reps < 1 || len(o.Theta) != 3 {
		return nil, fmt.Errorf("bench likelihood: need n >= 3, nb, workers, reps >= 1 and 3 parameters")
	}
	d := dataset.Grid(o.N, o.Seed)
	prob := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: dataset.StandardNormal(o.N, o.Seed), Model: likelihood.Matern}
	kernels.DefaultThreads().SetThreads(1)
	var evs [2]*likelihood.Evaluator // 0: pinned, 1: not
	for i := range evs {
		ro := runtime.Options{Workers: o.Workers, Trace: true, TaskCPU: true} // busy CPU time
		if o.Place != nil {
			o.Place(&ro)
		}
		if i == 0 {
			pin(&ro)
		}
		rt := runtime.New(ro)
		defer rt.Close()
		ev, err := likelihood.NewWith(prob, rt, likelihood.Options{NB: o.NB, Overlap: o.Overlap})
		if err != nil {
			return nil, err
		}
		if _, _, err := ev.LogLik(o.Theta); err != nil { // warm-up
			return nil, err
		}
		evs[i] = ev
	}
	res := &PinResult{N: o.N, NB: o.NB, Workers: o.Workers, Reps: o.Reps, Theta: o.Theta, PinNote: note}
	var walls, cpus [2][]float64
	for r := range o.Reps {
		for k := range 2 {
			i := (k + r) % 2
			l, st, err := evs[i].LogLik(o.Theta)
			if err != nil {
				return nil, err
			}
			if r > 0 || k > 0 {
				if l != res.LogLik {
					return nil, fmt.Errorf("bench likelihood: l = %v pinned and %v not: pinning changed the result", res.LogLik, l)
				}
			}
			res.LogLik = l
			walls[i] = append(walls[i], st.Wall)
			cpus[i] = append(cpus[i], st.GenCPU+st.CholCPU+st.SolveCPU)
		}
		res.Ratios = append(res.Ratios, walls[0][r]/walls[1][r])
	}
	res.Pinned, res.Unpinned = SpreadOf(walls[0], 1), SpreadOf(walls[1], 1)
	res.Ratio = median(res.Ratios)
	if c := median(cpus[1]); c > 0 {
		res.CPU = median(cpus[0]) / c
	}
	return res, nil
}
