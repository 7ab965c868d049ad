package job

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/gdal"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/provenance"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/stop"
)

// PredictResult describes the predictions that were written. It is also
// predict's --json summary (rank 0), with every rank's memory and the
// run's provenance.
type PredictResult struct {
	Observed     int       `json:"observed"`  // observations used
	Predicted    int       `json:"predicted"` // locations predicted
	Kernel       string    `json:"kernel"`
	Theta        []float64 `json:"theta"`
	Nugget       float64   `json:"nugget,omitempty"`
	Mean         string    `json:"mean"`
	Out          string    `json:"out"`
	Seconds      float64   `json:"seconds"` // wall time of the prediction's task graphs
	Ranks        int       `json:"ranks"`
	Workers      int       `json:"workers"`
	Distribution string    `json:"distribution,omitempty"` // the tiles' distribution over the ranks ("" on one rank)
	// Computation is the factor the kriging solved with (exact, tlr, mp,
	// dst); the cross-covariances are exact.
	Computation string `json:"computation"`
	// CV scores the cross-validation (cfg.CV).
	CV *CVSummary `json:"-"`
	// X, Y, Residuals and Standardized are the cross-validation's
	// locations, residuals e_i and e_i / sqrt(v_i), in the data's order
	// (rank 0, cfg.CV).
	X, Y, Residuals, Standardized []float64 `json:"-"`
	// Plots are the PNG files written (cv --plot).
	Plots []string `json:"-"`
	// Memory is every rank's memory (rank 0; RankMemory, Busy holding the
	// run's wall seconds), Traced the trace files written (--trace).
	Memory []RankMemory    `json:"memory,omitempty"`
	Traced []string        `json:"trace_files,omitempty"`
	Run    *provenance.Run `json:"run,omitempty"`
}

// Predict runs `exageostat predict` as cfg says on the ranks of
// env.Comm: simple kriging (universal kriging with cfg.Mean, the mean
// estimated by GLS at theta, its covariates also read from cfg.At) at the
// locations of cfg.At from the observations of cfg.Data (predict.Krige, with the tiles distributed
// over the ranks like a fit's); rank 0 writes x,y,z_hat,variance in the
// order of cfg.At. The file is the same on any number of ranks. Every
// rank's need is checked against its memory first.
func Predict(cfg config.Predict, env Env) (_ *PredictResult, err error) {
	w := env.comm()
	env.Inputs = env.inputs() // one reader for the run (its record: the JSON's run)
	cmd := cfg.Command()
	ag := newAgreement(env, cmd) // the ranks agree on the inputs and settings (agree.go)
	defer ag.finish(&err)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkBlocks(cfg); err != nil {
		return nil, err
	}
	if t := len(cfg.Theta) - 1; config.HasTau2(cfg.Kernel, len(cfg.Theta)) { // (sigma2, beta, nu, tau2): the nugget is tau2
		cfg.Nugget, cfg.Theta = cfg.Theta[t], cfg.Theta[:t]
	}
	if w.Rank() == 0 {
		if err := predictOutputs(&cfg).Check(); err != nil {
			return nil, err
		}
		if cfg.Plot != "" {
			if err := os.MkdirAll(cfg.Plot, 0o755); err != nil {
				return nil, badInput("%s: --plot: %v", cmd, err)
			}
		}
	}
	limit, _ := config.MemoryLimitBytes(cfg.MemoryLimit)
	cl, err := phaseCluster(cmd, w.Size(), cfg.Phase)
	if err != nil {
		return nil, err
	}
	workers := workersOr(cfg.Workers)
	// The ranks agree on the settings before rank 0 reads the inputs for
	// all (Inputs).
	if err := ag.check(shared{settings: settingsOf(cfg)}, workers); err != nil {
		return nil, err
	}
	pin, err := readPredictData(env.Inputs, &cfg, env)
	if err != nil {
		return nil, sameOnEveryRank(err, w)
	}
	obs, nw, metric := pin.obs, pin.nw, pin.metric
	model := likelihood.Model(cfg.Kernel)
	res := &PredictResult{Computation: cfg.Computation, Observed: obs.Len(), Predicted: nw.Len(), Kernel: cfg.Kernel, Theta: cfg.Theta,
		Nugget: cfg.Nugget, Mean: cfg.Mean, Out: cfg.Out, Ranks: w.Size(), Workers: workers}
	if cfg.Computation == "vecchia" {
		return predictVecchia(cfg, env, pin, res, limit)
	}
	n1, n2 := obs.Len()*variables(model), nw.Len()*variables(model) // the matrices' orders
	nb := tileSize(cfg.NB, n1)
	g := evalGraph(n1, nb).larger(krigeGraph(n1, n2, nb))
	o := likelihood.Options{NB: nb, Approx: ApproxOf(cfg.Approx)}
	if o.Approx.Computation == likelihood.TLR { // budget the tiles at a sampled rank
		pts, _ := problemData(dataset.Permute(obs, dataset.MortonOrder(obs)), model)
		o.Approx.RankEstimate = tlrRankBudget(o.Approx, likelihood.Problem{Points: pts, Metric: metric, Model: model}, cfg.Theta, nb, cfg.Seed)
	}
	if err := checkScale(w, cmd, limit, scale{n: n1, nb: nb, g: g, tiles: float64(likelihood.TileBytes(n1, o))}); err != nil {
		return nil, err
	}
	if o.Owner, o.GenOwner, res.Distribution, err = distribute(w, cl, n1, nb, false); err != nil {
		return nil, err
	}
	need := likelihood.MemoryNeed(n1, o, w.Size())
	if cfg.Draws > 0 { // V whole, and on rank 0 the conditional covariance, its factor and the draws
		need[0] += int64(8*n1*n2) + int64(16*n2*n2) + int64(8*n2*cfg.Draws)
	}
	addTo(need, predict.KrigeNeed(n1, n2, o, w.Size()))
	addTo(need, graphNeed(g, n1, nb, o.Owner, w.Size()))
	what := fmt.Sprintf("%s, kriging %d locations%s", problem(n1, nb, w.Size()), n2, graphNote(g, most(need)*int64(w.Size())))
	pr, err := startPredict(w, env, cfg, workers, need, limit, what)
	if err != nil {
		return nil, err
	}
	defer pr.close()
	rt := pr.rt
	// newEval returns an evaluator of the observations d, their points in
	// Morton order (perm: point k is row perm[k] of d).
	newEval := func(d *dataset.Data) (*likelihood.Evaluator, []int, error) {
		perm := dataset.MortonOrder(d)
		sorted := dataset.Permute(d, perm)
		_, x, err := dataset.Design(sorted, cfg.Mean)
		if err != nil {
			return nil, nil, badInput("%s: %v", cfg.Data, err)
		}
		pts, z := problemData(sorted, model)
		ev, err := likelihood.NewWith(likelihood.Problem{Points: pts, Metric: metric, Obs: z,
			Model: model, Nugget: cfg.Nugget, Covariates: x}, rt, o)
		return ev, perm, err
	}
	var ev *likelihood.Evaluator
	var perm []int
	if cfg.Folds == 0 { // K-fold builds one evaluator per fold
		if ev, perm, err = newEval(obs); err != nil {
			return nil, err
		}
		defer ev.Release()
	}
	var r *predict.Result
	var resid []float64
	var draws [][]float64
	var fold []int
	switch {
	case cfg.CV && cfg.Folds > 0:
		if model == likelihood.BivariateMatern {
			return nil, badInput("%s: %s: not for the bivariate model yet", cmd, foldsFlag(cfg))
		}
		if cfg.Folds > obs.Len() {
			return nil, badInput("%s: %s %d is more than the %d observations of %s", cmd, foldsFlag(cfg), cfg.Folds, obs.Len(), cfg.Data)
		}
		fold = foldsOf(obs.Len(), cfg.Folds, cfg.Seed)
		r, resid, res.CV, err = kFold(func(d *dataset.Data) (*likelihood.Evaluator, error) {
			ev, _, err := newEval(d)
			return ev, err
		}, cfg.Theta, obs, fold, cfg.Folds, cfg.Mean)
	case cfg.CV:
		r, resid, res.CV, err = leaveOneOut(ev, cfg.Theta, obs, perm)
	case cfg.Blocks != "":
		if r, err = writeBlocks(ev, cfg, nw, env); err == nil {
			res.Seconds, res.Predicted = r.Seconds, len(r.Z)
			return res, checkFailTask(rt, w)
		}
	case cfg.Draws > 0:
		var d *predict.Draws
		d, err = drawsAt(ev, cfg.Theta, nw, cfg.Mean, cfg.Draws, cfg.Seed, cfg.Variance != config.VarianceLatent)
		if d != nil {
			r, draws = &d.Result, d.Z
		}
	default:
		r, err = krigeAt(ev, cfg.Theta, nw, cfg.Mean)
	}
	if err != nil {
		return nil, predictError(cmd, cfg.Mean, pr.rs, err)
	}
	res.Seconds = r.Seconds
	if err := checkFailTask(rt, w); err != nil {
		return nil, err
	}
	return finishPredict(cfg, env, pin, res, &predicted{r: r, resid: resid, draws: draws, fold: fold}, func() (runReport, error) {
		return reportRun(w, rt, pr.tr, n1, nb, o.Owner, need, pr.lim, res.Seconds)
	})
}

// predictRun is a prediction's runtime, its trace (--trace) and its stop
// control, and the memory the ranks may use.
type predictRun struct {
	rt  *runtime.Runtime
	tr  *traceRun
	rs  *runStop
	lim memory.Limit
}

// startPredict checks each rank's need against its memory (checkMemory:
// what names it), then opens the trace and starts a prediction's runtime
// on w with its stop control (signals; no deadline: a prediction is past
// any search). close ends them.
func startPredict(w comm.Comm, env Env, cfg config.Predict, workers int, need []int64, limit int64, what string) (*predictRun, error) {
	p := &predictRun{}
	var err error
	if p.lim, err = checkMemory(w, cfg.Command(), need, limit, what); err != nil {
		return nil, err
	}
	if p.tr, err = openTrace(cfg.Trace, w); err != nil {
		return nil, err
	}
	if p.rt, err = newRuntimeWith(w, workers, false, nil, p.tr); err != nil {
		p.tr.close()
		return nil, err
	}
	p.rs = newRunStop(w, env, stop.Deadline{})
	p.rs.setPhase(phaseAfter)
	p.rs.attach(p.rt)
	return p, nil
}

// close ends the stop control, the runtime and the trace.
func (p *predictRun) close() {
	p.rs.close()
	p.rt.Close()
	p.tr.close()
}

// predictError maps a prediction's failure: work given up after a signal
// (Interrupted), a collinear mean or a theta whose covariance matrix is
// not positive definite (the user's: exit 2).
func predictError(cmd, mean string, rs *runStop, err error) error {
	if givenUp(err) {
		return &Interrupted{Cmd: cmd, Signal: rs.req.Number()}
	}
	if errors.Is(err, likelihood.ErrCollinear) {
		return badInput("%s: --mean %s: %v", cmd, mean, err)
	}
	if errors.Is(err, likelihood.ErrNotPosDef) || errors.Is(err, likelihood.ErrBadTheta) {
		return badInput("%s: %v (add a nugget, or use a smaller range or smoothness)", cmd, err)
	}
	return err
}

// finishPredict checks the predictions p of cfg (the variance of the
// latent field with --variance latent; no value that is not finite),
// gathers the run's report (report: collective) and writes them on rank
// 0: the table or raster of predictions (and draws), or the
// cross-validation's table, pictures and JSON; predict's JSON.
func finishPredict(cfg config.Predict, env Env, pin predictInputs, res *PredictResult, p *predicted, report func() (runReport, error)) (*PredictResult, error) {
	w, cmd, workers := env.comm(), cfg.Command(), res.Workers
	obs, nw, model := pin.obs, pin.nw, likelihood.Model(cfg.Kernel)
	r, resid, draws, fold := p.r, p.resid, p.draws, p.fold
	tau2 := likelihood.Problem{Model: model, Nugget: cfg.Nugget}.Tau2(cfg.Theta)
	if cfg.Variance == config.VarianceLatent && cfg.Draws == 0 { // the draws' variance is already the chosen one
		// The field's own variance: the new observation's without the
		// nugget tau2 (its measurement error), clamped at 0 like it.
		for i := range r.Var {
			r.Var[i] = math.Max(r.Var[i]-tau2, 0)
		}
	}
	if err := checkPrediction(cmd, r.Z, r.Var, cfg.At); err != nil {
		return nil, err
	}
	rep, err := report()
	if err != nil {
		return nil, err
	}
	if w.Rank() != 0 {
		return res, nil
	}
	res.Memory, res.Traced = rep.Memory, rep.Traced
	hdr, cols := predictionColumns(cfg, nw, r.Z, r.Var, draws)
	if cfg.CV {
		std := make([]float64, len(resid))
		for i, e := range resid {
			std[i] = e / math.Sqrt(r.Var[i])
		}
		hdr = []string{hdr[0], hdr[1], "z", "z_loo", "variance", "residual", "standardized"}
		cols = [][]float64{obs.X, obs.Y, obs.Obs, r.Z, r.Var, resid, std}
		if fold != nil {
			hdr[3] = "z_cv"
			f := make([]float64, len(fold))
			for i, g := range fold {
				f[i] = float64(g + 1)
			}
			hdr, cols = append(hdr, "fold"), append(cols, f)
		}
		if p := cfg.Transformation().Prefix(); p != "" { // the residuals are on the transformed scale
			hdr[2], hdr[3] = p+"_"+hdr[2], p+"_"+hdr[3]
		}
		res.Residuals, res.Standardized, res.X, res.Y = resid, std, obs.X, obs.Y
	}
	if model == likelihood.BivariateMatern {
		hdr, cols = bivariateColumns(hdr[:2], cols[:2], r.Z, r.Var)
	}
	if gdal.IsPoints(cfg.Out) {
		if err := writePoints(cfg.Out, pointsCRS(pin.grid, cfg.CRS, nw.Coords), hdr, cols); err != nil {
			return nil, badInput("%s: --out %v", cmd, err)
		}
	} else if pin.grid != nil && rasterOut(cfg.Out) {
		if err := writeGrid(cfg.Out, pin.grid, hdr[2:], cols[2:]); err != nil {
			return nil, badInput("%s: --out %v", cmd, err)
		}
	} else if cfg.Out == StdoutPath {
		if err := dataset.WriteTableTo(env.stdout(), hdr, cols); err != nil {
			return nil, fmt.Errorf("%s: standard output: %w", cmd, err)
		}
	} else if err := dataset.WriteTable(cfg.Out, hdr, cols); err != nil {
		return nil, badInput("%s: %v", cmd, err)
	}
	if cfg.CV && cfg.Plot != "" {
		if res.Plots, err = cvPlots(cfg, res, obs.Coords); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.CV && cfg.JSON != "":
		if err := writeCVJSON(env, cfg, res, workers); err != nil {
			return nil, badInput("%s: --json: %v", cmd, err)
		}
	case cfg.JSON != "":
		res.Run = provenance.New(env.Command, res.Ranks, workers)
		env.Inputs.Record(res.Run) // the digests of the bytes read: a FIFO cannot be read again
		if err := WriteJSON(cfg.JSON, res); err != nil {
			return nil, badInput("predict: --json: %v", err)
		}
	}
	return res, nil
}

// predictInputs are the inputs of a prediction: the observations, the
// new locations (with their raster grid, nil for a CSV) and the distance
// they give.
type predictInputs struct {
	obs, nw *dataset.Data
	grid    *grid
	metric  matern.Metric
}

// readPredictData reads the observations (cfg.Data) and the new
// locations (cfg.At) of a prediction (in: rank 0 reads, every rank parses
// the same bytes; cfg's paths become rank 0's) and checks them, with the
// distance they give.
func readPredictData(in *Inputs, cfg *config.Predict, env Env) (p predictInputs, err error) {
	if p.obs, err = readPredictObs(in, cfg, env); err != nil {
		return p, err
	}
	obs := p.obs
	if p.nw, p.grid, err = readAt(in, cfg); err != nil {
		return p, err
	}
	nw := p.nw
	if err := checkPointsOut(cfg.Command(), cfg.Out); err != nil {
		return p, err
	}
	if rasterOut(cfg.Out) && p.grid == nil && cfg.Blocks == "" {
		return p, badInput("%s: --out %s is a raster: it needs the grid of a raster --at (.tif, .nc), not %s", cfg.Command(), cfg.Out, cfg.At)
	}
	logNotes(env, cfg.At, nw)
	if _, _, err := dataset.Design(nw, cfg.Mean); err != nil { // the covariates at the new locations
		return p, badInput("%s: %v", cfg.At, err)
	}
	if nw.Len() == 0 {
		return p, badInput("%s: no locations", cfg.At)
	}
	if err := dataset.ValidateWith(nw, 1, true); err != nil { // no matrix over the new locations is factorised
		return p, badInput("%s: %v", cfg.At, err)
	}
	if p.metric, err = Metric(cfg.Distance, obs.Coords); err != nil {
		return p, badInput("%s: %v", cfg.Command(), err)
	}
	if err := check3D(cfg.Command(), cfg.Kernel, obs, p.metric); err != nil {
		return p, err
	}
	if fd := cfg.FitDistance; fd != "" && p.metric.String() != fd {
		return p, badInput(cfg.Command()+": --distance auto gives %s distances for %s, but the fit in %s used %s (leave --distance out)",
			p.metric.String(), cfg.Data, cfg.ThetaFrom, fd)
	}
	if obs.Coords != nw.Coords {
		return p, badInput("%s: %s and %s use different coordinates (%s vs %s)", cfg.Command(), cfg.Data, cfg.At, obs.Coords, nw.Coords)
	}
	return p, sameColumns(cfg.Command(), cfg.Data, obs, cfg.At, nw)
}

// readPredictObs reads and checks the observations of a prediction
// (cfg.Data, through in).
func readPredictObs(in *Inputs, cfg *config.Predict, env Env) (*dataset.Data, error) {
	var b []byte
	var err error
	if cfg.Data, b, err = in.Read("data", cfg.Data); err != nil {
		return nil, readInputError(cfg.Data, err)
	}
	obs, err := readData(cfg.Data, b, cfg.Columns, cfg.Mean, cfg.Kernel)
	if err != nil {
		return nil, err
	}
	if obs.Obs == nil {
		return nil, badInput("%s: %s has no observations (a column z, value or obs, or one named by --z)", cfg.Command(), cfg.Data)
	}
	logNotes(env, cfg.Data, obs)
	if err := dataset.ValidateWith(obs, 3, cfg.Nugget > 0 || cfg.Cmd == "variogram"); err != nil { // a nugget (or a semivariogram: pairs at distance 0) allows duplicate locations
		return nil, badInput("%s: %v%s", cfg.Data, err, droppedNote(obs))
	}
	if err := checkKernelColumns(cfg.Data, cfg.Kernel, obs); err != nil {
		return nil, err
	}
	if err := checkSpread(cfg.Data, obs, false); err != nil {
		return nil, err
	}
	if names, cols, err := dataset.Design(obs, cfg.Mean); err != nil {
		return nil, badInput("%s: %v", cfg.Data, err)
	} else if err := checkDesign(names, cols); err != nil {
		return nil, badInput("%s: --mean %s: %v", cfg.Data, cfg.Mean, err)
	}
	return obs, nil
}

// foldsFlag is the flag that gave a cross-validation's folds: --cv of
// fit, --folds of cv.
func foldsFlag(cfg config.Predict) string {
	if cfg.Cmd == "fit" {
		return "--cv"
	}
	return "--folds"
}

// checkPrediction refuses a prediction with a value that is not finite (an
// overflow: sigma2 near the float64 range, or a covariance matrix that is
// numerically singular at theta), naming the first such row of at: no file
// is written rather than one with Inf or NaN in it.
func checkPrediction(cmd string, z, v []float64, at string) error {
	for i := range z {
		if !finite([]float64{z[i], v[i]}) {
			return badInput(cmd+": the prediction at row %d of %s is not finite (z_hat %g, variance %g): theta overflows float64 or makes the covariance matrix numerically singular; nothing written",
				i+1, at, z[i], v[i])
		}
	}
	return nil
}
