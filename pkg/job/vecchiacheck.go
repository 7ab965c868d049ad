package job

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/stop"
	"github.com/exageostat/exageostat/pkg/vecchia"
)

// VecchiaCheckSE is the step, in standard errors, above which the
// approximation check warns.
const VecchiaCheckSE = 0.25

// VecchiaCheck is the approximation check of a Vecchia fit
// (docs/vecchia.md, "The approximation check"): at the estimate theta of
// the fit at m, the Vecchia log-likelihood l2, its gradient g2 and Fisher
// information I2 with conditioning sets of M2 > m (the same ordering),
// and the Fisher-scoring step s = I2^-1 g2 in the search's variables
// (mle.NewOneStep): how far a better approximation would move the
// estimate. It is a lower bound on the approximation's effect (m2 is an
// approximation too). The fit's estimates are the m fit's.
type VecchiaCheck struct {
	M2 int `json:"m2"`
	// StepSE is |s_j| / sqrt((I2^-1)_jj) of each free parameter, by name.
	StepSE map[string]float64 `json:"step_se,omitempty"`
	// MaxStepSE is the largest of StepSE.
	MaxStepSE float64 `json:"max_step_se,omitempty"`
	// OneStep is the estimate after the step, theta(u + s).
	OneStep []float64 `json:"one_step_theta,omitempty"`
	// LogLikM2 is l2(theta); DeltaL is l2(theta) - l(theta), l the
	// Vecchia log-likelihood at m.
	LogLikM2 float64 `json:"loglik_m2,omitempty"`
	DeltaL   float64 `json:"delta_l,omitempty"`
	// Gain is g2' s / 2: the rise of l2 the step predicts.
	Gain    float64 `json:"predicted_gain,omitempty"`
	Seconds float64 `json:"seconds,omitempty"` // preparing the m2 sets and the evaluation
	// PrepSeconds is the part of Seconds spent ordering, finding the m2
	// sets and grouping; EvalSeconds the evaluation's.
	PrepSeconds float64 `json:"prepare_seconds,omitempty"`
	EvalSeconds float64 `json:"eval_seconds,omitempty"`
	// Skipped says why the check was not made ("" when it was).
	Skipped string `json:"skipped,omitempty"`
}

// vecchiaCheckM returns the approximation check's m2 of the fit at
// vecchia_m: vecchia_check_m, else twice vecchia_m.
func vecchiaCheckM(cfg config.Fit) int { return cfg.VecchiaCheckMAt(cfg.Vecchia.M) }

// vecchiaMemory runs the memory check of a Vecchia fit of nAll points
// (vecchia.FitNeed): with the check on, the bound of the fit whose search
// finds the sets at m2 and whose check groups them (the fit's plans at m
// and the check's at m2 are never held together); when that does not
// fit, the check is skipped (note says why) and the fit's own bound at m
// is checked. It returns the bound checked and the limit.
func (v *fitJob) vecchiaMemory(nAll int) (mem vecchia.FitMemory, lim memory.Limit, note string, err error) {
	cfg, w := v.cfg, v.w
	f := v.fitShape(nAll, cfg.Vecchia.M)
	if f.M > vecchiaCoarseM {
		f.Coarse = vecchiaCoarseM
	}
	if cfg.Greedy() { // the candidates, held from the search to the selection, and its scratch
		f.Candidates = min(cfg.CandidatesAt(cfg.Vecchia.M), max(nAll-1, 1))
	}
	if m2 := min(vecchiaCheckM(cfg), nAll-1); cfg.VecchiaCheck && cfg.Vecchia.Sets == "" && m2 > cfg.Vecchia.M {
		f.Wide = m2
		mem = vecchia.FitNeed(f)
		lim, err = checkMemory(w, "fit", everyRank(w.Size(), mem.Need), v.limit,
			fmt.Sprintf("vecchia N=%d m=%d and the check's m=%d: points, ordering, sets, blocks and work space", nAll, cfg.Vecchia.M, m2))
		var ie *InputError
		if !errors.As(err, &ie) {
			return mem, lim, "", err
		}
		note = fmt.Sprintf("not enough memory for m = %d (%v)", m2, err)
	}
	f.Wide = 0
	mem = vecchia.FitNeed(f)
	lim, err = checkMemory(w, "fit", everyRank(w.Size(), mem.Need), v.limit, fmt.Sprintf("vecchia N=%d m=%d: points, ordering, sets, blocks and work space", nAll, cfg.Vecchia.M))
	return mem, lim, note, err
}

// fitShape is the shape of a Vecchia fit of nAll locations at m for its
// memory bound (vecchia.FitNeed): no coarse stage, no wide sets.
func (v *fitJob) fitShape(nAll, m int) vecchia.FitShape {
	return vecchia.FitShape{N: nAll * variables(v.model), M: m, NCov: meanColumns(v.cfg.Mean), Params: len(v.names), Workers: v.workers, Held: v.cfg.Holdout}
}

// checkWide returns the fit's setup s with the size of the sets that the
// fit's neighbour search finds for the approximation check too
// (vecchia.Setup.Wide): its m2 when the check will need sets at m2 that
// the fit's plans on this rank can be cut from (one rank, a hold-out's
// whole plans, or a greedy fit's rank 0, which prepares every plan and
// holds the candidates; not with a sets file, nor when m2 does not fit in
// memory: note), else none. n is the number of locations the fit conditions.
func (v *fitJob) checkWide(s vecchia.Setup, mode prepMode, n int, note string) vecchia.Setup {
	cfg := v.cfg
	m2 := min(vecchiaCheckM(cfg), n-1)
	if cfg.VecchiaCheck && cfg.Vecchia.Sets == "" && note == "" && (mode == prepLocal || cfg.Greedy()) && m2 > cfg.Vecchia.M {
		s.Wide = m2
	}
	return s
}

// checkRun is what the approximation check needs of the fit: the
// problem, the search's start (the frame of the ordering), the setup,
// the runtime and kernels, and how the plans are prepared. With mode
// prepDistribute, handOver (when not nil) drops the fit's own references
// to the problem's columns: the check's preparation takes them over
// (vecchia.DistributeHanded; nothing reads the whole input after it).
type checkRun struct {
	pr       likelihood.Problem
	start    []float64
	setup    vecchia.Setup
	rt       *runtime.Runtime
	kern     kernels.Impl
	mode     prepMode
	note     string // a reason to skip known before the search (memory)
	handOver func()
}

// vecchiaCheck runs the approximation check of lv's fit (estimate
// lv.res.Theta, whose evaluation at m is lv.at; n locations) unless
// --vecchia-check=false (nil): the m2 sets in the same ordering, one
// evaluation with the gradient and information, the Fisher-scoring step.
// It returns the check and, when it was made, the stages at m2 (their
// last evaluation the check's: a refinement's search starts there). A
// check that cannot be made is skipped with a note: an interrupted
// search, one stopped before converging (--max-evals), sets read from a
// file, m already N-1, not enough memory for m2 (c.note), an evaluation
// that fails; a signal or the deadline during it skips it (v.fin says
// so, lv.warnings too). A step above VecchiaCheckSE adds a warning to
// lv.warnings.
func (v *fitJob) vecchiaCheck(lv *vecchiaLevels, c checkRun, n int) (*VecchiaCheck, *vecchiaStages) {
	cfg, st, res := v.cfg, lv.st, lv.res
	if !cfg.VecchiaCheck {
		return nil, nil
	}
	m := st.final.Plan.M
	chk := &VecchiaCheck{M2: min(cfg.VecchiaCheckMAt(m), n-1)}
	switch {
	case v.fin != nil:
		chk.Skipped = "interrupted"
	case !mle.Converged(res.Status) && !strings.Contains(res.Status, mle.StatusLineSearch):
		chk.Skipped = fmt.Sprintf("the search stopped before converging (status %s): a step from there would add the search's distance to the approximation's", res.Status)
	case cfg.Vecchia.Sets != "":
		chk.Skipped = "--vecchia-sets gives the sets (no larger m to compare with)"
	case chk.M2 <= m:
		chk.Skipped = fmt.Sprintf("m = %d conditions each location on every earlier one (the exact likelihood)", m)
	case c.note != "":
		chk.Skipped = c.note
	}
	if chk.Skipped != "" {
		return chk, nil
	}
	t0 := time.Now()
	v.env.logf("vecchia check: the blocks at m = %d and one evaluation there with gradient and information, at the estimate (--vecchia-check=false skips it)\n", chk.M2)
	s2 := c.setup
	s2.M, s2.Perm = chk.M2, st.final.Perm // the fit's ordering (nil where distributed: found again, the same)
	if w := st.final.Wide; w != nil && w.M == chk.M2 {
		s2.Sets = w // found with the fit's sets (checkWide): no second search
	}
	st.release()
	goruntime.GC() // the heap's goal falls with what was let go: the plan at m2 takes its place
	pr := c.pr
	c.pr = likelihood.Problem{} // the hand-over's (below) once each rank has its share
	var handOver func()
	if c.mode == prepDistribute && c.handOver != nil {
		handOver = func() { pr = likelihood.Problem{}; c.handOver() }
	}
	st2, err := newVecchiaStages(pr, c.start, s2, c.rt, c.kern, len(v.names), st.free, v.w, c.mode, 0, handOver)
	var r2 *vecchia.Result
	chk.PrepSeconds = since(t0)
	if err == nil {
		r2, err = st2.eval(st2.final, res.Theta, true)
	}
	chk.EvalSeconds = since(t0) - chk.PrepSeconds
	if givenUp(err) {
		in := v.fs.interrupted(res.Evaluations, "")
		in.Complete, in.Skipped = true, "the vecchia check"
		v.fin, chk.Skipped = in, "interrupted"
		lv.warnings = append(lv.warnings, fmt.Sprintf("%s after the search: not computed: %s; the estimate is complete", stop.Name(in.Signal), in.Skipped))
		return chk, nil
	}
	var step *mle.OneStep
	if err == nil {
		step, err = mle.NewOneStep(res.Theta, r2.Grad, r2.Info, v.opt.Lower, v.opt.Upper)
	}
	if err != nil {
		chk.Skipped = fmt.Sprintf("at m = %d: %v", chk.M2, err)
		return chk, nil
	}
	chk.Seconds = since(t0)
	chk.StepSE = map[string]float64{}
	for i, f := range st.free {
		if f {
			chk.StepSE[v.names[i]] = step.StepSE[i]
			chk.MaxStepSE = max(chk.MaxStepSE, step.StepSE[i])
		}
	}
	chk.OneStep, chk.LogLikM2, chk.DeltaL, chk.Gain = step.Theta, r2.L, r2.L-lv.at.L, step.Gain
	return chk, st2
}

// checkWarning is the warning of a check whose step exceeds
// VecchiaCheckSE in some parameter.
func checkWarning(c *VecchiaCheck, names []string, m int) string {
	var big []string
	for _, n := range names {
		if se, ok := c.StepSE[n]; ok && se > VecchiaCheckSE {
			big = append(big, fmt.Sprintf("%s by %.2f", n, se))
		}
	}
	return fmt.Sprintf("vecchia check: m = %d would move %s standard errors (above %.2f): the approximation at m = %d may have moved the estimate by more than a fraction of its standard error; refit with a larger --vecchia-m (e.g. %d) or let --vecchia-refine-m go on to it, and `exageostat bench vecchia-kl` measures the approximation's KL divergence (docs/vecchia.md, \"The approximation check\")",
		c.M2, strings.Join(big, ", "), VecchiaCheckSE, m, c.M2)
}

// release lets the stages' plans, sets and evaluators go (the search and
// the estimate's evaluation are over; the last result stays with its
// holder): the approximation check's plan takes their memory.
func (st *vecchiaStages) release() {
	for _, e := range st.evs {
		e.Release() // the runtime's queues may still point at its last tasks
	}
	st.coarse, st.final, st.evs, st.last = nil, nil, nil, nil
}
