package job

import (
	"fmt"
	"time"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// greedyRun is a fit whose final stage's sets are chosen by conditional
// variance (--vecchia-select greedy; docs/vecchia.md, "Greedy sets in
// the fit"): the coarse stage (the m = 10 nearest) searched first, its
// estimate the pilot theta at which m of each location's k nearest
// earlier locations (cand, found by the fit's one neighbour search, in
// the same ordering perm) are chosen; then the final stage's plan and
// search from the pilot. With several ranks rank 0 alone holds perm and
// cand, chooses the sets and groups them, and sends each rank its blocks
// (prepScatter); every rank keeps the problem until the final plan is
// made.
type greedyRun struct {
	pr    likelihood.Problem
	start []float64
	perm  []int
	cand  *neighbors.Sets
	m, k  int
	// wide is the check's m2 when its sets are cut from cand (the fit's
	// one neighbour search: checkWide), else 0.
	wide     int
	coarse   bool // the fit has a coarse stage (m > 10): the pilot is its estimate
	grouping vecchia.Grouping
	rt       *runtime.Runtime
	kern     kernels.Impl
	mode     prepMode
	seconds  float64 // the selection and the final plan
	// coarseP is the coarse stage's summary (its m and seconds; its plan
	// let go), the estimate's stages' first after the final search.
	coarseP *vecchia.Prepared
	// firstOrder and firstSets are the first plan's ordering and
	// neighbour search seconds.
	firstOrder, firstSets float64
}

// greedyStages prepares a greedy fit's first stage (s: the fit's setup,
// with the check's wide m2 when checkWide gave one): the ordering and
// each location's max(k, m2) nearest earlier locations by one search,
// the coarse stage's plan from their first 10 (m when m <= 10: no
// coarse stage, and that plan only carries the candidates), and the
// greedyRun that chooses the final stage's sets after its search.
func (v *fitJob) greedyStages(pr likelihood.Problem, start []float64, s vecchia.Setup, rt *runtime.Runtime, kern kernels.Impl, mode prepMode, n int) (*vecchiaStages, *greedyRun, error) {
	cfg := v.cfg
	m := min(cfg.Vecchia.M, max(n-1, 1))
	g := &greedyRun{pr: pr, start: start, m: m, k: min(cfg.CandidatesAt(cfg.Vecchia.M), max(n-1, 1)), grouping: s.Grouping,
		rt: rt, kern: kern, mode: mode, coarse: m > vecchiaCoarseM}
	if s.Wide > m && s.Wide <= g.k {
		g.wide = s.Wide
	}
	s1 := s
	s1.M, s1.Wide = m, max(g.k, s.Wide)
	if g.coarse {
		s1.M = vecchiaCoarseM
	}
	st, err := newVecchiaStages(pr, start, s1, rt, kern, len(v.names), v.vecchiaFree(), v.w, mode, 0, nil)
	if err != nil {
		return nil, nil, err
	}
	if p := st.final; p.Wide != nil || p.Sets != nil { // rank 0 over several ranks
		g.perm, g.cand = p.Perm, p.Wide
		if g.cand == nil { // every earlier location is a candidate
			g.cand = p.Sets
		}
		if g.cand.M > g.k {
			g.cand = g.cand.Prefix(g.k)
		}
		p.Wide = nil
	}
	st.candidates = g.k
	return st, g, nil
}

// searchGreedy runs a greedy fit's search: the coarse stage's (st) when
// there is one, from opt's start; then the sets of the final stage chosen
// at its estimate, the pilot (greedyFinal), and the search at m from the
// pilot, its stage numbered after the coarse one's (a checkpoint replays
// the coarse search to the same pilot bitwise, so a resume chooses the
// same sets again), with what is left of --max-evals. A coarse search
// interrupted or stopped by --max-evals ends the fit at the coarse stage.
// It returns the stages of the estimate (coarse and final), the search's
// result (over both stages) and steps.
func (v *fitJob) searchGreedy(st *vecchiaStages, g *greedyRun, opt mle.Options) (*vecchiaStages, *mle.Result, []mle.Step, error) {
	pilot, done := g.start, 0
	var first *mle.Result
	var steps0 []mle.Step
	if g.coarse {
		var err error
		if first, steps0, err = v.searchVecchia(st, opt, 0); err != nil {
			return nil, nil, nil, err
		}
		if v.fin != nil || (opt.MaxEvals > 0 && first.Evaluations >= opt.MaxEvals) {
			return st, first, steps0, nil
		}
		pilot, done = first.Theta, first.Evaluations
		opt.FirstStage = 1
	}
	st2, err := v.greedyFinal(st, g, pilot)
	if err != nil {
		return nil, nil, nil, err
	}
	opt.Start, opt.Guess = mle.StartData, pilot
	if opt.MaxEvals > 0 {
		opt.MaxEvals -= done
	}
	res, steps, err := v.searchVecchia(st2, opt, done)
	if err != nil {
		return nil, nil, nil, err
	}
	st2.coarse = g.coarseP // the stages' m and seconds (no evaluator: not searched again)
	if first != nil {
		res.Evaluations += first.Evaluations
		res.Replayed += first.Replayed
		res.Failed += first.Failed
		res.Seconds += first.Seconds
		res.Start = first.Start
	}
	return st2, res, append(steps0, steps...), nil
}

// greedyFinal chooses the final stage's sets at the pilot theta
// (vecchia.SelectGreedy among g's candidates, on rank 0 over several
// ranks), groups them and makes the stage's plan and evaluator (sent to
// the ranks by blocks: prepScatter), writes them with --vecchia-sets-out,
// and returns the final stage (g keeps the coarse stage's summary: its
// plan and evaluator let go). The final stage keeps the
// check's sets at m2 when they are the candidates' first m2.
func (v *fitJob) greedyFinal(st *vecchiaStages, g *greedyRun, pilot []float64) (*vecchiaStages, error) {
	t0 := time.Now()
	var coarse *vecchia.Prepared
	if g.coarse {
		c := st.final
		coarse = &vecchia.Prepared{Plan: &vecchia.Plan{M: c.Plan.M}, OrderSeconds: c.OrderSeconds, SetsSeconds: c.SetsSeconds, PlanSeconds: c.PlanSeconds}
	}
	g.firstOrder, g.firstSets = st.final.OrderSeconds, st.final.SetsSeconds
	st.release() // the coarse stage's plan and evaluator
	root := g.mode != prepScatter || v.w.Rank() == 0
	var sets *neighbors.Sets
	var err error
	if root {
		if sets, err = vecchia.SelectGreedy(g.pr, g.perm, pilot, g.cand, g.m, v.workers); err != nil {
			err = fmt.Errorf("fit: --vecchia-select greedy at the pilot theta %v: %w", pilot, err)
		}
	}
	if g.mode == prepScatter {
		err = rootError(v.w, err)
	}
	if err != nil {
		return nil, err
	}
	sel := since(t0)
	var s vecchia.Setup
	if root {
		s = vecchia.Setup{Perm: g.perm, Sets: sets, Grouping: g.grouping, Workers: v.workers}
	}
	st2, err := newVecchiaStages(g.pr, pilot, s, g.rt, g.kern, len(v.names), st.free, v.w, g.mode, 0, nil)
	if err != nil {
		return nil, err
	}
	if root {
		st2.final.SetsSeconds = sel
		if !g.coarse { // the first plan's ordering and search of the candidates are this stage's
			st2.final.OrderSeconds, st2.final.SetsSeconds = g.firstOrder, g.firstSets+sel
		}
		if g.wide > 0 {
			st2.final.Wide = g.cand.Prefix(g.wide)
		}
	}
	g.cand, g.pr = nil, likelihood.Problem{}
	g.coarseP, st2.pilot, st2.candidates = coarse, pilot, g.k
	g.seconds = since(t0)
	st2.selectSeconds = sel
	v.env.logf("vecchia greedy: the sets of m = %d chosen among each location's %d nearest earlier ones at the pilot theta %v (%s) in %.2fs (selection %.2fs, grouping %.2fs)\n",
		g.m, g.k, pilot, pilotName(g.coarse), g.seconds, sel, g.seconds-sel)
	if err := v.setsOut(st2, nil); err != nil {
		return nil, err
	}
	return st2, nil
}

// pilotName says where a greedy fit's pilot theta comes from.
func pilotName(coarse bool) string {
	if coarse {
		return fmt.Sprintf("the m = %d stage's estimate", vecchiaCoarseM)
	}
	return "the search's start: no coarse stage"
}

// greedyNote is the fit's log line's note on the greedy selection.
func greedyNote(g *greedyRun) string {
	if g == nil {
		return ""
	}
	if !g.coarse {
		return fmt.Sprintf(" select=greedy candidates=%d (the sets chosen at the start; blocks of the nearest sets below)", g.k)
	}
	return fmt.Sprintf(" select=greedy candidates=%d (the sets at m=%d chosen after the m=%d stage, whose blocks are below)", g.k, g.m, vecchiaCoarseM)
}
