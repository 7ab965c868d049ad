package mle

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

// FitOptions configure Fit.
type FitOptions struct {
	Model   likelihood.Model
	Metric  matern.Metric
	Nugget  float64
	NB      int
	Workers int  // 0: one per core
	Trace   bool // keep every task event
	Opt     Options
	// Runtime, if not nil, is the runtime to evaluate on (e.g. a
	// distributed one; it must record traces); Fit then ignores Workers and
	// leaves it open. Owner and GenOwner distribute the tiles over its
	// ranks (likelihood.Options).
	Runtime         *runtime.Runtime
	Owner, GenOwner tile.OwnerFunc
	Solve           solve.Mode
	// Overlap switches the phase-overlap optimisations (nil: all on);
	// with a Runtime of the caller's, its runtime part
	// (likelihood.Overlap.RuntimeOptions) is the caller's.
	Overlap *likelihood.Overlap
	// Approx selects an approximate likelihood (likelihood.Options.Approx).
	Approx likelihood.Approx
	// Covariates, if not empty, are the columns of the mean's design
	// matrix, in the order of the data given to Fit: the mean is
	// estimated by GLS at every evaluation and profiled out
	// (likelihood.Problem.Covariates); REML maximises the restricted
	// likelihood instead.
	Covariates [][]float64
	REML       bool
	// Profile searches (beta, nu[, tau2/sigma2]) with sigma2 computed in
	// closed form at every evaluation (likelihood.ProfileSigma2; the
	// bounds must pass Profilable); the steps and the result hold the
	// full theta and l.
	Profile bool
	// After, if not nil, runs once the search has ended, with the evaluator
	// (tiles, runtime) still alive, e.g. to predict with the estimate and
	// reuse its Cholesky factor. It does not run when Opt.Stop ended the
	// search (status "interrupted").
	After func(ev *likelihood.Evaluator, theta []float64) error
}

// Step is one evaluation of a fit with its timing breakdown, and the
// estimate of the seconds the fit has left (ETA; Known false: none,
// Bound true: only the --max-evals limit's).
type Step struct {
	Eval
	Stats likelihood.Stats
	ETA   float64
	Known bool
	Bound bool
}

// FitResult is the outcome of Fit.
type FitResult struct {
	*Result
	// Beta and BetaCov are the GLS estimate of the mean's coefficients at
	// the estimate and its covariance (X^T Sigma^-1 X)^-1 (with Covariates).
	Beta    []float64
	BetaCov [][]float64
	N       int
	Steps   []Step
	Events  []trace.Event
}

// Points returns d's locations as matern.Points.
func Points(d *dataset.Data) matern.Points { return matern.Points{X: d.X, Y: d.Y, Z: d.Z, T: d.T} }

// Guess returns the data-driven start: sigma2 = the sample variance of the
// observations, beta = a tenth of the diagonal of the locations' bounding
// box, and nu = 0.5 (delta = 1 for the powered exponential); for the
// space-time Matérn also beta_t = 1, alpha = 0.5, sep = 0.5, delta = 0.1;
// for the bivariate Matérn (sigma2_1, sigma2_2, beta, 0.5, 0.5, rho) with
// the variances and correlation of z1 and z2; for the anisotropic Matérn
// (sigma2, beta, 0.5, pi/2, 2) (Fit moves the angle to the middle of its
// bounds).
func Guess(d *dataset.Data, metric matern.Metric, model likelihood.Model) []float64 {
	n := float64(len(d.Obs))
	var mean, v float64
	for _, z := range d.Obs {
		mean += z
	}
	mean /= n
	for _, z := range d.Obs {
		v += (z - mean) * (z - mean)
	}
	v /= n
	minx, maxx, miny, maxy := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range d.X {
		minx, maxx = math.Min(minx, d.X[i]), math.Max(maxx, d.X[i])
		miny, maxy = math.Min(miny, d.Y[i]), math.Max(maxy, d.Y[i])
	}
	corners := matern.Points{X: []float64{minx, maxx}, Y: []float64{miny, maxy}}
	diag := matern.Distance(metric, corners, 0, corners, 1)
	third := 0.5
	if model == likelihood.PowExp {
		third = 1
	}
	if model == likelihood.BivariateMatern && d.Obs2 != nil {
		return bivariateGuess(d, 0.1*diag)
	}
	if model == likelihood.AnisoMatern {
		return []float64{v, 0.1 * diag, third, math.Pi / 2, 2}
	}
	if model == likelihood.SpaceTimeMatern {
		// beta_t = 1, alpha = 0.5, sep = 0.5, delta = 0.1.
		return []float64{v, 0.1 * diag, third, 1, 0.5, 0.5, 0.1}
	}
	return []float64{v, 0.1 * diag, third}
}

// GuessFor is Guess for a theta of d parameters: when theta carries the
// nugget (model.HasTau2(d): d = 4 for matern) it is the last, and the
// sample variance v is split into sigma2 = 0.9 v and tau2 = 0.1 v.
func GuessFor(d *dataset.Data, metric matern.Metric, model likelihood.Model, params int) []float64 {
	g := Guess(d, metric, model)
	if model.HasTau2(params) {
		v := g[0]
		g[0] = 0.9 * v
		g = append(g, 0.1*v)
	}
	return g
}

// Fit maximises the likelihood of the observations d (in the user's order;
// they are put in Morton order internally). report, if not nil, is called
// after each evaluation.
func Fit(d *dataset.Data, o FitOptions, report func(Step)) (*FitResult, error) {
	perm := dataset.MortonOrder(d)
	sd := dataset.Permute(d, perm)
	rt := o.Runtime
	if rt == nil {
		rt = o.newRuntime()
		defer rt.Close()
	}
	p, err := o.problem(sd, perm)
	if err != nil {
		return nil, err
	}
	ev, err := likelihood.NewWith(p, rt, likelihood.Options{NB: o.NB, KeepTrace: o.Trace, Owner: o.Owner, GenOwner: o.GenOwner, Solve: o.Solve, Overlap: o.Overlap, Approx: o.Approx})
	if err != nil {
		return nil, err
	}
	opt, prof, err := o.searchOptions(sd)
	if err != nil {
		return nil, err
	}
	obj := &fitObjective{ev: ev, prof: prof, bestL: math.Inf(-1)}
	clock := newStepClock(opt)
	out := &FitResult{N: d.Len()}
	res, err := Maximize(obj.logLik, opt, func(e Eval) {
		s := clock.step(e, obj.last)
		out.Steps = append(out.Steps, s)
		if report != nil {
			report(s)
		}
	})
	if err != nil {
		return nil, err
	}
	if o.Model == likelihood.AnisoMatern && len(res.Theta) >= 5 {
		res.Theta = slices.Clone(res.Theta)
		res.Theta[AnisoAngle] = ReduceAngle(res.Theta[AnisoAngle])
	}
	out.Result = res
	if len(p.Covariates) > 0 && res.Status != StatusInterrupted {
		if out.Beta, out.BetaCov, err = obj.mean(res); err != nil {
			return nil, err
		}
	}
	if prof != nil {
		res.Start = prof.reportedStart(res.Start, out.Steps)
	}
	if o.After != nil && res.Status != StatusInterrupted {
		if err := o.After(ev, res.Theta); err != nil {
			return nil, err
		}
	}
	out.Events = ev.Events()
	return out, nil
}

// newRuntime returns the runtime of a fit that brings none: o.Workers
// workers, traced, with o.Overlap's runtime options.
func (o FitOptions) newRuntime() *runtime.Runtime {
	ro := runtime.Options{Workers: o.Workers, Trace: true, TaskCPU: true}
	if o.Overlap != nil {
		ro = o.Overlap.RuntimeOptions(ro)
	}
	return runtime.New(ro)
}

// problem returns the likelihood problem of sd, the data put in the
// order perm, with o.Covariates put in the same order.
func (o FitOptions) problem(sd *dataset.Data, perm []int) (likelihood.Problem, error) {
	pts, obs := ProblemData(sd, o.Model)
	p := likelihood.Problem{Points: pts, Metric: o.Metric, Obs: obs, Model: o.Model, Nugget: o.Nugget, REML: o.REML}
	for _, c := range o.Covariates {
		if len(c) != len(perm) {
			return p, errors.New("mle: a covariate's length is not the data's")
		}
		pc := make([]float64, len(c))
		for k, i := range perm {
			pc[k] = c[i]
		}
		p.Covariates = append(p.Covariates, pc)
	}
	return p, nil
}

// searchOptions returns the options of the search: o.Opt with, where it
// has no guess, the data-driven one of sd (GuessFor; the anisotropic
// angle in the middle of its bounds); with o.Profile, the profiled
// search's options and its profile.
func (o FitOptions) searchOptions(sd *dataset.Data) (Options, *profile, error) {
	opt := o.Opt
	if opt.Guess == nil {
		opt.Guess = GuessFor(sd, o.Metric, o.Model, len(opt.Lower))
		if o.Model == likelihood.AnisoMatern && len(opt.Lower) >= 5 && len(opt.Upper) >= 5 {
			opt.Guess[AnisoAngle] = 0.5 * (opt.Lower[AnisoAngle] + opt.Upper[AnisoAngle])
		}
	}
	if !o.Profile {
		return opt, nil, nil
	}
	if err := Profilable(o.Model, opt.Lower, opt.Upper, o.Nugget); err != nil {
		return opt, nil, err
	}
	prof := &profile{lower: opt.Lower, upper: opt.Upper, start: opt.Guess[0], tau2: -1}
	if o.Model.HasTau2(len(opt.Lower)) {
		prof.tau2 = len(opt.Lower) - 1
	}
	if opt.Start == StartLower {
		prof.start = opt.Lower[0]
	}
	opt = prof.search(opt)
	opt.Expand = prof.expand
	return opt, prof, nil
}

// fitObjective is Fit's objective: l(theta) on the evaluator (profiled
// with prof, if not nil), with the statistics of the last evaluation and
// of the best one so far.
type fitObjective struct {
	ev        *likelihood.Evaluator
	prof      *profile
	last      likelihood.Stats
	bestL     float64
	bestStats likelihood.Stats
}

// logLik is the Objective: a matrix that is not positive definite or a
// theta the model refuses is a Recoverable failure, a canceled
// evaluation an abandoned one (ErrAbandoned).
func (f *fitObjective) logLik(theta []float64) (float64, error) {
	l, st, err := f.ev.LogLik(theta)
	f.last = st
	if errors.Is(err, runtime.ErrCanceled) {
		return l, fmt.Errorf("%w: %w", ErrAbandoned, err)
	}
	if err != nil && (errors.Is(err, likelihood.ErrNotPosDef) || errors.Is(err, likelihood.ErrBadTheta)) {
		if f.prof != nil {
			f.prof.last = nil
		}
		return l, &Recoverable{Err: err} // a property of theta: step away
	}
	if err == nil && f.prof != nil {
		l, err = f.prof.value(theta, f.ev.Problem(), st)
	}
	if err == nil && l > f.bestL {
		f.bestL, f.bestStats = l, st
	}
	return l, err
}

// mean returns the GLS estimate of the mean's coefficients at the
// estimate res.Theta and its covariance: the best evaluation's (the
// covariance times sigma2 for a profiled search, evaluated at sigma2 =
// 1), or, when the best was replayed from a checkpoint, a new
// evaluation's at res.Theta.
func (f *fitObjective) mean(res *Result) ([]float64, [][]float64, error) {
	scale := 1.0
	st := f.bestStats
	if f.bestL != res.LogLik { // the best was replayed from a checkpoint
		var err error
		if _, st, err = f.ev.LogLik(res.Theta); err != nil {
			return nil, nil, err
		}
	} else if f.prof != nil {
		scale = res.Theta[0] // evaluated at sigma2 = 1
	}
	var cov [][]float64
	for _, row := range st.BetaCov {
		r := make([]float64, len(row))
		for j, v := range row {
			r[j] = scale * v
		}
		cov = append(cov, r)
	}
	return st.Beta, cov, nil
}

// stepClock makes Fit's steps of Maximize's evaluations: each with the
// timing of its evaluation (none for a replayed one) and the ETA from the
// best l so far and the mean time of the evaluations paid for.
type stepClock struct {
	ftol     float64 // the search's FtolAbs
	points   int     // BOBYQA's interpolation points: 2 free + 1
	maxEvals int
	bests    []float64 // the best l after each evaluation
	spent    float64   // seconds of the evaluations paid for
	timed    int       // how many were paid for
}

func newStepClock(opt Options) *stepClock {
	c := &stepClock{ftol: opt.FtolAbs, maxEvals: opt.MaxEvals}
	if c.ftol <= 0 {
		c.ftol = 1e-5
	}
	free := 0
	for i := range opt.Lower {
		if opt.Lower[i] < opt.Upper[i] {
			free++
		}
	}
	c.points = 2*free + 1
	return c
}

// step returns the step of the evaluation e, whose statistics are last.
func (c *stepClock) step(e Eval, last likelihood.Stats) Step {
	s := Step{Eval: e, Stats: last}
	if e.Replayed {
		s.Stats = likelihood.Stats{}
	} else {
		c.spent, c.timed = c.spent+last.Wall, c.timed+1
	}
	c.bests = append(c.bests, e.Best)
	if c.timed > 0 {
		s.ETA, s.Bound, s.Known = ETA(c.bests, c.spent/float64(c.timed), c.ftol, c.points, c.maxEvals)
	}
	return s
}

// reportedStart returns the start a profiled search reports, from its
// search's start: the profiled sigma2 has no start of its own, so it is
// the first evaluation's (the search's start had sigma2 = 1, and the
// ratio r for tau2, which is scaled alike), or p.start when that
// evaluation failed.
func (p *profile) reportedStart(start []float64, steps []Step) []float64 {
	start = slices.Clone(start)
	sigma2 := p.start
	if len(steps) > 0 && steps[0].Failed == nil {
		sigma2 = steps[0].Theta[0]
	}
	start[0] = sigma2
	if t := p.tau2; t >= 0 {
		start[t] *= sigma2
	}
	return start
}
