package job

import (
	"fmt"
	"math"
	"time"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// vecchiaKriging is a data set prepared for Vecchia kriging at theta: its
// plan (the observations ordered, grouped for the likelihood), an
// evaluator on it, the evaluation at theta (the GLS mean and its
// covariance), and the plan's points in the model's frame at theta (in
// which the neighbours of a new location are searched).
type vecchiaKriging struct {
	ev      *vecchia.Evaluator
	plan    *vecchia.Plan
	at      *vecchia.Result
	theta   []float64
	frame   embed.Frame
	metric  matern.Metric
	dc      embed.Coords
	m       int // the observations each new location conditions on
	workers int
}

// newVecchiaKriging prepares the observations of problem pr for Vecchia
// kriging at theta: ordered and conditioned by s for the likelihood (its
// GLS mean), each new location to be conditioned on its s.M nearest
// observations.
func newVecchiaKriging(pr likelihood.Problem, theta []float64, s vecchia.Setup, rt *runtime.Runtime, kern kernels.Impl) (*vecchiaKriging, error) {
	prep, err := vecchia.Prepare(pr, theta, s)
	if err != nil {
		return nil, err
	}
	ev := vecchia.NewEvaluator(prep.Plan, len(theta), rt, kern)
	at, err := ev.Eval(theta, vecchia.Want{})
	if err != nil {
		return nil, err
	}
	return krigingOf(ev, prep.Plan, at, theta, s.M, s.Workers)
}

// krigingOf returns the kriging on an evaluator's plan with its
// evaluation at at theta, each new location conditioned on its m nearest
// observations.
func krigingOf(ev *vecchia.Evaluator, plan *vecchia.Plan, at *vecchia.Result, theta []float64, m, workers int) (*vecchiaKriging, error) {
	k := &vecchiaKriging{ev: ev, plan: plan, at: at, theta: theta, frame: vecchia.FrameOf(plan.Model, theta), metric: plan.Metric,
		m: min(m, plan.N), workers: max(workers, 1)}
	var err error
	if k.dc, err = embed.Embed(plan.Pts, plan.Metric, k.frame); err != nil {
		return nil, err
	}
	return k, nil
}

// krige predicts at the points tp (with the mean's covariate columns
// cols there), each conditioned on its m nearest observations
// (vecchia.(*Evaluator).Predict: the Vecchia approximation of universal
// kriging).
func (k *vecchiaKriging) krige(tp matern.Points, cols [][]float64) (*vecchia.Prediction, error) {
	qc, err := embed.Embed(tp, k.metric, k.frame)
	if err != nil {
		return nil, err
	}
	sets, err := neighbors.Nearest(k.dc, qc, k.m, k.workers)
	if err != nil {
		return nil, err
	}
	return k.ev.Predict(k.theta, &vecchia.Targets{Pts: tp, X: cols, Sets: sets.Idx, M: sets.M}, k.at)
}

// draw returns ndraws joint conditional simulations at the points tp (in
// their order), each conditioned on its m nearest among the observations
// and the earlier points of tp (the nearest earlier positions of the
// observations followed by tp: neighbors.Conditioning).
func (k *vecchiaKriging) draw(tp matern.Points, cols [][]float64, ndraws int, seed uint64) ([][]float64, error) {
	qc, err := embed.Embed(tp, k.metric, k.frame)
	if err != nil {
		return nil, err
	}
	all := embed.Coords{Dim: k.dc.Dim, V: append(append(make([]float64, 0, len(k.dc.V)+len(qc.V)), k.dc.V...), qc.V...)}
	sets, err := neighbors.Conditioning(all, k.m, k.workers)
	if err != nil {
		return nil, err
	}
	t := &vecchia.Targets{Pts: tp, X: cols, Sets: sets.Idx[k.plan.N*sets.M:], M: sets.M}
	return k.ev.Draw(k.theta, t, k.at, ndraws, seed)
}

// looPredict predicts every observation from its m nearest other
// observations (leave one out), the mean's coefficients those of all the
// observations (GLS at theta); it returns the predictions in the plan's
// ordering.
func (k *vecchiaKriging) loo() (*vecchia.Prediction, error) {
	sets, err := neighbors.NearestOthers(k.dc, min(k.m, k.plan.N-1), k.workers)
	if err != nil {
		return nil, err
	}
	p := k.plan
	cols := make([][]float64, p.NCov)
	for a := range cols {
		cols[a] = make([]float64, p.N)
		for i := range cols[a] {
			cols[a][i] = p.X[i*p.NCov+a]
		}
	}
	return k.ev.Predict(k.theta, &vecchia.Targets{Pts: p.Pts, X: cols, Sets: sets.Idx, M: sets.M}, k.at)
}

// vecchiaHoldout predicts the held-out locations of test (--holdout) at
// the estimate theta by Vecchia kriging: each conditioned on its m
// nearest training locations (in the model's frame at theta), the mean
// by the fit's GLS coefficients (universal kriging, their covariance in
// the variance). It fills the assessment's hold-out scores: the mean
// squared prediction error and the share of the held-out values inside
// their 95 % prediction intervals.
func vecchiaHoldout(a *Assessment, st *vecchiaStages, model likelihood.Model, mean string,
	test *dataset.Data, theta []float64, at *vecchia.Result, m, workers int) error {
	if model == likelihood.BivariateMatern {
		return badInput("fit: --holdout with --computation vecchia is for the univariate kernels")
	}
	t0 := time.Now()
	k, err := krigingOf(st.evs[st.final], st.final.Plan, at, theta, m, workers)
	if err != nil {
		return err
	}
	_, cols, err := dataset.Design(test, mean)
	if err != nil {
		return badInput("fit: --holdout: %v", err)
	}
	pred, err := k.krige(points(test), cols)
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

// predictVecchia runs predict or cv (p, before its plan) with
// --computation vecchia (docs/vecchia.md): the observations ordered and
// conditioned as a Vecchia fit's (--vecchia-m, --vecchia-order) for the
// GLS mean at theta, each new location conditioned on its --vecchia-m
// nearest observations (and, for --draws, on the earlier new locations);
// cv predicts each observation from its m nearest others (leave one
// out), or each fold from the other folds' plan (--folds). O(N m^3)
// time, O(N m) memory; limit: --memory-limit.
func predictVecchia(p *predictRun, limit int64) (*PredictResult, error) {
	cfg, w, cmd, workers := p.cfg, p.w, p.cmd, p.workers
	obs, nw, model := p.pin.obs, p.pin.nw, p.model
	if model == likelihood.BivariateMatern {
		return nil, badInput("%s: --computation vecchia: not for the bivariate model yet", cmd)
	}
	if cfg.Draws > 0 && cfg.Variance == config.VarianceLatent && cfg.Nugget > 0 {
		return nil, badInput("%s: --draws with --variance latent: --computation vecchia draws new observations (with the nugget) in this version", cmd)
	}
	p.res, p.nb = p.result(), 1 // no tiles: the report's matrix is empty
	n := obs.Len() + nw.Len()
	p.need = everyRank(w.Size(), vecchia.MemoryNeed(n, cfg.Vecchia.M, meanColumns(cfg.Mean), len(cfg.Theta)+1, workers)+int64(8*n*cfg.Draws))
	what := fmt.Sprintf("vecchia N=%d m=%d, predicting %d: points, ordering, sets and work space", obs.Len(), cfg.Vecchia.M, nw.Len())
	var err error
	if p.lim, err = checkMemory(w, cmd, p.need, limit, what); err != nil {
		return nil, err
	}
	if err := p.start(); err != nil {
		return nil, err
	}
	defer p.close()
	t0 := time.Now()
	s := vecchia.Setup{M: cfg.Vecchia.M, Order: order.Method(cfg.Vecchia.Order), Seed: cfg.Seed, Workers: workers}
	prepare := func(d *dataset.Data) (*vecchiaKriging, error) {
		_, x, err := dataset.Design(d, cfg.Mean)
		if err != nil {
			return nil, badInput("%s: %v", cfg.Data, err)
		}
		pts, z := mle.ProblemData(d, model)
		return newVecchiaKriging(likelihood.Problem{Points: pts, Metric: p.pin.metric, Obs: z, Model: model, Nugget: cfg.Nugget, Covariates: x}, cfg.Theta, s, p.rt, kernels.Default())
	}
	var out *prediction
	switch {
	case cfg.CV && cfg.Folds > 0:
		out, err = vecchiaKFold(cfg, obs, prepare)
	case cfg.CV:
		out, err = vecchiaLOO(obs, prepare)
	default:
		out, err = vecchiaAt(cfg, obs, nw, prepare)
	}
	if err == nil {
		out.r.Seconds = time.Since(t0).Seconds()
		if cfg.CV {
			p.res.CV = summarise(out.resid, out.r.Var, cfg.Folds)
		}
	}
	return p.finish(out, err)
}

// vecchiaAt predicts at the new locations nw from the observations obs
// (and draws there with cfg.Draws).
func vecchiaAt(cfg config.Predict, obs, nw *dataset.Data, prepare func(*dataset.Data) (*vecchiaKriging, error)) (*prediction, error) {
	k, err := prepare(obs)
	if err != nil {
		return nil, err
	}
	_, cols, err := dataset.Design(nw, cfg.Mean)
	if err != nil {
		return nil, badInput("%s: %v", cfg.At, err)
	}
	p, err := k.krige(points(nw), cols)
	if err != nil {
		return nil, err
	}
	out := &prediction{r: &predict.Result{Z: p.Z, Var: p.Var}}
	if cfg.Draws > 0 {
		out.draws, err = k.draw(points(nw), cols, cfg.Draws, cfg.Seed)
	}
	return out, err
}

// vecchiaLOO predicts every observation of obs from its m nearest other
// observations, in obs's order.
func vecchiaLOO(obs *dataset.Data, prepare func(*dataset.Data) (*vecchiaKriging, error)) (*prediction, error) {
	k, err := prepare(obs)
	if err != nil {
		return nil, err
	}
	p, err := k.loo()
	if err != nil {
		return nil, err
	}
	n := obs.Len()
	out := &prediction{r: &predict.Result{Z: make([]float64, n), Var: make([]float64, n)}, resid: make([]float64, n)}
	for pos, i := range k.plan.Perm {
		out.r.Z[i], out.r.Var[i] = p.Z[pos], p.Var[pos]
		out.resid[i] = obs.Obs[i] - p.Z[pos]
	}
	return out, nil
}

// vecchiaKFold cross-validates obs in cfg.Folds random folds (foldsOf):
// each fold predicted from the plan of the other folds, in obs's order.
func vecchiaKFold(cfg config.Predict, obs *dataset.Data, prepare func(*dataset.Data) (*vecchiaKriging, error)) (*prediction, error) {
	if cfg.Folds > obs.Len() {
		return nil, badInput("%s: %s %d is more than the %d observations of %s", cfg.Command(), foldsFlag(cfg), cfg.Folds, obs.Len(), cfg.Data)
	}
	n := obs.Len()
	out := &prediction{r: &predict.Result{Z: make([]float64, n), Var: make([]float64, n)}, resid: make([]float64, n),
		fold: foldsOf(n, cfg.Folds, cfg.Seed)}
	for f := 0; f < cfg.Folds; f++ {
		train, test := foldRows(out.fold, f)
		if len(test) == 0 {
			continue
		}
		k, err := prepare(subset(obs, train))
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		td := subset(obs, test)
		_, cols, err := dataset.Design(td, cfg.Mean)
		if err != nil {
			return nil, badInput("%s: %v", cfg.Data, err)
		}
		p, err := k.krige(points(td), cols)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for j, i := range test {
			out.r.Z[i], out.r.Var[i] = p.Z[j], p.Var[j]
			out.resid[i] = obs.Obs[i] - p.Z[j]
		}
	}
	return out, nil
}
