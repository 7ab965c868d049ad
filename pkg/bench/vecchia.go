package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// VecchiaOptions configure VecchiaBench.
type VecchiaOptions struct {
	N, M, Workers, Reps int
	// Theta is the Matérn model (sigma2, beta, nu, tau2) with nu free, a
	// nugget and a constant mean.
	Theta []float64
	Seed  uint64
	Order order.Method // "" = maxmin
	// Progress, if set, gets a line as each stage ends.
	Progress func(string)
}

// VecchiaResult is one Vecchia evaluation (likelihood, gradient and
// Fisher information) timed against its floor measured in the same run.
type VecchiaResult struct {
	N       int    `json:"n"`
	M       int    `json:"m"`
	Workers int    `json:"workers"`
	Order   string `json:"order"`
	Blocks  int    `json:"blocks"`
	// MeanU and MeanR are a block's mean members and responses.
	MeanU float64 `json:"mean_block_size"`
	MeanR float64 `json:"mean_block_responses"`
	// The preparation (once per data set): the embedding and the
	// ordering, the conditioning sets, the grouping (the plan).
	OrderSeconds float64 `json:"order_seconds"`
	SetsSeconds  float64 `json:"sets_seconds"`
	PlanSeconds  float64 `json:"plan_seconds"`
	// Seconds is the median wall time of one evaluation with the
	// gradient and information (Reps of them), LSeconds of the
	// likelihood alone.
	Seconds  float64 `json:"seconds"`
	LSeconds float64 `json:"loglik_seconds"`
	LogLik   float64 `json:"loglik"`
	// Busy are the worker seconds by phase of one more evaluation with
	// the gradient and information, timed (Evaluator.Timing: a clock read
	// between the phases of every block, which the Reps evaluations above
	// go without): generation (covariances and derivatives),
	// factorisation, solves, derivatives (gradient and information).
	// LBusy are those of one timed evaluation of l alone. TimedSeconds
	// and LTimedSeconds are those two evaluations' wall times, BusyShare
	// and LBusyShare their worker seconds over Workers x wall, TaskShare
	// and LTaskShare the same of the blocks' whole tasks (the phases and,
	// outside them, the blocks' gathers, prefetches and clock reads: the
	// rest of the wall no block task ran; Result.TaskBusy).
	Busy          map[string]float64 `json:"busy"`
	LBusy         map[string]float64 `json:"busy_loglik"`
	TimedSeconds  float64            `json:"timed_seconds"`
	LTimedSeconds float64            `json:"timed_loglik_seconds"`
	BusyShare     float64            `json:"busy_share"`
	LBusyShare    float64            `json:"busy_share_loglik"`
	TaskShare     float64            `json:"task_share"`
	LTaskShare    float64            `json:"task_share_loglik"`
	// The floor's counts: the Cholesky factors' flops, the solves' and
	// derivatives' flops (as the block kernel does them) and the
	// covariance entries.
	CholFlops  float64 `json:"chol_flops"`
	SolveFlops float64 `json:"solve_flops"`
	GradFlops  float64 `json:"grad_flops"`
	Entries    float64 `json:"entries"`
	// The rates measured in this run on Workers goroutines at once, at
	// the mean block's size: the blocks' Cholesky factor (block.Chol, in
	// place of dpotrf) and dgemm (flop/s), and the Matérn
	// generation (entries/s, the covariance alone by Grad.CovRow at given
	// distances, nu of Theta).
	PotrfRate float64 `json:"potrf_flops_per_s"`
	GemmRate  float64 `json:"gemm_flops_per_s"`
	GenRate   float64 `json:"matern_entries_per_s"`
	// Floor is the seconds of the counts at those rates (the Cholesky
	// flops at the Cholesky rate, the rest at the dgemm rate, the entries
	// at the Matérn rate); LFloor the likelihood's alone (no gradient
	// flops); Ratio = Seconds / Floor, LRatio = LSeconds / LFloor.
	Floor  float64 `json:"floor_seconds"`
	LFloor float64 `json:"loglik_floor_seconds"`
	Ratio  float64 `json:"ratio"`
	LRatio float64 `json:"loglik_ratio"`
}

// VecchiaBench prepares N uniform random points in the unit square
// (random standard normal values: the cost does not depend on them) with
// the ordering o.Order and sets of o.M, evaluates the Vecchia likelihood
// of the Matérn model with nu free, a nugget and a constant mean (alone,
// then with its gradient and information) o.Reps times on o.Workers
// workers, and measures the floor of the evaluation in the same run (see
// VecchiaResult).
func VecchiaBench(o VecchiaOptions) (*VecchiaResult, error) {
	if o.N < 2 || o.M < 1 || o.Workers < 1 || o.Reps < 1 || len(o.Theta) != 4 {
		return nil, fmt.Errorf("bench vecchia: want n >= 2, m >= 1, workers >= 1, reps >= 1 and theta sigma2,beta,nu,tau2")
	}
	say := func(f string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(f, a...))
		}
	}
	pr := vecchiaProblem(o.N, o.Seed)
	t0 := time.Now()
	prep, err := vecchia.Prepare(pr, o.Theta, vecchia.Setup{M: o.M, Order: o.Order, Seed: o.Seed, Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	plan := prep.Plan
	res := &VecchiaResult{N: o.N, M: prep.Sets.M, Workers: o.Workers, Order: string(o.Order), Blocks: plan.Blocks.Len(),
		OrderSeconds: time.Since(t0).Seconds() - prep.SetsSeconds - prep.PlanSeconds, SetsSeconds: prep.SetsSeconds, PlanSeconds: prep.PlanSeconds}
	if res.Order == "" {
		res.Order = string(order.MaxMin)
	}
	say("prepared: ordering %.2fs, sets %.2fs, grouping %.2fs (%d blocks)", res.OrderSeconds, res.SetsSeconds, res.PlanSeconds, res.Blocks)
	res.count(plan, 2) // beta and nu have generated derivatives
	rt := runtime.New(runtime.Options{Workers: o.Workers})
	defer rt.Close()
	ev := vecchia.NewEvaluator(plan, len(o.Theta), rt, kernels.Default())
	var walls, lwalls []float64
	var last *vecchia.Result
	for rep := 0; rep < o.Reps; rep++ {
		r, err := ev.Eval(o.Theta, vecchia.Want{})
		if err != nil {
			return nil, err
		}
		lwalls = append(lwalls, r.Wall)
		if last, err = ev.Eval(o.Theta, vecchia.Want{Grad: true}); err != nil {
			return nil, err
		}
		walls = append(walls, last.Wall)
		say("evaluation %d: l %.2fs, with gradient and information %.2fs", rep+1, r.Wall, last.Wall)
	}
	res.Seconds, res.LSeconds, res.LogLik = median(walls), median(lwalls), last.L
	if err := res.timed(ev, o.Theta); err != nil {
		return nil, err
	}
	say("timed evaluations: l %.2fs, with gradient and information %.2fs", res.LTimedSeconds, res.TimedSeconds)
	if err := res.rates(o, plan); err != nil {
		return nil, err
	}
	res.LFloor = res.CholFlops/res.PotrfRate + res.SolveFlops/res.GemmRate + res.Entries/res.GenRate
	res.Floor = res.LFloor + res.GradFlops/res.GemmRate
	res.Ratio, res.LRatio = res.Seconds/res.Floor, res.LSeconds/res.LFloor
	return res, nil
}

// timed evaluates l alone and l with its gradient and information once
// more each, with the phases timed, into LBusy and Busy.
func (r *VecchiaResult) timed(ev *vecchia.Evaluator, theta []float64) error {
	ev.Timing = true
	defer func() { ev.Timing = false }()
	phases := func(x *vecchia.Result) map[string]float64 {
		return map[string]float64{"generation": x.Times[block.TimeGen], "factorisation": x.Times[block.TimeChol],
			"solves": x.Times[block.TimeSolve], "derivatives": x.Times[block.TimeGrad]}
	}
	l, err := ev.Eval(theta, vecchia.Want{})
	if err != nil {
		return err
	}
	g, err := ev.Eval(theta, vecchia.Want{Grad: true})
	if err != nil {
		return err
	}
	r.LBusy, r.LTimedSeconds, r.LBusyShare, r.LTaskShare = phases(l), l.Wall, l.Busy, l.TaskBusy
	r.Busy, r.TimedSeconds, r.BusyShare, r.TaskShare = phases(g), g.Wall, g.Busy, g.TaskBusy
	return nil
}

// vecchiaProblem returns the benchmark's problem: n uniform random points
// in the unit square with standard normal values (a PCG seeded by seed),
// the Matérn model and a constant mean.
func vecchiaProblem(n int, seed uint64) likelihood.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x76626e63))
	pts := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	obs, one := make([]float64, n), make([]float64, n)
	for i := range obs {
		pts.X[i], pts.Y[i], obs[i], one[i] = rng.Float64(), rng.Float64(), rng.NormFloat64(), 1
	}
	return likelihood.Problem{Points: pts, Obs: obs, Model: likelihood.Matern, Covariates: [][]float64{one}}
}

// count adds up the floor's operations over the plan's blocks (u members,
// r responses, one mean column, nd parameters with a generated
// derivative, 4 free parameters): the Cholesky u^3/3; the solves with
// [y X] 2 u^2; for the gradient the two solves with the responses'
// columns 2 u^2 r, per generated derivative its product and solve
// 3 u^2 r, per parameter B^T [y X] 4 u r and the information 2 u r per
// pair; the covariance entries u(u+1)/2.
func (res *VecchiaResult) count(plan *vecchia.Plan, nd int) {
	const np = 4
	var su, sr float64
	for b := 0; b < plan.Blocks.Len(); b++ {
		u, r := plan.Blocks.Size(b)
		fu, fr := float64(u), float64(r)
		su += fu
		sr += fr
		res.CholFlops += fu * fu * fu / 3
		res.SolveFlops += 2 * fu * fu
		res.GradFlops += 2*fu*fu*fr + float64(nd)*3*fu*fu*fr + np*4*fu*fr + np*(np+1)/2*2*fu*fr
		res.Entries += fu * (fu + 1) / 2
	}
	nb := float64(plan.Blocks.Len())
	res.MeanU, res.MeanR = su/nb, sr/nb
}

// rates measures the rates of the blocks' Cholesky factor (block.Chol,
// which they use in place of dpotrf) and of dgemm at the mean block's
// size (u x u; u x r times u x u) and the Matérn generation rate (the
// covariance alone as l alone evaluates it, matern.Grad.CovRow, at the
// distances of a 256 x 256 tile), each on o.Workers goroutines at once
// for about a quarter of a second.
func (res *VecchiaResult) rates(o VecchiaOptions, plan *vecchia.Plan) error {
	k := kernels.Default()
	if t, ok := k.(kernels.Threads); ok {
		t.SetThreads(1)
	}
	u := max(int(math.Round(res.MeanU)), 1)
	r := max(int(math.Round(res.MeanR)), 1)
	spd := make([]float64, u*u) // the exponential covariance of u points on a line, + I
	for i := 0; i < u; i++ {
		for j := 0; j < u; j++ {
			spd[i+j*u] = math.Exp(-math.Abs(float64(i-j)) / float64(u))
		}
		spd[i+i*u]++
	}
	var bad error
	var mu sync.Mutex
	res.PotrfRate = rate(o.Workers, float64(u)*float64(u)*float64(u)/3, func() func() {
		a, w := make([]float64, u*u+3), make([]float64, u+4)
		return func() {
			copy(a, spd)
			if info := block.Chol(u, a, u, w); info != 0 {
				mu.Lock()
				bad = fmt.Errorf("bench vecchia: Cholesky: the test matrix is not positive definite (%d)", info)
				mu.Unlock()
			}
		}
	})
	if bad != nil {
		return bad
	}
	res.GemmRate = rate(o.Workers, 2*float64(u)*float64(u)*float64(r), func() func() {
		a, b, c := append([]float64(nil), spd...), make([]float64, u*r), make([]float64, u*r)
		for i := range b {
			b[i] = 1 / float64(1+i)
		}
		return func() { k.Dgemm(blas.NoTrans, blas.NoTrans, u, r, u, 1, a, u, b, u, 0, c, u) }
	})
	const side = 256
	if _, err := likelihood.Matern.Kernel(o.Theta[:3], math.Sqrt2); err != nil {
		return err
	}
	g, err := matern.NewGrad(matern.Theta{Sigma2: o.Theta[0], Beta: o.Theta[1], Nu: o.Theta[2]}, 0, math.Sqrt2, false)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 7))
	p := matern.Points{X: make([]float64, 2*side), Y: make([]float64, 2*side)}
	for i := range p.X {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
	}
	dist := make([]float64, side*side)
	for j := range side {
		for i := range side {
			dist[i+j*side] = matern.Distance(matern.Euclidean, p, i, p, side+j)
		}
	}
	res.GenRate = rate(o.Workers, side*side, func() func() {
		dst := make([]float64, side*side)
		return func() { g.CovRow(dist, dst) }
	})
	return nil
}

// rate runs one instance of op (made by mk, one per goroutine) on
// workers goroutines at once, each until about a quarter of a second has
// passed, and returns the work done per second of wall time (work per
// call).
func rate(workers int, work float64, mk func() func()) float64 {
	const span = 250 * time.Millisecond
	calls := make([]int, workers)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := range calls {
		op := mk()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for calls[w] == 0 || time.Since(t0) < span {
				op()
				calls[w]++
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, c := range calls {
		total += c
	}
	return work * float64(total) / time.Since(t0).Seconds()
}
