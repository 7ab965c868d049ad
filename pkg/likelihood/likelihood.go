// Package likelihood evaluates the exact Gaussian log-likelihood of spatial
// data under a covariance model,
//
//	l(theta) = -1/2 z^T Sigma(theta)^-1 z - 1/2 log|Sigma(theta)| - (N/2) log(2 pi),
//
// as ONE asynchronous task graph per evaluation, with no synchronisation
// between its five phases (seed 000, section 4): covariance generation
// (dcmg, one task per lower tile, submitted in priority order), the tiled
// Cholesky Sigma = L L^T, the log-determinant 2 sum log L_ii, the local
// triangular solve w = L^-1 z (Algorithm 1) and the dot product w^T w.
// The runtime owns the tile buffers: each rank allocates the tiles it owns
// (pre-allocated in the runtime's pool when the Evaluator is made) plus the
// replicas its part of the graph reads, and reuses them from one
// evaluation to the next.
package likelihood

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

// Model names a covariance family and maps its parameter vector theta to a
// covariance function.
type Model string

// The covariance models.
const (
	// Matern is sigma2 2^(1-nu)/Gamma(nu) (r/beta)^nu K_nu(r/beta),
	// theta = (sigma2, beta, nu).
	Matern Model = "matern"
	// PowExp is sigma2 exp(-r^delta / beta), theta = (sigma2, beta, delta),
	// 0 < delta <= 2.
	PowExp Model = "powexp"
)

// ParamNames returns the names of the model's parameters, in theta order.
func (m Model) ParamNames() []string {
	if n := m.extraParamNames(); n != nil {
		return n
	}
	if m == PowExp {
		return matern.PowExpParamNames()
	}
	return matern.MaternParamNames()
}

// Tau2Name is the name of the nugget when it is a parameter: the last
// entry of theta = (sigma2, beta, nu|delta, tau2) (or of the anisotropic
// Matérn's (sigma2, beta, nu, angle, ratio, tau2)), with
// Sigma = sigma2 R(beta, nu) + tau2 I.
const Tau2Name = "tau2"

// HasTau2 reports whether a theta of d values ends with the nugget tau2:
// d is one more than the model's number of parameters (4 for matern and
// powexp, 6 for aniso-matern; the space-time and bivariate Matérns take a
// fixed nugget only, Problem.Nugget).
func (m Model) HasTau2(d int) bool {
	return m != SpaceTimeMatern && m != BivariateMatern && d == len(m.ParamNames())+1
}

// ParamNamesFor returns the names of a theta of length d: the model's,
// followed by Tau2Name when theta carries the nugget (HasTau2).
func (m Model) ParamNamesFor(d int) []string {
	names := m.ParamNames()
	if m.HasTau2(d) {
		names = append(names, Tau2Name)
	}
	return names
}

// Validate reports an unknown model.
func (m Model) Validate() error {
	switch m {
	case Matern, PowExp, SpaceTimeMatern, BivariateMatern, AnisoMatern:
		return nil
	}
	return fmt.Errorf("unknown kernel %q (want matern, powexp, spacetime-matern, bivariate-matern or aniso-matern)", string(m))
}

// Kernel returns the covariance function for theta, valid for distances up
// to rmax. theta has the model's 3 parameters, or 4 with the nugget tau2
// last (>= 0 and finite; it is no part of the covariance function: it is
// added on the diagonal, Problem.Tau2).
func (m Model) Kernel(theta []float64, rmax float64) (matern.Kernel, error) {
	if k, ok, err := m.extraKernel(theta, rmax); ok {
		return k, err
	}
	if len(theta) != 3 && len(theta) != 4 {
		return nil, fmt.Errorf("%s needs 3 parameters (4 with tau2), got %d", m, len(theta))
	}
	if len(theta) == 4 {
		if t := theta[3]; !(t >= 0) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%s must be >= 0 and finite, got %g", Tau2Name, t)
		}
		theta = theta[:3]
	}
	for i, v := range theta {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s must be positive and finite, got %g", m.ParamNames()[i], v)
		}
	}
	switch m {
	case Matern:
		return matern.NewMatern(matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}, rmax)
	case PowExp:
		if theta[2] > 2 {
			return nil, fmt.Errorf("delta must be in (0, 2], got %g", theta[2])
		}
		return matern.PowExp{Sigma2: theta[0], Beta: theta[1], Delta: theta[2]}, nil
	}
	return nil, m.Validate()
}

// Problem is the data of a likelihood: locations (already ordered for
// locality), observations in the same order, the model and its nugget.
type Problem struct {
	Points matern.Points
	Metric matern.Metric
	Obs    []float64
	Model  Model
	Nugget float64 // tau2, added to the diagonal of Sigma (a theta of 4 values overrides it)
	// Covariates, if not empty, are the p columns of the design matrix X
	// of the mean (each in the order of Points): z = X b + e, e ~ N(0,
	// Sigma), with b estimated by generalised least squares at every
	// evaluation and profiled out (see LogLik).
	Covariates [][]float64
	// REML makes LogLik the restricted log-likelihood (with Covariates).
	REML bool
}

// Tau2 returns the nugget of Sigma(theta): its last value when theta
// carries it (Model.HasTau2: theta[3] of 4 values for matern), else
// p.Nugget.
func (p Problem) Tau2(theta []float64) float64 {
	if p.Model.HasTau2(len(theta)) {
		return theta[len(theta)-1]
	}
	return p.Nugget
}

// Stats describes one evaluation: its wall time and, per phase, the seconds
// its tasks kept workers busy, summed over workers. Phases overlap, so the
// busy times add up to at most Wall times the number of workers. Busy times
// need a runtime that records traces (runtime.Options.Trace).
type Stats struct {
	Wall  float64 // seconds, submission of the first task to the end of the last
	Gen   float64 // busy seconds in dcmg tasks
	Chol  float64 // busy seconds in potrf/trtri/trmm/syrk/gemm tasks
	Solve float64 // busy seconds in trsv/gemv/geadd/det/dot tasks
	// Deriv is the busy seconds of the gradient and information work
	// (Vecchia's blocks; 0 for the tiled computations).
	Deriv float64
	// Busy is, for an evaluation that is not traced (Vecchia), the
	// workers' busy share from the busy seconds: (Gen + Chol + Solve +
	// Deriv) / (workers x wall); Utilization is then left zero.
	Busy float64
	// GenCPU, CholCPU and SolveCPU are the same in the CPU time of the
	// workers' threads: below the busy wall times by what the OS took
	// from the workers (other processes on the cores), and never more
	// than the workers' share of the wall time.
	GenCPU, CholCPU, SolveCPU float64
	Flops                     float64 // floating-point operations of the Cholesky
	Tasks                     int
	// SentBytes is what this rank put on the wire during the evaluation:
	// each message as packed, a low-rank tile by its current rank.
	SentBytes int64
	Gflops    float64 // Cholesky flops / wall time
	LogDet    float64 // log |Sigma|
	Quad      float64 // z^T Sigma^-1 z; with covariates r^T Sigma^-1 r, r = z - X b_hat
	Evaluate  int     // evaluation number, from 1
	// With covariates: the GLS estimate b_hat = (X^T Sigma^-1 X)^-1 X^T
	// Sigma^-1 z, its covariance (X^T Sigma^-1 X)^-1 and log|X^T Sigma^-1 X|.
	Beta      []float64
	BetaCov   [][]float64
	LogDetXSX float64
	// Comm lists the messages of a distributed evaluation by phase and
	// sending rank (empty on one rank).
	Comm []CommStat
	// Utilization is the share of this rank's workers' time spent in
	// tasks (seed 000's metric; needs traces, like the busy times), and
	// UtilizationCPU the share they spent computing: the tasks' CPU time
	// over workers x wall.
	Utilization    trace.Utilization
	UtilizationCPU float64
	// Approx describes the tiles of an approximate computation (nil for
	// the exact one).
	Approx *ApproxStats
}

// CommStat counts the messages one rank sent in one phase of an evaluation.
// Phases: "redistribution" (generated tiles moving to their factorisation
// owner), "cholesky", "solve", and "reduction" (the partial sums every rank
// needs for l).
type CommStat struct {
	Phase    string `json:"phase"`
	Rank     int    `json:"rank"`
	Messages int    `json:"messages"`
	Bytes    int64  `json:"bytes"`
}

// Phase returns the phase of a message carrying a handle written by a task
// of kind writer to one of kind reader.
func Phase(writer, reader string) string {
	switch reader {
	case kind.Fetch:
		return "reduction"
	case kind.Trsv, kind.Gemv, kind.Geadd, kind.Det, kind.Dot, kind.Zcpy:
		return "solve"
	}
	if writer == kind.Dcmg {
		return "redistribution"
	}
	return "cholesky"
}

// CommStats sums traffic by phase and sending rank, sorted.
func CommStats(tr map[runtime.TrafficKey]runtime.Traffic) []CommStat {
	type key struct {
		phase string
		rank  int
	}
	sum := map[key]CommStat{}
	for k, v := range tr {
		kk := key{Phase(k.Writer, k.Reader), k.Src}
		c := sum[kk]
		c.Phase, c.Rank = kk.phase, kk.rank
		c.Messages += v.Messages
		c.Bytes += v.Bytes
		sum[kk] = c
	}
	out := make([]CommStat, 0, len(sum))
	for _, c := range sum {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Phase != out[j].Phase {
			return out[i].Phase < out[j].Phase
		}
		return out[i].Rank < out[j].Rank
	})
	return out
}

// Options configure an Evaluator.
type Options struct {
	NB        int  // tile size
	KeepTrace bool // keep every task event for Events (the runtime must record traces)
	// Owner places tile (m, n) of Sigma, and of its Cholesky factor, on a
	// rank; nil means rank 0. Tile m of z and the partial sums follow the
	// diagonal tile (m, m).
	Owner tile.OwnerFunc
	// GenOwner, if not nil, generates tile (m, n) on rank GenOwner(m, n):
	// the generation phase has a distribution of its own, and the runtime
	// moves each tile to its Owner for the factorisation.
	GenOwner tile.OwnerFunc
	// Solve is how the local solve sums its products (default
	// solve.Chained: the same l on any distribution). The approximate
	// computations always sum them into z in step order
	// (solve.MoveTiles), as they did before they shared the solve.
	Solve solve.Mode
	// Overlap switches seed 000's phase-overlap optimisations (nil: all
	// on). Its runtime part (Overlap.RuntimeOptions) is the caller's, when
	// it starts the runtime.
	Overlap *Overlap
	// Approx selects an approximate computation (TLR, mixed precision,
	// diagonal super-tile); the zero value is the exact likelihood.
	Approx Approx
}

// Evaluator evaluates l(theta) for one Problem, reusing its tiles.
type Evaluator struct {
	p        Problem
	opts     Options
	ov       Overlap
	genOwner tile.OwnerFunc
	rt       *runtime.Runtime
	kern     kernels.Impl
	sigma    *tile.Sym
	z        *tile.Vector
	acc      *solve.Accum
	det      *solve.Scalars
	dot      *solve.Scalars
	// The mean's covariates: x[i] <- L^-1 X(:, i) with its own solve
	// accumulators, and the inner products xx[i][j] = x_i^T x_j (j <= i)
	// and xz[i] = x_i^T w.
	x     []*tile.Vector
	xacc  []*solve.Accum
	xx    [][]*solve.Scalars
	xz    []*solve.Scalars
	rmax  float64
	gen   []genTile
	evals int
	keep  bool
	// current is the theta whose factor and whitened z are in the tiles,
	// and beta, betaCov its GLS estimate of the mean (with covariates).
	current []float64
	beta    []float64
	betaCov [][]float64
	ev      []trace.Event
	ax      *approx // the state of an approximate computation; nil: exact
}

type genTile struct{ m, n, prio int }

// New returns an Evaluator of p with tile size nb on rt, all tiles on rank 0.
// With keepTrace the evaluator keeps every task event for Events (rt must
// record traces).
func New(p Problem, nb int, rt *runtime.Runtime, keepTrace bool) (*Evaluator, error) {
	return NewWith(p, rt, Options{NB: nb, KeepTrace: keepTrace})
}

// NewWith returns an Evaluator of p on rt configured by o. It registers
// the tiles with rt and, on a runtime that runs tasks, pre-allocates in its
// pool the tiles this rank owns.
func NewWith(p Problem, rt *runtime.Runtime, o Options) (*Evaluator, error) {
	nb, keepTrace := o.NB, o.KeepTrace
	n := len(p.Obs)
	if n != len(p.Points.X) || n != len(p.Points.Y) {
		return nil, fmt.Errorf("likelihood: %d observations for %d locations", n, len(p.Points.X))
	}
	if err := p.Model.Validate(); err != nil {
		return nil, err
	}
	if err := p.Model.checkPoints(p.Points); err != nil {
		return nil, err
	}
	if err := p.Model.checkMetric(p.Metric); err != nil {
		return nil, err
	}
	if nb < 1 {
		return nil, fmt.Errorf("likelihood: tile size %d < 1", nb)
	}
	// Tile kernels run one per worker: BLAS must not start threads of its own.
	kernels.DefaultThreads().SetThreads(1)
	e := &Evaluator{p: p, opts: o, ov: o.overlap(), rt: rt, kern: kernels.Default(), keep: keepTrace, genOwner: o.GenOwner}
	own := o.Owner
	if own == nil {
		own = tile.Local
	}
	diag := func(m int) int { return own(m, m) }
	lay := tile.NewLayout(n, nb)
	mode := o.Solve
	if c := o.Approx.Computation; c != "" && c != Exact {
		if err := e.newApprox(o.Approx, lay.NT, nb); err != nil {
			return nil, err
		}
		// The approximate computations sum the solve's products in
		// z(m) directly, in step order (their l as it always was).
		mode = solve.MoveTiles
	}
	e.sigma = tile.NewSymClasses(rt, n, nb, own, e.classes())
	if e.ax != nil {
		e.ax.registerScratch(rt, nb)
	}
	e.z = tile.NewVector(rt, "z", n, nb, diag)
	e.acc = e.tuneSolve(solve.NewAccum(e.sigma, mode))
	e.det = solve.NewScalars(rt, "logdet", e.sigma.NT, diag)
	e.dot = solve.NewScalars(rt, "dot", e.sigma.NT, diag)
	for i, c := range p.Covariates {
		if len(c) != n {
			return nil, fmt.Errorf("likelihood: covariate %d has %d values for %d locations", i+1, len(c), n)
		}
		e.x = append(e.x, tile.NewVector(rt, fmt.Sprintf("x%d", i), n, nb, diag))
		e.xacc = append(e.xacc, e.tuneSolve(solve.NewAccum(e.sigma, mode)))
		e.xz = append(e.xz, solve.NewScalars(rt, fmt.Sprintf("xz%d", i), e.sigma.NT, diag))
		row := make([]*solve.Scalars, i+1)
		for j := range row {
			row[j] = solve.NewScalars(rt, fmt.Sprintf("xx%d,%d", i, j), e.sigma.NT, diag)
		}
		e.xx = append(e.xx, row)
	}
	e.rmax = matern.MaxDistance(p.Metric, p.Points)
	nt := e.sigma.NT
	counts := map[runtime.Dense]int{}
	for m := 0; m < nt; m++ {
		for c := 0; c <= m; c++ {
			e.gen = append(e.gen, genTile{m, c, e.prio(insert.GenPriority(nt, m, c))})
			if e.sigma.Class(m, c) == tile.Dense && (rt.Size() == 1 || own(m, c) == rt.Rank()) {
				counts[runtime.Dense{M: e.sigma.Rows(m), N: e.sigma.Rows(c)}]++
			}
		}
	}
	for f, k := range counts {
		if e.ov.Memory || e.ax != nil {
			rt.Reserve(f, k)
		}
	}
	// Generation is submitted in priority order (anti-diagonals first),
	// or in loop order (Overlap.GenOrder off).
	sort.SliceStable(e.gen[:e.sortedGen()], func(i, j int) bool {
		a, b := e.gen[i], e.gen[j]
		if a.m+a.n != b.m+b.n {
			return a.m+a.n < b.m+b.n
		}
		return a.n < b.n
	})
	return e, nil
}

// N returns the number of observations.
func (e *Evaluator) N() int { return len(e.p.Obs) }

// NB returns the tile size.
func (e *Evaluator) NB() int { return e.sigma.NB }

// Factor returns the tiled matrix that holds the Cholesky factor of Sigma
// after a successful evaluation.
func (e *Evaluator) Factor() *tile.Sym { return e.sigma }

// Whitened returns the tiled vector that holds w = L^-1 z after a
// successful evaluation.
func (e *Evaluator) Whitened() *tile.Vector { return e.z }

// WhitenedCovariates returns the tiled vectors that hold L^-1 X(:, i),
// one per covariate, after a successful evaluation.
func (e *Evaluator) WhitenedCovariates() []*tile.Vector { return e.x }

// Problem returns the evaluator's problem (locations in its internal order).
func (e *Evaluator) Problem() Problem { return e.p }

// Options returns the options the evaluator was made with (KeepTrace
// off): another evaluator of the same problem with them has the same tile
// distribution.
func (e *Evaluator) Options() Options {
	o := e.opts
	o.KeepTrace = false
	return o
}

// Runtime returns the runtime the evaluator submits to.
func (e *Evaluator) Runtime() *runtime.Runtime { return e.rt }

// Kernels returns the tile kernels the evaluator uses.
func (e *Evaluator) Kernels() kernels.Impl { return e.kern }

// Current returns the theta of the last evaluation if it succeeded and its
// factor and whitened vector are still in memory, or nil.
func (e *Evaluator) Current() []float64 { return e.current }

// GLS returns the GLS estimate of the mean's coefficients at Current()
// and its covariance (X^T Sigma^-1 X)^-1, or nils (no covariates, or no
// current evaluation).
func (e *Evaluator) GLS() (beta []float64, cov [][]float64) {
	if e.current == nil {
		return nil, nil
	}
	return e.beta, e.betaCov
}

// RMax returns the largest distance the evaluator's kernels are built for.
func (e *Evaluator) RMax() float64 { return e.rmax }

// Events returns the task events kept so far (with keepTrace).
func (e *Evaluator) Events() []trace.Event { return e.ev }

// ErrNotPosDef is wrapped by the error of an evaluation whose covariance
// matrix is not numerically positive definite.
var ErrNotPosDef = errors.New("covariance matrix is not positive definite")

// ErrBadTheta is wrapped by the error of an evaluation at a theta the
// model cannot take (Model.Kernel refused it: a parameter not positive
// and finite, a powexp delta above 2).
var ErrBadTheta = errors.New("parameters outside the model's domain")

// LogLik evaluates l(theta), theta = (sigma2, beta, nu|delta) with the
// problem's nugget, or (sigma2, beta, nu|delta, tau2).
//
// With p covariates X (Problem.Covariates), the mean b is profiled out:
// with w = L^-1 z and V = L^-1 X (p more local solves through the same
// factor, as tasks) and the inner products V^T V = X^T Sigma^-1 X, V^T w,
// w^T w (tasks), b_hat = (V^T V)^-1 V^T w (a p x p Cholesky here) and
//
//	l    = -1/2 r^T Sigma^-1 r - 1/2 log|Sigma| - (n/2) log(2 pi),  r = z - X b_hat,
//	l_R  = l - 1/2 log|X^T Sigma^-1 X| + (p/2) log(2 pi)   (Problem.REML),
//
// where r^T Sigma^-1 r = w^T w - (V^T w)^T b_hat. l_R is the restricted
// (REML) log-likelihood of Harville (1974), the log density of the n - p
// error contrasts, without the constant +1/2 log|X^T X| that some
// packages add (it does not depend on theta). An error wrapping ErrNotPosDef means Sigma(theta)
// is numerically singular, one wrapping ErrBadTheta that the model cannot
// take theta: failed evaluations, a property of theta, not a broken input.
func (e *Evaluator) LogLik(theta []float64) (float64, Stats, error) {
	e.evals++
	e.current = nil
	st := Stats{Evaluate: e.evals}
	k, err := e.p.Model.Kernel(theta, e.rmax)
	if err != nil {
		return math.NaN(), st, fmt.Errorf("%w (theta %v): %v", ErrBadTheta, theta, err)
	}
	rt, s := e.rt, e.sigma
	ts := e.tasks()
	t0 := time.Now()
	sent0 := rt.SentBytes()
	rt.Events() // start this evaluation's record afresh
	rt.Traffic()
	rt.SetIteration(e.evals)
	rt0 := rt.Now()
	e.beginEval()
	e.submitGeneration(ts, k, e.p.Tau2(theta))
	e.submitObservations(ts)
	e.phaseEnd()
	cholesky.SubmitWith(ts, s, e.choleskyOptions())
	e.phaseEnd()
	solve.SubmitLogDet(s, e.det)
	e.phaseEnd()
	solve.LocalSolve(ts, s, e.z, e.acc)
	e.phaseEnd()
	solve.SubmitDot(e.z, e.dot, e.kern)
	e.phaseEnd()
	e.submitCovariates(ts)
	e.det.Fetch()
	e.dot.Fetch()
	err = rt.Wait()
	rt1 := rt.Now()
	st.Comm = CommStats(rt.Traffic())
	st.SentBytes = rt.SentBytes() - sent0
	st.Wall = time.Since(t0).Seconds()
	ev := rt.Events()
	st.Utilization = trace.UtilizationOf(ev, rt.Workers(), rt0, rt1)
	st.addBusy(ev)
	if w := rt.Workers(); w > 0 && rt1 > rt0 {
		st.UtilizationCPU = (st.GenCPU + st.CholCPU + st.SolveCPU) / (float64(w) * float64(rt1-rt0) * 1e-9)
	}
	if st.Wall > 0 {
		st.Gflops = st.Flops / st.Wall * 1e-9
	}
	if e.keep {
		e.ev = append(e.ev, ev...)
	}
	if e.ax != nil {
		st.Approx = e.approxStats()
		if st.Approx.MeanRank > 0 {
			e.ax.kEst = st.Approx.MeanRank
		}
	}
	return e.finish(theta, st, err)
}

// addBusy adds the task events ev to the busy seconds by phase (package
// kind's phases; the observations' copies count as solve, messages as
// none), in wall and in CPU time, and the Cholesky's flops (not the
// inverses of its diagonal blocks', extra work of the panel), and counts
// the tasks.
func (st *Stats) addBusy(ev []trace.Event) {
	for _, x := range ev {
		d, c := x.Duration(), float64(x.CPU)*1e-9
		switch {
		case x.Kind == trace.MemoryKind:
			continue
		case x.Kind == kind.Send || x.Kind == kind.Recv: // messages in flight, not worker time
		case x.Kind == kind.Trtri:
			st.Chol, st.CholCPU = st.Chol+d, st.CholCPU+c
		case kind.Phase(x.Kind) == "generation" && x.Kind != kind.Zcpy:
			st.Gen, st.GenCPU = st.Gen+d, st.GenCPU+c
		case kind.Phase(x.Kind) == "cholesky":
			st.Chol, st.CholCPU = st.Chol+d, st.CholCPU+c
			st.Flops += x.Flops
		default:
			st.Solve, st.SolveCPU = st.Solve+d, st.SolveCPU+c
		}
		st.Tasks++
	}
}

// finish completes an evaluation whose graph ended with err: a matrix
// that is not positive definite is ErrNotPosDef with l = -Inf; otherwise
// l = -quad/2 - log|Sigma|/2 - n log(2 pi)/2 from the determinant and dot
// accumulators, with the GLS mean's terms when there are covariates
// (fromParts).
func (e *Evaluator) finish(theta []float64, st Stats, err error) (float64, Stats, error) {
	if err != nil {
		if cholesky.IsNotPosDef(err) {
			return math.Inf(-1), st, fmt.Errorf("%w (theta %v): %v", ErrNotPosDef, theta, err)
		}
		return math.NaN(), st, err
	}
	n := float64(e.N())
	st.LogDet = 2 * e.det.Sum()
	st.Quad = e.dot.Sum()
	if len(e.x) == 0 {
		e.current = append([]float64(nil), theta...)
		return -0.5*st.Quad - 0.5*st.LogDet - 0.5*n*math.Log(2*math.Pi), st, nil
	}
	if err := e.gls(&st); err != nil {
		return math.NaN(), st, err
	}
	e.current = append([]float64(nil), theta...)
	e.beta, e.betaCov = st.Beta, st.BetaCov
	return e.p.fromParts(st.LogDet, st.Quad, st.LogDetXSX, 1), st, nil
}

// fromParts returns l (or l_R) at the scale s of an evaluation's
// log|Sigma|, quadratic form and log|X^T Sigma^-1 X| (s = 1: as they
// are; Sigma -> s Sigma turns them into logDet + n log s, quad/s and
// logDetXSX - p log s).
func (p Problem) fromParts(logDet, quad, logDetXSX, s float64) float64 {
	n, k := float64(len(p.Obs)), float64(len(p.Covariates))
	ls := math.Log(s)
	l := -0.5*quad/s - 0.5*(logDet+n*ls) - 0.5*n*math.Log(2*math.Pi)
	if p.REML && k > 0 {
		l += -0.5*(logDetXSX-k*ls) + 0.5*k*math.Log(2*math.Pi)
	}
	return l
}

// submitCovariates copies the covariates into their solve vectors, solves
// them through the factor (x = L^-1 x) and submits their inner products.
func (e *Evaluator) submitCovariates(ts insert.Tasks) {
	if len(e.x) == 0 {
		return
	}
	for i, x := range e.x {
		c := e.p.Covariates[i]
		for m := 0; m < x.NT; m++ {
			ts.Zcpy(insert.At(m, -1, -1, e.prio(insert.GenPriority(x.NT, 0, 0))), c[x.Offset(m):x.Offset(m)+x.Rows(m)], x.Handle(m))
		}
		solve.LocalSolve(ts, e.sigma, x, e.xacc[i])
	}
	for i, x := range e.x {
		solve.SubmitInner(x, e.z, e.xz[i], e.kern)
		e.xz[i].Fetch()
		for j := 0; j <= i; j++ {
			solve.SubmitInner(x, e.x[j], e.xx[i][j], e.kern)
			e.xx[i][j].Fetch()
		}
	}
}

// ErrCollinear is wrapped by the error of an evaluation whose covariates
// are linearly dependent: X^T Sigma^-1 X is singular and the mean has no
// unique estimate.
var ErrCollinear = errors.New("the covariates of the mean are linearly dependent (X^T Sigma^-1 X is singular)")

// gls computes the GLS estimate of the mean from the inner products of an
// evaluation (SolveGLS): st.Beta, st.BetaCov, st.LogDetXSX, and st.Quad
// becomes the residual's r^T Sigma^-1 r.
func (e *Evaluator) gls(st *Stats) error {
	k := len(e.x)
	a := make([][]float64, k)
	b := make([]float64, k)
	for i := 0; i < k; i++ {
		b[i] = e.xz[i].Sum()
		a[i] = make([]float64, i+1)
		for j := 0; j <= i; j++ {
			a[i][j] = e.xx[i][j].Sum()
		}
	}
	g, err := SolveGLS(a, b)
	if err != nil {
		return err
	}
	st.Beta, st.BetaCov, st.LogDetXSX = g.Beta, g.Cov, g.LogDet
	st.Quad -= g.Fit
	return nil
}

// GLSFit is the generalised least-squares estimate of a mean.
type GLSFit struct {
	Beta   []float64   // A^-1 b
	Cov    [][]float64 // A^-1, the covariance of Beta
	LogDet float64     // log|A|
	Fit    float64     // b^T A^-1 b: z^T Sigma^-1 z minus this is r^T Sigma^-1 r
}

// SolveGLS returns the GLS estimate of the mean from A = X^T Sigma^-1 X
// (a[i][j] for j <= i, the lower triangle) and b = X^T Sigma^-1 z.
//
// A is equilibrated first, A = D Ã D with D = diag(sqrt(a_ii)) and Ã of
// unit diagonal: covariates on very different scales (an intercept beside
// UTM coordinates in metres) make A's condition number huge while the
// columns are far from collinear. Collinearity is judged on Ã (condition
// number 1e14: ErrCollinear), and beta = D^-1 Ã^-1 D^-1 b,
// A^-1 = D^-1 Ã^-1 D^-1, log|A| = log|Ã| + sum log a_ii.
func SolveGLS(a [][]float64, b []float64) (GLSFit, error) {
	k := len(b)
	d := make([]float64, k)
	for i := 0; i < k; i++ {
		d[i] = math.Sqrt(a[i][i])
		if !(d[i] > 0) || math.IsInf(d[i], 0) {
			return GLSFit{}, ErrCollinear
		}
	}
	as := mat.NewSymDense(k, nil)
	bs := mat.NewVecDense(k, nil)
	for i := 0; i < k; i++ {
		bs.SetVec(i, b[i]/d[i])
		for j := 0; j <= i; j++ {
			as.SetSym(i, j, a[i][j]/(d[i]*d[j]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(as) || !(ch.Cond() < 1e14) {
		return GLSFit{}, ErrCollinear
	}
	var beta mat.VecDense
	if err := ch.SolveVecTo(&beta, bs); err != nil {
		return GLSFit{}, fmt.Errorf("%w: %v", ErrCollinear, err)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return GLSFit{}, fmt.Errorf("%w: %v", ErrCollinear, err)
	}
	g := GLSFit{Beta: make([]float64, k), Cov: make([][]float64, k), LogDet: ch.LogDet()}
	for i := 0; i < k; i++ {
		g.Beta[i] = beta.AtVec(i) / d[i]
		g.Cov[i] = make([]float64, k)
		for j := 0; j < k; j++ {
			g.Cov[i][j] = inv.At(i, j) / (d[i] * d[j])
		}
		g.LogDet += 2 * math.Log(d[i])
	}
	g.Fit = mat.Dot(bs, &beta) // b^T A^-1 b, in the scaled variables
	return g, nil
}

// submitGeneration generates the tiles of Sigma in their classes (dcmg,
// lr-dcmg: generated and compressed, s-dcmg: generated and rounded; none
// for a dropped tile), on the generation distribution's rank if any.
func (e *Evaluator) submitGeneration(ts insert.Tasks, k matern.Kernel, tau2 float64) {
	s, p := e.sigma, e.p
	for _, g := range e.gen {
		m, c := g.m, g.n
		at := insert.At(m, c, -1, g.prio)
		if e.genOwner != nil {
			at = at.On(e.genOwner(m, c))
		}
		cv := insert.Cov{K: k, Nugget: tau2, Metric: p.Metric, Rows: p.Points, Row0: s.Offset(m),
			Cols: p.Points, Col0: s.Offset(c), Diag: m == c}
		if h := s.Handle(m, c); h != nil {
			ts.Generate(at, cv, h)
		}
	}
}

// submitObservations copies the observations into the solve vector, which the
// solve overwrites with L^-1 z.
func (e *Evaluator) submitObservations(ts insert.Tasks) {
	z := e.z
	for m := 0; m < z.NT; m++ {
		ts.Zcpy(insert.At(m, -1, -1, e.prio(insert.GenPriority(z.NT, 0, 0))), e.p.Obs[z.Offset(m):z.Offset(m)+z.Rows(m)], z.Handle(m))
	}
}

// Release drops the evaluator's tiles (runtime.Invalidate): their buffers
// go back to the runtime's pool, for another evaluator or phase to reuse.
func (e *Evaluator) Release() {
	e.current = nil
	e.sigma.Invalidate()
	e.z.Invalidate()
	for _, x := range e.x {
		x.Invalidate()
	}
}

// Overhead is the memory a rank uses besides tile data (the Go runtime,
// BLAS and MPI buffers, the input data of a few hundred thousand points),
// in bytes: what MemoryNeed adds to the tiles.
const Overhead = 64 << 20

// TileBytes returns the bytes of all the lower tiles of an n x n matrix
// with the tile size of o, in the formats of o's computation (dense
// float64 for exact; see Approx.tileBytes).
func TileBytes(n int, o Options) int64 {
	l := tile.NewLayout(n, o.NB)
	return l.LowerBytes(nil, 1, o.tileSize(l))[0]
}

// tileSize returns the bytes of tile (m, c) of l in the formats of o's
// computation (Approx.tileBytes).
func (o Options) tileSize(l tile.Layout) func(m, c int) int64 {
	return func(m, c int) int64 { return o.Approx.tileBytes(m, c, l.Rows(m), l.Rows(c), l.NT, o.NB) }
}

// MemoryNeed returns, for each of ranks ranks, the bytes an evaluation of n
// points with the tile size and distributions of o holds at most on that
// rank: the lower tiles it owns; the tiles it generates for other ranks
// under a generation distribution of its own (all of them, the worst
// case); the replicas it receives, the larger of the runtime's default
// replica budget and one full tile column (what a step of the Cholesky may
// read at once); two diagonal workspaces; the vectors; and Overhead. It
// allocates nothing, so a run can check it against the memory available
// before starting. An approximate computation (o.Approx) counts its tiles
// in their formats (Approx.tileBytes), and its replicas at the mean tile.
func MemoryNeed(n int, o Options, ranks int) []int64 {
	l := tile.NewLayout(n, o.NB)
	own := o.Owner
	if own == nil {
		own = tile.Local
	}
	size := o.tileSize(l)
	owned := l.LowerBytes(own, ranks, size)
	var all int64
	for _, b := range owned {
		all += b
	}
	gen := make([]int64, ranks)
	vec := make([]int64, ranks)
	for m := 0; m < l.NT; m++ {
		for c := 0; c <= m && o.GenOwner != nil; c++ {
			if g := min(max(o.GenOwner(m, c), 0), ranks-1); g != own(m, c) {
				gen[g] += size(m, c)
			}
		}
		vec[min(max(own(m, m), 0), ranks-1)] += int64(8 * 4 * l.Rows(m))
	}
	tileBytes := int64(8 * o.NB * o.NB)
	column := int64(l.NT) * tileBytes
	if c := o.Approx.Computation; c != "" && c != Exact {
		// A column of the approximate computation's tiles: the mean
		// lower tile's bytes, NT times.
		column = all / int64(max(1, l.NT*(l.NT+1)/2)) * int64(l.NT)
	}
	out := make([]int64, ranks)
	for r := range out {
		replicas := int64(0)
		if ranks > 1 {
			replicas = max(owned[r]/8, 4*tileBytes, column)
		}
		out[r] = owned[r] + gen[r] + replicas + 2*tileBytes + vec[r] + Overhead
	}
	return out
}
