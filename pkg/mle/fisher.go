package mle

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"
)

// GradObjective evaluates l(theta), its gradient dl/dtheta and the Fisher
// information I(theta) = E[-d2 l / dtheta2] (the expected information,
// symmetric positive semi-definite), all on theta's own scale and for the
// full vector (the search ignores the entries of fixed parameters). A
// *Recoverable error marks a failed evaluation the search steps back from;
// any other error stops it.
type GradObjective func(theta []float64) (l float64, grad []float64, info [][]float64, err error)

// Fisher-scoring statuses.
const (
	// StatusFisherConverged: the predicted gain of the next full step,
	// g' I^-1 g / 2 over the free parameters, is at most Options.FtolAbs.
	StatusFisherConverged = "CONVERGED"
	// StatusMaxIter: a stage reached FisherMaxIter iterations.
	StatusMaxIter = "MAXITER_REACHED"
	// StatusLineSearch: no step along the scoring direction raised l
	// enough (round-off near the maximum, or a ridge).
	StatusLineSearch = "LINE_SEARCH_FAILED"
)

// FisherMaxIter is the most iterations of one stage of MaximizeFisher.
const FisherMaxIter = 100

// MaximizeFisher maximises l by Fisher scoring over the stages in turn:
// stage s starts from stage s-1's estimate (a warm start: the Vecchia
// likelihood with m = 10, then 30, as GpGp's fit_model), the first from
// the start of o (StartData or StartLower). The result is the last
// stage's. report, if not nil, is called after every evaluation.
//
// The search variable is u = log(theta) for a parameter with a positive
// lower bound and u = theta otherwise (the gradient and information are
// mapped by the chain rule, g_u = g D, I_u = D I D, D = dtheta/du); the
// box [lb, ub] is kept by projection. From u, with the gradient g and the
// information I of the free parameters not held at a bound (a parameter at
// its lower bound with g < 0, or at its upper bound with g > 0, is held:
// the projected-Newton active set), the step is s = I^-1 g, I's
// eigenvalues floored at 1e-10 of the largest (GpGp regularises the same
// way), scaled down to at most 2 in any coordinate (a factor e^2 in a
// log-parameter). The stage converges when the predicted gain of the
// full step, g's / 2 = g' I^-1 g / 2 (Newton's decrement; GpGp's
// convergence quantity is g's), is at most o.FtolAbs. Otherwise the step
// is taken with a backtracking (Armijo) line search: u+ = P(u + a s) for a
// = 1, 1/2, 1/4, ... (P the projection onto the box), accepted when l(u+)
// >= l(u) + 1e-4 g'(u+ - u) and the evaluation did not fail; after 30
// halvings the same search runs along the gradient scaled by the largest
// diagonal entry of I (GpGp's fallback), and if that fails too the stage
// stops with StatusLineSearch.
//
// o.Lower, o.Upper, o.Start, o.Guess, o.FtolAbs (default 1e-5), o.MaxEvals,
// o.Replay and o.Stop have their meaning for Maximize (o.FirstStage numbers
// the stages); o.LogScale,
// o.InitialStep and o.Expand are not used. Eval.Stage tells the stage of
// an evaluation; Result.Grad and Result.Info are the gradient and the
// information at the estimate (theta scale).
func MaximizeFisher(stages []GradObjective, o Options, report func(Eval)) (*Result, error) {
	if len(stages) == 0 {
		return nil, errors.New("mle: Fisher scoring needs an objective")
	}
	fs, err := newFisher(o, report)
	if err != nil {
		return nil, err
	}
	for k, f := range stages {
		fs.stage, fs.f = o.FirstStage+k, f
		if err := fs.run(); err != nil {
			return nil, err
		}
		if fs.res.Status != StatusFisherConverged {
			break
		}
	}
	return fs.finish()
}

// fisher is the state of MaximizeFisher.
type fisher struct {
	o      Options
	report func(Eval)
	free   []int
	start  []float64 // the full theta of the start (fixed parameters' values)
	res    *Result
	t0     time.Time
	stage  int
	f      GradObjective
	// bestStage is the stage of res.Theta, the best point of that stage.
	bestStage int
	// The current point of the search: u (free parameters), its theta,
	// l, and g, I in u.
	u     []float64
	theta []float64
	l     float64
	g     []float64
	info  *mat.SymDense
	stop  error // a hard error of the objective
	intr  bool  // Options.Stop ended the search
	gFull []float64
	iFull [][]float64
}

func newFisher(o Options, report func(Eval)) (*fisher, error) {
	o, start, err := o.checked()
	if err != nil {
		return nil, err
	}
	d := len(start)
	fs := &fisher{o: o, report: report, start: start, t0: time.Now(),
		res: &Result{Start: append([]float64(nil), start...), LogLik: math.Inf(-1)}}
	for i := range d {
		if o.Lower[i] != o.Upper[i] {
			fs.free = append(fs.free, i)
		}
	}
	fs.u = make([]float64, len(fs.free))
	for j, i := range fs.free {
		fs.u[j] = fs.toU(i, start[i])
	}
	return fs, nil
}

// logScaled reports whether parameter i is searched as log(theta_i).
func (fs *fisher) logScaled(i int) bool { return fs.o.Lower[i] > 0 }

func (fs *fisher) toU(i int, v float64) float64 {
	if fs.logScaled(i) {
		return math.Log(v)
	}
	return v
}

// bounds returns parameter j's box in u.
func (fs *fisher) bounds(j int) (lo, hi float64) {
	i := fs.free[j]
	return fs.toU(i, fs.o.Lower[i]), fs.toU(i, fs.o.Upper[i])
}

// thetaOf returns the full theta of the search point u.
func (fs *fisher) thetaOf(u []float64) []float64 {
	th := append([]float64(nil), fs.start...)
	for j, i := range fs.free {
		lo, hi := fs.bounds(j)
		v := u[j]
		if fs.logScaled(i) {
			v = math.Exp(v)
		}
		switch {
		case u[j] <= lo: // exactly the bound (exp(log(lb)) may not be lb)
			v = fs.o.Lower[i]
		case u[j] >= hi:
			v = fs.o.Upper[i]
		}
		th[i] = math.Min(math.Max(v, fs.o.Lower[i]), fs.o.Upper[i])
	}
	return th
}

// point is one evaluated search point.
type point struct {
	u, theta []float64
	l        float64
	g        []float64
	info     *mat.SymDense
	gFull    []float64
	iFull    [][]float64
}

// evaluate evaluates at u; ok is false for a failed evaluation (or after
// a hard error or an interruption: see fs.stop, fs.intr).
func (fs *fisher) evaluate(u []float64) (p point, ok bool) {
	th := fs.thetaOf(u)
	fs.res.Evaluations++
	l, g, info, err, replayed := fs.o.Replay.evalGrad(fs.f, fs.stage, th)
	if replayed {
		fs.res.Replayed++
	}
	ev := Eval{N: fs.res.Evaluations, Theta: th, LogLik: l, Replayed: replayed, Stage: fs.stage, Grad: g, Info: info}
	var rec *Recoverable
	if err == nil {
		// A gradient or information of the wrong shape is the
		// objective's bug (stop); a value that is not finite is a
		// failed evaluation, as l = NaN is.
		if err = fs.checkShape(g, info); err != nil {
			fs.stop = err
			return point{}, false
		}
		if err = checkFinite(l, g, info, fs.free); err != nil {
			err = &Recoverable{Err: err}
		}
	}
	switch {
	case err == nil:
		ok = true
	case errors.As(err, &rec):
		fs.res.Failed++
		ev.LogLik, ev.Failed = math.Inf(-1), err
	default:
		fs.stop = err
		return point{}, false
	}
	if ok && (fs.res.Theta == nil || fs.stage > fs.bestStage || l > fs.res.LogLik) {
		// The best of the current stage (earlier stages' l are another
		// function of theta).
		fs.res.LogLik, fs.res.Theta, fs.bestStage = l, th, fs.stage
	}
	ev.Best = fs.res.LogLik
	ev.Time = time.Since(fs.t0).Seconds()
	if fs.report != nil {
		fs.report(ev)
	}
	if fs.o.Stop != nil && fs.o.Stop() {
		fs.intr = true
	}
	if !ok {
		return point{}, false
	}
	return fs.mapped(u, th, l, g, info), true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkShape checks the lengths of the gradient and the information.
func (fs *fisher) checkShape(g []float64, info [][]float64) error {
	d := len(fs.start)
	if len(g) != d || len(info) != d {
		return fmt.Errorf("mle: the objective returned a gradient of %d and an information of %d rows for %d parameters", len(g), len(info), d)
	}
	for j, row := range info {
		if len(row) != d {
			return fmt.Errorf("mle: information row %d has %d entries, want %d", j, len(row), d)
		}
	}
	return nil
}

// checkFinite reports a value of l, or of the free parameters' gradient
// and information, that is not finite.
func checkFinite(l float64, g []float64, info [][]float64, free []int) error {
	if !finite(l) {
		return fmt.Errorf("log-likelihood is %g", l)
	}
	for _, j := range free {
		if !finite(g[j]) {
			return fmt.Errorf("gradient entry %d is %g", j, g[j])
		}
		for _, k := range free {
			if !finite(info[j][k]) {
				return fmt.Errorf("information entry (%d, %d) is %g", j, k, info[j][k])
			}
		}
	}
	return nil
}

// mapped returns the point with its gradient and information in u.
func (fs *fisher) mapped(u, th []float64, l float64, g []float64, info [][]float64) point {
	n := len(fs.free)
	dth := make([]float64, n) // dtheta/du
	for j, i := range fs.free {
		dth[j] = 1
		if fs.logScaled(i) {
			dth[j] = th[i]
		}
	}
	p := point{u: append([]float64(nil), u...), theta: th, l: l, g: make([]float64, n), info: mat.NewSymDense(max(n, 1), nil), gFull: g, iFull: info}
	for j, i := range fs.free {
		p.g[j] = g[i] * dth[j]
		for k, ik := range fs.free[:j+1] {
			// Symmetrised: the objective's I may differ from I' by round-off.
			p.info.SetSym(j, k, 0.5*(info[i][ik]+info[ik][i])*dth[j]*dth[k])
		}
	}
	return p
}

func (fs *fisher) set(p point) {
	fs.u, fs.theta, fs.l, fs.g, fs.info, fs.gFull, fs.iFull = p.u, p.theta, p.l, p.g, p.info, p.gFull, p.iFull
}

// run runs one stage from fs.u.
func (fs *fisher) run() error {
	p, ok := fs.evaluate(fs.u)
	if fs.stop != nil {
		return fs.stop
	}
	if !ok {
		if fs.intr {
			fs.res.Status = StatusInterrupted
			return nil
		}
		return fmt.Errorf("mle: Fisher scoring: the evaluation at the start of stage %d failed", fs.stage+1)
	}
	fs.set(p)
	if len(fs.free) == 0 {
		fs.res.Status = "all parameters fixed"
		return nil
	}
	for iter := 0; ; iter++ {
		if fs.intr {
			fs.res.Status = StatusInterrupted
			return nil
		}
		s, dec := fs.direction()
		if dec <= 2*fs.o.FtolAbs {
			fs.res.Status = StatusFisherConverged
			return nil
		}
		if iter == FisherMaxIter {
			fs.res.Status = StatusMaxIter
			return nil
		}
		if fs.o.MaxEvals > 0 && fs.res.Evaluations >= fs.o.MaxEvals {
			fs.res.Status = "MAXEVAL_REACHED"
			return nil
		}
		next, status := fs.lineSearch(s)
		if status == StatusLineSearch {
			// GpGp's fallback: the gradient direction, scaled by the
			// largest diagonal entry of I (a cautious steepest ascent).
			next, status = fs.lineSearch(fs.gradientStep(s))
		}
		if fs.stop != nil {
			return fs.stop
		}
		if status != "" {
			fs.res.Status = status
			return nil
		}
		fs.set(next)
	}
}

// direction returns the scoring step s = I^-1 g over the free parameters
// not held at a bound (0 for held ones), capped, and the decrement g's of
// the uncapped step.
func (fs *fisher) direction() (s []float64, dec float64) {
	n := len(fs.free)
	var act []int // the parameters that move
	for j := range n {
		lo, hi := fs.bounds(j)
		if (fs.u[j] <= lo && fs.g[j] < 0) || (fs.u[j] >= hi && fs.g[j] > 0) {
			continue
		}
		act = append(act, j)
	}
	s = make([]float64, n)
	if len(act) == 0 {
		return s, 0
	}
	a := mat.NewSymDense(len(act), nil)
	for x, j := range act {
		for y, k := range act[:x+1] {
			a.SetSym(x, y, fs.info.At(j, k))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return s, 0
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	floor := math.Max(1e-10*top, math.SmallestNonzeroFloat64)
	// s = V diag(1/max(lambda, floor)) V' g.
	for x := range vals {
		var c float64
		for y, j := range act {
			c += vecs.At(y, x) * fs.g[j]
		}
		c /= math.Max(vals[x], floor)
		for y, j := range act {
			s[j] += vecs.At(y, x) * c
		}
	}
	big := 0.0
	for _, j := range act {
		dec += fs.g[j] * s[j]
		big = math.Max(big, math.Abs(s[j]))
	}
	const maxStep = 2.0
	if big > maxStep {
		for j := range s {
			s[j] *= maxStep / big
		}
	}
	return s, dec
}

// gradientStep returns g / max_j I_jj over the parameters that move in
// the scoring step s (0 elsewhere).
func (fs *fisher) gradientStep(s []float64) []float64 {
	top := 0.0
	for j := range s {
		top = math.Max(top, fs.info.At(j, j))
	}
	out := make([]float64, len(s))
	for j := range s {
		if s[j] != 0 && top > 0 {
			out[j] = fs.g[j] / top
		}
	}
	return out
}

// lineSearch tries u + a s for a = 1, 1/2, ... (projected onto the box)
// until the Armijo condition holds; status is not "" when it gave up.
func (fs *fisher) lineSearch(s []float64) (point, string) {
	const c1, halvings = 1e-4, 30
	a := 1.0
	for range halvings {
		u := make([]float64, len(s))
		var rise float64
		for j := range s {
			lo, hi := fs.bounds(j)
			u[j] = math.Min(math.Max(fs.u[j]+a*s[j], lo), hi)
			rise += fs.g[j] * (u[j] - fs.u[j])
		}
		p, ok := fs.evaluate(u)
		if fs.stop != nil || fs.intr {
			if fs.intr && fs.stop == nil {
				return point{}, StatusInterrupted
			}
			return point{}, ""
		}
		if ok && p.l >= fs.l+c1*rise {
			return p, ""
		}
		if fs.o.MaxEvals > 0 && fs.res.Evaluations >= fs.o.MaxEvals {
			return point{}, "MAXEVAL_REACHED"
		}
		a /= 2
	}
	return point{}, StatusLineSearch
}

// finish returns the result: the last stage's point.
func (fs *fisher) finish() (*Result, error) {
	res := fs.res
	res.Seconds = time.Since(fs.t0).Seconds()
	if res.Theta == nil && res.Status == StatusInterrupted {
		return nil, ErrInterrupted
	}
	if fs.theta != nil {
		res.Theta, res.LogLik = fs.theta, fs.l
		res.Grad, res.Info = fs.gFull, fs.iFull
	}
	return res, nil
}
