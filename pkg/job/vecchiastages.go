package job

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia"
)

// VecchiaSummary describes a Vecchia fit in its result.
type VecchiaSummary struct {
	M      int    `json:"m"`     // conditioning set size of the final stage
	Order  string `json:"order"` // the ordering (or "file")
	Sets   string `json:"sets,omitempty"`
	Blocks int    `json:"blocks"` // blocks of the final stage's grouping
	// Grouping: blocks (Guinness's grouped likelihood) or none (one
	// conditional per location: GpGp's vecchia_meanzero_loglik).
	Grouping string  `json:"grouping"`
	Stages   []int   `json:"stages"`          // m of each stage of the search
	Search   string  `json:"search"`          // fisher, bobyqa-log, bobyqa-linear
	Prep     float64 `json:"prepare_seconds"` // data, ordering, neighbours and grouping
	// The parts of Prep: the ordering, the sets, the plans (grouping).
	OrderSeconds float64 `json:"order_seconds"`
	SetsSeconds  float64 `json:"sets_seconds"`
	PlanSeconds  float64 `json:"plan_seconds"`
	// Select is how the final stage's sets were chosen: nearest, or
	// greedy (by conditional variance at the Pilot theta among each
	// location's Candidates nearest earlier ones; SetsSeconds includes
	// the selection's SelectSeconds). A refined fit's later levels are
	// the check's nearest sets.
	Select        string    `json:"select"`
	Candidates    int       `json:"candidates,omitempty"`
	Pilot         []float64 `json:"pilot,omitempty"`
	SelectSeconds float64   `json:"select_seconds,omitempty"`
}

// vecchiaStages are the plans of a Vecchia fit's search: the coarse stage
// (m = 10: each set cut to its 10 nearest, as GpGp's warm start) when the
// final m is larger, and the final stage (the approximation check's
// stages: the final one alone).
type vecchiaStages struct {
	coarse, final *vecchia.Prepared
	evs           map[*vecchia.Prepared]*vecchia.Evaluator
	free          []bool
	// The last evaluation: its stage, theta, whether it has the gradient,
	// and its result (the estimate's evaluation after the search is
	// usually the search's last).
	lastP     *vecchia.Prepared
	lastTheta []float64
	lastGrad  bool
	last      *vecchia.Result
	// A greedy fit's final stage (greedyFinal): the pilot theta its sets
	// were chosen at, the candidates a location and the selection's
	// seconds.
	pilot         []float64
	candidates    int
	selectSeconds float64
}

// newVecchiaStages orders problem pr and finds its conditioning sets in
// the frame of the model at start (or takes s's), and builds the plans and
// evaluators of both stages on rt. With scatter (a run of several ranks),
// rank 0 alone orders, finds the sets and groups, and sends each rank the
// data of its blocks only (vecchia.Scatter), one stage after the other:
// the other ranks' memory falls with their number, their Prepared hold
// only the plan, and rank 0 never holds both stages' whole plans. coarse
// is the coarse stage's m (0: none). With mode prepDistribute, release
// (when not nil) is called once each rank has copied its share of pr's
// columns (vecchia.DistributeHanded): the caller drops its own references
// to them there.
func newVecchiaStages(pr likelihood.Problem, start []float64, s vecchia.Setup, rt *runtime.Runtime, kern kernels.Impl, np int, free []bool,
	w comm.Comm, mode prepMode, coarse int, release func()) (*vecchiaStages, error) {
	if mode == prepDistribute {
		return distributedStages(pr, start, s, rt, kern, np, free, w, coarse, release)
	}
	scatter := mode == prepScatter
	root := !scatter || w.Rank() == 0
	// stage prepares one stage; a failure of the final one is the input's.
	stage := func(s vecchia.Setup, input bool) (*vecchia.Prepared, error) {
		var p *vecchia.Prepared
		var err error
		if root {
			p, err = vecchia.Prepare(pr, start, s)
		}
		if err != nil && input {
			err = badInput("fit: --computation vecchia: %v", err)
		}
		if !scatter {
			return p, err
		}
		if err = rootError(w, err); err != nil {
			return nil, err
		}
		var plan *vecchia.Plan
		if p == nil {
			p = &vecchia.Prepared{}
		} else {
			plan = p.Plan
		}
		p.Plan, err = vecchia.Scatter(w, plan)
		return p, err
	}
	final, err := stage(s, true)
	if err != nil {
		return nil, err
	}
	st := &vecchiaStages{final: final, evs: map[*vecchia.Prepared]*vecchia.Evaluator{}, free: free}
	if coarse > 0 && final.Plan.M > coarse {
		var cs vecchia.Setup
		if root {
			cs = vecchia.Setup{Perm: final.Perm, Sets: final.Sets.Prefix(coarse), Grouping: s.Grouping, Workers: s.Workers}
		}
		if st.coarse, err = stage(cs, false); err != nil {
			return nil, err
		}
	}
	for _, p := range st.stages() {
		e := vecchia.NewEvaluator(p.Plan, np, rt, kern)
		e.Timing = true
		st.evs[p] = e
	}
	return st, nil
}

// dropSets lets the stages' sets go once the plans are made and the sets
// file written (the plans hold their blocks; the search's heap is the
// smaller for it). The wide sets of the approximation check stay.
func (st *vecchiaStages) dropSets() {
	for _, p := range st.stages() {
		p.Sets = nil
	}
}

// prepMode is how a Vecchia fit prepares its plans.
type prepMode int

const (
	prepLocal      prepMode = iota // every rank the whole plans (one rank, or a hold-out's kriging)
	prepScatter                    // rank 0 the whole plans, each rank then its blocks (vecchia.Scatter)
	prepDistribute                 // each rank its own regions of the ordering (vecchia.Distribute)
)

// prepModeOf returns how a fit prepares its plans on w's ranks: over
// several ranks each rank its own regions (vecchia.Distribute), but with a sets
// file (read or written) rank 0 prepares the plans and sends each rank its
// blocks' part, and a hold-out's kriging (holdout) reads the whole plan on
// every rank.
func prepModeOf(w comm.Comm, cfg config.Fit, s vecchia.Setup, holdout bool) prepMode {
	switch {
	case w.Size() == 1 || holdout:
		return prepLocal
	case s.Sets != nil || cfg.Vecchia.SetsOut != "" || cfg.Greedy(): // greedy: rank 0 chooses the sets
		return prepScatter
	}
	return prepDistribute
}

// distributedStages prepares the stages with vecchia.Distribute: no rank
// holds the sets or the blocks of the whole problem, and with release
// none the whole input after the search (vecchia.DistributeHanded).
func distributedStages(pr likelihood.Problem, start []float64, s vecchia.Setup, rt *runtime.Runtime, kern kernels.Impl, np int, free []bool,
	w comm.Comm, coarseM int, release func()) (*vecchiaStages, error) {
	final, coarse, err := vecchia.DistributeHanded(w, pr, start, s, coarseM, release)
	if err != nil { // the same on every rank (Distribute)
		return nil, &InputError{Err: fmt.Errorf("fit: --computation vecchia: %v", err), Agreed: true}
	}
	st := &vecchiaStages{final: final, coarse: coarse, evs: map[*vecchia.Prepared]*vecchia.Evaluator{}, free: free}
	for _, p := range st.stages() {
		e := vecchia.NewEvaluator(p.Plan, np, rt, kern)
		e.Timing = true
		st.evs[p] = e
	}
	return st, nil
}

// rootError returns rank 0's err on every rank of w: the other ranks get
// its message, as an input error (exit 2) when it was one.
func rootError(w comm.Comm, err error) error {
	var msg []byte
	if w.Rank() == 0 && err != nil {
		var ie *InputError
		msg = append([]byte{'e'}, err.Error()...)
		if errors.As(err, &ie) {
			msg[0] = 'i'
		}
	}
	msg, cerr := w.Bcast(0, msg)
	switch {
	case cerr != nil:
		return cerr
	case w.Rank() == 0 || len(msg) == 0:
		return sameOnEveryRank(err, w)
	case msg[0] == 'i':
		return &InputError{Err: errors.New(string(msg[1:])), Agreed: true}
	}
	return &agreedErr{msg: string(msg[1:]), err: errors.New(string(msg[1:]))}
}

// eval evaluates the Vecchia likelihood of stage p at theta (with the
// gradient and information when grad is set). The same stage at the
// same theta as the last evaluation returns its result (every rank
// makes the same calls: they all skip it).
func (st *vecchiaStages) eval(p *vecchia.Prepared, theta []float64, grad bool) (*vecchia.Result, error) {
	if st.last != nil && p == st.lastP && (st.lastGrad || !grad) && slices.Equal(theta, st.lastTheta) {
		return st.last, nil
	}
	r, err := st.evs[p].Eval(theta, vecchia.Want{Grad: grad, Free: st.free})
	st.last, st.lastP, st.lastTheta, st.lastGrad = nil, p, slices.Clone(theta), grad
	if err == nil {
		st.last = r
	}
	return r, err
}

// stages returns the plans the search runs, coarse first.
func (st *vecchiaStages) stages() []*vecchia.Prepared {
	if st.coarse != nil {
		return []*vecchia.Prepared{st.coarse, st.final}
	}
	return []*vecchia.Prepared{st.final}
}

// summary describes the stages.
func (st *vecchiaStages) summary(cfg config.Fit, prep float64) *VecchiaSummary {
	s := &VecchiaSummary{M: st.final.Plan.M, Order: cfg.Vecchia.Order, Sets: cfg.Vecchia.Sets, Blocks: st.final.Plan.NumBlocks(),
		Search: vecchiaSearch(cfg), Prep: prep, Grouping: "blocks", Select: "nearest"}
	if st.candidates > 0 { // greedy (no pilot: the fit ended in its coarse stage, before the selection)
		s.Select, s.Candidates, s.Pilot, s.SelectSeconds = "greedy", st.candidates, st.pilot, st.selectSeconds
	}
	if cfg.Vecchia.Ungrouped() {
		s.Grouping = "none"
	}
	if cfg.Vecchia.Sets != "" {
		s.Order = "file"
	}
	for _, p := range st.stages() {
		s.Stages = append(s.Stages, p.Plan.M)
		s.OrderSeconds += p.OrderSeconds
		s.SetsSeconds += p.SetsSeconds
		s.PlanSeconds += p.PlanSeconds
	}
	return s
}

// recoverable maps an evaluation's failure that is a property of theta
// (a block not positive definite, a kernel that cannot be built) to
// *mle.Recoverable: the search steps back.
func recoverable(err error) error {
	if errors.Is(err, likelihood.ErrNotPosDef) || errors.Is(err, likelihood.ErrBadTheta) {
		return &mle.Recoverable{Err: err}
	}
	return err
}

// stepOf makes the search's step record of an evaluation.
func stepOf(e mle.Eval, r *vecchia.Result) mle.Step {
	s := mle.Step{Eval: e}
	if r != nil {
		s.Stats = likelihood.Stats{Wall: r.Wall, Gen: r.Times[0], Chol: r.Times[1], Solve: r.Times[2], Deriv: r.Times[3], Busy: r.Busy, LogDet: r.LogDet, Quad: r.Quad, Beta: r.Beta}
	}
	return s
}

// search runs the fit's search: Fisher scoring over the stages (the
// default, --search fisher), or BOBYQA over the final stage (--search log
// or linear given). Every evaluation is reported to env.Step and kept.
func (st *vecchiaStages) search(cfg config.Fit, opt mle.Options, env Env, stop func() bool) (*mle.Result, []mle.Step, error) {
	opt.Stop = stop
	var steps []mle.Step
	var last *vecchia.Result
	report := func(e mle.Eval) {
		s := stepOf(e, last)
		steps = append(steps, s)
		if env.Step != nil {
			env.Step(s)
		}
	}
	if vecchiaSearch(cfg) != "fisher" {
		opt.LogScale = cfg.Search != "linear"
		f := func(theta []float64) (float64, error) {
			r, err := st.eval(st.final, theta, false)
			last = r
			if err != nil {
				return math.Inf(-1), recoverable(err)
			}
			return r.L, nil
		}
		res, err := mle.Maximize(f, opt, report)
		return res, steps, err
	}
	var objs []mle.GradObjective
	for _, p := range st.stages() {
		objs = append(objs, func(theta []float64) (float64, []float64, [][]float64, error) {
			r, err := st.eval(p, theta, true)
			last = r
			if err != nil {
				return math.Inf(-1), nil, nil, recoverable(err)
			}
			return r.L, r.Grad, r.Info, nil
		})
	}
	res, err := mle.MaximizeFisher(objs, opt, report)
	return res, steps, err
}

// vecchiaStopper returns the search's stop test (a signal or the
// deadline, agreed by the ranks: stopping.go), the search starting.
func vecchiaStopper(v *fitJob) func() bool {
	v.fs.setPhase(phaseSearch)
	return v.fs.check
}

// since returns the seconds since t.
func since(t time.Time) float64 { return time.Since(t).Seconds() }
