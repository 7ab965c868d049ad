package vecchia

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// GroupTasks is the largest number of consecutive tasks whose partial
// sums one task adds up before the ranks exchange them: the reduction
// tree is fixed by the plan (tasks, then the groups of Plan.Groups, then
// the groups in order), and every group lies on one rank, so the sums are
// bitwise the same for any number of workers and ranks.
const GroupTasks = 16

// Evaluator evaluates the Vecchia log-likelihood of a Plan, with its
// gradient and Fisher information, as task graphs on a runtime: one
// VecchiaBlocks task per task of the plan (on the rank that owns its
// group of tasks), one VecchiaSum per group, the group sums fetched by
// every rank and added in order.
type Evaluator struct {
	p       *Plan
	rt      *runtime.Runtime
	kern    kernels.Impl
	np      int // parameters of theta
	parts   []*runtime.Handle
	sums    []*runtime.Handle
	clock   int // the parts' and sums' word of the tasks' seconds
	scratch *runtime.Handle
	owner   []int // rank of each group of tasks
	data    *block.Data
	first   int // the first block of data (this rank's)
	evals   int
	err     error // a scattered plan that does not fit the runtime
	// Timing makes Result.Times report where the time went (worker
	// seconds summed over tasks, per phase).
	Timing bool
}

// NewEvaluator prepares the evaluation of plan p with nparams
// parameters on runtime rt with the BLAS/LAPACK kernels k: it assigns the
// groups of tasks to the ranks in contiguous runs of about equal modelled
// work, and copies this rank's blocks' points (only those) into local
// arrays on a distributed runtime (a scattered plan holds only those).
// A scattered plan cut for another number of ranks makes every Eval fail.
func NewEvaluator(p *Plan, nparams int, rt *runtime.Runtime, k kernels.Impl) *Evaluator {
	// A task's kernels run on its worker: BLAS must not start threads of
	// its own (as the tiled likelihood's evaluator).
	kernels.DefaultThreads().SetThreads(1)
	e := &Evaluator{p: p, rt: rt, kern: k, np: nparams}
	if p.part != nil && p.partSize != rt.Size() {
		e.err = fmt.Errorf("vecchia: a plan scattered over %d ranks evaluated on %d", p.partSize, rt.Size())
		return e
	}
	nt := len(p.Tasks) - 1
	ng := len(p.Groups) - 1
	e.owner = p.groupOwners(rt.Size())
	// The parts and sums hold the largest layout's words and, last, the
	// tasks' seconds (timed evaluations: blocksArgs.cpu).
	e.clock = block.Layout{P: nparams, NCov: p.NCov, Grad: true, Timing: true}.Len()
	words := e.clock + 1
	e.parts = make([]*runtime.Handle, nt)
	for g := range ng {
		for t := p.Groups[g]; t < p.Groups[g+1]; t++ {
			e.parts[t] = rt.Register(fmt.Sprintf("vecchia part %d", t), e.owner[g], runtime.Vector{N: words})
		}
	}
	e.sums = make([]*runtime.Handle, ng)
	for g := range e.sums {
		e.sums[g] = rt.Register(fmt.Sprintf("vecchia sum %d", g), e.owner[g], runtime.Vector{N: words})
	}
	e.scratch = rt.Register("vecchia scratch", 0, runtime.Vector{N: block.WorkBound(p.UMax, p.RespMax, p.NCov, nparams)})
	b0, b1 := p.blocksOf(e.owner, rt.Rank())
	if p.part != nil {
		if p.part.First != b0 || len(p.part.Start)-1 != b1-b0 {
			e.err = fmt.Errorf("vecchia: rank %d's part of the plan holds blocks %d..%d, its tasks run %d..%d", rt.Rank(), p.part.First, p.part.First+len(p.part.Start)-1, b0, b1)
		}
		e.data, e.first = p.part, b0
		return e
	}
	e.data, e.first = p.localData(b0, b1)
	return e
}

// Release lets the evaluator's data go (the rows of its blocks' points,
// the blocks' member lists it reads): the runtime may still reference the
// last evaluation's tasks, and through them that data, after the
// evaluator is dropped. Eval fails after it. On a rank of a scattered
// plan the data are the plan's part, released with it; a whole plan's
// blocks stay the plan's.
func (e *Evaluator) Release() {
	if e.data != nil {
		*e.data = block.Data{}
	}
	e.p, e.data = nil, nil
	e.err = errors.New("vecchia: the evaluator was released")
}

// groupOwners returns the rank of each group of tasks on size ranks:
// the rank of its region (regionOwners).
func (p *Plan) groupOwners(size int) []int {
	own := make([]int, len(p.Groups)-1)
	for c, r := range regionOwners(p.ChunkLocs, size) {
		for g := p.ChunkGroups[c]; g < p.ChunkGroups[c+1]; g++ {
			own[g] = r
		}
	}
	return own
}

// regionOwners assigns the regions of locs locations (or points) each to
// size ranks: contiguous runs of about equal numbers of locations (the
// same for locations and their points, twice as many).
func regionOwners(locs []int, size int) []int {
	own := make([]int, len(locs))
	total := int64(0)
	for _, l := range locs {
		total += int64(l)
	}
	acc := int64(0)
	for c, l := range locs {
		if total > 0 {
			own[c] = min(size-1, int(int64(size)*(2*acc+int64(l))/(2*total)))
		}
		acc += int64(l)
	}
	return own
}

// Want says what an evaluation computes besides l.
type Want struct {
	Grad bool   // the gradient and the Fisher information
	Free []bool // the parameters they are taken in (nil: all)
}

// Result is one evaluation of the Vecchia log-likelihood.
type Result struct {
	L       float64     // the log-likelihood (restricted with REML), mean profiled
	Grad    []float64   // dl/dtheta (0 for a parameter not free)
	Info    [][]float64 // the Fisher information (0 rows for a parameter not free)
	Beta    []float64   // the GLS mean coefficients
	BetaCov [][]float64 // their covariance (X^T Sigma~^-1 X)^-1
	LogDet  float64     // log|Sigma~|
	Quad    float64     // r^T Sigma~^-1 r at the GLS mean
	Wall    float64     // seconds
	// Times are the worker seconds per phase (Evaluator.Timing):
	// generation, Cholesky, solves, gradient and information.
	Times [block.NumTimes]float64
	// Busy is the share of the workers' time spent in the blocks' phases,
	// sum(Times) / (workers x ranks x Wall), counting every rank with this
	// rank's workers (the runs' --workers is common to the ranks); 0
	// without Timing.
	Busy float64
	// TaskBusy is the share spent in the blocks' tasks, their worker
	// seconds over workers x ranks x Wall (Timing): Busy and, outside the
	// phases, the blocks' gathers and prefetches and the clock's reads.
	// 1 - TaskBusy is the time no block task ran (the evaluation's set-up
	// and submission, the wait for the first task and after the last, the
	// sums, the runtime's dispatch).
	TaskBusy float64
}

// ErrNotPosDef is likelihood.ErrNotPosDef: a block's covariance matrix is
// not numerically positive definite at theta.
var ErrNotPosDef = likelihood.ErrNotPosDef

// Eval evaluates the Vecchia log-likelihood at theta (and its gradient and
// information, w). Every rank of a distributed runtime calls it with the
// same arguments and gets the same result.
func (e *Evaluator) Eval(theta []float64, w Want) (*Result, error) {
	t0 := time.Now()
	if e.err != nil {
		return nil, e.err
	}
	if len(theta) != e.np {
		return nil, fmt.Errorf("vecchia: theta has %d values, the evaluator %d", len(theta), e.np)
	}
	free := w.Free
	if free == nil {
		free = make([]bool, len(theta))
		for i := range free {
			free[i] = true
		}
	}
	spec, err := e.p.spec(theta, free, w.Grad)
	if err != nil {
		return nil, err
	}
	spec.Timing = e.Timing
	e.evals++
	e.rt.SetIteration(e.evals)
	ts := insert.New(e.rt, e.kern)
	for t := 0; t+1 < len(e.p.Tasks); t++ {
		b0, b1 := e.p.Tasks[t], e.p.Tasks[t+1]
		blocksCL.Insert(ts, insert.At(t, -1, -1, 0), blocksArgs{spec: spec, data: e.data, b0: b0 - e.first, b1: b1 - e.first, work: e.p.TaskWork[t], clock: e.clock}, e.parts[t], e.scratch)
	}
	for g, s := range e.sums {
		lo, hi := e.p.Groups[g], e.p.Groups[g+1]
		sumParts(ts, insert.At(g, -1, -1, 0), e.parts[lo:hi], s)
		e.rt.Fetch(s)
	}
	if err := e.rt.Wait(); err != nil {
		if block.IsNotPosDef(err) {
			return &Result{L: math.Inf(-1)}, fmt.Errorf("%w (theta %v): %v", ErrNotPosDef, theta, err)
		}
		return nil, err
	}
	lay := spec.Layout()
	acc := make([]float64, lay.Len())
	tasks := 0.0 // the tasks' seconds (the sums' word clock)
	for _, s := range e.sums {
		sum := e.rt.Local(s)
		for i, v := range sum[:lay.Len()] {
			acc[i] += v
		}
		tasks += sum[e.clock]
	}
	res, err := e.p.finish(acc, lay, free)
	if err != nil {
		return nil, err
	}
	if lay.Timing {
		copy(res.Times[:], acc[lay.Times():])
	}
	res.Wall = time.Since(t0).Seconds()
	if lay.Timing && res.Wall > 0 {
		busy := 0.0
		for _, t := range res.Times {
			busy += t
		}
		slots := float64(e.rt.Workers()*e.rt.Size()) * res.Wall
		res.Busy, res.TaskBusy = busy/slots, tasks/slots
	}
	return res, nil
}
