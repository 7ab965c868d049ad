package predict

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// evaluator returns a likelihood evaluator of p on a runtime of the given
// workers with tile size nb (closed with the test).
func evaluator(t *testing.T, p likelihood.Problem, nb, workers int) *likelihood.Evaluator {
	rt := runtime.New(runtime.Options{Workers: workers})
	t.Cleanup(func() { rt.Close() })
	ev, err := likelihood.New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// denseSigma builds Sigma with a covariance function of r, nugget on the
// diagonal.
func denseSigma(p matern.Points, q matern.Points, c func(r float64) float64, nugget float64, diag bool) *mat.Dense {
	n1, n2 := len(p.X), len(q.X)
	a := mat.NewDense(n1, n2, nil)
	for i := 0; i < n1; i++ {
		for j := 0; j < n2; j++ {
			v := c(matern.Distance(matern.Euclidean, p, i, q, j))
			if diag && i == j {
				v += nugget
			}
			a.Set(i, j, v)
		}
	}
	return a
}

// TestFisherMatchesDense compares with I = 1/2 tr(S^-1 D_j S^-1 D_k) built
// densely: D_beta analytic through K_{nu-1}, D_nu by a sixth-order central
// difference of the direct Matérn, S^-1 by gonum.
func TestFisherMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n := 60
	pts := randomPoints(n, rng)
	theta := []float64{1.3, 0.12, 0.8}
	nugget := 0.01
	p := likelihood.Problem{Points: pts, Model: likelihood.Matern, Nugget: nugget, Obs: make([]float64, n)}
	ev := evaluator(t, p, 16, 2)
	f, err := FisherInfo(ev, theta, []bool{true, true, true})
	if err != nil {
		t.Fatal(err)
	}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	s := denseSigma(pts, pts, func(r float64) float64 { return matern.Matern(th, r) }, nugget, true)
	var sinv mat.Dense
	if err := sinv.Inverse(s); err != nil {
		t.Fatal(err)
	}
	a := math.Pow(2, 1-th.Nu) / math.Gamma(th.Nu)
	ds := []*mat.Dense{
		denseSigma(pts, pts, func(r float64) float64 { return matern.Matern(th, r) / th.Sigma2 }, 0, false),
		denseSigma(pts, pts, func(r float64) float64 {
			if r == 0 {
				return 0
			}
			x := r / th.Beta
			return th.Sigma2 * a * math.Pow(x, th.Nu+1) * matern.BesselK(math.Abs(th.Nu-1), x) / th.Beta
		}, 0, false),
		denseSigma(pts, pts, func(r float64) float64 {
			h := 1e-3
			m := func(d float64) float64 {
				return matern.Matern(matern.Theta{Sigma2: th.Sigma2, Beta: th.Beta, Nu: th.Nu + d}, r)
			}
			return (45*(m(h)-m(-h)) - 9*(m(2*h)-m(-2*h)) + (m(3*h) - m(-3*h))) / (60 * h)
		}, 0, false),
	}
	for j := 0; j < 3; j++ {
		for k := 0; k < 3; k++ {
			var x, y mat.Dense
			x.Mul(&sinv, ds[j])
			y.Mul(&sinv, ds[k])
			var tr float64
			for i := 0; i < n; i++ {
				for l := 0; l < n; l++ {
					tr += x.At(i, l) * y.At(l, i)
				}
			}
			want := 0.5 * tr
			if rel := math.Abs(f.Info[j][k]-want) / math.Abs(want); rel > 1e-7 {
				t.Errorf("I[%d][%d] = %.12g, dense %.12g (rel %.1e)", j, k, f.Info[j][k], want, rel)
			}
		}
	}
	for j := range f.StdErr {
		if !(f.StdErr[j] > 0) || math.Abs(f.StdErr[j]*f.StdErr[j]-f.Cov[j][j]) > 1e-12*f.Cov[j][j] {
			t.Fatalf("stderr %v cov %v", f.StdErr, f.Cov)
		}
	}
	// Fixing nu leaves a 2 x 2 information equal to the leading block.
	f2, err := FisherInfo(ev, theta, []bool{true, true, false})
	if err != nil {
		t.Fatal(err)
	}
	if len(f2.Params) != 2 || math.Abs(f2.Info[1][1]-f.Info[1][1]) > 1e-12*f.Info[1][1] {
		t.Fatalf("fixed nu: %v", f2.Info)
	}
}

func TestMLOEMMOMMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	p1, p2 := randomPoints(80, rng), randomPoints(15, rng)
	t0 := []float64{1, 0.1, 0.5}
	ta := []float64{0.8, 0.13, 0.6}
	p := likelihood.Problem{Points: p1, Model: likelihood.Matern, Obs: make([]float64, 80)}
	ev := evaluator(t, p, 24, 2)
	e, err := MLOEMMOM(ev, p2, t0, ta)
	if err != nil {
		t.Fatal(err)
	}
	cov := func(th []float64) func(float64) float64 {
		m := matern.Theta{Sigma2: th[0], Beta: th[1], Nu: th[2]}
		return func(r float64) float64 { return matern.Matern(m, r) }
	}
	S0, Sa := denseSigma(p1, p1, cov(t0), 0, true), denseSigma(p1, p1, cov(ta), 0, true)
	C0, Ca := denseSigma(p1, p2, cov(t0), 0, false), denseSigma(p1, p2, cov(ta), 0, false)
	var w0, wa mat.Dense
	w0.Solve(S0, C0) // kriging weights
	wa.Solve(Sa, Ca)
	var mloe, mmom float64
	for j := 0; j < 15; j++ {
		w0j, waj := w0.ColView(j), wa.ColView(j)
		c0j, caj := C0.ColView(j), Ca.ColView(j)
		var s0w mat.VecDense
		s0w.MulVec(S0, waj)
		mse0 := t0[0] - mat.Dot(w0j, c0j)
		msea0 := t0[0] - 2*mat.Dot(waj, c0j) + mat.Dot(waj, &s0w)
		mseaa := ta[0] - mat.Dot(waj, caj)
		mloe += msea0/mse0 - 1
		mmom += mseaa/msea0 - 1
	}
	mloe /= 15
	mmom /= 15
	if math.Abs(e.MLOE-mloe) > 1e-8*math.Abs(mloe) || math.Abs(e.MMOM-mmom) > 1e-8*math.Abs(mmom) {
		t.Fatalf("MLOE %.12g MMOM %.12g, dense %.12g %.12g", e.MLOE, e.MMOM, mloe, mmom)
	}
	if mloe <= 0 {
		t.Fatalf("loss of efficiency must be positive with wrong parameters, got %g", mloe)
	}
	same, err := MLOEMMOM(ev, p2, t0, t0)
	if err != nil || math.Abs(same.MLOE) > 1e-10 || math.Abs(same.MMOM) > 1e-10 {
		t.Fatalf("true = estimated: %+v %v", same, err)
	}
}

// TestFisherFailures: FisherInfo's failures that a fit keeps its result
// through are told apart by their errors: no free parameter
// (ErrNoEstimate), and an information matrix with an unidentifiable
// direction (ErrSingularInfo). The singular case is a range far beyond the
// domain with a large nugget: Sigma is nearly sigma2 11' + tau2 I, from
// which sigma2 and beta cannot be told apart (their derivatives of Sigma
// are nearly proportional).
func TestFisherFailures(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 40
	pts := randomPoints(n, rng)
	cases := []struct {
		name   string
		theta  []float64
		nugget float64
		free   []bool
		want   error
	}{
		{"all fixed", []float64{1, 0.1, 0.5}, 0.01, []bool{false, false, false}, ErrNoEstimate},
		{"range beyond the domain", []float64{1, 1e7, 0.5}, 1, []bool{true, true, false}, ErrSingularInfo},
	}
	for _, c := range cases {
		p := likelihood.Problem{Points: pts, Model: likelihood.Matern, Nugget: c.nugget, Obs: make([]float64, n)}
		ev := evaluator(t, p, 16, 2)
		f, err := FisherInfo(ev, c.theta, c.free)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: FisherInfo = %+v, %v; want an error wrapping %v", c.name, f, err, c.want)
		}
	}
}

// TestFisherNuggetParameter checks the information of (sigma2, beta, tau2)
// with tau2 = theta[3] a parameter against the dense 1/2 tr(S^-1 D_j S^-1
// D_k) with D_sigma2 = R, D_tau2 = I and D_beta analytic, on data with a
// duplicate location (legal with a nugget).
func TestFisherNuggetParameter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 3))
	n := 50
	pts := randomPoints(n, rng)
	pts.X[9], pts.Y[9] = pts.X[2], pts.Y[2]
	theta := []float64{0.9, 0.1, 0.6, 0.05}
	p := likelihood.Problem{Points: pts, Model: likelihood.Matern, Obs: make([]float64, n)}
	ev := evaluator(t, p, 12, 2)
	f, err := FisherInfo(ev, theta, []bool{true, true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sigma2", "beta", "tau2"}; fmt.Sprint(f.Params) != fmt.Sprint(want) {
		t.Fatalf("params %v, want %v", f.Params, want)
	}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	s := denseSigma(pts, pts, func(r float64) float64 { return matern.Matern(th, r) }, theta[3], true)
	var sinv mat.Dense
	if err := sinv.Inverse(s); err != nil {
		t.Fatal(err)
	}
	a := math.Pow(2, 1-th.Nu) / math.Gamma(th.Nu)
	ident := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		ident.Set(i, i, 1)
	}
	ds := []*mat.Dense{
		denseSigma(pts, pts, func(r float64) float64 { return matern.Matern(th, r) / th.Sigma2 }, 0, false),
		denseSigma(pts, pts, func(r float64) float64 {
			if r == 0 {
				return 0
			}
			x := r / th.Beta
			return th.Sigma2 * a * math.Pow(x, th.Nu+1) * matern.BesselK(math.Abs(th.Nu-1), x) / th.Beta
		}, 0, false),
		ident,
	}
	for j := 0; j < 3; j++ {
		for k := 0; k < 3; k++ {
			var x, y mat.Dense
			x.Mul(&sinv, ds[j])
			y.Mul(&sinv, ds[k])
			var tr float64
			for i := 0; i < n; i++ {
				for l := 0; l < n; l++ {
					tr += x.At(i, l) * y.At(l, i)
				}
			}
			want := 0.5 * tr
			if rel := math.Abs(f.Info[j][k]-want) / math.Abs(want); rel > 1e-7 {
				t.Errorf("I[%s][%s] = %.12g, dense %.12g (rel %.1e)", f.Params[j], f.Params[k], f.Info[j][k], want, rel)
			}
		}
	}
}
