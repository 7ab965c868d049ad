package vecchia

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// joint returns the problem's points followed by the targets'.
func joint(a, b matern.Points) matern.Points {
	cat := func(x, y []float64) []float64 {
		if x == nil {
			return nil
		}
		return append(append([]float64(nil), x...), y...)
	}
	return matern.Points{X: cat(a.X, b.X), Y: cat(a.Y, b.Y), Z: cat(a.Z, b.Z), T: cat(a.T, b.T)}
}

// krigeDense is universal kriging written out with dense matrices:
// the GLS mean, the conditional mean and the conditional covariance of
// the targets (a new observation's: nugget included) given the data, and
// the variances with the mean's uncertainty.
func krigeDense(t *testing.T, p likelihood.Problem, theta []float64, at matern.Points, x0 [][]float64) (mean []float64, cond *mat.SymDense, vars []float64, beta []float64) {
	t.Helper()
	n, q := p.Points.Len(), at.Len()
	all := joint(p.Points, at)
	pa := p
	pa.Points = all
	s := denseCov(t, pa, theta)
	s11 := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s11.SetSym(i, j, s.At(i, j))
		}
	}
	s12 := mat.NewDense(n, q, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < q; j++ {
			s12.Set(i, j, s.At(i, n+j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s11) {
		t.Fatal("reference: not positive definite")
	}
	var w mat.Dense // Sigma11^-1 Sigma12
	if err := ch.SolveTo(&w, s12); err != nil {
		t.Fatal(err)
	}
	k := len(p.Covariates)
	x := mat.NewDense(n, max(k, 1), nil)
	for c, col := range p.Covariates {
		for i, v := range col {
			x.Set(i, c, v)
		}
	}
	resid := append([]float64(nil), p.Obs...)
	var bcov mat.Dense
	if k > 0 {
		var sx mat.Dense
		if err := ch.SolveTo(&sx, x); err != nil {
			t.Fatal(err)
		}
		var a mat.Dense
		a.Mul(x.T(), &sx)
		var sy mat.VecDense
		if err := ch.SolveVecTo(&sy, mat.NewVecDense(n, append([]float64(nil), p.Obs...))); err != nil {
			t.Fatal(err)
		}
		var b mat.VecDense
		b.MulVec(x.T(), &sy)
		if err := bcov.Inverse(&a); err != nil {
			t.Fatal(err)
		}
		var bv mat.VecDense
		bv.MulVec(&bcov, &b)
		beta = bv.RawVector().Data
		for i := range resid {
			for c := 0; c < k; c++ {
				resid[i] -= x.At(i, c) * beta[c]
			}
		}
	}
	r := mat.NewVecDense(n, resid)
	mean = make([]float64, q)
	vars = make([]float64, q)
	cond = mat.NewSymDense(q, nil)
	for j := 0; j < q; j++ {
		mean[j] = mat.Dot(w.ColView(j), r)
		for c := 0; c < k; c++ {
			mean[j] += x0[c][j] * beta[c]
		}
		for i := 0; i <= j; i++ {
			cond.SetSym(i, j, s.At(n+i, n+j)-mat.Dot(s12.ColView(i), w.ColView(j)))
		}
		vars[j] = cond.At(j, j)
		if k > 0 {
			d := make([]float64, k)
			for c := 0; c < k; c++ {
				d[c] = x0[c][j] - mat.Dot(x.ColView(c), w.ColView(j))
			}
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					vars[j] += d[a] * bcov.At(a, b) * d[b]
				}
			}
		}
	}
	return mean, cond, vars, beta
}

// targetsOf returns nt new locations for problem p (q points each), the
// mean's covariates at them (as p's: an intercept and x) and, with all
// earlier as the sets: every observation location, then every earlier
// target (joint) or none.
func targetsOf(rng *rand.Rand, p likelihood.Problem, nt int, jointSets bool) *Targets {
	q := perOf(p)
	base := randomPoints(rng, nt, p.Points.Z != nil)
	if p.Metric == matern.GreatCircle {
		for i := range base.X {
			base.X[i], base.Y[i] = -10+20*base.X[i], 40+10*base.Y[i]
		}
	}
	if p.Points.T != nil {
		base.T = make([]float64, nt)
		for i := range base.T {
			base.T[i] = float64(i % 3)
		}
	}
	if q == 2 {
		base = matern.Interleave(base)
	}
	t := &Targets{Pts: base}
	for range p.Covariates {
		t.X = append(t.X, nil)
	}
	if len(p.Covariates) > 0 {
		one, xs := make([]float64, base.Len()), append([]float64(nil), base.X...)
		for i := range one {
			one[i] = 1
		}
		t.X = [][]float64{one, xs}
	}
	nl := p.Points.Len() / q
	t.M = nl
	if jointSets {
		t.M = nl + nt - 1
	}
	t.Sets = make([]int32, nt*t.M)
	for k := 0; k < nt; k++ {
		row := t.Sets[k*t.M : (k+1)*t.M]
		for j := range row {
			row[j] = -1
			if j < nl || (jointSets && j < nl+k) {
				row[j] = int32(j)
			}
		}
	}
	return t
}

// TestPredictExactLimit checks that with every observation in the sets
// (and the likelihood's sets complete, so that the GLS mean is exact)
// Vecchia prediction is universal kriging, written out with dense
// matrices in the test: predictor and variance to 1e-9, for every kernel
// with and without a mean.
func TestPredictExactLimit(t *testing.T) {
	const n, nt = 120, 9
	rng := rand.New(rand.NewPCG(4, 4))
	for _, c := range cases(n, 5) {
		tg := targetsOf(rng, c.p, nt, false)
		plan := newPlan(t, c.p, n, Grouping{MaxSize: 1000})
		rt := runtime.New(runtime.Options{Workers: 2})
		e := NewEvaluator(plan, len(c.theta), rt, kernels.Default())
		got, err := e.Predict(c.theta, tg, nil)
		rt.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mean, _, vars, _ := krigeDense(t, c.p, c.theta, tg.Pts, tg.X)
		for i := range mean {
			if math.Abs(got.Z[i]-mean[i]) > 1e-9*(1+math.Abs(mean[i])) || math.Abs(got.Var[i]-vars[i]) > 1e-9*vars[i] {
				t.Errorf("%s target %d: z %.12g var %.12g, dense %.12g %.12g", c.name, i, got.Z[i], got.Var[i], mean[i], vars[i])
			}
		}
	}
}

// seq returns a function giving the values of v in turn.
func seq(v []float64) func() float64 {
	i := 0
	return func() float64 { i++; return v[i-1] }
}

// TestDrawExactLimit checks joint conditional draws with complete sets
// (every observation and every earlier target): for given standard
// normals e the draw is mean + chol(S) e exactly, with S the targets'
// conditional covariance given the data (dense, in the test).
func TestDrawExactLimit(t *testing.T) {
	const n, nt = 100, 7
	rng := rand.New(rand.NewPCG(6, 6))
	for _, c := range cases(n, 7) {
		tg := targetsOf(rng, c.p, nt, true)
		plan := newPlan(t, c.p, n, Grouping{MaxSize: 1000})
		e := make([]float64, tg.Pts.Len())
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		rt := runtime.New(runtime.Options{Workers: 2})
		ev := NewEvaluator(plan, len(c.theta), rt, kernels.Default())
		got, err := ev.draw(c.theta, tg, nil, 1, seq(e))
		rt.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mean, cond, _, _ := krigeDense(t, c.p, c.theta, tg.Pts, tg.X)
		le := cholTimes(t, cond, e)
		for i := range mean {
			want := mean[i] + le.AtVec(i)
			if math.Abs(got[0][i]-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s target %d: draw %.12g, dense %.12g", c.name, i, got[0][i], want)
			}
		}
	}
}

// TestSimulateExactLimit checks the simulation through the sparse
// inverse Cholesky factor with complete sets, for given standard normals
// e: the latent field then the noise, y = chol(K) e_1 + tau e_2 (K the
// covariance without the nugget) exactly (dense, in the test). The draw
// of the responses (the nugget inside the conditionals) is
// TestSimulateResponses'.
func TestSimulateExactLimit(t *testing.T) {
	const n = 80 // O(n^4) flops: one (n-1)-point conditional per location
	rng := rand.New(rand.NewPCG(8, 8))
	for _, c := range cases(n, 9) {
		if len(c.p.Covariates) > 0 {
			continue
		}
		q := perOf(c.p)
		nl := n / q
		if c.p.Model != likelihood.BivariateMatern {
			nl = n
		}
		sets := bruteSets(c.p.Metric, c.p.Points, nl, q, nl-1)
		e := make([]float64, 2*c.p.Points.Len())
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		rt := runtime.New(runtime.Options{Workers: 2})
		y, err := simulate(rt, kernels.Default(), c.p.Model, c.p.Metric, c.p.Nugget, c.theta, c.p.Points, sets, nl-1, true, seq(e))
		rt.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tau := math.Sqrt(c.p.Tau2(c.theta))
		lp, lth := latentOf(c.p, c.theta)
		le := cholTimes(t, denseCov(t, lp, lth), e[:len(y)])
		for i := range y {
			want := le.AtVec(i) + tau*e[len(y)+i]
			if math.Abs(y[i]-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s point %d: %.12g, dense %.12g", c.name, i, y[i], want)
				break
			}
		}
	}
}

// latentOf returns problem p and theta without the nugget.
func latentOf(p likelihood.Problem, theta []float64) (likelihood.Problem, []float64) {
	th := append([]float64(nil), theta...)
	if p.Model.HasTau2(len(th)) {
		th[len(th)-1] = 0
	}
	p.Nugget = 0
	return p, th
}

// TestSimulateResponses: where the latent field's conditionals are not
// positive definite (a Gaussian covariance, powexp with delta = 2, on
// close points) and there is a nugget, Simulate draws the responses
// instead and says so: y = chol(K + tau^2 I) e for the seed's normals.
func TestSimulateResponses(t *testing.T) {
	const n, seed = 60, 5
	rng := rand.New(rand.NewPCG(4, 4))
	p := likelihood.Problem{Points: randomPoints(rng, n, false), Model: likelihood.PowExp}
	theta := []float64{1, 2, 2, 0.1}
	sets := bruteSets(p.Metric, p.Points, n, 1, n-1)
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	if _, err := simulate(rt, kernels.Default(), p.Model, p.Metric, 0, theta, p.Points, sets, n-1, true, rand.New(rand.NewPCG(1, 1)).NormFloat64); !errors.Is(err, likelihood.ErrNotPosDef) {
		t.Fatalf("the latent draw: %v, want not positive definite (the test's premise)", err)
	}
	y, responses, err := Simulate(rt, kernels.Default(), p.Model, p.Metric, 0, theta, p.Points, sets, n-1, seed)
	if err != nil || !responses {
		t.Fatalf("Simulate: responses %v, %v; want the responses drawn", responses, err)
	}
	e := make([]float64, n)
	normal := rand.New(rand.NewPCG(seed, 0x73696d)).NormFloat64
	for i := range e {
		e[i] = normal()
	}
	le := cholTimes(t, denseCov(t, p, theta), e)
	for i := range y {
		if math.Abs(y[i]-le.AtVec(i)) > 1e-9*(1+math.Abs(le.AtVec(i))) {
			t.Fatalf("point %d: %.12g, dense %.12g", i, y[i], le.AtVec(i))
		}
	}
}

// cholTimes returns L e for the Cholesky factor L of s.
func cholTimes(t *testing.T, s *mat.SymDense, e []float64) *mat.VecDense {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("reference: not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	var le mat.VecDense
	le.MulVec(&l, mat.NewVecDense(len(e), e))
	return &le
}
