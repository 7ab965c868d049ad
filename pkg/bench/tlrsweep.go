package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// TLRSweepOptions configure TLRSweep.
type TLRSweepOptions struct {
	N, Workers, Reps int
	NB               []int     // the swept tile sizes
	Theta            []float64 // Matérn (sigma2, beta, nu)
	Accuracy         float64   // TLR's absolute accuracy per tile
	Seed             uint64
	Samples          int // tiles sampled for the model's mean rank (0: 16)
	Progress         func(string)
}

// TLRSweepRow is one tile size: the median wall time of a TLR evaluation
// and its tiles' mean and largest rank.
type TLRSweepRow struct {
	NB       int     `json:"nb"`
	Seconds  float64 `json:"seconds"`
	Spread   Spread  `json:"seconds_spread"`
	MeanRank float64 `json:"mean_rank"`
	MaxRank  int     `json:"max_rank"`
	Model    bool    `json:"model"` // the model's tile size
}

// TLRSweepResult is seed 002's Figure 5 check: the model's tile size
// against a brute-force sweep, in one run.
type TLRSweepResult struct {
	N         int           `json:"n"`
	Workers   int           `json:"workers"`
	Accuracy  float64       `json:"accuracy"`
	Theta     []float64     `json:"theta"`
	ModelNB   int           `json:"model_nb"`
	ModelRank float64       `json:"model_sampled_rank"` // the sampled mean rank the model used
	Rows      []TLRSweepRow `json:"rows"`               // by tile size
	Best      int           `json:"best_nb"`
	// ModelRatio is the model's time over the best swept time; within
	// 10 % means ModelRatio <= 1.1.
	ModelRatio float64 `json:"model_ratio"`
}

// TLRSweep times TLR evaluations (likelihood.TLR, one warm-up then Reps)
// of N of ExaGeoStat's synthetic points at each swept tile size and at the
// model's (tlr.AutoNB on one node, from a sample of compressed tiles).
func TLRSweep(o TLRSweepOptions) (*TLRSweepResult, error) {
	if o.N < 16 || o.Workers < 1 || o.Reps < 1 || len(o.Theta) != 3 || len(o.NB) == 0 {
		return nil, fmt.Errorf("bench tlr: need n >= 16, workers and reps >= 1, 3 parameters and tile sizes")
	}
	if o.Accuracy <= 0 {
		o.Accuracy = 1e-9
	}
	if o.Samples <= 0 {
		o.Samples = 16
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	d := dataset.Grid(o.N, o.Seed)
	pts := matern.Points{X: d.X, Y: d.Y}
	obs := dataset.StandardNormal(o.N, o.Seed)
	th := matern.Theta{Sigma2: o.Theta[0], Beta: o.Theta[1], Nu: o.Theta[2]}
	k, err := matern.NewMatern(th, matern.MaxDistance(matern.Euclidean, pts))
	if err != nil {
		return nil, err
	}
	res := &TLRSweepResult{N: o.N, Workers: o.Workers, Accuracy: o.Accuracy, Theta: o.Theta}
	res.ModelNB, res.ModelRank = tlr.AutoNB(tlr.New(tlr.ACA, o.Accuracy), k, matern.Euclidean, pts, 1, 160, 4096, o.Samples, o.Seed)
	progress(fmt.Sprintf("model: nb = %d (sampled mean rank %.1f)", res.ModelNB, res.ModelRank))
	sizes := append([]int(nil), o.NB...)
	seen := false
	for _, nb := range sizes {
		seen = seen || nb == res.ModelNB
	}
	if !seen {
		sizes = append(sizes, res.ModelNB)
	}
	rt := runtime.New(runtime.Options{Workers: o.Workers, Trace: true})
	defer rt.Close()
	prob := likelihood.Problem{Points: pts, Obs: obs, Model: likelihood.Matern}
	for _, nb := range sizes {
		ev, err := likelihood.NewWith(prob, rt, likelihood.Options{NB: nb, Approx: likelihood.Approx{Computation: likelihood.TLR, Accuracy: o.Accuracy}})
		if err != nil {
			return nil, err
		}
		row := TLRSweepRow{NB: nb, Model: nb == res.ModelNB}
		var walls []float64
		for r := range o.Reps + 1 {
			t0 := time.Now()
			_, st, err := ev.LogLik(o.Theta)
			if err != nil {
				ev.Release()
				return nil, fmt.Errorf("bench tlr: nb = %d: %w", nb, err)
			}
			if r > 0 {
				walls = append(walls, time.Since(t0).Seconds())
			}
			if a := st.Approx; a != nil {
				row.MeanRank, row.MaxRank = a.MeanRank, a.MaxRank
			}
		}
		ev.Release()
		rt.Trim()
		row.Seconds, row.Spread = median(walls), SpreadOf(walls, 1)
		progress(fmt.Sprintf("nb = %d: %.3f s, mean rank %.1f", nb, row.Seconds, row.MeanRank))
		res.Rows = append(res.Rows, row)
	}
	best, model := math.Inf(1), 0.0
	for _, r := range res.Rows {
		if r.Seconds < best {
			best, res.Best = r.Seconds, r.NB
		}
		if r.Model {
			model = r.Seconds
		}
	}
	res.ModelRatio = model / best
	return res, nil
}
