package bench

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// LikelihoodOptions configure LikelihoodBench.
type LikelihoodOptions struct {
	Problem
	Reference bool // also time the dense reference
	Predict   int  // also krige this many random new locations (factor reused)
	// Mean is a mean model (dataset.Design: constant or linear; "" or
	// zero: none). With one, each repetition also times the zero-mean
	// evaluation of the same data, alternating the two, for the overhead.
	Mean string
	// Overlap switches the phase-overlap optimisations (nil: all on).
	Overlap *likelihood.Overlap
	// Computations lists approximate computations (likelihood.TLR, MP,
	// DST) to time after the exact one on the same data, each with its
	// own evaluator (the exact one's tiles released first), with Approx's
	// accuracy, maximum rank and band.
	Computations []likelihood.Computation
	Approx       likelihood.Approx
	// Place, if not nil, sets the runtime's devices, scheduler and
	// performance model (job.Placement).
	Place func(*runtime.Options)
}

// ApproxResult is the timing of one approximate computation beside the
// exact one of the same run.
type ApproxResult struct {
	Computation likelihood.Computation  `json:"computation"`
	LogLik      float64                 `json:"loglik"`
	RelErr      float64                 `json:"rel_err"` // |l - l_exact| / |l_exact|
	Seconds     float64                 `json:"seconds"` // median wall per evaluation
	Speedup     float64                 `json:"speedup"` // exact seconds / Seconds
	Gen         float64                 `json:"gen_busy"`
	Chol        float64                 `json:"chol_busy"`
	Solve       float64                 `json:"solve_busy"`
	PeakBytes   int64                   `json:"peak_tile_bytes"` // the runtime's peak of buffers in use
	Tiles       *likelihood.ApproxStats `json:"tiles"`
	// With LikelihoodOptions.Predict: the median wall time of kriging the
	// same new locations on this computation's factor, and the largest
	// differences of the predictor and the variance from the exact
	// factor's in the same run.
	PredictSecs   float64 `json:"predict_seconds,omitempty"`
	PredictZErr   float64 `json:"predict_max_abs_zhat_diff,omitempty"`
	PredictVarErr float64 `json:"predict_max_abs_variance_diff,omitempty"`
	// Error is the failure of an evaluation (a diagonal super-tile may
	// not be positive definite); the timings are then absent.
	Error string `json:"error,omitempty"`
}

// LikelihoodResult is what LikelihoodBench measured: medians over the
// repetitions of one log-likelihood evaluation on the task runtime, its
// phases' busy seconds (summed over workers), and the same value computed by
// the dense reference - the full matrix generated with the direct Bessel
// function on Workers goroutines, LAPACK dpotrf with Workers threads, dtrsv
// and a dot product.
type LikelihoodResult struct {
	Problem
	LogLik  float64 `json:"loglik"`
	Seconds float64 `json:"seconds"` // median wall per evaluation
	// Wall is the spread of the evaluations' wall times (Seconds is its
	// median).
	Wall    Spread  `json:"seconds_spread"`
	Gen     float64 `json:"gen_busy"`
	Chol    float64 `json:"chol_busy"`
	Solve   float64 `json:"solve_busy"`
	Gflops  float64 `json:"chol_gflops"`
	RefSecs float64 `json:"reference_seconds,omitempty"`
	RefGen  float64 `json:"reference_gen_seconds,omitempty"`
	// RefFactor is the reference's factorisation, solve and dot (RefSecs
	// - RefGen), and FactorSpeedup its ratio to the runtime's whole
	// evaluation: the speed-up without the reference's slow generation.
	RefFactor     float64 `json:"reference_factor_seconds,omitempty"`
	FactorSpeedup float64 `json:"factor_speedup,omitempty"`
	RefLogLik     float64 `json:"reference_loglik,omitempty"`
	Speedup       float64 `json:"speedup,omitempty"`
	RelDiff       float64 `json:"reference_rel_diff,omitempty"`
	// Generation rate on one core (entries per second) with the fast
	// evaluator and with the direct Bessel function, nb x nb tiles.
	GenRate    float64 `json:"gen_entries_per_s"`
	DirectRate float64 `json:"direct_entries_per_s"`
	// Prediction of Predict new locations with the factor of the last
	// evaluation: median seconds over Reps, and the ratio to one evaluation.
	PredictN     int     `json:"predict_n,omitempty"`
	PredictSecs  float64 `json:"predict_seconds,omitempty"`
	PredictRatio float64 `json:"predict_over_evaluation,omitempty"`
	// With a mean model: its name, the median zero-mean evaluation timed
	// alternately with it, and the relative overhead Seconds/ZeroSecs - 1.
	Mean         string  `json:"mean,omitempty"`
	ZeroSecs     float64 `json:"zero_mean_seconds,omitempty"`
	MeanOverhead float64 `json:"mean_overhead,omitempty"`
	// ZeroBusy is the zero-mean evaluation's median busy seconds (all
	// phases, summed over workers) and BusyOverhead the mean's relative
	// extra work, (Gen + Chol + Solve)/ZeroBusy - 1: less sensitive than
	// wall time to other load on the machine.
	ZeroBusy     float64 `json:"zero_mean_busy_seconds,omitempty"`
	BusyOverhead float64 `json:"mean_busy_overhead,omitempty"`
	// ZeroSolve is the zero-mean evaluation's median busy seconds in the
	// solve phase: Solve - ZeroSolve is the work of the mean's tasks (its
	// solves and inner products), the same under any other load.
	ZeroSolve float64 `json:"zero_mean_solve_busy,omitempty"`
	// PeakBytes is the exact evaluation's peak of tile buffers in use, and
	// Approx the approximate computations timed after it.
	PeakBytes int64          `json:"peak_tile_bytes"`
	Approx    []ApproxResult `json:"approx,omitempty"`
	// Overlap names the phase-overlap switches of the run.
	Overlap string `json:"overlap"`
	// Dgemm is the rate of one dgemm (n = 2048) on Workers threads,
	// measured in this run, in GFLOP/s. Evals lists each timed
	// evaluation: its wall time, its floor (Floor: the Cholesky's flops
	// at the Dgemm rate plus the generation's busy time over the
	// workers), wall / floor and its utilisation; Floor and FloorRatio
	// are their medians.
	Dgemm      float64     `json:"dgemm_gflops"`
	Evals      []EvalFloor `json:"evaluations"`
	Floor      float64     `json:"floor_seconds"`
	FloorRatio float64     `json:"floor_ratio"`
	// Devices are the counters of the runtime's devices (--gpus, --devices).
	Devices []runtime.DeviceStats `json:"devices,omitempty"`
}

// EvalFloor is one timed evaluation of LikelihoodBench against its floor.
type EvalFloor struct {
	Seconds     float64 `json:"seconds"`
	Floor       float64 `json:"floor_seconds"`
	Ratio       float64 `json:"floor_ratio"`
	Utilization float64 `json:"utilization"`
}

// LikelihoodBench times l(theta) on ExaGeoStat's synthetic locations (seeded
// jittered grid, Morton order) with standard normal observations.
func LikelihoodBench(o LikelihoodOptions) (*LikelihoodResult, error) {
	if o.N < 3 || o.NB < 1 || o.Workers < 1 || o.Reps < 1 || len(o.Theta) != 3 {
		return nil, fmt.Errorf("bench likelihood: need n >= 3, nb, workers, reps >= 1 and 3 parameters")
	}
	b, err := newLikelihoodRun(o)
	if err != nil {
		return nil, err
	}
	defer b.rt.Close()
	if err := b.timeExact(); err != nil {
		return nil, err
	}
	krige, exactPred, err := b.timePredict()
	if err != nil {
		return nil, err
	}
	res := b.res
	res.Gflops = res.Gflops / res.Seconds * 1e-9
	res.PeakBytes = b.rt.Mem().Peak
	if err := b.timeApprox(krige, exactPred); err != nil {
		return nil, err
	}
	if err := b.rates(); err != nil {
		return nil, err
	}
	if ds := b.rt.DeviceStats(); len(ds) > 0 {
		res.Devices = ds
	}
	return res, nil
}

// likelihoodRun is one LikelihoodBench run: its data, runtime, the
// evaluator and, with a mean model, the zero-mean evaluator ev0 it is
// compared with.
type likelihoodRun struct {
	o       LikelihoodOptions
	pts     matern.Points
	obs     []float64
	x       [][]float64 // the mean model's covariates (none: zero mean)
	dgemm   float64     // GFLOP/s of one dgemm on o.Workers threads
	rt      *runtime.Runtime
	ev, ev0 *likelihood.Evaluator
	res     *LikelihoodResult
}

// newLikelihoodRun makes the data, measures the dgemm rate, starts the
// runtime and makes the evaluators (the zero-mean one warmed up).
func newLikelihoodRun(o LikelihoodOptions) (*likelihoodRun, error) {
	d := dataset.Grid(o.N, o.Seed)
	b := &likelihoodRun{o: o, obs: dataset.StandardNormal(o.N, o.Seed), pts: matern.Points{X: d.X, Y: d.Y}}
	ov := likelihood.AllOverlap()
	if o.Overlap != nil {
		ov = *o.Overlap
	}
	kernels.DefaultThreads().SetThreads(o.Workers)
	b.dgemm = dgemmRate(kernels.Default(), 2048, 3)
	kernels.DefaultThreads().SetThreads(1)
	ro := ov.RuntimeOptions(runtime.Options{Workers: o.Workers, Trace: true})
	if o.Place != nil {
		o.Place(&ro)
	}
	b.rt = runtime.New(ro)
	if err := b.evaluators(d, ov); err != nil {
		b.rt.Close()
		return nil, err
	}
	return b, nil
}

// evaluators makes the evaluator of the run's problem and, with a mean
// model, the zero-mean one (warmed up).
func (b *likelihoodRun) evaluators(d *dataset.Data, ov likelihood.Overlap) error {
	o := b.o
	_, x, err := dataset.Design(d, o.Mean)
	if err != nil {
		return err
	}
	b.x = x
	b.ev, err = likelihood.NewWith(b.problem(), b.rt, likelihood.Options{NB: o.NB, Overlap: &ov})
	if err != nil {
		return err
	}
	b.res = &LikelihoodResult{Problem: o.Problem, Overlap: ov.String(), Dgemm: b.dgemm}
	if len(x) > 0 {
		b.res.Mean = o.Mean
		if b.ev0, err = likelihood.NewWith(likelihood.Problem{Points: b.pts, Obs: b.obs, Model: likelihood.Matern}, b.rt, likelihood.Options{NB: o.NB, Overlap: &ov}); err != nil {
			return err
		}
		if _, _, err := b.ev0.LogLik(o.Theta); err != nil { // warm-up
			return err
		}
	}
	return nil
}

// problem is the run's likelihood problem (with its mean model).
func (b *likelihoodRun) problem() likelihood.Problem {
	return likelihood.Problem{Points: b.pts, Obs: b.obs, Model: likelihood.Matern, Covariates: b.x}
}

// timeExact warms up, then times o.Reps exact evaluations (alternating
// with the zero-mean ones when there is a mean model) and sets their
// medians, floors and overheads.
func (b *likelihoodRun) timeExact() error {
	o, res, ev, ev0 := b.o, b.res, b.ev, b.ev0
	var wall, gen, chol, sol, wall0, busy0, busy, sol0 []float64
	b.rt.ResetPeak()
	if _, _, err := ev.LogLik(o.Theta); err != nil { // warm-up
		return err
	}
	zero := func() error {
		_, st, err := ev0.LogLik(o.Theta)
		wall0, busy0, sol0 = append(wall0, st.Wall), append(busy0, st.Gen+st.Chol+st.Solve), append(sol0, st.Solve)
		return err
	}
	for r := 0; r < o.Reps; r++ {
		if ev0 != nil && r%2 == 0 { // alternate the order of the two
			if err := zero(); err != nil {
				return err
			}
		}
		l, st, err := ev.LogLik(o.Theta)
		busy = append(busy, st.Gen+st.Chol+st.Solve)
		if ev0 != nil && r%2 == 1 {
			if err := zero(); err != nil {
				return err
			}
		}
		if err != nil {
			return err
		}
		res.LogLik = l
		wall, gen, chol, sol = append(wall, st.Wall), append(gen, st.Gen), append(chol, st.Chol), append(sol, st.Solve)
		res.Gflops = st.Flops
		fl := Floor(st.Flops, b.dgemm*1e9, st.Gen, o.Workers)
		res.Evals = append(res.Evals, EvalFloor{Seconds: st.Wall, Floor: fl, Ratio: st.Wall / fl, Utilization: st.Utilization.Whole})
	}
	var fls, rats []float64
	for _, e := range res.Evals {
		fls, rats = append(fls, e.Floor), append(rats, e.Ratio)
	}
	res.Floor, res.FloorRatio = median(fls), median(rats)
	res.Seconds, res.Gen, res.Chol, res.Solve = median(wall), median(gen), median(chol), median(sol)
	res.Wall = SpreadOf(wall, 1)
	if ev0 != nil {
		res.ZeroSecs = median(wall0)
		res.MeanOverhead = res.Seconds/res.ZeroSecs - 1
		res.ZeroBusy = median(busy0)
		res.BusyOverhead = median(busy)/res.ZeroBusy - 1
		res.ZeroSolve = median(sol0)
		ev0.Release()
	}
	return nil
}

// timePredict (o.Predict > 0) times o.Reps krigings of o.Predict new
// locations on the exact factor; it returns the kriging function and the
// exact factor's last prediction, for the approximate computations (nil
// without o.Predict).
func (b *likelihoodRun) timePredict() (func(*likelihood.Evaluator) (*predict.Result, error), *predict.Result, error) {
	o, res := b.o, b.res
	if o.Predict <= 0 {
		return nil, nil, nil
	}
	nw := dataset.Grid(o.Predict, o.Seed+1)
	var ps []float64
	_, x0, err := dataset.Design(nw, o.Mean)
	if err != nil {
		return nil, nil, err
	}
	krige := func(ev *likelihood.Evaluator) (*predict.Result, error) {
		if len(b.x) == 0 {
			return predict.Krige(ev, o.Theta, matern.Points{X: nw.X, Y: nw.Y})
		}
		return predict.KrigeUniversal(ev, o.Theta, matern.Points{X: nw.X, Y: nw.Y}, x0)
	}
	var exactPred *predict.Result
	for r := 0; r < o.Reps; r++ {
		pr, err := krige(b.ev)
		if err != nil {
			return nil, nil, err
		}
		ps = append(ps, pr.Seconds)
		exactPred = pr
	}
	res.PredictN, res.PredictSecs = o.Predict, median(ps)
	res.PredictRatio = res.PredictSecs / res.Seconds
	return krige, exactPred, nil
}

// timeApprox times each of o.Computations after the exact evaluator's
// tiles are released, against the exact evaluation.
func (b *likelihoodRun) timeApprox(krige func(*likelihood.Evaluator) (*predict.Result, error), exactPred *predict.Result) error {
	o, res := b.o, b.res
	if len(o.Computations) == 0 {
		return nil
	}
	b.ev.Release()
	b.rt.Trim()
	for _, c := range o.Computations {
		a := o.Approx
		a.Computation = c
		ar, err := approxBench(b.rt, b.problem(), o, a, krige, exactPred)
		if err != nil {
			if !errors.Is(err, likelihood.ErrNotPosDef) {
				return err
			}
			res.Approx = append(res.Approx, ApproxResult{Computation: c, Error: err.Error()})
			continue
		}
		ar.RelErr = math.Abs(ar.LogLik-res.LogLik) / math.Abs(res.LogLik)
		ar.Speedup = res.Seconds / ar.Seconds
		res.Approx = append(res.Approx, *ar)
	}
	return nil
}

// rates measures the generation rates of the fast and the direct Matérn
// on one core and, with o.Reference, times the dense reference.
func (b *likelihoodRun) rates() error {
	o, res := b.o, b.res
	th := matern.Theta{Sigma2: o.Theta[0], Beta: o.Theta[1], Nu: o.Theta[2]}
	fast, err := matern.NewMatern(th, matern.MaxDistance(matern.Euclidean, b.pts))
	if err != nil {
		return err
	}
	res.GenRate = matern.EntriesPerSecond(fast, min(o.NB, 960), 0.3)
	res.DirectRate = matern.EntriesPerSecond(th, min(o.NB, 960), 0.3)
	if o.Reference {
		res.RefLogLik, res.RefSecs, res.RefGen = denseLogLik(b.pts, b.obs, th, o.Workers)
		res.Speedup = res.RefSecs / res.Seconds
		res.RefFactor = res.RefSecs - res.RefGen
		res.FactorSpeedup = res.RefFactor / res.Seconds
		res.RelDiff = math.Abs(res.RefLogLik-res.LogLik) / math.Abs(res.RefLogLik)
	}
	return nil
}

// denseLogLik is the straightforward dense evaluation, timed: generation of
// the lower triangle with the direct Bessel function on `threads`
// goroutines, LAPACK dpotrf on `threads` threads, triangular solve, dot.
func denseLogLik(pts matern.Points, z []float64, th matern.Theta, threads int) (l, secs, genSecs float64) {
	n := len(z)
	kern, ctl := kernels.Default(), kernels.DefaultThreads()
	a := make([]float64, n*n)
	t0 := time.Now()
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			for j := t; j < n; j += threads {
				matern.FillTile(th, 0, matern.Euclidean, pts, j, n-j, pts, j, 1, false, a[j*n+j:], n)
			}
		}(t)
	}
	wg.Wait()
	genSecs = time.Since(t0).Seconds()
	ctl.SetThreads(threads)
	info := kern.Dpotrf(n, a, n)
	ctl.SetThreads(1)
	if info != 0 {
		return math.NaN(), time.Since(t0).Seconds(), genSecs
	}
	w := append([]float64(nil), z...)
	kern.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, n, a, n, w, 1)
	var logdet float64
	for i := 0; i < n; i++ {
		logdet += math.Log(a[i+i*n])
	}
	l = -0.5*kern.Ddot(n, w, 1, w, 1) - logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	return l, time.Since(t0).Seconds(), genSecs
}

// approxBench times the computation a on p: one warm-up, then o.Reps
// evaluations; the evaluator's tiles are released at the end.
// With krige (o.Predict > 0) it also times the kriging on the factor of
// the computation, o.Reps times, against the exact factor's prediction.
func approxBench(rt *runtime.Runtime, p likelihood.Problem, o LikelihoodOptions, a likelihood.Approx,
	krige func(*likelihood.Evaluator) (*predict.Result, error), exact *predict.Result) (*ApproxResult, error) {
	rt.ResetPeak()
	ev, err := likelihood.NewWith(p, rt, likelihood.Options{NB: o.NB, Approx: a})
	if err != nil {
		return nil, err
	}
	defer func() {
		ev.Release()
		rt.Trim()
	}()
	if _, _, err := ev.LogLik(o.Theta); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Computation, err)
	}
	r := &ApproxResult{Computation: a.Computation}
	var wall, gen, chol, sol []float64
	for i := 0; i < o.Reps; i++ {
		l, st, err := ev.LogLik(o.Theta)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Computation, err)
		}
		r.LogLik, r.Tiles = l, st.Approx
		wall, gen, chol, sol = append(wall, st.Wall), append(gen, st.Gen), append(chol, st.Chol), append(sol, st.Solve)
	}
	r.Seconds, r.Gen, r.Chol, r.Solve = median(wall), median(gen), median(chol), median(sol)
	r.PeakBytes = rt.Mem().Peak
	if krige != nil {
		var ps []float64
		for i := 0; i < o.Reps; i++ {
			pr, err := krige(ev)
			if err != nil {
				return nil, fmt.Errorf("%s: prediction: %w", a.Computation, err)
			}
			ps = append(ps, pr.Seconds)
			for j := range pr.Z {
				r.PredictZErr = math.Max(r.PredictZErr, math.Abs(pr.Z[j]-exact.Z[j]))
				r.PredictVarErr = math.Max(r.PredictVarErr, math.Abs(pr.Var[j]-exact.Var[j]))
			}
		}
		r.PredictSecs = median(ps)
	}
	return r, nil
}
