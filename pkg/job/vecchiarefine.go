package job

import (
	"errors"
	"fmt"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/stop"
	"github.com/exageostat/exageostat/pkg/vecchia"
)

// vecchiaLevels is a Vecchia fit after its search: the stages of the
// estimate, the search's result and steps (every level's, for a refined
// fit), the estimate's evaluation, and what the checks found. A fit
// refined by --vecchia-refine-m has several levels: each check that warns
// (and whose m2 is at most the bound) starts a search at m2 from the
// estimate; the last level's estimate is the fit's.
type vecchiaLevels struct {
	st    *vecchiaStages
	res   *mle.Result
	steps []mle.Step
	at    *vecchia.Result
	test  *dataset.Data // the hold-out (nil: none), kriged at each level's estimate
	held  Assessment    // the last level's hold-out kriging
	// stages are the m of every search stage, in order; first and final
	// the summaries of the first level's stages and of the estimate's
	// (each taken before its check lets them go).
	stages       []int
	first, final *VecchiaSummary
	// check is the last level's check; refined the earlier levels'.
	check    *VecchiaCheck
	refined  []*VecchiaCheck
	warnings []string
}

// estimateEval evaluates the Vecchia likelihood, its gradient and
// information at the estimate of res on the final stage of st (usually
// the search's last evaluation, not computed again); a signal or the
// deadline during it ends the fit as interrupted.
func (v *fitJob) estimateEval(st *vecchiaStages, res *mle.Result) (*vecchia.Result, error) {
	at, err := st.eval(st.final, res.Theta, true)
	v.fs.setPhase(phaseAfter)
	if givenUp(err) {
		return nil, v.fs.interrupted(res.Evaluations, "")
	}
	if err != nil {
		return nil, fmt.Errorf("fit: the Vecchia likelihood at the estimate %v: %w", res.Theta, err)
	}
	return at, nil
}

// checkAndRefine runs the approximation check of lv's estimate (n
// locations); with --vecchia-refine-m, while the check warns and its m2
// is within the bound, the search goes on at m2 from the estimate
// (refineLevel) and the new estimate is checked in turn. A hold-out is
// kriged at each level's estimate before its check lets the level's plans
// go. The warning of the last check, when it has one, says why the
// refinement stopped; a signal or the deadline before a level ends the fit
// with the estimate so far, complete (v.fin).
func (v *fitJob) checkAndRefine(lv *vecchiaLevels, c checkRun, opt mle.Options, n int) error {
	cfg := v.cfg
	for {
		if lv.test != nil {
			lv.held = Assessment{}
			if err := vecchiaHoldout(&lv.held, lv.st, v.model, cfg.Mean, lv.test, lv.res.Theta, lv.at, lv.st.final.Plan.M, v.workers); err != nil {
				return err
			}
		}
		m := lv.st.final.Plan.M
		lv.final = lv.st.summary(cfg, 0)
		if lv.first == nil {
			lv.first = lv.final
		}
		chk, st2 := v.vecchiaCheck(lv, c, n)
		lv.check = chk
		if chk == nil || chk.Skipped != "" || chk.MaxStepSE <= VecchiaCheckSE {
			return nil
		}
		if why, ok := v.refineStop(chk, lv.res, opt); !ok {
			lv.warnings = append(lv.warnings, checkWarning(chk, v.names, m)+why)
			return nil
		}
		if v.fs.check() { // a signal, or the deadline's budget spent (the ranks agree): this level's estimate is the fit's
			in := v.fs.interrupted(lv.res.Evaluations, "")
			in.Complete, in.Skipped = true, fmt.Sprintf("the refinement to m = %d", chk.M2)
			v.fin = in
			lv.warnings = append(lv.warnings, checkWarning(chk, v.names, m)+" (not refined: interrupted)",
				fmt.Sprintf("%s after the search: not computed: %s; the estimate at m = %d is complete", stop.Name(in.Signal), in.Skipped, m))
			return nil
		}
		c.setup.Wide, c.note = 0, v.refineMemory(n, chk.M2)
		v.env.logf("vecchia refine: m = %d would move the estimate by up to %.2f SE: the search goes on at m = %d from the estimate (--vecchia-refine-m %d)\n",
			chk.M2, chk.MaxStepSE, chk.M2, cfg.VecchiaRefineM)
		lv.refined = append(lv.refined, chk)
		if err := v.refineLevel(lv, st2, opt); err != nil {
			return err
		}
	}
}

// refineStop returns whether a check that warns refines the fit, and
// when not why, as the end of its warning: no --vecchia-refine-m (the
// warning itself names the remedy), m2 beyond it, or no evaluation left
// of --max-evals.
func (v *fitJob) refineStop(chk *VecchiaCheck, res *mle.Result, opt mle.Options) (why string, refine bool) {
	r := v.cfg.VecchiaRefineM
	switch {
	case r == 0:
		return "", false
	case chk.M2 > r:
		return fmt.Sprintf(" (not refined: m = %d is above --vecchia-refine-m %d)", chk.M2, r), false
	case opt.MaxEvals > 0 && res.Evaluations >= opt.MaxEvals:
		return fmt.Sprintf(" (not refined: --max-evals %d reached)", opt.MaxEvals), false
	}
	return "", true
}

// refineMemory returns why the check of a level at m (n locations) cannot
// be made, its sets at the next m2 not fitting in memory (""): the check
// is then skipped with that note, and the refinement stops there. The
// heap's limit rises to the level's bound.
func (v *fitJob) refineMemory(n, m int) string {
	cfg := v.cfg
	m2 := min(cfg.VecchiaCheckMAt(m), n-1)
	mem := vecchia.FitNeed(v.fitShape(n, m2))
	_, err := checkMemory(v.w, "fit", everyRank(v.w.Size(), mem.Need), v.limit,
		fmt.Sprintf("vecchia N=%d, the check's m=%d: points, ordering, sets, blocks and work space", n, m2))
	var ie *InputError
	if errors.As(err, &ie) {
		return fmt.Sprintf("not enough memory for m = %d (%v)", m2, err)
	}
	v.env.heapLimit(mem.Heap)
	return ""
}

// refineLevel runs the search of a refined fit's next level on st2 (the
// check's stages at m2, whose last evaluation is at the estimate: the
// search's first is not computed again), from lv's estimate, its stage
// numbered after lv's (a checkpoint replays each level at its own), with
// what is left of --max-evals; then the estimate's evaluation. lv takes
// the level's stages, result (evaluations counted over the levels) and
// steps.
func (v *fitJob) refineLevel(lv *vecchiaLevels, st2 *vecchiaStages, opt mle.Options) error {
	prev := lv.res
	opt.Start, opt.Guess = mle.StartData, prev.Theta
	opt.FirstStage = len(lv.stages)
	if opt.MaxEvals > 0 {
		opt.MaxEvals -= prev.Evaluations
	}
	if err := v.setsOut(st2, nil); err != nil { // --vecchia-sets-out: the final level's sets in the end
		return err
	}
	res, steps, err := v.searchVecchia(st2, opt, prev.Evaluations)
	if err != nil {
		return err
	}
	res.Evaluations += prev.Evaluations
	res.Replayed += prev.Replayed
	res.Failed += prev.Failed
	res.Seconds += prev.Seconds
	res.Start = prev.Start
	at, err := v.estimateEval(st2, res)
	if err != nil {
		return err
	}
	lv.st, lv.res, lv.at = st2, res, at
	lv.steps = append(lv.steps, steps...)
	lv.stages = append(lv.stages, st2.stagesM()...)
	return nil
}

// stagesM returns the m of each of st's stages, coarse first.
func (st *vecchiaStages) stagesM() []int {
	var ms []int
	for _, p := range st.stages() {
		ms = append(ms, p.Plan.M)
	}
	return ms
}

// summary describes the fit's final stages, with every level's stages,
// and the fit's preparation before its first search: prep seconds, of
// which the first level's ordering, sets and plans (a refined level's
// plan is its check's, timed there).
func (lv *vecchiaLevels) summary(prep float64) *VecchiaSummary {
	s := *lv.final
	s.Prep, s.Stages = prep, lv.stages
	s.OrderSeconds, s.SetsSeconds, s.PlanSeconds = lv.first.OrderSeconds, lv.first.SetsSeconds, lv.first.PlanSeconds
	s.Select, s.Candidates, s.Pilot, s.SelectSeconds = lv.first.Select, lv.first.Candidates, lv.first.Pilot, lv.first.SelectSeconds
	return &s
}
