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
	if err := checkPredict(&cfg, w, cmd); err != nil {
		return nil, err
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
	p := &predictRun{cfg: cfg, env: env, w: w, cmd: cmd, pin: pin, workers: workers, model: likelihood.Model(cfg.Kernel)}
	if cfg.Computation == "vecchia" {
		return predictVecchia(p, limit)
	}
	if err := p.plan(cl, limit); err != nil {
		return nil, err
	}
	if err := p.start(); err != nil {
		return nil, err
	}
	defer p.close()
	var ev *likelihood.Evaluator
	var perm []int
	if cfg.Folds == 0 { // K-fold builds one evaluator per fold
		if ev, perm, err = p.newEval(pin.obs); err != nil {
			return nil, err
		}
		defer ev.Release()
	}
	pred, err := p.predict(ev, perm)
	if err == nil && pred.blocks {
		return p.res, checkFailTask(p.rt, w)
	}
	return p.finish(pred, err)
}

// checkPredict checks cfg (its settings, blocks and, on rank 0, that its
// outputs can be written, making the --plot directory), and splits a
// nugget tau2 given as theta's last parameter off into cfg.Nugget.
func checkPredict(cfg *config.Predict, w comm.Comm, cmd string) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := checkBlocks(*cfg); err != nil {
		return err
	}
	if t := len(cfg.Theta) - 1; config.HasTau2(cfg.Kernel, len(cfg.Theta)) { // (sigma2, beta, nu, tau2): the nugget is tau2
		cfg.Nugget, cfg.Theta = cfg.Theta[t], cfg.Theta[:t]
	}
	if w.Rank() != 0 {
		return nil
	}
	if err := predictOutputs(cfg).Check(); err != nil {
		return err
	}
	if cfg.Plot != "" {
		if err := os.MkdirAll(cfg.Plot, 0o755); err != nil {
			return badInput("%s: --plot: %v", cmd, err)
		}
	}
	return nil
}

// predictRun is one Predict on the ranks of w: its inputs, the matrices'
// orders (n1 observed, n2 new), the tile options, every rank's memory
// need and limit, the runtime and the result.
type predictRun struct {
	cfg     config.Predict
	env     Env
	w       comm.Comm
	cmd     string
	pin     predictInputs
	workers int
	model   likelihood.Model
	n1, n2  int
	nb      int
	o       likelihood.Options
	need    []int64
	lim     memory.Limit
	rt      *runtime.Runtime
	tr      *traceRun
	rs      *runStop
	res     *PredictResult
}

// prediction is what the kriging computed: the predictions r, and the
// cross-validation's residuals and folds or the conditional draws;
// blocks: block kriging, which wrote its own output.
type prediction struct {
	r      *predict.Result
	resid  []float64
	draws  [][]float64
	fold   []int
	blocks bool
}

// plan sets the tiles (size, approximation, distribution over cl's
// ranks) and checks the scale and every rank's memory need against its
// limit (userLimit: --memory-limit).
func (p *predictRun) plan(cl config.Cluster, userLimit int64) error {
	cfg, w, cmd, model := p.cfg, p.w, p.cmd, p.model
	obs, nw := p.pin.obs, p.pin.nw
	p.n1, p.n2 = obs.Len()*variables(model), nw.Len()*variables(model) // the matrices' orders
	n1, n2 := p.n1, p.n2
	p.nb = tileSize(cfg.NB, n1)
	nb := p.nb
	g := evalGraph(n1, nb).larger(krigeGraph(n1, n2, nb))
	p.o = likelihood.Options{NB: nb, Approx: ApproxOf(cfg.Approx)}
	if p.o.Approx.Computation == likelihood.TLR { // budget the tiles at a sampled rank
		pts, _ := problemData(dataset.Permute(obs, dataset.MortonOrder(obs)), model)
		p.o.Approx.RankEstimate = tlrRankBudget(p.o.Approx, likelihood.Problem{Points: pts, Metric: p.pin.metric, Model: model}, cfg.Theta, nb, cfg.Seed)
	}
	if err := checkScale(w, cmd, userLimit, scale{n: n1, nb: nb, g: g, tiles: float64(likelihood.TileBytes(n1, p.o))}); err != nil {
		return err
	}
	p.res = p.result()
	var err error
	if p.o.Owner, p.o.GenOwner, p.res.Distribution, err = distribute(w, cl, n1, nb, false); err != nil {
		return err
	}
	need := likelihood.MemoryNeed(n1, p.o, w.Size())
	if cfg.Draws > 0 {
		need[0] += drawsNeed(n1, n2, cfg.Draws)
	}
	addTo(need, predict.KrigeNeed(n1, n2, p.o, w.Size()))
	addTo(need, graphNeed(g, n1, nb, p.o.Owner, w.Size()))
	p.need = need
	what := fmt.Sprintf("%s, kriging %d locations%s", problem(n1, nb, w.Size()), n2, graphNote(g, most(need)*int64(w.Size())))
	p.lim, err = checkMemory(w, cmd, need, userLimit, what)
	return err
}

// result is the run's result before the prediction: its counts and
// settings.
func (p *predictRun) result() *PredictResult {
	cfg := p.cfg
	return &PredictResult{Computation: cfg.Computation, Observed: p.pin.obs.Len(), Predicted: p.pin.nw.Len(), Kernel: cfg.Kernel, Theta: cfg.Theta,
		Nugget: cfg.Nugget, Mean: cfg.Mean, Out: cfg.Out, Ranks: p.w.Size(), Workers: p.workers}
}

// start opens the trace (--trace) and starts the runtime on the ranks
// with its stop control (signals; no deadline: a prediction is past any
// search). close ends them.
func (p *predictRun) start() error {
	var err error
	if p.tr, err = openTrace(p.cfg.Trace, p.w); err != nil {
		return err
	}
	if p.rt, err = newRuntimeWith(p.w, p.workers, false, nil, p.tr); err != nil {
		p.tr.close()
		return err
	}
	p.rs = newRunStop(p.w, p.env, stop.Deadline{})
	p.rs.setPhase(phaseAfter)
	p.rs.attach(p.rt)
	return nil
}

// close ends the stop control, the runtime and the trace.
func (p *predictRun) close() {
	p.rs.close()
	p.rt.Close()
	p.tr.close()
}

// finish ends a prediction that returned pred and err: the failure
// mapped (failure), the predictions checked (check), the run's report
// gathered (collective) and, on rank 0, the outputs written (write).
func (p *predictRun) finish(pred *prediction, err error) (*PredictResult, error) {
	if err := p.failure(err, p.rs); err != nil {
		return nil, err
	}
	if err := p.check(pred); err != nil {
		return nil, err
	}
	rep, err := reportRun(p.w, p.rt, p.tr, p.n1, p.nb, p.o.Owner, p.need, p.lim, p.res.Seconds)
	if err != nil {
		return nil, err
	}
	if p.w.Rank() != 0 {
		return p.res, nil
	}
	p.res.Memory, p.res.Traced = rep.Memory, rep.Traced
	if err := p.write(pred); err != nil {
		return nil, err
	}
	return p.res, nil
}

// newEval returns an evaluator of the observations d, their points in
// Morton order (perm: point k is row perm[k] of d).
func (p *predictRun) newEval(d *dataset.Data) (*likelihood.Evaluator, []int, error) {
	cfg := p.cfg
	perm := dataset.MortonOrder(d)
	sorted := dataset.Permute(d, perm)
	_, x, err := dataset.Design(sorted, cfg.Mean)
	if err != nil {
		return nil, nil, badInput("%s: %v", cfg.Data, err)
	}
	pts, z := problemData(sorted, p.model)
	ev, err := likelihood.NewWith(likelihood.Problem{Points: pts, Metric: p.pin.metric, Obs: z,
		Model: p.model, Nugget: cfg.Nugget, Covariates: x}, p.rt, p.o)
	return ev, perm, err
}

// predict runs what cfg asks with the evaluator ev of the observations
// (perm: their Morton order; nil for K-fold cross-validation, which makes
// one per fold): K-fold or leave-one-out cross-validation, block kriging,
// conditional draws or kriging at the new locations.
func (p *predictRun) predict(ev *likelihood.Evaluator, perm []int) (*prediction, error) {
	cfg, cmd, obs, nw, res := p.cfg, p.cmd, p.pin.obs, p.pin.nw, p.res
	pr := &prediction{}
	var err error
	switch {
	case cfg.CV && cfg.Folds > 0:
		if p.model == likelihood.BivariateMatern {
			return nil, badInput("%s: %s: not for the bivariate model yet", cmd, foldsFlag(cfg))
		}
		if cfg.Folds > obs.Len() {
			return nil, badInput("%s: %s %d is more than the %d observations of %s", cmd, foldsFlag(cfg), cfg.Folds, obs.Len(), cfg.Data)
		}
		pr.fold = foldsOf(obs.Len(), cfg.Folds, cfg.Seed)
		pr.r, pr.resid, res.CV, err = kFold(func(d *dataset.Data) (*likelihood.Evaluator, error) {
			ev, _, err := p.newEval(d)
			return ev, err
		}, cfg.Theta, obs, pr.fold, cfg.Folds, cfg.Mean)
	case cfg.CV:
		pr.r, pr.resid, res.CV, err = leaveOneOut(ev, cfg.Theta, obs, perm)
	case cfg.Blocks != "":
		if pr.r, err = writeBlocks(ev, cfg, nw, p.env); err == nil {
			res.Seconds, res.Predicted = pr.r.Seconds, len(pr.r.Z)
			pr.blocks = true
		}
	case cfg.Draws > 0:
		var d *predict.Draws
		d, err = drawsAt(ev, cfg.Theta, nw, cfg.Mean, cfg.Draws, cfg.Seed, cfg.Variance != config.VarianceLatent)
		if d != nil {
			pr.r, pr.draws = &d.Result, d.Z
		}
	default:
		pr.r, err = krigeAt(ev, cfg.Theta, nw, cfg.Mean)
	}
	return pr, err
}

// failure returns the prediction's error err as the run reports it: an
// interruption (rs), or a bad input for a collinear mean, a covariance
// that is not positive definite or a theta the model cannot take.
func (p *predictRun) failure(err error, rs *runStop) error {
	if givenUp(err) {
		return &Interrupted{Cmd: p.cmd, Signal: rs.req.Number()}
	}
	if errors.Is(err, likelihood.ErrCollinear) {
		return badInput("%s: --mean %s: %v", p.cmd, p.cfg.Mean, err)
	}
	if errors.Is(err, likelihood.ErrNotPosDef) || errors.Is(err, likelihood.ErrBadTheta) {
		return badInput("%s: %v (add a nugget, or use a smaller range or smoothness)", p.cmd, err)
	}
	return err
}

// check records the prediction's time, checks that no task failed on any
// rank, takes the nugget off the variance for --variance latent and checks
// the predictions are finite.
func (p *predictRun) check(pred *prediction) error {
	cfg, r := p.cfg, pred.r
	p.res.Seconds = r.Seconds
	if err := checkFailTask(p.rt, p.w); err != nil {
		return err
	}
	tau2 := likelihood.Problem{Model: p.model, Nugget: cfg.Nugget}.Tau2(cfg.Theta)
	if cfg.Variance == config.VarianceLatent && cfg.Draws == 0 { // the draws' variance is already the chosen one
		// The field's own variance: the new observation's without the
		// nugget tau2 (its measurement error), clamped at 0 like it.
		for i := range r.Var {
			r.Var[i] = math.Max(r.Var[i]-tau2, 0)
		}
	}
	return checkPrediction(p.cmd, r.Z, r.Var, cfg.At)
}

// columns returns the header and columns of the prediction's output: the
// new locations with the predictions (and draws), or for
// cross-validation the observations with their predictions, residuals,
// standardised residuals (and folds).
func (p *predictRun) columns(pred *prediction) ([]string, [][]float64) {
	cfg, obs, r, resid, res := p.cfg, p.pin.obs, pred.r, pred.resid, p.res
	hdr, cols := predictionColumns(cfg, p.pin.nw, r.Z, r.Var, pred.draws)
	if cfg.CV {
		std := make([]float64, len(resid))
		for i, e := range resid {
			std[i] = e / math.Sqrt(r.Var[i])
		}
		hdr = []string{hdr[0], hdr[1], "z", "z_loo", "variance", "residual", "standardized"}
		cols = [][]float64{obs.X, obs.Y, obs.Obs, r.Z, r.Var, resid, std}
		if pred.fold != nil {
			hdr[3] = "z_cv"
			f := make([]float64, len(pred.fold))
			for i, g := range pred.fold {
				f[i] = float64(g + 1)
			}
			hdr, cols = append(hdr, "fold"), append(cols, f)
		}
		if pf := cfg.Transformation().Prefix(); pf != "" { // the residuals are on the transformed scale
			hdr[2], hdr[3] = pf+"_"+hdr[2], pf+"_"+hdr[3]
		}
		res.Residuals, res.Standardized, res.X, res.Y = resid, std, obs.X, obs.Y
	}
	if p.model == likelihood.BivariateMatern {
		hdr, cols = bivariateColumns(hdr[:2], cols[:2], r.Z, r.Var)
	}
	return hdr, cols
}

// write writes (rank 0) the prediction's table (vector points, a raster,
// standard output or a CSV file), the cross-validation's plots and the
// --json summary.
func (p *predictRun) write(pred *prediction) error {
	cfg, cmd, res := p.cfg, p.cmd, p.res
	hdr, cols := p.columns(pred)
	if gdal.IsPoints(cfg.Out) {
		if err := writePoints(cfg.Out, pointsCRS(p.pin.grid, cfg.CRS, p.pin.nw.Coords), hdr, cols); err != nil {
			return badInput("%s: --out %v", cmd, err)
		}
	} else if p.pin.grid != nil && rasterOut(cfg.Out) {
		if err := writeGrid(cfg.Out, p.pin.grid, hdr[2:], cols[2:]); err != nil {
			return badInput("%s: --out %v", cmd, err)
		}
	} else if cfg.Out == StdoutPath {
		if err := dataset.WriteTableTo(p.env.stdout(), hdr, cols); err != nil {
			return fmt.Errorf("%s: standard output: %w", cmd, err)
		}
	} else if err := dataset.WriteTable(cfg.Out, hdr, cols); err != nil {
		return badInput("%s: %v", cmd, err)
	}
	if cfg.CV && cfg.Plot != "" {
		var err error
		if res.Plots, err = cvPlots(cfg, res, p.pin.obs.Coords); err != nil {
			return err
		}
	}
	switch {
	case cfg.CV && cfg.JSON != "":
		if err := writeCVJSON(p.env, cfg, res, p.workers); err != nil {
			return badInput("%s: --json: %v", cmd, err)
		}
	case cfg.JSON != "":
		res.Run = provenance.New(p.env.Command, res.Ranks, p.workers)
		p.env.Inputs.Record(res.Run) // the digests of the bytes read: a FIFO cannot be read again
		if err := WriteJSON(cfg.JSON, res); err != nil {
			return badInput("predict: --json: %v", err)
		}
	}
	return nil
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
	if err := checkDegrees(cfg.Data, obs, p.metric); err != nil {
		return p, err
	}
	if err := checkDegrees(cfg.At, nw, p.metric); err != nil {
		return p, err
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
	obs, err := readData(cfg.Data, b, cfg.Columns, cfg.Mean, cfg.Kernel, workersOr(cfg.Workers))
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
