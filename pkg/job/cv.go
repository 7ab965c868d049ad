package job

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/plot"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/provenance"
)

// CVSummary scores cross-validation (leave one out, or K-fold when Folds
// > 1): the mean square of the residuals e_i = z_i - E[z_i | rest] (the
// rest: the other observations, or the other folds), the mean logarithmic
// score 1/n sum (1/2 log(2 pi v_i) + e_i^2/(2 v_i)) (lower is better; v_i
// the prediction variance of z_i from the rest, a new observation's), and
// the share of the observations inside their 95 % interval
// (|e_i| <= 1.959964 sqrt(v_i)).
type CVSummary struct {
	N        int     `json:"n"`
	Folds    int     `json:"folds,omitempty"` // 0: leave one out
	MSPE     float64 `json:"mspe"`
	LogScore float64 `json:"mean_log_score"`
	Coverage float64 `json:"coverage_95"`
}

// summarise returns the CVSummary of residuals e with variances v.
func summarise(e, v []float64, folds int) *CVSummary {
	s := &CVSummary{N: len(e), Folds: folds}
	for i := range e {
		s.MSPE += e[i] * e[i]
		s.LogScore += 0.5*math.Log(2*math.Pi*v[i]) + e[i]*e[i]/(2*v[i])
		if math.Abs(e[i]) <= 1.959963984540054*math.Sqrt(v[i]) {
			s.Coverage++
		}
	}
	n := float64(len(e))
	s.MSPE /= n
	s.LogScore /= n
	s.Coverage /= n
	return s
}

// leaveOneOut runs predict.LeaveOneOut on ev (whose points are obs
// permuted by perm: point k is obs row perm[k]) and returns, in obs's
// order, the leave-one-out predictions z_i - e_i and variances, the
// residuals, and the summary. With a mean model each prediction is the
// universal-kriging one, the mean's coefficients re-estimated without the
// point.
func leaveOneOut(ev *likelihood.Evaluator, theta []float64, obs *dataset.Data, perm []int) (*predict.Result, []float64, *CVSummary, error) {
	loo, err := predict.LeaveOneOut(ev, theta)
	if err != nil {
		return nil, nil, nil, err
	}
	n := obs.Len()
	r := &predict.Result{Z: make([]float64, n), Var: make([]float64, n), Seconds: loo.Seconds}
	e := make([]float64, n)
	for k, i := range perm {
		e[i] = loo.Residual[k]
		r.Var[i] = loo.Var[k]
		r.Z[i] = obs.Obs[i] - e[i]
	}
	return r, e, summarise(e, r.Var, 0), nil
}

// foldsOf assigns n observations to k folds at random: a permutation of
// 0..n-1 drawn from a PCG seeded by seed, the point at position j of it in
// fold j mod k (folds of sizes floor(n/k) or ceil(n/k)). Folds are
// numbered from 0.
func foldsOf(n, k int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x6b666f6c64))
	f := make([]int, n)
	for j, i := range rng.Perm(n) {
		f[i] = j % k
	}
	return f
}

// kFold cross-validates the observations of obs in the folds fold (one
// per row): each fold's rows are kriged at theta from the other folds' rows
// (universal kriging with the mean model mean, its coefficients estimated
// from the other folds), through an evaluator newEval builds for them (its
// own Cholesky factor). It returns, in obs's order, the predictions and
// variances, the residuals and the summary.
func kFold(newEval func(*dataset.Data) (*likelihood.Evaluator, error), theta []float64, obs *dataset.Data, fold []int, k int, mean string) (*predict.Result, []float64, *CVSummary, error) {
	n := obs.Len()
	r := &predict.Result{Z: make([]float64, n), Var: make([]float64, n)}
	e := make([]float64, n)
	t0 := time.Now()
	for f := 0; f < k; f++ {
		train, test := foldRows(fold, f)
		if len(test) == 0 {
			continue
		}
		ev, err := newEval(subset(obs, train))
		if err != nil {
			return nil, nil, nil, err
		}
		p, err := krigeAt(ev, theta, subset(obs, test), mean)
		ev.Release()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for j, i := range test {
			r.Z[i], r.Var[i] = p.Z[j], p.Var[j]
			e[i] = obs.Obs[i] - p.Z[j]
		}
	}
	r.Seconds = time.Since(t0).Seconds() // the K factorisations included
	return r, e, summarise(e, r.Var, k), nil
}

// foldRows returns the rows outside fold f (train) and in it (test).
func foldRows(fold []int, f int) (train, test []int) {
	for i, g := range fold {
		if g == f {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	return train, test
}

// CVResult is the JSON that `cv --json` writes: the model and theta the
// observations were cross-validated at, the split (Folds 0: leave one out;
// Seed the split's seed), the summary, and what the run was.
type CVResult struct {
	Kernel  string          `json:"kernel"`
	Theta   []float64       `json:"theta"`
	Nugget  float64         `json:"nugget,omitempty"`
	Mean    string          `json:"mean"`
	Seed    uint64          `json:"seed,omitempty"`
	Summary *CVSummary      `json:"summary"`
	Seconds float64         `json:"seconds"`
	Memory  []RankMemory    `json:"memory,omitempty"` // every rank's (PredictResult.Memory)
	Run     *provenance.Run `json:"run,omitempty"`
	// Plots are the pictures --plot drew (PNG; each with its SVG beside).
	Plots []string `json:"plots,omitempty"`
}

// writeCVJSON writes cfg.JSON (rank 0).
func writeCVJSON(env Env, cfg config.Predict, res *PredictResult, workers int) error {
	run := provenance.New(env.Command, res.Ranks, workers)
	env.inputs().Record(run) // the data, and the fit result of --theta-from
	out := CVResult{Kernel: cfg.Kernel, Theta: cfg.Theta, Nugget: cfg.Nugget, Mean: cfg.Mean, Summary: res.CV, Seconds: res.Seconds, Memory: res.Memory, Run: run, Plots: res.Plots}
	if cfg.Folds > 0 {
		out.Seed = cfg.Seed
	}
	return WriteJSON(cfg.JSON, out)
}

// cvPlots draws, into cfg.Plot, the map of the standardised residuals
// (e_i / sqrt(v_i)) at the data locations on a diverging colour scale
// symmetric about 0, and their normal QQ plot; it returns the PNG files.
func cvPlots(cfg config.Predict, res *PredictResult, coords dataset.Coords) ([]string, error) {
	pics := pictures{dpi: cfg.DPI, zname: cfg.ZName, units: cfg.Units, xyunits: cfg.XYUnits}
	what := "leave-one-out"
	if cfg.Folds > 0 {
		what = fmt.Sprintf("%d-fold cross-validation", cfg.Folds)
	}
	xl, yl := axes(coords, pics.xyunits)
	mapBase := filepath.Join(cfg.Plot, "cv_residuals")
	if err := plot.Map(mapBase, res.X, res.Y, res.Standardized, plot.MapOptions{
		Title:  fmt.Sprintf("Standardised %s residuals (N=%d)", what, len(res.X)),
		Label:  pics.label("standardised residual") + ", (z - z_hat)/sd",
		XLabel: xl, YLabel: yl, Diverging: true, DPI: cfg.DPI,
		Aspect: mapAspect(coords, slices.Min(res.Y), slices.Max(res.Y)),
	}); err != nil {
		return nil, fmt.Errorf("cv: --plot: %w", err)
	}
	qqBase := filepath.Join(cfg.Plot, "cv_qq")
	if err := plot.NormalQQ(qqBase, res.Standardized, plot.QQOptions{
		Title:  fmt.Sprintf("Normal QQ plot, %s (N=%d)", what, len(res.X)),
		YLabel: pics.label("standardised residual"),
		DPI:    cfg.DPI,
	}); err != nil {
		return nil, fmt.Errorf("cv: --plot: %w", err)
	}
	return []string{mapBase + ".png", qqBase + ".png"}, nil
}

// FitCV cross-validates the data of a fit at its estimate (fit --cv): leave
// one out, or K-fold, as `exageostat cv` with the fit's theta, kernel,
// mean, nugget and distance (FitResult.ApplyTo), its tile size, workers,
// distribution and pictures' settings; it writes cfg.CVOut (and, with
// --plot, the pictures cv_residuals and cv_qq), sets r.CV, adds the
// pictures to r.Plots and, on rank 0, writes cfg.JSON again with them. Every rank calls it after Fit.
func FitCV(r *FitResult, cfg config.Fit, env Env) (*PredictResult, error) {
	folds, err := config.ParseCV(cfg.CV)
	if err != nil {
		return nil, badInput("fit: %v", err)
	}
	p := config.DefaultPredict()
	p.Cmd = "fit"
	if err := r.ApplyTo(&p, "the fit", func(string) bool { return false }); err != nil {
		return nil, err
	}
	p.Data, p.At, p.Out, p.CV, p.Folds, p.Seed = cfg.Data, cfg.Data, cfg.CVOut, true, folds, cfg.Seed
	p.NB, p.Workers, p.MemoryLimit = r.NB, cfg.Workers, cfg.MemoryLimit
	if d := cfg.Phase.Distribution; d == "bc" || d == "1d1d" { // lp and bc-fast need the fit's cluster model: block-cyclic
		p.Phase = cfg.Phase
	}
	p.Plot, p.DPI, p.ZName, p.Units, p.XYUnits = cfg.Plot, cfg.DPI, cfg.ZName, cfg.Units, cfg.XYUnits
	p.Approx = cfg.Approx // the cross-validation on the fit's factor
	p.Vecchia = config.Vecchia{M: cfg.Vecchia.M, Order: cfg.Vecchia.Order}
	pr, err := Predict(p, env)
	var ir *Interrupted
	if errors.As(err, &ir) {
		return nil, &Interrupted{Signal: ir.Signal, Evaluations: r.Evaluations, Complete: true, Skipped: "the cross-validation"}
	}
	if err != nil {
		return nil, err
	}
	r.CV = pr.CV
	r.Plots = append(r.Plots, pr.Plots...) // the JSON's plots list the pictures of the cross-validation too
	if cfg.JSON != "" && env.comm().Rank() == 0 {
		if err := WriteJSON(cfg.JSON, r); err != nil {
			return nil, err
		}
	}
	return pr, nil
}
