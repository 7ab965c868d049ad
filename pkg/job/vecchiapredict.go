package job

import (
	"math"
	"time"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// vecchiaHoldout predicts the held-out locations of test (--holdout) at
// the estimate theta by Vecchia kriging: each conditioned on its m
// nearest training locations (in the model's frame at theta), the mean
// by the fit's GLS coefficients (universal kriging, their covariance in
// the variance). It fills the assessment's hold-out scores: the mean
// squared prediction error and the share of the held-out values inside
// their 95 % prediction intervals.
func vecchiaHoldout(a *Assessment, st *vecchiaStages, model likelihood.Model, metric matern.Metric, mean string,
	test *dataset.Data, theta []float64, at *vecchia.Result, m, workers int) error {
	if model == likelihood.BivariateMatern {
		return badInput("fit: --holdout with --computation vecchia is for the univariate kernels")
	}
	t0 := time.Now()
	plan := st.final.Plan
	frame := vecchia.FrameOf(model, theta)
	dc, err := embed.Embed(plan.Pts, metric, frame)
	if err != nil {
		return err
	}
	tp := points(test)
	qc, err := embed.Embed(tp, metric, frame)
	if err != nil {
		return err
	}
	sets, err := neighbors.Nearest(dc, qc, m, workers)
	if err != nil {
		return err
	}
	_, cols, err := dataset.Design(test, mean)
	if err != nil {
		return badInput("fit: --holdout: %v", err)
	}
	pred, err := st.evs[st.final].Predict(theta, &vecchia.Targets{Pts: tp, X: cols, Sets: sets.Idx, M: sets.M}, at)
	if err != nil {
		return err
	}
	var sq, in float64
	for i, z := range test.Obs {
		e := pred.Z[i] - z
		sq += e * e
		if math.Abs(e) <= 1.959963984540054*math.Sqrt(pred.Var[i]) {
			in++
		}
	}
	n := float64(test.Len())
	mspe, cov := sq/n, in/n
	a.Holdout, a.MSPE, a.Coverage, a.PredSecs = test.Len(), &mspe, &cov, time.Since(t0).Seconds()
	return nil
}
