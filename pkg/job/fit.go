package job

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/perfmodel"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/provenance"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/stop"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tlr"
	"github.com/exageostat/exageostat/pkg/trace"
)

// FitResult is the result of a fit: what `exageostat fit` prints and
// writes as JSON (--json), and what `predict --theta-from` reads back.
type FitResult struct {
	Kernel      string    `json:"kernel"`
	Distance    string    `json:"distance"`
	Params      []string  `json:"parameters"`
	Theta       []float64 `json:"theta"`
	LogLik      float64   `json:"loglik"`
	Evaluations int       `json:"evaluations"`
	Failed      int       `json:"failed_evaluations"`
	Restarts    int       `json:"restarts"`
	// Replayed evaluations (of Evaluations) came from the checkpoint of
	// --resume at no cost; Evaluations - Replayed were computed.
	Replayed    int     `json:"replayed_evaluations"`
	Checkpoint  string  `json:"checkpoint,omitempty"`
	ResumedFrom string  `json:"resumed_from,omitempty"`
	Seconds     float64 `json:"seconds"`
	Status      string  `json:"status"`
	N           int     `json:"n"`
	NB          int     `json:"nb"`
	// Vecchia describes a --computation vecchia fit (nil otherwise).
	Vecchia *VecchiaSummary `json:"vecchia,omitempty"`
	// VecchiaCheck is a Vecchia fit's approximation check (nil with
	// --vecchia-check=false or another computation).
	VecchiaCheck *VecchiaCheck `json:"vecchia_check,omitempty"`
	// VecchiaRefined are the checks of a refined Vecchia fit
	// (--vecchia-refine-m) that moved it to a larger m, in order: each
	// one's M2 is the m of the next search (VecchiaCheck is the last
	// level's, the one of the estimate reported).
	VecchiaRefined []*VecchiaCheck `json:"vecchia_refined,omitempty"`

	Workers int `json:"workers"`
	// Scheduler is the runtime's policy (eager, dmda); Devices the
	// counters of the devices of --devices (rank 0's).
	Scheduler string                `json:"scheduler,omitempty"`
	Devices   []runtime.DeviceStats `json:"devices,omitempty"`
	Lower     []float64             `json:"lb"`
	Upper     []float64             `json:"ub"`
	Start     []float64             `json:"start"`
	// Profile is "on" when sigma2 was computed in closed form at every
	// evaluation (the search over the other parameters), "off" otherwise.
	Profile string `json:"profile,omitempty"`
	// Mean is the mean model (absent: zero); MeanTerms name its
	// coefficients, MeanCoef holds their GLS estimates at theta and
	// MeanStdErr their standard errors, sqrt(diag((X^T Sigma^-1 X)^-1)).
	// With REML, loglik is the restricted log-likelihood.
	Mean       string    `json:"mean,omitempty"`
	REML       bool      `json:"reml,omitempty"`
	MeanTerms  []string  `json:"mean_terms,omitempty"`
	MeanCoef   []float64 `json:"mean_coefficients,omitempty"`
	MeanStdErr []float64 `json:"mean_stderr,omitempty"`
	// Columns is how the data file was read (the keys z, coords, time, na,
	// dec, as given) and the transform the model was fitted on: predict
	// --theta-from reads the data the same way. Absent: every column
	// guessed, no transform.
	Columns *config.Columns `json:"columns,omitempty"`
	// Transform is the transform of the observations the model is on
	// (log, sqrt, ...; absent: none).
	Transform string `json:"transform,omitempty"`
	// Dimensions is 3 for locations with a third coordinate (3D
	// Euclidean distances), else 2.
	Dimensions int `json:"dimensions,omitempty"`
	// Observation is the column read as the observation; DroppedRows the
	// rows dropped for a missing value.
	Observation string `json:"observation,omitempty"`
	DroppedRows int    `json:"dropped_rows,omitempty"`
	// Nugget is tau2: the fixed nugget, or the estimate (theta's last value) when
	// the fit estimated it (4 parameters).
	Nugget float64 `json:"nugget"`
	// TrueTheta is the theta the data were simulated with (no data given).
	TrueTheta []float64 `json:"true_theta,omitempty"`
	// PerEval averages the steps' seconds: wall, and the busy seconds of
	// gen, chol and solve, in wall time and in the workers' CPU time
	// (gen_cpu, chol_cpu, solve_cpu: what the OS took from the workers
	// left out).
	PerEval      map[string]float64    `json:"seconds_per_evaluation"`
	Ranks        int                   `json:"ranks"`
	Distribution string                `json:"distribution,omitempty"`
	Comm         []likelihood.CommStat `json:"comm_per_evaluation,omitempty"`
	Steps        []Step                `json:"steps"`
	Assessment
	Quality
	// Memory has one report per rank (on rank 0; nil on the others).
	Memory []RankMemory `json:"memory,omitempty"`
	// Intervals are the profile-likelihood intervals of --ci profile at
	// level CILevel.
	Intervals []Interval `json:"profile_intervals,omitempty"`
	CILevel   float64    `json:"ci_level,omitempty"`
	// EffectiveRange is the distance at which the fitted correlation falls
	// to 0.05 (matern.EffectiveRange; Matérn and powered exponential), in
	// the distance's units (km for great-circle distances).
	EffectiveRange *float64 `json:"effective_range,omitempty"`
	// GstatVgm is gstat's variogram model of the fitted covariance,
	// vgm(psill = sigma2, model = "Mat", range = beta, nugget = tau2,
	// kappa = nu[, anis = c(p, s)]) (matern and aniso-matern; gstatVgm);
	// GstatAnis is gstat's anis = c(p, s) of aniso-matern's angle and
	// ratio: p the major axis's azimuth in degrees clockwise from north,
	// s = 1/ratio (GstatAnis).
	GstatVgm  string    `json:"gstat_vgm,omitempty"`
	GstatAnis []float64 `json:"gstat_anis,omitempty"`
	// CV is the cross-validation at the estimate (--cv; FitCV).
	CV *CVSummary `json:"cross_validation,omitempty"`
	// Run says what the run was: version, command line, inputs and their
	// SHA-256, CPU, host, ranks, workers, date (rank 0).
	Run *provenance.Run `json:"run,omitempty"`
}

// Step is one evaluation of the search.
type Step struct {
	N      int       `json:"n"`
	Theta  []float64 `json:"theta"`
	LogLik *float64  `json:"loglik"` // null when the evaluation failed
	Wall   float64   `json:"wall"`
	Gen    float64   `json:"gen"`
	Chol   float64   `json:"chol"`
	Solve  float64   `json:"solve"`
	// Deriv is the busy seconds of the gradient and information (vecchia).
	Deriv float64 `json:"deriv,omitempty"`
	// Utilization is seed 000's resource-utilisation metric of the
	// evaluation (rank 0's workers; null when replayed, and for vecchia,
	// whose evaluations are not traced: see Busy).
	Utilization *trace.Utilization `json:"utilization"`
	// Busy is the workers' busy share of a vecchia evaluation, from its
	// busy seconds: (gen + chol + solve + deriv) / (workers x wall).
	Busy float64 `json:"busy,omitempty"`
	// Approx gives the tiles of an approximate computation (tlr: mean and
	// maximum rank, compressed bytes); absent for exact.
	Approx *likelihood.ApproxStats `json:"approx,omitempty"`
	// SentBytes is what rank 0 put on the wire in the evaluation (messages
	// as packed: a low-rank tile by its rank; comm_per_evaluation counts
	// formats at their largest size).
	SentBytes int64 `json:"sent_bytes,omitempty"`
	// Replayed is set for an evaluation answered from --resume's checkpoint.
	Replayed bool `json:"replayed,omitempty"`
}

// Fit runs `exageostat fit` as cfg says on the ranks of env.Comm: every
// rank reads (or simulates) the same data and runs the same search over
// the distributed likelihood, then the assessment (hold-out prediction,
// standard errors, MLOE/MMOM, plots). Before anything large is allocated,
// each rank's need is checked against the memory it has (an agreed
// *InputError when some rank lacks it). Rank 0 writes the trace (every
// rank's events), the pictures and the JSON result. The result comes back
// on every rank; its Memory report only on rank 0.
//
// Fit runs five stages over one fitJob: prepare (settings, data, the
// ranks' agreement, the checkpoint), plan (tile size, distribution,
// memory), search (the runtime, the simulated data, the mean model, the
// maximisation with the assessment at its estimate), assess (the result,
// profile intervals, the ranks' reports) and write (rank 0's files).
func Fit(cfg config.Fit, env Env) (_ *FitResult, err error) {
	// The ranks agree on the inputs and settings, or on the error that
	// stopped one of them before that point (agree.go).
	ag := newAgreement(env, "fit")
	defer ag.finish(&err)
	f, err := prepareFit(cfg, env, ag)
	if f != nil {
		defer f.release()
	}
	if err != nil {
		return nil, err
	}
	if f.cfg.Computation == "vecchia" {
		return fitVecchia(f)
	}
	if err := f.plan(); err != nil {
		return nil, err
	}
	rt, err := f.start()
	defer f.tr.close() // a run that stops early leaves each rank's trace file
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	f.fs.attach(rt)
	res, err := f.search(rt)
	if err != nil {
		return nil, err
	}
	out, traced, err := f.assess(rt, res)
	if err != nil {
		return nil, err
	}
	return f.write(out, traced)
}

// fitJob is one fit as it passes through the stages of Fit: what prepare
// settles, what plan decides, and what search leaves for the assessment.
type fitJob struct {
	cfg config.Fit
	env Env
	w   comm.Comm
	ag  *agreement

	// prepare
	src          string // the config's name in messages ("fit" without one)
	model        likelihood.Model
	names        []string
	gridX, gridY int
	limit        int64 // --memory-limit, bytes (0: none)
	x0           []float64
	opt          mle.Options
	profile      bool
	cl           config.Cluster
	workers      int
	run          *provenance.Run
	in           *Inputs       // rank 0 reads the inputs for every rank
	fs           *runStop      // signals and the deadline (stopping.go)
	dataNote     string        // a warning about the data, for the result too
	d            *dataset.Data // nil until simulated
	simulated    bool
	nAll         int
	train, held  []int
	n            int // the matrix's order
	metric       matern.Metric
	ckw          *checkpointer
	resume       *resumeState

	// plan
	nb       int
	tlr      *tlrPlan
	scales   []scale
	lo       likelihood.Options
	distName string
	simOpts  likelihood.Options
	free     []bool
	stderr   bool
	need     []int64
	lim      memory.Limit
	ov       likelihood.Overlap
	pl       placement
	tr       *traceRun // --trace: each rank's file as it goes
	pins     *pinPlan  // --pin

	// search
	meanTerms []string
	fo        mle.FitOptions
	asmt      Assessment
	budget    int64
	skipped   string // what of the assessment a signal gave up
	fin       error  // the search's interruption, returned with the result
}

// release stops the stop watcher and releases the checkpoint's lock.
func (f *fitJob) release() {
	if f.fs != nil {
		f.fs.close()
	}
	f.ckw.release()
}

// prepareFit is Fit's first stage: the settings checked and turned into
// the search's options, the data read and split, the ranks agreed on
// both, and the checkpoint (and the file to resume from) checked before
// the work.
func prepareFit(cfg config.Fit, env Env, ag *agreement) (*fitJob, error) {
	f := &fitJob{cfg: cfg, env: env, w: env.comm(), ag: ag}
	if err := f.settings(); err != nil {
		return nil, err
	}
	cfg = f.cfg
	f.workers = workersOr(cfg.Workers)
	f.run = fitRun(env, f.w.Size(), f.workers) // at the start: its date is the run's
	dl, err := fitDeadline(f.w, cfg, env)
	if err != nil {
		return nil, err
	}
	// The ranks agree on the settings before rank 0 reads the inputs for
	// all (Inputs: collectives from here on are the same on every rank).
	if err := f.ag.check(fitAgreement(cfg), f.workers); err != nil {
		return nil, err
	}
	f.in = env.inputs()
	f.env.Inputs = f.in // FitCV's prediction reads the data from memory
	f.fs = newRunStop(f.w, f.env, dl)
	if f.cl, err = fitCluster(f.in, cfg, f.src, f.w.Size()); err != nil {
		return nil, sameOnEveryRank(err, f.w)
	}
	return f, f.prepareData()
}

// prepareData reads the data (rank 0 reads, every rank parses the same
// bytes; nothing when the default problem is simulated), splits off the
// hold-out set and checks the columns against the kernel and the
// distance. Its errors are every rank's alike.
func (f *fitJob) prepareData() error {
	cfg, w, env := &f.cfg, f.w, f.env
	var err error
	f.simulated = cfg.Simulated()
	f.nAll = cfg.N
	if !f.simulated {
		// Over several ranks a Vecchia fit that never reads the data
		// file again (releaseData) streams it: rank 0 parses as it reads
		// and sends the columns. One rank parses the whole content on its
		// workers instead (dataset.ParseCSV), which is faster; the text
		// is let go before the preparation, whose peak is higher.
		stream := cfg.Computation == "vecchia" && cfg.CV == "" && w.Size() > 1
		if f.d, err = readFitData(f.in, cfg, w.Size() > 1, stream); err != nil {
			return err
		}
		logNotes(env, cfg.Data, f.d)
		f.nAll = f.d.Len()
		if k, _ := config.ParseCV(cfg.CV); k > f.nAll { // before the fit, not after
			return sameOnEveryRank(cfg.Locate(&config.Error{File: f.src, Key: "cv", Msg: fmt.Sprintf("--cv %d folds are more than the %d observations of %s", k, f.nAll, cfg.Data)}), w)
		}
		if f.dataNote = unusedColumns(dataSource(*cfg), f.d, cfg.Mean, cfg.Kernel); f.dataNote != "" {
			env.warnf("warning: %s\n", f.dataNote)
		}
	}
	if cfg.Holdout != 0 {
		if f.train, f.held, err = dataset.Split(f.nAll, cfg.Holdout, cfg.Seed); err != nil {
			return sameOnEveryRank(badInput("fit: --holdout: %v", err), w)
		}
	}
	f.n = (f.nAll - len(f.held)) * variables(f.model)
	coords := dataset.Planar
	if f.d != nil {
		coords = f.d.Coords
	}
	if f.metric, err = Metric(cfg.Distance, coords); err != nil {
		return sameOnEveryRank(&config.Error{File: f.src, Key: "distance", Msg: err.Error()}, w)
	}
	if err := checkDegrees(f.src, f.d, f.metric); err != nil {
		return sameOnEveryRank(err, w)
	}
	return sameOnEveryRank(checkFitColumns(*cfg, f.d, f.metric), w)
}

// settings checks the fit's configuration and derives what the stages
// read from it: the parameters' names, the grid, the memory limit, and
// the search's options (start, bounds, tolerance, the profiled search).
func (f *fitJob) settings() error {
	cfg := &f.cfg
	cfg.KernelDefaults() // powexp: delta's upper bound 2 unless given
	if err := cfg.Validate(); err != nil {
		return err
	}
	if f.w.Rank() == 0 { // the rank that writes them
		if err := fitOutputs(cfg).Check(); err != nil {
			return err
		}
	}
	f.src = cfg.File
	if f.src == "" {
		f.src = "fit"
	}
	f.model = likelihood.Model(cfg.Kernel)
	f.names = f.model.ParamNamesFor(len(cfg.Lower)) // tau2 last when it has bounds
	f.gridX, f.gridY, _ = cfg.GridSize()
	f.limit, _ = config.MemoryLimitBytes(cfg.MemoryLimit)
	f.x0, _ = cfg.StartValues()
	f.opt = mle.Options{Lower: cfg.Lower, Upper: cfg.Upper, FtolAbs: cfg.Tolerance, MaxEvals: cfg.MaxEvals, LogScale: cfg.Search == "log"}
	switch {
	case f.x0 != nil:
		f.opt.Start, f.opt.Guess = mle.StartData, f.x0
	case cfg.Start == "lower":
		f.opt.Start = mle.StartLower
	default:
		f.opt.Start = mle.StartData
	}
	// The profiled search: on when it can be (auto), or as asked.
	switch perr := mle.Profilable(f.model, cfg.Lower, cfg.Upper, cfg.Nugget); {
	case cfg.Profile == "on" && perr != nil:
		return cfg.Locate(&config.Error{File: cfg.File, Key: "profile", Msg: "--profile on: " + perr.Error()})
	case cfg.Profile == "on", cfg.Profile == "auto" && perr == nil:
		f.profile = true
	}
	return nil
}

// plan is Fit's second stage: the tile size (TLR's from its model), the
// first memory check at scale, the tiles' distribution over the ranks (and
// the simulation's), and each rank's memory need checked against what it
// has.
func (f *fitJob) plan() error {
	cfg, w, n := &f.cfg, f.w, f.n
	f.nb = cfg.NB
	if cfg.Computation == string(likelihood.TLR) {
		p := planTLR(cfg, f.d, f.nAll, f.model, f.metric, w.Size(), f.x0)
		f.tlr, f.nb = &p, p.nb
		f.env.logf("%s\n", p.note)
	}
	f.nb = tileSize(f.nb, n)
	// The checkpoint and the file to resume from (its settings include
	// the tile size), checked before the work.
	ckData := f.d
	if f.simulated {
		ckData = nil
	}
	set := checkpointSettings(*cfg, f.metric.String(), f.x0, f.profile, f.nb)
	var err error
	if f.ckw, f.resume, err = prepareCheckpoint(w, f.in, *cfg, set, dataSHA256(*cfg, ckData), f.env); err != nil {
		return err
	}
	f.scales = fitScales(*cfg, n, f.nb, f.nAll, len(f.held))
	if c := likelihood.Computation(cfg.Computation); c != "" && c != likelihood.Exact {
		rank := 0.0
		if f.tlr != nil {
			rank = f.tlr.rank
		}
		ao := likelihood.Options{NB: f.nb, Approx: likelihood.Approx{Computation: c, Accuracy: cfg.TLRAccuracy, MaxRank: cfg.MaxRank, Band: cfg.MPBand}}
		f.scales[0].tiles = float64(likelihood.ApproxNeed(n, ao, 1, f.workers+1, rank)[0] - likelihood.Overhead) // +1: the helper worker
		f.scales[0].note = memoryNote(c, f.tlr)
	}
	if err := checkScale(w, "fit", f.limit, f.scales...); err != nil {
		return err
	}
	f.lo = likelihood.Options{NB: f.nb, Approx: ApproxOf(cfg.Approx)}
	if f.lo.Owner, f.lo.GenOwner, f.distName, err = distribute(w, f.cl, n, f.nb, cfg.ExcludeCPUOnly); err != nil {
		return err
	}
	// The simulation of the default problem has its own tile size and
	// distribution, over all N points.
	simNB := tileSize(cfg.NB, f.nAll)
	f.simOpts = likelihood.Options{NB: simNB}
	if f.simulated {
		if f.simOpts.Owner, f.simOpts.GenOwner, _, err = distribute(w, f.cl, f.nAll, simNB, cfg.ExcludeCPUOnly); err != nil {
			return err
		}
	}
	return f.planMemory()
}

// planMemory checks each rank's need against the memory it has: the
// likelihood's tiles, and the largest of the assessment's phases, which
// run one after the other with the factor kept (and, for the simulated
// problem, the simulation's need when it is larger).
func (f *fitJob) planMemory() error {
	cfg, w, n, nb := &f.cfg, f.w, f.n, f.nb
	f.free = make([]bool, len(f.names))
	nfree := 0
	for i := range f.free {
		f.free[i] = cfg.Lower[i] != cfg.Upper[i]
		if f.free[i] {
			nfree++
		}
	}
	f.stderr = cfg.StdErr || cfg.Holdout > 0 || cfg.CI == "profile" // Wald intervals beside the profile ones
	x := fitExtras{stderr: f.stderr && nfree > 0, free: nfree, holdout: len(f.held),
		mloe: cfg.TrueTheta != nil, grid: f.gridX * f.gridY, workers: f.workers + 1, tlr: f.tlr} // +1: the helper worker
	if dx, dy := drawGrid(f.gridX, f.gridY); cfg.Draws > 0 && dx*dy > 0 {
		x.draws, x.drawPts = cfg.Draws, dx*dy
	}
	need, what := fitNeed(n, f.lo, w.Size(), x)
	addTo(need, graphNeed(f.scales[0].g, n, nb, f.lo.Owner, w.Size()))
	what += graphNote(f.scales[0].g, most(need)*int64(w.Size()))
	if f.simulated {
		sim := likelihood.MemoryNeed(f.nAll, f.simOpts, w.Size())
		addTo(sim, graphNeed(f.scales[1].g, f.nAll, f.simOpts.NB, f.simOpts.Owner, w.Size()))
		for r := range need {
			need[r] = max(need[r], sim[r])
		}
	}
	lim, err := checkMemory(w, "fit", need, f.limit, what)
	if err != nil {
		return err
	}
	f.need, f.lim = need, lim
	if f.tlr != nil {
		f.env.logf("tlr: memory need %s on the largest rank (%s)\n", memory.Format(most(need)), strings.TrimPrefix(what, problem(n, nb, w.Size())+", "))
	}
	return nil
}

// start makes the plot directory and the runtime (its workers placed as
// --devices and --pin say) that the search and the assessment run on.
func (f *fitJob) start() (*runtime.Runtime, error) {
	if f.cfg.Plot != "" && f.w.Rank() == 0 {
		if err := os.MkdirAll(f.cfg.Plot, 0o755); err != nil {
			return nil, badInput("fit: --plot: %v", err)
		}
	}
	f.ov = OverlapOf(f.cfg.Overlap)
	var err error
	if f.pl, err = placementOf("fit", f.cfg, f.env, f.nb); err != nil {
		return nil, err
	}
	if f.tr, err = openTrace(f.cfg.Trace, f.w); err != nil {
		return nil, err
	}
	f.pins = pinning(f.cfg.Pin, f.workers) // logged once the inputs are known good
	return newRuntimeWith(f.w, f.workers, true, &f.ov, f.pl, f.tr, f.pins)
}

// search is Fit's third stage: the data (simulated on the runtime when
// none was given) split into training and test sets, the mean model, and
// the maximisation, whose estimate is assessed (assess.go) before the
// factor is released. Every evaluation computed goes to the checkpoint; a
// resumed search replays the checkpoint's; the ranks agree after each on
// stopping (SIGINT, SIGTERM), which sets f.fin.
func (f *fitJob) search(rt *runtime.Runtime) (*mle.FitResult, error) {
	cfg, env := &f.cfg, f.env
	test, meanCols, err := f.searchData(rt)
	if err != nil {
		return nil, err
	}
	f.fo = mle.FitOptions{Model: f.model, Metric: f.metric, Nugget: cfg.Nugget, NB: f.nb, Workers: f.workers,
		Opt: f.opt, Profile: f.profile, Covariates: meanCols, REML: cfg.REML, Runtime: rt, Owner: f.lo.Owner, GenOwner: f.lo.GenOwner, Solve: solveMode(cfg.Solve), Overlap: &f.ov,
		Approx: fitApprox(*cfg)}
	f.asmt.ApproxNote = approxNote(*cfg)
	ao := assessOptions{test: test, train: f.d, free: f.free, stderr: f.stderr, trueTheta: cfg.TrueTheta,
		plotDir: cfg.Plot, gridX: f.gridX, gridY: f.gridY, metric: f.metric, seed: cfg.Seed, write: f.w.Rank() == 0, mean: cfg.Mean,
		pics: pictures{dpi: cfg.DPI, zname: cfg.ZName, units: cfg.Units, xyunits: cfg.XYUnits}, draws: cfg.Draws}
	f.fo.After = func(ev *likelihood.Evaluator, theta []float64) error {
		f.fs.setPhase(phaseAfter)
		f.budget = rt.ReplicaBudget()
		if ao.test != nil || ao.stderr || ao.plotDir != "" {
			if err := assess(ev, theta, ao, &f.asmt); givenUp(err) {
				f.skipped = "the assessment (hold-out prediction, standard errors, pictures)"
			} else if err != nil {
				return err
			}
		}
		return nil
	}
	env.logf("fit: N=%d%s kernel=%s distance=%s nb=%d workers=%s bounds lb=%s ub=%s start=%s search=%s profile=%s\n",
		f.d.Len(), dimsNote(f.d, cfg.Columns), f.model, f.metric.String(), f.nb, workersNote(f.workers), config.FormatFloats(cfg.Lower), config.FormatFloats(cfg.Upper), cfg.Start, cfg.Search, onOff(f.profile))
	if f.w.Size() > 1 {
		env.logf("fit: %d MPI ranks x %d workers, distribution %s\n", f.w.Size(), f.workers, f.distName)
	}
	env.logf("fit: %s\n", f.pins.note)
	return f.maximise(rt)
}

// maximise runs the search. Every evaluation computed goes to the
// checkpoint; a resumed search replays the checkpoint's; the ranks agree
// after each on stopping (a signal, the deadline: stopping.go), which
// sets f.fin. Rank 0's progress meter draws the evaluation under way.
func (f *fitJob) maximise(rt *runtime.Runtime) (*mle.FitResult, error) {
	cfg, env, fs := &f.cfg, f.env, f.fs
	if err := fs.early(); err != nil {
		return nil, err
	}
	f.fo.Opt.Stop = fs.check
	if f.resume != nil {
		f.fo.Opt.Replay = f.resume.cache
	}
	fs.setPhase(phaseSearch)
	var meter *meter
	if f.w.Rank() == 0 {
		meter = startMeter(rt, env.Progress, env.ProgressTTY, env.ProgressHead, ProgressEvery)
	}
	meter.begin("eval 1")
	res, err := mle.Fit(f.d, f.fo, func(s mle.Step) {
		meter.end()
		fs.step(s)
		f.ckw.add(s.Eval)
		if env.Step != nil {
			env.Step(s)
		}
		meter.begin(fmt.Sprintf("eval %d", s.N+1))
	})
	meter.close()
	fs.setPhase(phaseAfter)
	if errors.Is(err, mle.ErrInterrupted) {
		in := fs.interrupted(0, CheckpointPath(*cfg))
		f.ckw.finish(in.Status())
		return nil, in
	}
	if err != nil {
		f.ckw.finish("failed")
		if givenUp(err) {
			return nil, &Interrupted{Signal: fs.req.Number(), Complete: true, Skipped: "the estimate's mean coefficients"}
		}
		return nil, searchFailed(*cfg, resumeMismatch(cfg.Resume, err))
	}
	if res.Status == mle.StatusInterrupted {
		in := fs.interrupted(res.Evaluations, CheckpointPath(*cfg))
		res.Status, f.fin = in.Status(), in
	}
	f.ckw.finish(res.Status)
	if f.resume != nil {
		env.logf("%s", replayNote(cfg.Resume, res.Result, f.resume.cache))
	}
	if f.fin == nil && (f.skipped != "" || fs.stopped()) {
		f.fin = &Interrupted{Signal: fs.req.Number(), Evaluations: res.Evaluations, Complete: true, Skipped: f.skipped}
	}
	return res, nil
}

// searchData simulates the default problem's data on rt when no data were
// given, splits off the held-out test set (returned), and makes the mean
// model's design matrix at the training locations, checked (returned as
// columns; f.meanTerms names them). It notes data-driven start values
// outside their bounds.
func (f *fitJob) searchData(rt *runtime.Runtime) (test *dataset.Data, meanCols [][]float64, err error) {
	cfg, env := &f.cfg, f.env
	if f.simulated {
		t0 := time.Now()
		if f.d, err = simulateGrid("fit", f.nAll, cfg.Times, cfg.Seed, f.model, cfg.Theta, cfg.Nugget, rt, f.simOpts, -1); err != nil {
			if givenUp(err) {
				return nil, nil, f.fs.early()
			}
			return nil, nil, err
		}
		env.logf("simulated N=%d with theta=%s seed=%d in %.2fs (no --data given: the embedded default problem)\n",
			cfg.N, config.FormatFloats(cfg.Theta), cfg.Seed, time.Since(t0).Seconds())
	}
	if f.held != nil {
		test = subset(f.d, f.held)
		f.d = subset(f.d, f.train)
	}
	d := f.d
	dataName := cfg.Data // for messages about the data
	switch {
	case cfg.Simulated():
		dataName = "fit"
	case dataName == "":
		dataName = cfg.Locations
	}
	if f.meanTerms, meanCols, err = dataset.Design(d, cfg.Mean); err != nil {
		return nil, nil, badInput("%s: %v", dataName, err)
	}
	if len(f.meanTerms) > 0 && d.Len() <= len(f.meanTerms) {
		return nil, nil, badInput("fit: --mean %s has %d coefficients for %d observations", cfg.Mean, len(f.meanTerms), d.Len())
	}
	if err := checkDesign(f.meanTerms, meanCols); err != nil {
		return nil, nil, badInput("%s: --mean %s: %v", dataName, cfg.Mean, err)
	}
	if f.opt.Start == mle.StartData && f.opt.Guess == nil {
		for i, g := range mle.GuessFor(d, f.metric, f.model, len(f.names)) {
			if g < cfg.Lower[i] || g > cfg.Upper[i] {
				unit := ""
				if f.metric == matern.GreatCircle && i == 1 {
					unit = " (great-circle distances are in km)"
				}
				env.warnf("note: the data-driven start %s = %.4g is outside its bounds [%g, %g]%s; the search starts at the bound\n",
					f.names[i], g, cfg.Lower[i], cfg.Upper[i], unit)
			}
		}
	}
	return test, meanCols, nil
}

// assess is Fit's fourth stage: the result of the search with the mean
// model's coefficients, the assessment made at the estimate, the profile
// intervals (--ci profile), the flags on the fit, and the ranks' reports
// gathered on rank 0 (memory, the trace merged from the ranks' files,
// devices: collectives); it returns the trace files written (rank 0).
func (f *fitJob) assess(rt *runtime.Runtime, res *mle.FitResult) (*FitResult, []string, error) {
	cfg, w := &f.cfg, f.w
	out := fitResult(f.names, res, *cfg, f.model, f.metric, f.nb, f.workers)
	out.Profile = onOff(f.profile)
	out.describeData(f.d, cfg.Columns)
	out.setMean(cfg, f.meanTerms, res.Beta, res.BetaCov)
	out.Assessment = f.asmt
	if cfg.CI == "profile" && f.fin == nil {
		if err := f.intervals(out, res); givenUp(err) {
			out.Intervals = nil
			f.fin = &Interrupted{Signal: f.fs.req.Number(), Evaluations: res.Evaluations, Complete: true, Skipped: "the profile intervals"}
		} else if err != nil {
			return nil, nil, err
		}
	}
	if in, ok := f.fin.(*Interrupted); ok && in.Complete && in.Skipped != "" {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s after the search: not computed: %s; the estimate is complete", stop.Name(in.Signal), in.Skipped))
	}
	flagFit(out, f.d.Obs, cfg.MaxEvals) // estimates at a bound, not converged, constant data, start moved
	flagApprox(out, *cfg, f.d.Obs)
	if f.dataNote != "" {
		out.Warnings = append(out.Warnings, f.dataNote)
	}
	out.Ranks, out.Distribution = w.Size(), f.distName
	out.Checkpoint, out.ResumedFrom = CheckpointPath(*cfg), cfg.Resume

	if f.fin == nil {
		if err := checkFailTask(rt, w); err != nil {
			return nil, nil, err
		}
	}

	// Per-rank reports, gathered on rank 0 (collectives: every rank).
	mem := rt.Mem()
	owned := tile.NewLayout(f.n, f.nb).LowerBytes(f.lo.Owner, w.Size(), nil)
	var err error
	if out.Memory, err = gatherMemory(rt, RankMemory{Rank: w.Rank(), Busy: out.PerEval, OwnedTileBytes: owned[w.Rank()],
		PeakTileBytes: mem.Peak, PeakReplicaBytes: mem.PeakReplicas, ReplicaBudgetBytes: f.budget,
		PeakRSSBytes: memory.PeakRSS(), NeedBytes: f.need[w.Rank()], AvailableBytes: f.lim.Bytes, AvailableSource: f.lim.Source}); err != nil {
		return nil, nil, err
	}
	traced, err := f.tr.finish(w)
	if err != nil {
		return nil, nil, err
	}
	out.Scheduler, out.Devices = cfg.Scheduler, rt.DeviceStats()
	if len(out.Devices) == 0 {
		out.Devices = nil
	}
	for _, ds := range out.Devices {
		f.env.logf("%v\n", ds)
	}
	return out, traced, nil
}

// intervals adds --ci profile's intervals to out: each free parameter's
// profile-likelihood interval, the effective range's (Matérn with beta
// free), and the Wald intervals beside them.
func (f *fitJob) intervals(out *FitResult, res *mle.FitResult) error {
	cfg, fo := &f.cfg, f.fo
	fo.Opt.Stop, fo.Opt.Replay = nil, nil
	var err error
	if out.Intervals, err = profileIntervals(f.d, fo, f.names, res.Theta, res.LogLik, cfg.CILevel); err != nil {
		return err
	}
	if f.model == likelihood.Matern && fo.Opt.Lower[1] < fo.Opt.Upper[1] { // beta free: the effective range's interval
		iv, err := effectiveRangeInterval(f.d, fo, res.Theta, res.LogLik, cfg.CILevel)
		if err != nil {
			return err
		}
		out.Intervals = append(out.Intervals, *iv)
	}
	setWald(out.Intervals, f.names, res.Theta, out.Assessment, cfg.CILevel)
	out.CILevel = cfg.CILevel
	return nil
}

// write is Fit's last stage: every rank saves its device placement's
// performance models; rank 0 adds the run's provenance and writes the
// trace and the JSON result. It returns the result with the search's
// interruption, if any.
func (f *fitJob) write(out *FitResult, traced []string) (*FitResult, error) {
	if err := f.pl.save(f.w.Rank()); err != nil {
		return nil, err
	}
	if f.w.Rank() != 0 {
		return out, f.fin
	}
	f.in.Record(f.run)
	out.Run = f.run
	if len(traced) > 0 {
		f.env.logf("trace: wrote %s (each rank's as it ran: %s)\n", strings.Join(traced, ", "), trace.RankPath(f.cfg.Trace, 0))
	}
	if f.cfg.JSON != "" {
		if err := WriteJSON(f.cfg.JSON, out); err != nil {
			return nil, err
		}
	}
	return out, f.fin
}

// fitCluster returns the ranks' distribution settings of a fit, with the
// node groups of its cluster file, checked against the number of ranks.
// Rank 0 reads the cluster file, and the performance models its groups
// name, for every rank (readDecoded).
func fitCluster(in *Inputs, cfg config.Fit, src string, ranks int) (config.Cluster, error) {
	cl := config.Cluster{Nodes: ranks, Phase: cfg.Phase, Generation: cfg.Generation}
	if cfg.Cluster != "" {
		groups, err := readDecoded(in, "cluster", cfg.Cluster, func(path string) (config.Cluster, error) {
			return perfmodel.LoadCluster(path, cfg.NB)
		})
		if err != nil {
			if isInterrupted(err) {
				return cl, err
			}
			return cl, &InputError{Err: err}
		}
		if len(groups.Groups) == 0 {
			return cl, badInput("fit: cluster file %s has no [[group]] tables (the node groups that lp and bc-fast are computed from)", cfg.Cluster)
		}
		if n := groups.GroupNodes(); ranks > 1 && n != ranks {
			return cl, badInput("fit: cluster file %s models %d nodes, but the run has %d MPI ranks (one rank per node)", cfg.Cluster, n, ranks)
		}
		cl.NB, cl.Network, cl.Groups = groups.NB, groups.Network, groups.Groups
	}
	if ranks > 1 {
		if err := cl.Validate(src); err != nil {
			return cl, err
		}
	}
	return cl, nil
}

// logNotes logs the reader's notes on the data of file (Data.Notes: planar
// x,y that look like degrees), one line each.
func logNotes(env Env, file string, d *dataset.Data) {
	for _, n := range d.Notes {
		env.logf("note: %s: %s\n", file, n)
	}
}

// readFitData reads a fit's data (in: rank 0 reads, every rank parses the
// same bytes): a CSV with a header, or the headerless
// locations/observations pair. With stream, a CSV is parsed on rank 0
// as it is read and its columns sent to every rank (streamFitData): for
// a fit that never reads the file again. The paths in cfg become rank
// 0's, which every rank's messages name. On several ranks (shared) its
// errors are every rank's alike.
func readFitData(in *Inputs, cfg *config.Fit, shared, stream bool) (*dataset.Data, error) {
	d, err := func() (*dataset.Data, error) {
		var d *dataset.Data
		var lb, ob []byte
		var err error
		switch {
		case cfg.Data != "" && stream:
			if cfg.Data, d, err = streamFitData(in, *cfg); err != nil {
				return nil, err
			}
		case cfg.Data != "":
			if cfg.Data, lb, err = in.Read("data", cfg.Data); err != nil {
				return nil, readInputError(cfg.Data, err)
			}
			if d, err = readData(cfg.Data, lb, cfg.Columns, cfg.Mean, cfg.Kernel, workersOr(cfg.Workers)); err != nil {
				return nil, err
			}
		default:
			if cfg.Locations, lb, err = in.Read("locations", cfg.Locations); err != nil {
				return nil, readInputError(cfg.Locations, err)
			}
			if cfg.Observations, ob, err = in.Read("observations", cfg.Observations); err != nil {
				return nil, readInputError(cfg.Observations, err)
			}
			if d, err = dataset.ParsePair(cfg.Locations, lb, cfg.Observations, ob); err != nil {
				return nil, &InputError{Err: err}
			}
			if err := transformData(cfg.Locations, cfg.Columns, cfg.Kernel, d); err != nil {
				return nil, err
			}
		}
		src := cfg.Data
		if src == "" {
			src = cfg.Locations
		}
		if d.Obs == nil {
			return nil, badInput("fit: %s has no observations (a column z, value or obs, or one named by --z)", cfg.Data)
		}
		// A nugget (fixed > 0, or estimated: its lower bound is > 0) allows
		// duplicate locations.
		if err := dataset.ValidateWith(d, 3, cfg.Nugget > 0 || config.HasTau2(cfg.Kernel, len(cfg.Lower))); err != nil {
			return nil, badInput("%s: %v%s", src, err, droppedNote(d))
		}
		if err := checkKernelColumns(src, cfg.Kernel, d); err != nil {
			return nil, err
		}
		if err := checkSpread(src, d, true); err != nil {
			return nil, err
		}
		return d, nil
	}()
	if err != nil && shared {
		return nil, sameOnEveryRank(err, nil)
	}
	return d, err
}

// streamFitData reads the CSV data file of cfg as readData does, but
// parsed on rank 0 as the bytes are read (Inputs' readStream: the text is
// never held whole, on any rank) and sent to every rank as columns
// (shareData), each of its length (clipData). It returns rank 0's path.
func streamFitData(in *Inputs, cfg config.Fit) (string, *dataset.Data, error) {
	parse := func(name string, r io.Reader) (*dataset.Data, error) {
		d, err := dataset.ReadCSVFrom(name, r, readOptions(cfg.Columns, cfg.Mean, false))
		if err != nil {
			return nil, &InputError{Err: err}
		}
		if err := transformData(name, cfg.Columns, cfg.Kernel, d); err != nil {
			return nil, err
		}
		clipData(d)
		return d, nil
	}
	name, d, err := readStream(in, "data", cfg.Data, parse, shareData)
	var pe *fs.PathError
	if errors.As(err, &pe) || isInterrupted(err) {
		return name, nil, readInputError(name, err)
	}
	return name, d, err
}

// readInputError is the error of an input that cannot be read: a signal
// that gave up the read, or the reader's "PATH: cannot open: ...".
func readInputError(path string, err error) error {
	if isInterrupted(err) {
		return err
	}
	return &InputError{Err: dataset.OpenError(path, err)}
}

// isInterrupted reports whether err is a signal's *Interrupted.
func isInterrupted(err error) bool {
	var ir *Interrupted
	return errors.As(err, &ir)
}

// sameOnEveryRank marks err, which every rank of w (nil: of a run of
// several ranks) met alike (the same bytes parsed with the same settings),
// as agreed: rank 0 reports it, the ranks end together. An *Interrupted
// stays as it is (agreed already).
func sameOnEveryRank(err error, w interface{ Size() int }) error {
	var ir *Interrupted
	if err == nil || errors.As(err, &ir) || (w != nil && w.Size() == 1) {
		return err
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return &InputError{Err: ie.Err, Agreed: true}
	}
	return &agreedErr{msg: err.Error(), err: err}
}

// OverlapOf maps the [overlap] table to the likelihood's switches.
func OverlapOf(c config.Overlap) likelihood.Overlap {
	return likelihood.Overlap{Async: c.Async, LocalSolve: c.LocalSolve, Memory: c.Memory, Priorities: c.Priorities,
		GenOrder: c.SubmissionOrder, Oversubscribe: c.Oversubscribe}
}

func solveMode(s string) solve.Mode {
	switch s {
	case "per-rank":
		return solve.PerRank
	case "move-tiles":
		return solve.MoveTiles
	}
	return solve.Chained
}

// fitExtras are the assessment phases a fit runs after the search.
type fitExtras struct {
	stderr  bool
	free    int // estimated parameters (Fisher information)
	holdout int // held-out locations (kriging)
	mloe    bool
	grid    int // grid points of the prediction map
	draws   int // conditional simulations mapped (--draws)
	drawPts int // the points of their grid (drawGrid)
	workers int // runtime workers (the approximations' scratch tiles)
	tlr     *tlrPlan
}

// fitNeed returns each rank's need of a fit of n points with the
// likelihood options o over ranks ranks, and a description of the problem
// and of its largest phase for messages: the likelihood's tiles
// (likelihood.MemoryNeed, kept for the assessment), plus the largest of
// the assessment's phases on each rank.
func fitNeed(n int, o likelihood.Options, ranks int, x fitExtras) ([]int64, string) {
	rank := 0.0
	if x.tlr != nil {
		rank = x.tlr.rank
	}
	base := likelihood.ApproxNeed(n, o, ranks, x.workers, rank)
	extra := make([]int64, ranks)
	phase := make([]string, ranks)
	take := func(name string, b []int64) {
		for r := range extra {
			if b[r] > extra[r] {
				extra[r], phase[r] = b[r], name
			}
		}
	}
	if x.stderr {
		take("the Fisher information", predict.FisherNeed(n, o, x.free, ranks))
	}
	if x.holdout > 0 {
		k := predict.KrigeNeed(n, x.holdout, o, ranks)
		take(fmt.Sprintf("kriging %d held-out locations", x.holdout), k)
		if x.mloe {
			// Three cross-covariance batches and a second likelihood's
			// tiles (its Overhead is the process's, counted once).
			m := likelihood.MemoryNeed(n, o, ranks)
			b := make([]int64, ranks)
			for r := range b {
				b[r] = 3*k[r] + m[r] - likelihood.Overhead
			}
			take("MLOE/MMOM", b)
		}
	}
	if x.grid > 0 {
		take(fmt.Sprintf("kriging a %d-point grid", x.grid), predict.KrigeNeed(n, x.grid, o, ranks))
	}
	if x.draws > 0 {
		b := predict.KrigeNeed(n, x.drawPts, o, ranks)
		b[0] += drawsNeed(n, x.drawPts, x.draws)
		take(fmt.Sprintf("%d conditional draws on a %d-point grid", x.draws, x.drawPts), b)
	}
	what := problem(n, o.NB, ranks)
	what += memoryNote(o.Approx.Computation, x.tlr)
	need := make([]int64, ranks)
	for r := range need {
		need[r] = base[r] + extra[r]
	}
	// The phase that makes the need, when it is not the likelihood alone.
	if ph := phase[argmax(need)]; ph != "" {
		what += ", with " + ph
	}
	return need, what
}

// memoryNote describes an approximate computation's tiles in memory
// messages ("" for exact).
func memoryNote(c likelihood.Computation, plan *tlrPlan) string {
	switch {
	case c == "" || c == likelihood.Exact:
		return ""
	case plan != nil && plan.exact:
		return fmt.Sprintf(", tlr tiles at the maximum rank %.0f", plan.rank)
	case plan != nil:
		return fmt.Sprintf(", tlr: an estimate from a sample of compressed tiles, mean rank %.1f x %.1f", plan.rank, likelihood.TLRRankSafety)
	}
	return ", " + string(c)
}

func argmax(v []int64) int {
	k := 0
	for i, x := range v {
		if x > v[k] {
			k = i
		}
	}
	return k
}

// simulateGrid draws n points on ExaGeoStat's jittered grid (seed; with
// times > 1, n/times sites at times 1..times: dataset.GridTimes) and the
// field there (likelihood.Simulate with the tiles distributed by o). The
// observations come back on rank root, or on every rank when root < 0.
//
// A covariance matrix that is not positive definite at theta (a smoothness
// or range so large that the matrix is numerically singular) is the
// user's theta for command cmd: exit 2, naming the key.
func simulateGrid(cmd string, n, times int, seed uint64, model likelihood.Model, theta []float64, nugget float64, rt *runtime.Runtime, o likelihood.Options, root int) (*dataset.Data, error) {
	d := dataset.GridTimes(n, times, seed)
	p := likelihood.Problem{Points: points(d), Metric: matern.Euclidean, Model: model, Nugget: nugget}
	nm := n * variables(model)
	if model == likelihood.BivariateMatern {
		p.Points = matern.Interleave(p.Points)
	}
	z, err := likelihood.Simulate(p, theta, dataset.StandardNormal(nm, seed), rt, o, root)
	if errors.Is(err, likelihood.ErrNotPosDef) {
		return nil, badInput("%s: key \"theta\": the field cannot be simulated: %v", cmd, err)
	}
	if err != nil {
		return nil, err
	}
	if model == likelihood.BivariateMatern && z != nil {
		d.Obs, d.Obs2 = make([]float64, n), make([]float64, n)
		for i := range n {
			d.Obs[i], d.Obs2[i] = z[2*i], z[2*i+1]
		}
		return d, nil
	}
	d.Obs = z
	return d, nil
}

// ApproxOf returns the likelihood's settings of the approximate
// computation a.
func ApproxOf(a config.Approx) likelihood.Approx {
	if !a.Approximate() {
		return likelihood.Approx{}
	}
	return likelihood.Approx{Computation: likelihood.Computation(a.Computation), Accuracy: a.TLRAccuracy,
		MaxRank: a.MaxRank, Band: a.MPBand}
}

// fitApprox is cfg's approximation with seed 002's lookahead and
// hierarchical potrf (fit only).
func fitApprox(cfg config.Fit) likelihood.Approx {
	a := ApproxOf(cfg.Approx)
	a.Lookahead, a.HPotrf = cfg.Lookahead, cfg.HPotrf
	return a
}

// tlrRankBudget returns, for a TLR computation a, the rank MemoryNeed
// budgets per off-diagonal tile before the run: twice the mean rank of 16
// sampled tiles of size nb of Sigma(theta) at p's points (tlr.SampleRank,
// compressed at a's accuracy; near-diagonal tiles have more than the mean,
// far ones less). It is 0 (dense tiles budgeted) for the other
// computations, or when the kernel cannot be built at theta.
func tlrRankBudget(a likelihood.Approx, p likelihood.Problem, theta []float64, nb int, seed uint64) float64 {
	if a.Computation != likelihood.TLR {
		return 0
	}
	k, err := p.Model.Kernel(theta, matern.MaxDistance(p.Metric, p.Points))
	if err != nil {
		return 0
	}
	acc := a.Accuracy
	if acc == 0 {
		acc = 1e-9
	}
	return 2 * tlr.SampleRank(tlr.New(tlr.ACA, acc), k, p.Metric, p.Points, nb, 16, seed)
}

// approxNote says, for an approximate computation with an assessment
// after the fit, what that assessment computes on the approximate factor
// and what stays exact ("" for exact, or with nothing to assess).
func approxNote(cfg config.Fit) string {
	if !cfg.Approximate() {
		return ""
	}
	var on []string
	if cfg.Holdout > 0 {
		on = append(on, "the hold-out prediction")
	}
	if cfg.StdErr || cfg.Holdout > 0 || cfg.CI == "profile" {
		on = append(on, "the standard errors (Fisher information)")
	}
	if cfg.TrueTheta != nil && cfg.Holdout > 0 {
		on = append(on, "MLOE/MMOM")
	}
	if cfg.Grid != "" {
		on = append(on, "the grid maps")
	}
	if cfg.Draws > 0 {
		on = append(on, "the conditional draws")
	}
	if cfg.CI == "profile" {
		on = append(on, "the profile intervals' constrained fits")
	}
	if cfg.Mean != "" && cfg.Mean != "zero" {
		on = append(on, "the GLS mean")
	}
	if cfg.CV != "" {
		on = append(on, "the cross-validation")
	}
	if len(on) == 0 {
		return ""
	}
	what := cfg.Computation
	switch cfg.Computation {
	case "tlr":
		what = fmt.Sprintf("tlr factor (accuracy %g per tile)", cfg.TLRAccuracy)
	case "mp":
		what = "mixed-precision factor (float32 off the band)"
	case "dst":
		what = "dst factor (tiles off the band dropped)"
	}
	note := strings.Join(on, ", ") + " use the " + what + "; the cross-covariances are exact"
	if cfg.StdErr || cfg.Holdout > 0 || cfg.CI == "profile" {
		note += ", and so are the Fisher information's derivative matrices dSigma/dtheta (dense, N^2 words each)"
	}
	return note
}

// fitResult makes the result of a search.
func fitResult(names []string, r *mle.FitResult, cfg config.Fit, model likelihood.Model, metric matern.Metric, nb, workers int) *FitResult {
	o := &FitResult{Kernel: string(model), Distance: metric.String(), Params: names, Theta: r.Theta, LogLik: r.LogLik,
		Evaluations: r.Evaluations, Failed: r.Failed, Restarts: r.Restarts, Replayed: r.Replayed, Seconds: r.Seconds, Status: r.Status, N: r.N, NB: nb,
		Workers: workers, Lower: cfg.Lower, Upper: cfg.Upper, Start: r.Start, Nugget: cfg.Nugget,
		PerEval: map[string]float64{"wall": 0, "gen": 0, "chol": 0, "solve": 0, "gen_cpu": 0, "chol_cpu": 0, "solve_cpu": 0}, Comm: evalComm(r)}
	if cfg.Simulated() {
		o.TrueTheta = cfg.Theta
		if model.HasTau2(len(names)) && len(cfg.Theta) == len(names)-1 {
			o.TrueTheta = append(slices.Clone(cfg.Theta), cfg.Nugget)
		}
	}
	if model.HasTau2(len(names)) && len(r.Theta) == len(names) {
		o.Nugget = r.Theta[len(names)-1] // the estimate (predict --theta-from reads either)
	}
	switch model {
	case likelihood.Matern:
		if er, err := matern.EffectiveRange(r.Theta[1], r.Theta[2], matern.EffectiveRangeLevel); err == nil {
			o.EffectiveRange = &er
		}
	case likelihood.PowExp:
		er := matern.PowExpEffectiveRange(r.Theta[1], r.Theta[2], matern.EffectiveRangeLevel)
		o.EffectiveRange = &er
	}
	o.GstatVgm, o.GstatAnis = gstatVgm(model, r.Theta, o.Nugget)
	for _, s := range r.Steps {
		so := Step{N: s.N, Theta: s.Theta, Wall: s.Stats.Wall, Gen: s.Stats.Gen, Chol: s.Stats.Chol, Solve: s.Stats.Solve, Deriv: s.Stats.Deriv, Busy: s.Stats.Busy, Approx: s.Stats.Approx, SentBytes: s.Stats.SentBytes, Replayed: s.Replayed}
		if !s.Replayed && s.Stats.Busy == 0 {
			u := s.Stats.Utilization
			so.Utilization = &u
		}
		if s.Failed == nil {
			l := s.LogLik
			so.LogLik = &l
		}
		o.Steps = append(o.Steps, so)
		if s.Replayed {
			continue // no cost: out of the averages
		}
		o.PerEval["wall"] += s.Stats.Wall
		o.PerEval["gen"] += s.Stats.Gen
		o.PerEval["chol"] += s.Stats.Chol
		o.PerEval["solve"] += s.Stats.Solve
		if s.Stats.Deriv > 0 {
			o.PerEval["deriv"] += s.Stats.Deriv
		}
		o.PerEval["gen_cpu"] += s.Stats.GenCPU
		o.PerEval["chol_cpu"] += s.Stats.CholCPU
		o.PerEval["solve_cpu"] += s.Stats.SolveCPU
	}
	if _, ok := o.PerEval["deriv"]; ok { // vecchia: no CPU times measured
		delete(o.PerEval, "gen_cpu")
		delete(o.PerEval, "chol_cpu")
		delete(o.PerEval, "solve_cpu")
	}
	for k := range o.PerEval {
		o.PerEval[k] /= float64(max(len(r.Steps)-r.Replayed, 1))
	}
	return o
}

// evalComm returns the messages of the first successful evaluation of a
// distributed fit (every evaluation sends the same ones).
func evalComm(r *mle.FitResult) []likelihood.CommStat {
	for _, s := range r.Steps {
		if s.Failed == nil && len(s.Stats.Comm) > 0 {
			return s.Stats.Comm
		}
	}
	return nil
}

// WriteJSON writes v to path atomically, indented.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// checkDesign refuses a design matrix X whose columns are linearly
// dependent (numerically: X^T X, columns scaled to unit norm, has a
// condition number above 1e12), for which the GLS estimate of the mean is
// not unique.
func checkDesign(names []string, cols [][]float64) error {
	k := len(cols)
	if k == 0 {
		return nil
	}
	norm := make([]float64, k)
	for i, c := range cols {
		big := 0.0
		for _, v := range c {
			big = math.Max(big, math.Abs(v))
		}
		switch {
		case big == 0:
			return fmt.Errorf("the column %s is zero", names[i])
		case big > spreadLimit:
			return fmt.Errorf("the column %s holds values up to %.3g: their squares overflow float64 in the GLS estimate; rescale it", names[i], big)
		case big < 1/spreadLimit:
			return fmt.Errorf("the column %s holds values of at most %.3g: their squares underflow float64 to 0 in the GLS estimate; rescale it", names[i], big)
		}
		for _, v := range c {
			norm[i] += v * v
		}
		norm[i] = math.Sqrt(norm[i])
	}
	a := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for r := range cols[i] {
				s += cols[i][r] * cols[j][r]
			}
			a.SetSym(i, j, s/(norm[i]*norm[j]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) || !(ch.Cond() < 1e12) {
		return fmt.Errorf("the columns %s are linearly dependent (constant, or one a combination of others): the mean has no unique estimate", strings.Join(names, ","))
	}
	return nil
}

// setMean records the mean model of cfg with the names terms, the GLS
// coefficients beta and their standard errors sqrt(diag(betaCov)), the
// diagonal of (X^T Sigma^-1 X)^-1; nothing without terms (a zero mean).
func (out *FitResult) setMean(cfg *config.Fit, terms []string, beta []float64, betaCov [][]float64) {
	if len(terms) == 0 {
		return
	}
	out.Mean, out.REML, out.MeanTerms, out.MeanCoef = cfg.Mean, cfg.REML, terms, beta
	for i := range betaCov {
		out.MeanStdErr = append(out.MeanStdErr, math.Sqrt(betaCov[i][i]))
	}
}
