package job

import (
	"fmt"
	"time"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// TLR's sampling for fit: the tiles tlr.AutoNB compresses to choose nb,
// and the tiles compressed at that nb for the memory estimate.
const (
	tlrNBLo, tlrNBHi = 160, 4096 // the automatic nb's range (as bench tlr)
	tlrNBSamples     = 16
	tlrMemSamples    = 32
)

// tlrPlan is what fit knows of a TLR computation before it starts: the
// tile size (the model's when --nb is 0), the mean rank sampled at that
// tile size (for likelihood.ApproxNeed), and how they were found.
type tlrPlan struct {
	nb    int
	rank  float64 // sampled mean rank of an off-diagonal tile at nb
	note  string  // for the log
	exact bool    // no sample could be taken: rank is the format's maximum
}

// planTLR samples compressed off-diagonal tiles of the covariance of the
// fit's points (Morton order, as the likelihood's; the simulated grid
// when there is no data) at the search's starting theta: x0, else the
// simulation's theta, else the data-driven guess, clamped to the bounds.
// With cfg.NB == 0 the tile size is seed 002's model (tlr.AutoNB on nodes
// nodes); the mean rank at the chosen nb is then sampled again. Models
// with two variables per location or times fall back to tile.AutoNB and
// the format's maximum rank (a bound, not an estimate).
func planTLR(cfg *config.Fit, d *dataset.Data, nAll int, model likelihood.Model, metric matern.Metric, nodes int, x0 []float64) tlrPlan {
	nb := cfg.NB
	fallback := func(why string) tlrPlan {
		if nb == 0 {
			nb = tile.AutoNB(nAll * variables(model))
		}
		mr := cfg.MaxRank
		if mr <= 0 {
			mr = max(1, nb/2)
		}
		return tlrPlan{nb: nb, rank: float64(mr), exact: true,
			note: fmt.Sprintf("tlr: nb=%d; memory counted at the maximum rank %d (%s)", nb, mr, why)}
	}
	if variables(model) != 1 || cfg.Times > 0 {
		return fallback("no rank sample for this kernel")
	}
	var sd *dataset.Data
	if d != nil {
		sd = dataset.Permute(d, dataset.MortonOrder(d))
	} else {
		sd = dataset.GridTimes(nAll, 0, cfg.Seed)
	}
	pts, _ := mle.ProblemData(sd, model)
	theta := x0
	switch {
	case theta != nil:
	case d == nil:
		theta = cfg.Theta
	default:
		theta = mle.GuessFor(sd, metric, model, len(cfg.Lower))
	}
	theta = append([]float64(nil), theta...)
	for i := range theta {
		if i < len(cfg.Lower) && i < len(cfg.Upper) {
			theta[i] = min(max(theta[i], cfg.Lower[i]), cfg.Upper[i])
		}
	}
	k, err := model.Kernel(theta, matern.MaxDistance(metric, pts))
	if err != nil {
		return fallback(err.Error())
	}
	acc := cfg.TLRAccuracy
	if acc <= 0 {
		acc = 1e-9
	}
	c := tlr.New(tlr.ACA, acc)
	t0 := time.Now()
	note := ""
	if nb == 0 {
		var k0 float64
		nb, k0 = tlr.AutoNB(c, k, metric, pts, nodes, tlrNBLo, tlrNBHi, tlrNBSamples, cfg.Seed)
		note = fmt.Sprintf("tlr: nb=%d from seed 002's tile-size model (mean rank %.1f of %d tiles of %d at theta=%s, %d node(s)); ",
			nb, k0, tlrNBSamples, tlr.SampleNB(len(pts.X)), config.FormatFloats(theta), nodes)
	}
	rank := tlr.SampleRank(c, k, metric, pts, nb, tlrMemSamples, cfg.Seed+1)
	note += fmt.Sprintf("memory estimated from a sample: mean rank %.1f of %d compressed tiles at nb=%d x %.1f (%.1fs)",
		rank, tlrMemSamples, nb, likelihood.TLRRankSafety, time.Since(t0).Seconds())
	return tlrPlan{nb: nb, rank: rank, note: note}
}
