package vecchia

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// bruteSets returns the m nearest earlier locations of each of the n
// locations (point per*i of pts), nearest first, by brute force.
func bruteSets(metric matern.Metric, pts matern.Points, n, per, m int) []int32 {
	sets := make([]int32, n*m)
	for i := range sets {
		sets[i] = -1
	}
	type nd struct {
		j int
		d float64
	}
	var buf []nd
	for i := 0; i < n; i++ {
		buf = buf[:0]
		for j := 0; j < i; j++ {
			d := matern.Distance(metric, pts, per*i, pts, per*j)
			if pts.T != nil {
				dt := pts.T[per*i] - pts.T[per*j]
				d = math.Sqrt(d*d + dt*dt)
			}
			buf = append(buf, nd{j, d})
		}
		sort.SliceStable(buf, func(a, b int) bool { return buf[a].d < buf[b].d })
		for k := 0; k < m && k < len(buf); k++ {
			sets[i*m+k] = int32(buf[k].j)
		}
	}
	return sets
}

// testCase is a problem with a theta to evaluate it at.
type testCase struct {
	name  string
	p     likelihood.Problem
	theta []float64
}

// randomPoints returns n points uniform in the unit square (or 3D cube).
func randomPoints(rng *rand.Rand, n int, threeD bool) matern.Points {
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	if threeD {
		p.Z = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
		if threeD {
			p.Z[i] = rng.Float64()
		}
	}
	return p
}

// cases returns one problem per kernel, with and without the nugget in
// theta and a mean (an intercept and a slope in x), n locations.
func cases(n int, seed uint64) []testCase {
	rng := rand.New(rand.NewPCG(seed, 11))
	var out []testCase
	add := func(name string, p likelihood.Problem, theta []float64) {
		p.Obs = make([]float64, p.Points.Len())
		for i := range p.Obs {
			p.Obs[i] = rng.NormFloat64() + 0.5*p.Points.X[i]
		}
		out = append(out, testCase{name, p, theta})
		q := p
		one, xs := make([]float64, len(p.Obs)), make([]float64, len(p.Obs))
		for i := range one {
			one[i], xs[i] = 1, p.Points.X[i]
		}
		q.Covariates = [][]float64{one, xs}
		out = append(out, testCase{name + "+mean", q, theta})
	}
	pl := randomPoints(rng, n, false)
	add("matern", likelihood.Problem{Points: pl, Model: likelihood.Matern}, []float64{1.3, 0.12, 0.83})
	add("matern+tau2", likelihood.Problem{Points: pl, Model: likelihood.Matern}, []float64{1.3, 0.12, 0.83, 0.2})
	add("matern-exp+tau2", likelihood.Problem{Points: pl, Model: likelihood.Matern}, []float64{0.9, 0.2, 0.5, 0.1})
	add("matern-3d", likelihood.Problem{Points: randomPoints(rng, n, true), Model: likelihood.Matern, Nugget: 0.05}, []float64{1, 0.15, 1.5})
	add("powexp+tau2", likelihood.Problem{Points: pl, Model: likelihood.PowExp}, []float64{1.1, 0.3, 1.4, 0.05})
	add("aniso+tau2", likelihood.Problem{Points: pl, Model: likelihood.AnisoMatern}, []float64{1, 0.15, 0.9, 0.6, 2.5, 0.1})
	st := randomPoints(rng, n, false)
	st.T = make([]float64, n)
	for i := range st.T {
		st.T[i] = float64(i % 4)
	}
	add("spacetime", likelihood.Problem{Points: st, Model: likelihood.SpaceTimeMatern, Nugget: 0.1}, []float64{1, 0.2, 0.7, 1.5, 0.8, 0.4, 0.2})
	add("bivariate", likelihood.Problem{Points: matern.Interleave(randomPoints(rng, n/2, false)), Model: likelihood.BivariateMatern, Nugget: 0.05},
		[]float64{1, 1.5, 0.15, 0.7, 1.2, 0.4})
	gc := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := 0; i < n; i++ {
		gc.X[i], gc.Y[i] = -10+20*rng.Float64(), 40+10*rng.Float64()
	}
	add("matern-sphere+tau2", likelihood.Problem{Points: gc, Metric: matern.GreatCircle, Model: likelihood.Matern}, []float64{1, 300, 1.2, 0.1})
	return out
}

// per returns the points per location of a problem.
func perOf(p likelihood.Problem) int {
	if p.Model == likelihood.BivariateMatern {
		return 2
	}
	return 1
}

// newPlan makes the plan of problem p with the m nearest earlier
// locations (in p's order) and grouping g.
func newPlan(t *testing.T, p likelihood.Problem, m int, g Grouping) *Plan {
	t.Helper()
	per := perOf(p)
	n := p.Points.Len() / per
	m = min(m, n-1)
	plan, err := NewPlan(p, nil, m, bruteSets(p.Metric, p.Points, n, per, m), g)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// eval evaluates the plan at theta on a runtime of the given workers.
func eval(t *testing.T, plan *Plan, theta []float64, w Want, workers int) *Result {
	t.Helper()
	rt := runtime.New(runtime.Options{Workers: workers})
	defer rt.Close()
	e := NewEvaluator(plan, len(theta), rt, kernels.Default())
	r, err := e.Eval(theta, w)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// denseCov returns the covariance matrix of the problem's points at
// theta (the model's kernel, the nugget on the diagonal).
func denseCov(t *testing.T, p likelihood.Problem, theta []float64) *mat.SymDense {
	t.Helper()
	k, err := p.Model.Kernel(theta, matern.MaxDistance(p.Metric, p.Points))
	if err != nil {
		t.Fatal(err)
	}
	n := p.Points.Len()
	a := make([]float64, n*n)
	matern.FillTile(k, p.Tau2(theta), p.Metric, p.Points, 0, n, p.Points, 0, n, true, a, n)
	return mat.NewSymDense(n, a)
}

// denseExact returns the exact log-likelihood (restricted with REML),
// the mean profiled by GLS, by gonum's dense Cholesky.
func denseExact(t *testing.T, p likelihood.Problem, theta []float64) float64 {
	t.Helper()
	s := denseCov(t, p, theta)
	n := s.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("reference: not positive definite")
	}
	z := mat.NewVecDense(n, append([]float64(nil), p.Obs...))
	solve := func(v *mat.VecDense) *mat.VecDense {
		var x mat.VecDense
		if err := ch.SolveVecTo(&x, v); err != nil {
			t.Fatal(err)
		}
		return &x
	}
	quad := mat.Dot(z, solve(z))
	l := -0.5*quad - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
	k := len(p.Covariates)
	if k == 0 {
		return l
	}
	xs := make([]*mat.VecDense, k)
	sx := make([]*mat.VecDense, k)
	for i, c := range p.Covariates {
		xs[i] = mat.NewVecDense(n, append([]float64(nil), c...))
		sx[i] = solve(xs[i])
	}
	a := mat.NewSymDense(k, nil)
	b := mat.NewVecDense(k, nil)
	for i := 0; i < k; i++ {
		b.SetVec(i, mat.Dot(sx[i], z))
		for j := 0; j <= i; j++ {
			a.SetSym(i, j, mat.Dot(sx[i], xs[j]))
		}
	}
	var ca mat.Cholesky
	if !ca.Factorize(a) {
		t.Fatal("reference: collinear")
	}
	var beta mat.VecDense
	if err := ca.SolveVecTo(&beta, b); err != nil {
		t.Fatal(err)
	}
	l += 0.5 * mat.Dot(b, &beta)
	if p.REML {
		l += -0.5*ca.LogDet() + 0.5*float64(k)*math.Log(2*math.Pi)
	}
	return l
}

// relDiff returns |a-b|/|b|.
func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }
