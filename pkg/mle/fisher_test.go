package mle

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseGP is a zero-mean Gaussian process with the exponential covariance
// and a nugget, Sigma = sigma2 exp(-r/beta) + tau2 I, theta = (sigma2,
// beta, tau2), computed densely with gonum: l, its gradient
//
//	dl/dtheta_i = z'S^-1 S_i S^-1 z / 2 - tr(S^-1 S_i) / 2,
//
// and the Fisher information I_ij = tr(S^-1 S_i S^-1 S_j) / 2, with the
// closed-form derivatives S_sigma2 = exp(-r/beta), S_beta = sigma2
// exp(-r/beta) r/beta^2, S_tau2 = I.
type denseGP struct {
	r [][]float64 // distances
	z []float64
}

func newDenseGP(n int, theta []float64, seed uint64) *denseGP {
	rng := rand.New(rand.NewPCG(seed, 3))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	g := &denseGP{r: make([][]float64, n), z: make([]float64, n)}
	for i := range n {
		g.r[i] = make([]float64, n)
		for j := range n {
			g.r[i][j] = math.Hypot(x[i]-x[j], y[i]-y[j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(g.sigma(theta)) {
		panic("not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	e := make([]float64, n)
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	zv := mat.NewVecDense(n, g.z)
	zv.MulVec(&L, mat.NewVecDense(n, e))
	return g
}

func (g *denseGP) sigma(th []float64) *mat.SymDense {
	n := len(g.z)
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := range i + 1 {
			v := th[0] * math.Exp(-g.r[i][j]/th[1])
			if i == j {
				v += th[2]
			}
			s.SetSym(i, j, v)
		}
	}
	return s
}

// derivs returns dS/dtheta_k.
func (g *denseGP) derivs(th []float64) []*mat.Dense {
	n := len(g.z)
	d := []*mat.Dense{mat.NewDense(n, n, nil), mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)}
	for i := range n {
		for j := range n {
			e := math.Exp(-g.r[i][j] / th[1])
			d[0].Set(i, j, e)
			d[1].Set(i, j, th[0]*e*g.r[i][j]/(th[1]*th[1]))
		}
		d[2].Set(i, i, 1)
	}
	return d
}

// loglik returns l, the Cholesky factor of S and S^-1 z.
func (g *denseGP) loglik(th []float64) (float64, *mat.Cholesky, *mat.VecDense, error) {
	n := len(g.z)
	var ch mat.Cholesky
	if !ch.Factorize(g.sigma(th)) {
		return 0, nil, nil, &Recoverable{Err: errors.New("not positive definite")}
	}
	var a mat.VecDense // S^-1 z
	if err := ch.SolveVecTo(&a, mat.NewVecDense(n, g.z)); err != nil {
		return 0, nil, nil, &Recoverable{Err: err}
	}
	l := -0.5*mat.Dot(&a, mat.NewVecDense(n, g.z)) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
	return l, &ch, &a, nil
}

func (g *denseGP) eval(th []float64) (float64, []float64, [][]float64, error) {
	l, ch, a, err := g.loglik(th)
	if err != nil {
		return 0, nil, nil, err
	}
	ds := g.derivs(th)
	w := make([]*mat.Dense, len(ds)) // S^-1 S_i
	grad := make([]float64, len(ds))
	for i, d := range ds {
		w[i] = &mat.Dense{}
		if err := ch.SolveTo(w[i], d); err != nil {
			return 0, nil, nil, &Recoverable{Err: err}
		}
		var da mat.VecDense
		da.MulVec(d, a)
		grad[i] = 0.5*mat.Dot(a, &da) - 0.5*mat.Trace(w[i])
	}
	info := make([][]float64, len(ds))
	for i := range ds {
		info[i] = make([]float64, len(ds))
		for j := range ds {
			var p mat.Dense
			p.Mul(w[i], w[j])
			info[i][j] = 0.5 * mat.Trace(&p)
		}
	}
	return l, grad, info, nil
}

// TestFisherMatchesBOBYQA maximises the dense likelihood of 100 points
// simulated at theta = (1, 0.1, 0.05) by Fisher scoring (tolerance 1e-12)
// and by BOBYQA (1e-11): the same maximum, l within 1e-6 of BOBYQA's and
// theta within 0.01 standard errors (sqrt of the inverse information's
// diagonal; BOBYQA is the less precise of the two), and at Fisher's
// estimate the gradient of each parameter not at a bound below 1e-5 in
// the log parameters. From the data start and ExaGeoStat's lower-bound
// start, with beta fixed, and on a sample whose tau2 maximum lies beyond
// its lower bound (held there).
func TestFisherMatchesBOBYQA(t *testing.T) {
	lower, upper := []float64{0.01, 0.005, 0.001}, []float64{10, 2, 1}
	for _, tc := range []struct {
		name         string
		seed         uint64
		start        Start
		lower, upper []float64
	}{
		{"data start", 9, StartData, lower, upper},
		{"lower start", 9, StartLower, lower, upper},
		{"beta fixed", 9, StartData, []float64{0.01, 0.1, 0.001}, []float64{10, 0.1, 1}},
		{"tau2 at its bound", 7, StartData, lower, upper},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newDenseGP(100, []float64{1, 0.1, 0.05}, tc.seed)
			obj := func(th []float64) (float64, error) { l, _, _, err := g.loglik(th); return l, err }
			o := Options{Lower: tc.lower, Upper: tc.upper, Start: tc.start, Guess: []float64{0.5, 0.3, 0.2}, FtolAbs: 1e-11, LogScale: true}
			want, err := Maximize(obj, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			o.FtolAbs = 1e-12
			var iters []Eval
			got, err := MaximizeFisher([]GradObjective{g.eval}, o, func(e Eval) { iters = append(iters, e) })
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != StatusFisherConverged {
				t.Fatalf("status %q", got.Status)
			}
			if math.Abs(got.LogLik-want.LogLik) > 1e-6 || got.LogLik < want.LogLik-1e-9 {
				t.Errorf("l %.10f, BOBYQA's %.10f", got.LogLik, want.LogLik)
			}
			se := standardErrors(got.Info, tc.lower, tc.upper)
			for i := range got.Theta {
				if math.Abs(got.Theta[i]-want.Theta[i]) > 0.01*se[i] {
					t.Errorf("theta %v, BOBYQA's %v (se %v)", got.Theta, want.Theta, se)
				}
				if got.Theta[i] > tc.lower[i] && got.Theta[i] < tc.upper[i] && math.Abs(got.Grad[i]*got.Theta[i]) > 1e-5 {
					t.Errorf("dl/dlog theta_%d = %g at the estimate", i, got.Grad[i]*got.Theta[i])
				}
			}
			if len(iters) != got.Evaluations || got.Evaluations > 30 {
				t.Errorf("%d evaluations reported, %d in the result (BOBYQA: %d)", len(iters), got.Evaluations, want.Evaluations)
			}
			t.Logf("Fisher: %d evaluations, BOBYQA %d; l %.9f vs %.9f; theta %v vs %v", got.Evaluations, want.Evaluations, got.LogLik, want.LogLik, got.Theta, want.Theta)
		})
	}
}

// standardErrors returns sqrt(diag(I^-1)) over the parameters that are
// not fixed (0 for fixed ones).
func standardErrors(info [][]float64, lower, upper []float64) []float64 {
	var free []int
	for i := range lower {
		if lower[i] != upper[i] {
			free = append(free, i)
		}
	}
	a := mat.NewSymDense(len(free), nil)
	for x, i := range free {
		for y, j := range free {
			a.SetSym(x, y, info[i][j])
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		panic(err)
	}
	se := make([]float64, len(lower))
	for x, i := range free {
		se[i] = math.Sqrt(inv.At(x, x))
	}
	return se
}

// TestFisherStagesAndResume runs two stages (the likelihood of the first
// 40 points, then of all 100: a warm start) and checks: the evaluations
// carry their stage; the result is the maximum of the last stage alone;
// a search stopped after 7 evaluations and resumed from their records
// (Options.Replay) ends bitwise where the uninterrupted one ends, the
// replayed evaluations not calling the objective.
func TestFisherStagesAndResume(t *testing.T) {
	full := newDenseGP(100, []float64{1, 0.1, 0.05}, 9)
	coarse := &denseGP{r: make([][]float64, 40), z: full.z[:40]}
	for i := range coarse.r {
		coarse.r[i] = full.r[i][:40]
	}
	calls := 0
	count := func(f GradObjective) GradObjective {
		return func(th []float64) (float64, []float64, [][]float64, error) { calls++; return f(th) }
	}
	stages := []GradObjective{count(coarse.eval), count(full.eval)}
	o := Options{Lower: []float64{0.01, 0.005, 0.001}, Upper: []float64{10, 2, 1}, Guess: []float64{0.5, 0.3, 0.2}, FtolAbs: 1e-12}
	var recs []Record
	var stageOf []int
	ref, err := MaximizeFisher(stages, o, func(e Eval) { recs = append(recs, e.Record()); stageOf = append(stageOf, e.Stage) })
	if err != nil {
		t.Fatal(err)
	}
	single, err := MaximizeFisher([]GradObjective{full.eval}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref.Theta {
		if math.Abs(ref.Theta[i]/single.Theta[i]-1) > 1e-6 || math.Abs(ref.LogLik-single.LogLik) > 1e-9 {
			t.Fatalf("staged %v (l %.10f), single stage %v (l %.10f)", ref.Theta, ref.LogLik, single.Theta, single.LogLik)
		}
	}
	if stageOf[0] != 0 || stageOf[len(stageOf)-1] != 1 {
		t.Fatalf("stages of the evaluations: %v", stageOf)
	}
	// Stop after 7 evaluations, then resume from the records.
	calls = 0
	var part []Record
	o2 := o
	o2.Stop = func() bool { return len(part) == 7 }
	stopped, err := MaximizeFisher(stages, o2, func(e Eval) { part = append(part, e.Record()) })
	if err != nil || stopped.Status != StatusInterrupted || calls != 7 {
		t.Fatalf("stopped search: %v, status %q, %d calls", err, stopped.Status, calls)
	}
	calls = 0
	o.Replay = NewCache(part)
	resumed, err := MaximizeFisher(stages, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Replayed != 7 || calls != resumed.Evaluations-7 || resumed.Evaluations != ref.Evaluations {
		t.Errorf("resumed: %d replayed, %d calls, %d evaluations (uninterrupted: %d)", resumed.Replayed, calls, resumed.Evaluations, ref.Evaluations)
	}
	for i := range ref.Theta {
		if resumed.Theta[i] != ref.Theta[i] || resumed.LogLik != ref.LogLik {
			t.Fatalf("resumed %v (l %v), uninterrupted %v (l %v)", resumed.Theta, resumed.LogLik, ref.Theta, ref.LogLik)
		}
	}
}

// TestFisherStepsBackFromFailures: an objective that fails (not
// positive definite) for tau2 > 0.3 is maximised from (5, 1, 0.01),
// whose second step would cross it (to tau2 = 0.37): the line search halves the step and the
// search ends at the same maximum as without failures (inside the region);
// a hard error stops the search and is returned.
func TestFisherStepsBackFromFailures(t *testing.T) {
	g := newDenseGP(100, []float64{1, 0.1, 0.05}, 9)
	o := Options{Lower: []float64{0.01, 0.005, 0.001}, Upper: []float64{10, 2, 1}, Guess: []float64{5, 1, 0.01}, FtolAbs: 1e-12}
	failures := 0
	fenced := func(th []float64) (float64, []float64, [][]float64, error) {
		if th[2] > 0.3 {
			failures++
			return 0, nil, nil, &Recoverable{Err: errors.New("not positive definite")}
		}
		return g.eval(th)
	}
	want, err := MaximizeFisher([]GradObjective{g.eval}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MaximizeFisher([]GradObjective{fenced}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if failures == 0 || got.Failed != failures {
		t.Errorf("%d failures, the result counts %d", failures, got.Failed)
	}
	if math.Abs(got.LogLik-want.LogLik) > 1e-9 {
		t.Errorf("l %.10f, without failures %.10f (status %q, theta %v)", got.LogLik, want.LogLik, got.Status, got.Theta)
	}
	hard := errors.New("disk on fire")
	_, err = MaximizeFisher([]GradObjective{func(th []float64) (float64, []float64, [][]float64, error) {
		if th[0] != 5 {
			return 0, nil, nil, hard
		}
		return g.eval(th)
	}}, o, nil)
	if !errors.Is(err, hard) {
		t.Errorf("hard error: got %v", err)
	}
}

// TestFisherBadDerivatives: a NaN in the information (at the first trial
// point) is a failed evaluation stepped back from; a gradient of the wrong length stops the
// search with an error.
func TestFisherBadDerivatives(t *testing.T) {
	g := newDenseGP(60, []float64{1, 0.1, 0.05}, 9)
	o := Options{Lower: []float64{0.01, 0.005, 0.001}, Upper: []float64{10, 2, 1}, Guess: []float64{5, 1, 0.01}, FtolAbs: 1e-9}
	want, err := MaximizeFisher([]GradObjective{g.eval}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	nan := func(th []float64) (float64, []float64, [][]float64, error) {
		l, gr, info, err := g.eval(th)
		if calls++; calls == 2 { // the first step's trial point
			info[0][2] = math.NaN()
		}
		return l, gr, info, err
	}
	got, err := MaximizeFisher([]GradObjective{nan}, o, nil)
	if err != nil || got.Failed == 0 || math.Abs(got.LogLik-want.LogLik) > 1e-7 {
		t.Errorf("NaN information: %v, %d failed, l %v (want %v)", err, got.Failed, got.LogLik, want.LogLik)
	}
	short := func(th []float64) (float64, []float64, [][]float64, error) {
		l, gr, info, err := g.eval(th)
		return l, gr[:2], info, err
	}
	if _, err := MaximizeFisher([]GradObjective{short}, o, nil); err == nil {
		t.Error("a gradient of 2 entries for 3 parameters: no error")
	}
}
