package job

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	goruntime "runtime"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// vecchiaCoarseM is the conditioning set size of the Fisher scoring's
// first stage (GpGp's warm start: m = 10, then the asked m).
const vecchiaCoarseM = 10

// fitVecchia runs `fit --computation vecchia` (docs/vecchia.md): the
// memory check, the data (or the simulated default problem, drawn
// through the Vecchia conditionals), the ordering and the conditioning
// sets (or those of --vecchia-sets), then Fisher scoring from m = 10 to
// --vecchia-m (or BOBYQA with --search log|linear), the standard errors
// from the Vecchia Fisher information, and the result.
func fitVecchia(v *fitJob) (*FitResult, error) {
	cfg, w := v.cfg, v.w
	t0 := time.Now()
	nAll := cfg.N
	if v.d != nil {
		nAll = v.d.Len()
	}
	mem, lim, checkNote, err := v.vecchiaMemory(nAll)
	if err != nil {
		return nil, err
	}
	v.env.heapLimit(mem.Heap)
	rt, err := newRuntimeWith(w, v.workers, false, nil)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	v.fs.attach(rt)
	kern := kernels.Default()
	setup := vecchia.Setup{M: cfg.Vecchia.M, Order: order.Method(cfg.Vecchia.Order), Seed: cfg.Seed, Workers: v.workers,
		Grouping: vecchia.Grouping{Off: cfg.Vecchia.Ungrouped()}}
	if cfg.Vecchia.Sets != "" {
		if setup.Perm, setup.Sets, err = readSets(v.in, cfg.Vecchia.Sets); err != nil {
			return nil, sameOnEveryRank(err, w) // rank 0's bytes on every rank
		}
	}
	if err := v.vecchiaCheckpoint(setup); err != nil {
		return nil, err
	}
	v.releaseData()
	d := v.d
	if d == nil {
		if d, err = simulateVecchia(v, rt, kern, setup); err != nil {
			return nil, err
		}
	}
	var test *dataset.Data
	if v.held != nil {
		test, d = subset(d, v.held), subset(d, v.train)
	}
	meanTerms, meanCols, err := dataset.Design(d, cfg.Mean)
	if err != nil {
		return nil, badInput("%s: %v", vecchiaDataName(cfg), err)
	}
	if err := checkDesign(meanTerms, meanCols); err != nil {
		return nil, badInput("%s: --mean %s: %v", vecchiaDataName(cfg), cfg.Mean, err)
	}
	pts, obs := mle.ProblemData(d, v.model)
	pr := likelihood.Problem{Points: pts, Metric: v.metric, Obs: obs, Model: v.model, Nugget: cfg.Nugget, REML: cfg.REML, Covariates: meanCols}
	opt := v.opt
	start := v.vecchiaStart(d, &opt)
	mode := prepModeOf(w, cfg, setup, test != nil)
	n, obsVar, obsMS := sizeAndVariance(d)
	handOver, checkHandOver := v.handOvers(mode, test != nil, &d, &pr)
	st, gr, err := v.vecchiaStagesOf(pr, start, v.checkWide(setup, mode, d.Len(), checkNote), rt, kern, mode, d.Len(), handOver)
	if err != nil {
		return nil, err
	}
	setup.Perm, setup.Sets = nil, nil                  // a sets file's, in the plans now (no check runs with one)
	if !cfg.VecchiaCheck && test == nil && gr == nil { // the plans hold their blocks' data: nothing reads the whole input
		v.d, d, pr = nil, nil, likelihood.Problem{} // (over MPI each rank keeps its share alone)
		goruntime.GC()                              // the heap's goal falls with it
	}
	if err := v.setsOut(st, gr); err != nil {
		return nil, err
	}
	v.logPrepared(st, n, t0, greedyNote(gr))
	prep := since(t0)
	st, res, steps, err := v.searchStages(st, gr, opt)
	if err != nil {
		return nil, err
	}
	if gr != nil {
		prep += gr.seconds // the selection and the final stage's grouping
	}
	at, err := v.estimateEval(st, res)
	if err != nil {
		return nil, err
	}
	lv := &vecchiaLevels{st: st, res: res, steps: steps, at: at, test: test, stages: st.stagesM()}
	c := checkRun{pr: pr, start: start, setup: setup, rt: rt, kern: kern, mode: mode, note: checkNote, handOver: checkHandOver}
	if err := v.checkAndRefine(lv, c, opt, n); err != nil {
		return nil, err
	}
	st, res, at = lv.st, lv.res, lv.at
	fr := &mle.FitResult{Result: res, Beta: at.Beta, BetaCov: at.BetaCov, N: n, Steps: lv.steps}
	fr.LogLik = at.L
	out := fitResult(v.names, fr, cfg, v.model, v.metric, 0, v.workers)
	out.Vecchia = lv.summary(prep)
	out.Checkpoint, out.ResumedFrom = CheckpointPath(cfg), cfg.Resume
	out.Profile = "off"
	out.setMean(&cfg, meanTerms, at.Beta, at.BetaCov)
	if cfg.StdErr || test != nil {
		out.Assessment.StdErr, out.Assessment.StdErrNote = vecchiaStdErr(at.Info, v.vecchiaFree())
	}
	if test != nil {
		h := lv.held
		out.Assessment.Holdout, out.Assessment.MSPE, out.Assessment.Coverage, out.Assessment.PredSecs = h.Holdout, h.MSPE, h.Coverage, h.PredSecs
	}
	flagFitVar(out, obsVar, obsMS, cfg.MaxEvals)
	out.VecchiaCheck, out.VecchiaRefined = lv.check, lv.refined
	out.Warnings = append(out.Warnings, lv.warnings...)
	out.Ranks = w.Size()
	out.Memory, err = gatherMemory(rt, RankMemory{Rank: w.Rank(), Busy: out.PerEval, PeakRSSBytes: memory.PeakRSS(),
		NeedBytes: mem.Need, AvailableBytes: lim.Bytes, AvailableSource: lim.Source})
	if err != nil {
		return nil, err
	}
	if w.Rank() != 0 {
		return out, v.fin
	}
	v.in.Record(v.run)
	out.Run = v.run
	if cfg.JSON != "" {
		if err := WriteJSON(cfg.JSON, out); err != nil {
			return nil, err
		}
	}
	return out, v.fin
}

// handOvers returns the releases of a fit's input over several ranks
// (vecchia.DistributeHanded keeps each rank's share of the columns, then
// calls one; it lets v.d, *d and *pr go): in the fit's preparation, or
// with the approximation check in the check's, their last reader; none
// with a hold-out (its kriging reads them) or where one rank prepares.
func (v *fitJob) handOvers(mode prepMode, held bool, d **dataset.Data, pr *likelihood.Problem) (fit, check func()) {
	if mode != prepDistribute || held || v.cfg.VecchiaRefineM > 0 { // a refined fit's levels each distribute it again
		return nil, nil
	}
	drop := func() { v.d, *d, *pr = nil, nil, likelihood.Problem{} }
	if v.cfg.VecchiaCheck {
		return nil, drop
	}
	return drop, nil
}

// vecchiaStagesOf prepares the stages of a fit's search
// (newVecchiaStages), or with --vecchia-select greedy its first stage and
// the greedyRun that chooses the final stage's sets after it
// (greedyStages).
func (v *fitJob) vecchiaStagesOf(pr likelihood.Problem, start []float64, s vecchia.Setup, rt *runtime.Runtime, kern kernels.Impl, mode prepMode, n int,
	handOver func()) (*vecchiaStages, *greedyRun, error) {
	if v.cfg.Greedy() {
		return v.greedyStages(pr, start, s, rt, kern, mode, n)
	}
	st, err := newVecchiaStages(pr, start, s, rt, kern, len(v.names), v.vecchiaFree(), v.w, mode, vecchiaCoarseM, handOver)
	return st, nil, err
}

// searchStages runs the fit's search over st (searchVecchia), or a
// greedy fit's (g not nil: searchGreedy); it returns the estimate's
// stages, the result and the steps.
func (v *fitJob) searchStages(st *vecchiaStages, g *greedyRun, opt mle.Options) (*vecchiaStages, *mle.Result, []mle.Step, error) {
	if g != nil {
		return v.searchGreedy(st, g, opt)
	}
	res, steps, err := v.searchVecchia(st, opt, 0)
	return st, res, steps, err
}

// sizeAndVariance returns the number of locations of d and the variance
// and mean square of its observations (variance).
func sizeAndVariance(d *dataset.Data) (n int, v, ms float64) {
	v, ms = variance(d.Obs)
	return d.Len(), v, ms
}

// logPrepared logs the prepared fit of n locations (started at t0).
func (v *fitJob) logPrepared(st *vecchiaStages, n int, t0 time.Time, note string) {
	cfg := v.cfg
	v.env.logf("fit: N=%d kernel=%s distance=%s computation=vecchia m=%d%s order=%s blocks=%d workers=%s bounds lb=%s ub=%s search=%s (prepared in %.2fs: ordering %.2fs, sets %.2fs, grouping %.2fs)\n",
		n, v.model, v.metric.String(), st.final.Plan.M, note, cfg.Vecchia.Order, st.final.Plan.NumBlocks(), workersNote(v.workers),
		config.FormatFloats(cfg.Lower), config.FormatFloats(cfg.Upper), vecchiaSearch(cfg), time.Since(t0).Seconds(),
		st.final.OrderSeconds, st.final.SetsSeconds, st.final.PlanSeconds)
}

// releaseData lets the data file's bytes go once they are parsed
// (Inputs.Release; not with --cv, whose prediction reads them again).
func (v *fitJob) releaseData() {
	if v.cfg.CV != "" {
		return
	}
	for _, p := range []string{v.cfg.Data, v.cfg.Locations, v.cfg.Observations} {
		if p != "" {
			v.in.Release(p)
		}
	}
}

// vecchiaStart sets opt.Guess where the user gave none (the data's guess;
// anisotropy's angle at the middle of its bounds) and returns the
// search's start: the guess clamped to the bounds, or the lower bounds
// with --start lower.
func (v *fitJob) vecchiaStart(d *dataset.Data, opt *mle.Options) []float64 {
	if opt.Guess == nil {
		opt.Guess = mle.GuessFor(d, v.metric, v.model, len(opt.Lower))
		if v.model == likelihood.AnisoMatern && len(opt.Lower) >= 5 {
			opt.Guess[mle.AnisoAngle] = 0.5 * (opt.Lower[mle.AnisoAngle] + opt.Upper[mle.AnisoAngle])
		}
	}
	if opt.Start == mle.StartLower {
		return opt.Lower
	}
	return clampTheta(opt.Guess, opt.Lower, opt.Upper)
}

// searchVecchia runs the search of a Vecchia fit from opt, stopped by a
// signal or the deadline (the stop control of stopping.go: v.fin is set
// when it stopped the search). done is the number of evaluations of the
// fit's earlier searches (a refined fit's levels): the steps count on
// from it.
func (v *fitJob) searchVecchia(st *vecchiaStages, opt mle.Options, done int) (*mle.Result, []mle.Step, error) {
	if err := v.fs.early(); err != nil {
		return nil, nil, err
	}
	env := v.env
	report := env.Step
	env.Step = func(s mle.Step) {
		s.Eval.N += done
		v.fs.step(s) // the deadline's budget
		v.ckw.add(s.Eval)
		if report != nil {
			report(s)
		}
	}
	if v.resume != nil {
		opt.Replay = v.resume.cache
	}
	ckpt := CheckpointPath(v.cfg)
	res, steps, err := st.search(v.cfg, opt, env, vecchiaStopper(v))
	for i := range steps {
		steps[i].Eval.N += done
	}
	if errors.Is(err, mle.ErrInterrupted) || givenUp(err) {
		in := v.fs.interrupted(0, ckpt)
		v.ckw.finish(in.Status())
		return nil, nil, in
	}
	if err != nil {
		v.ckw.finish("failed")
		return nil, nil, resumeMismatch(v.cfg.Resume, err)
	}
	if res.Status == mle.StatusInterrupted {
		in := v.fs.interrupted(res.Evaluations, ckpt)
		res.Status, v.fin = in.Status(), in
	}
	v.ckw.finish(res.Status)
	if v.resume != nil {
		env.logf("%s", replayNote(v.cfg.Resume, res, v.resume.cache))
	}
	return res, steps, nil
}

// vecchiaCheckpoint checks the file to resume from against this Vecchia
// fit and starts its checkpoint (prepareCheckpoint): the settings are the
// exact path's with the computation naming m, the ordering (and the
// random ordering's seed) or the digest of the sets read, and the search; the
// data's digest is that of the data read, or of the simulated problem's
// definition.
func (v *fitJob) vecchiaCheckpoint(s vecchia.Setup) error {
	cfg := v.cfg
	set := checkpointSettings(cfg, v.metric.String(), v.x0, false, 0)
	set.NB, set.Search = 0, vecchiaSearch(cfg)
	set.Computation = fmt.Sprintf("vecchia m=%d order=%s", cfg.Vecchia.M, cfg.Vecchia.Order)
	if cfg.Vecchia.Order == string(order.Random) {
		set.Computation += fmt.Sprintf(" seed=%d", cfg.Seed)
	}
	if s.Sets != nil { // --vecchia-sets: the ordering and the sets read
		h := sha256.New()
		fmt.Fprint(h, s.Perm, s.Sets.N, s.Sets.M, s.Sets.Idx)
		set.Computation = fmt.Sprintf("vecchia sets sha256=%x", h.Sum(nil))
	}
	if s.Grouping.Off {
		set.Computation += " grouping=none"
	}
	if cfg.Greedy() { // the final stage's sets: chosen by conditional variance among K
		set.Computation += fmt.Sprintf(" select=greedy candidates=%d", cfg.CandidatesAt(cfg.Vecchia.M))
	}
	if cfg.VecchiaRefineM > 0 { // the levels' m: the refinement's bound and the checks' ratio
		set.Computation += fmt.Sprintf(" refine=%d check=%d", cfg.VecchiaRefineM, cfg.VecchiaCheckMAt(cfg.Vecchia.M))
	}
	var err error
	v.ckw, v.resume, err = prepareCheckpoint(v.w, v.in, cfg, set, dataSHA256(cfg, v.d), v.env)
	if v.ckw != nil {
		v.ckw.ck.Optimizer.Algorithm = "Fisher scoring, m = 10 then m"
		if set.Search != "fisher" {
			v.ckw.ck.Optimizer.Algorithm = "NLopt BOBYQA"
		}
	}
	return err
}

// free returns which parameters the search moves (lb < ub).
func (v *fitJob) vecchiaFree() []bool {
	f := make([]bool, len(v.names))
	for i := range f {
		f[i] = v.cfg.Lower[i] != v.cfg.Upper[i]
	}
	return f
}

// vecchiaSearch names the search of a Vecchia fit.
func vecchiaSearch(cfg config.Fit) string {
	switch {
	case cfg.Search == "bobyqa":
		return "bobyqa-log"
	case cfg.Given("search") && cfg.Search != "fisher":
		return "bobyqa-" + cfg.Search
	}
	return "fisher"
}

// vecchiaDataName names the data in messages.
func vecchiaDataName(cfg config.Fit) string {
	switch {
	case cfg.Simulated():
		return "fit"
	case cfg.Data != "":
		return cfg.Data
	}
	return cfg.Locations
}

// meanColumns returns the number of columns of the mean's design matrix
// (for the memory check, before the data are read).
func meanColumns(mean string) int {
	switch mean {
	case "", "zero":
		return 0
	case "constant":
		return 1
	case "linear":
		return 3
	}
	return 1 + strings.Count(mean, ",") + 1
}

// clampTheta returns x moved into [lo, hi].
func clampTheta(x, lo, hi []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Min(math.Max(v, lo[i]), hi[i])
	}
	return out
}

// readSets reads a sets file (--vecchia-sets; in: rank 0 reads, every
// rank parses the same bytes, then lets them go): an unreadable file or
// a malformed line is the user's (exit 2, file:line).
func readSets(in *Inputs, path string) ([]int, *neighbors.Sets, error) {
	path, b, err := in.Read("vecchia-sets", path)
	if err != nil {
		if isInterrupted(err) {
			return nil, nil, err
		}
		return nil, nil, badInput("fit: --vecchia-sets: %v", err)
	}
	perm, s, err := neighbors.Read(bytes.NewReader(b), path)
	in.Release(path) // the text (O(N m)) is not read again
	if err != nil {
		return nil, nil, badInput("%v", err)
	}
	return perm, s, nil
}

// setsOut writes the final stage's ordering and sets (--vecchia-sets-out,
// rank 0), then lets the stages' sets go (dropSets). Before a greedy
// fit's search (g not nil) there are none to write yet (greedyFinal
// writes them).
func (v *fitJob) setsOut(st *vecchiaStages, g *greedyRun) error {
	if v.cfg.Vecchia.SetsOut != "" && v.w.Rank() == 0 && g == nil {
		if err := writeSets(v.cfg.Vecchia.SetsOut, st.final.Perm, st.final.Sets); err != nil {
			return err
		}
	}
	st.dropSets()
	return nil
}

// writeSets writes the ordering and sets (--vecchia-sets-out), atomically.
func writeSets(path string, perm []int, s *neighbors.Sets) error {
	return atomicfile.Write(path, func(w io.Writer) error { return neighbors.Write(w, perm, s) })
}

// vecchiaStdErr returns the standard errors of the free parameters from
// the Fisher information I (the square roots of the diagonal of I^-1 over
// the free parameters; 0 for a fixed one), or a note saying why there are
// none.
func vecchiaStdErr(info [][]float64, free []bool) ([]float64, string) {
	var idx []int
	for i, f := range free {
		if f {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 || info == nil {
		return nil, "not computed: no free parameter"
	}
	a := mat.NewSymDense(len(idx), nil)
	for r, i := range idx {
		for c, j := range idx[:r+1] {
			a.SetSym(r, c, info[max(i, j)][min(i, j)])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, "not computed: the Vecchia Fisher information at the estimate is not positive definite"
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, "not computed: " + err.Error()
	}
	se := make([]float64, len(free))
	for r, i := range idx {
		se[i] = math.Sqrt(inv.At(r, r))
	}
	return se, ""
}

// simulateVecchia draws the simulated default problem of a fit (no
// --data) through the Vecchia conditionals at cfg.Theta (vecchiaDraw).
// Over several ranks rank 0 draws it on a runtime of its own and sends
// the values (every rank makes the locations): the other ranks never
// order or condition the whole data (the same field as on one rank).
func simulateVecchia(v *fitJob, rt *runtime.Runtime, kern kernels.Impl, s vecchia.Setup) (*dataset.Data, error) {
	cfg, w := v.cfg, v.w
	t0 := time.Now()
	var d *dataset.Data
	var m int
	var err error
	switch {
	case w.Size() == 1:
		d, m, err = vecchiaDraw(v.env, "fit", cfg.N, cfg.Times, cfg.Seed, v.model, cfg.Theta, cfg.Nugget, s, rt, kern)
	case w.Rank() == 0:
		local := runtime.New(runtime.Options{Workers: v.workers})
		d, m, err = vecchiaDraw(v.env, "fit", cfg.N, cfg.Times, cfg.Seed, v.model, cfg.Theta, cfg.Nugget, s, local, kern)
		local.Close()
	}
	if w.Size() > 1 {
		if err = rootError(w, err); err == nil {
			d, err = bcastObs(w, d, cfg.N, cfg.Times, cfg.Seed, variables(v.model))
		}
	}
	if err != nil {
		return nil, err
	}
	v.env.logf("simulated N=%d with theta=%s seed=%d through the Vecchia conditionals (m=%d) in %.2fs (no --data given: the embedded default problem)\n",
		cfg.N, config.FormatFloats(cfg.Theta), cfg.Seed, m, time.Since(t0).Seconds())
	return d, nil
}

// bcastObs returns rank 0's simulated data d on every rank of w: the
// locations of dataset.GridTimes(n, times, seed), made on each rank, with
// rank 0's values (per of them per location).
func bcastObs(w comm.Comm, d *dataset.Data, n, times int, seed uint64, per int) (*dataset.Data, error) {
	var b []byte
	if w.Rank() == 0 {
		b = make([]byte, 0, 8*per*d.Len())
		for _, col := range [][]float64{d.Obs, d.Obs2}[:per] {
			for _, x := range col {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			}
		}
	}
	b, err := w.Bcast(0, b)
	if err != nil || w.Rank() == 0 {
		return d, err
	}
	d = dataset.GridTimes(n, times, seed)
	if len(b) != 8*per*d.Len() {
		return nil, fmt.Errorf("fit: %d bytes of simulated values from rank 0 for %d locations", len(b), d.Len())
	}
	cols := make([][]float64, per)
	for k := range cols {
		cols[k] = make([]float64, d.Len())
		for i := range cols[k] {
			cols[k][i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*(k*d.Len()+i):]))
		}
	}
	d.Obs = cols[0]
	if per == 2 {
		d.Obs2 = cols[1]
	}
	return d, nil
}

// vecchiaDraw draws n locations of dataset.GridTimes (seed) and the field
// there under the Vecchia approximation of the model at theta: the
// locations ordered and conditioned by s (vecchia.Prepare), then the
// latent field x_i = B_i x_c(i) + L_i e_i in the ordering plus the
// nugget's noise (vecchia.Simulate), in O(N m^3) time and O(N m) memory;
// a warning on env's log when the latent conditionals are not positive
// definite and the responses were drawn instead. It returns the data (in
// the grid's order) and the sets' m. A theta the kernel refuses, or whose
// blocks are not positive definite, is the user's (key "theta" of cmd).
func vecchiaDraw(env Env, cmd string, n, times int, seed uint64, model likelihood.Model, theta []float64, nugget float64,
	s vecchia.Setup, rt *runtime.Runtime, kern kernels.Impl) (*dataset.Data, int, error) {
	d := dataset.GridTimes(n, times, seed)
	pts := points(d)
	if model == likelihood.BivariateMatern {
		pts = matern.Interleave(pts)
	}
	pr := likelihood.Problem{Points: pts, Metric: matern.Euclidean, Model: model, Nugget: nugget, Obs: make([]float64, pts.Len())}
	prep, err := vecchia.Prepare(pr, theta, s)
	if err != nil {
		return nil, 0, err
	}
	z, responses, err := vecchia.Simulate(rt, kern, model, matern.Euclidean, nugget, theta, prep.Plan.Pts, prep.Sets.Idx, prep.Sets.M, seed)
	if responses && err == nil {
		env.warnf("warning: %s: the field's Vecchia conditionals at theta=%s are not positive definite without the nugget: drawn with the nugget inside them (the responses' approximation, whose law is far from the model's for data dense against the range: docs/vecchia.md, \"Dense data with a nugget\")\n",
			cmd, config.FormatFloats(theta))
	}
	if errors.Is(err, likelihood.ErrNotPosDef) || errors.Is(err, likelihood.ErrBadTheta) {
		return nil, 0, badInput("%s: key \"theta\": the field cannot be simulated: %v", cmd, err)
	}
	if err != nil {
		return nil, 0, err
	}
	per := variables(model)
	d.Obs = make([]float64, n)
	if per == 2 {
		d.Obs2 = make([]float64, n)
	}
	for k, i := range prep.Perm {
		d.Obs[i] = z[per*k]
		if per == 2 {
			d.Obs2[i] = z[per*k+1]
		}
	}
	return d, prep.Sets.M, nil
}

// simulateVecchiaCmd runs `simulate --computation vecchia` on rank 0's
// runtime (every rank draws the same field; rank 0 writes it): the memory
// check, then vecchiaDraw.
func simulateVecchiaCmd(cfg config.Simulate, env Env, workers int, limit int64, res *SimulateResult) (*dataset.Data, error) {
	w := env.comm()
	model := likelihood.Model(cfg.Kernel)
	need := vecchia.MemoryNeed(cfg.N*variables(model), cfg.Vecchia.M, 0, len(cfg.Theta), workers)
	if _, err := checkMemory(w, "simulate", everyRank(w.Size(), need), limit, fmt.Sprintf("vecchia N=%d m=%d: points, ordering, sets and work space", cfg.N, cfg.Vecchia.M)); err != nil {
		return nil, err
	}
	rt, err := newRuntime(w, workers, false)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	t0 := time.Now()
	s := vecchia.Setup{M: cfg.Vecchia.M, Order: order.Method(cfg.Vecchia.Order), Seed: cfg.Seed, Workers: workers}
	d, _, err := vecchiaDraw(env, "simulate", cfg.N, cfg.Times, cfg.Seed, model, cfg.Theta, cfg.Nugget, s, rt, kernels.Default())
	res.Seconds = time.Since(t0).Seconds()
	return d, err
}

// everyRank returns need for each of the ranks (the Vecchia path holds
// the same on every rank).
func everyRank(ranks int, need int64) []int64 {
	out := make([]int64, ranks)
	for r := range out {
		out[r] = need
	}
	return out
}
