package likelihood

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// problem returns n random points in the unit square with observations.
func problem(n int, seed uint64) Problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	p := Problem{Points: matern.Points{X: make([]float64, n), Y: make([]float64, n)}, Obs: make([]float64, n), Model: Matern}
	for i := 0; i < n; i++ {
		p.Points.X[i], p.Points.Y[i] = rng.Float64(), rng.Float64()
		p.Obs[i] = rng.NormFloat64()
	}
	return p
}

// denseLogLik is the reference: Sigma built entry by entry with the direct
// covariance (matern.Matern with BesselK, or the powered exponential),
// factorised by gonum's dense Cholesky.
func denseLogLik(t *testing.T, p Problem, theta []float64) float64 {
	n := len(p.Obs)
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			r := matern.Distance(p.Metric, p.Points, i, p.Points, j)
			var c float64
			if p.Model == PowExp {
				c = theta[0] * math.Exp(-math.Pow(r, theta[2])/theta[1])
			} else {
				c = matern.Matern(matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}, r)
			}
			if i == j {
				c += p.Nugget
			}
			sym.SetSym(i, j, c)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		t.Fatal("reference: not positive definite")
	}
	z := mat.NewVecDense(n, append([]float64(nil), p.Obs...))
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, z); err != nil {
		t.Fatal(err)
	}
	return -0.5*mat.Dot(z, &x) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
}

func TestLogLikMatchesDense(t *testing.T) {
	type tc struct {
		n, nb   int
		model   Model
		nugget  float64
		theta   []float64
		workers int
	}
	var cases []tc
	for _, n := range []int{3, 17, 50, 101} {
		for _, th := range [][]float64{{1, 0.1, 0.5}, {2.5, 0.05, 1.5}, {0.7, 0.2, 0.73}, {1.3, 0.03, 2.5}} {
			for _, w := range []int{1, 3} {
				cases = append(cases, tc{n, 16, Matern, 0, th, w})
			}
		}
	}
	cases = append(cases,
		tc{60, 16, Matern, 0.1, []float64{1, 0.3, 1.1}, 2},
		tc{60, 7, PowExp, 0, []float64{1.5, 0.2, 1.3}, 2},
		tc{60, 64, PowExp, 0.01, []float64{1, 0.1, 2}, 1},
	)
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/n=%d/nb=%d/theta=%v/nugget=%g/w=%d", c.model, c.n, c.nb, c.theta, c.nugget, c.workers), func(t *testing.T) {
			p := problem(c.n, uint64(c.n))
			p.Model, p.Nugget = c.model, c.nugget
			rt := runtime.New(runtime.Options{Workers: c.workers, Trace: true})
			defer rt.Close()
			ev, err := New(p, c.nb, rt, false)
			if err != nil {
				t.Fatal(err)
			}
			want := denseLogLik(t, p, c.theta)
			for rep := 0; rep < 2; rep++ { // buffers are reused: evaluate twice
				got, st, err := ev.LogLik(c.theta)
				if err != nil {
					t.Fatal(err)
				}
				if rel := math.Abs(got-want) / math.Abs(want); rel > 1e-12 {
					t.Fatalf("l = %.17g, dense %.17g, rel %g", got, want, rel)
				}
				if st.Tasks == 0 || st.Wall <= 0 {
					t.Fatalf("stats not filled: %+v", st)
				}
			}
		})
	}
}

func TestLogLikBitwiseAcrossWorkers(t *testing.T) {
	p := problem(203, 9)
	theta := []float64{1.1, 0.08, 0.81}
	var first float64
	for i, w := range []int{1, 2, 8} {
		rt := runtime.New(runtime.Options{Workers: w})
		ev, err := New(p, 24, rt, false)
		if err != nil {
			t.Fatal(err)
		}
		l, _, err := ev.LogLik(theta)
		rt.Close()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = l
		} else if math.Float64bits(l) != math.Float64bits(first) {
			t.Fatalf("workers=%d: l=%.17g differs from 1 worker %.17g", w, l, first)
		}
	}
}

func TestNotPositiveDefinite(t *testing.T) {
	p := problem(40, 2)
	p.Points.X[7], p.Points.Y[7] = p.Points.X[3], p.Points.Y[3] // duplicate point: singular
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := New(p, 8, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := ev.LogLik([]float64{1, 0.1, 0.5})
	if !errors.Is(err, ErrNotPosDef) || !math.IsInf(l, -1) {
		t.Fatalf("got l=%v err=%v, want -Inf and ErrNotPosDef", l, err)
	}
	// The evaluator recovers: a nugget-free valid problem evaluates after.
	p.Points.X[7] += 0.5
	p2 := problem(40, 2)
	ev2, _ := New(p2, 8, rt, false)
	if _, _, err := ev2.LogLik([]float64{1, 0.1, 0.5}); err != nil {
		t.Fatal(err)
	}
}

func TestBadTheta(t *testing.T) {
	p := problem(10, 1)
	rt := runtime.New(runtime.Options{Workers: 1})
	defer rt.Close()
	ev, _ := New(p, 4, rt, false)
	for _, th := range [][]float64{{0, 1, 1}, {1, -1, 1}, {1, 1, math.NaN()}, {1, 1}} {
		if _, _, err := ev.LogLik(th); err == nil {
			t.Fatalf("theta %v accepted", th)
		} else if !errors.Is(err, ErrBadTheta) {
			t.Errorf("theta %v: error %v does not wrap ErrBadTheta (a failed evaluation the search steps away from)", th, err)
		}
	}
	pe := problem(10, 1)
	pe.Model = PowExp
	evp, _ := New(pe, 4, rt, false)
	if _, _, err := evp.LogLik([]float64{1, 0.1, 2.5}); !errors.Is(err, ErrBadTheta) {
		t.Errorf("powexp delta 2.5: error %v, want ErrBadTheta", err)
	}
	if _, err := New(Problem{Points: p.Points, Obs: p.Obs, Model: "gauss"}, 4, rt, false); err == nil {
		t.Fatal("unknown model accepted")
	}
}

// TestSimulateCovariance checks z = L e against a dense L e.
func TestSimulate(t *testing.T) {
	p := problem(45, 4)
	theta := []float64{1.2, 0.15, 0.9}
	e := make([]float64, 45)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	z, err := Simulate(p, theta, e, rt, Options{NB: 10}, -1)
	if err != nil {
		t.Fatal(err)
	}
	n := 45
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, matern.Matern(matern.Theta{Sigma2: 1.2, Beta: 0.15, Nu: 0.9}, matern.Distance(p.Metric, p.Points, i, p.Points, j)))
		}
	}
	var ch mat.Cholesky
	ch.Factorize(sym)
	var l mat.TriDense
	ch.LTo(&l)
	var want mat.VecDense
	want.MulVec(&l, mat.NewVecDense(n, e))
	for i := 0; i < n; i++ {
		if math.Abs(z[i]-want.AtVec(i)) > 1e-12*(1+math.Abs(want.AtVec(i))) {
			t.Fatalf("z[%d] = %g, dense %g", i, z[i], want.AtVec(i))
		}
	}
}

// TestLogLikNuggetParameter: theta = (sigma2, beta, nu, tau2) puts tau2 on
// the diagonal in place of the problem's nugget; duplicate locations are
// then fine. Against the dense reference with that nugget.
func TestLogLikNuggetParameter(t *testing.T) {
	p := problem(57, 3)
	p.Points.X[20], p.Points.Y[20] = p.Points.X[5], p.Points.Y[5]
	p.Points.X[21], p.Points.Y[21] = p.Points.X[5], p.Points.Y[5]
	p.Nugget = 0.7 // ignored: theta carries tau2
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := New(p, 10, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range [][]float64{{1, 0.1, 0.5, 0.05}, {2, 0.2, 1.3, 0.3}, {0.5, 0.05, 0.8, 1e-3}} {
		got, _, err := ev.LogLik(th)
		if err != nil {
			t.Fatal(err)
		}
		q := p
		q.Nugget = th[3]
		want := denseLogLik(t, q, th[:3])
		if rel := math.Abs(got-want) / math.Abs(want); rel > 1e-12 {
			t.Fatalf("theta %v: l = %.17g, dense %.17g", th, got, want)
		}
	}
	for _, th := range [][]float64{{1, 0.1, 0.5, -1}, {1, 0.1, 0.5, math.Inf(1)}, {1, 0.1, 0.5, 0.1, 1}} {
		if _, _, err := ev.LogLik(th); !errors.Is(err, ErrBadTheta) {
			t.Errorf("theta %v: error %v, want ErrBadTheta", th, err)
		}
	}
}

// TestProfileSigma2: the profiled l from one evaluation at sigma2 = 1 (and
// r = tau2/sigma2) equals the full evaluation and the dense l at
// (sigma2_hat, beta, nu[, r sigma2_hat]), sigma2_hat = z'(R + r I)^-1 z / n
// computed densely here; clamped to bounds it is l at the bound, and
// below the maximum.
func TestProfileSigma2(t *testing.T) {
	p := problem(64, 5)
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := New(p, 12, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	n := len(p.Obs)
	for _, th := range [][]float64{{1, 0.1, 0.5}, {1, 0.2, 1.4}, {1, 0.07, 0.8, 0.3}, {1, 0.15, 0.5, 0.02}} {
		_, st, err := ev.LogLik(th)
		if err != nil {
			t.Fatal(err)
		}
		// sigma2_hat densely: z'(R + r I)^-1 z / n.
		q := p
		q.Nugget = 0
		if len(th) == 4 {
			q.Nugget = th[3]
		}
		sym := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				c := matern.Matern(matern.Theta{Sigma2: 1, Beta: th[1], Nu: th[2]}, matern.Distance(p.Metric, p.Points, i, p.Points, j))
				if i == j {
					c += q.Nugget
				}
				sym.SetSym(i, j, c)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sym) {
			t.Fatal("not positive definite")
		}
		var x mat.VecDense
		zv := mat.NewVecDense(n, p.Obs)
		if err := ch.SolveVecTo(&x, zv); err != nil {
			t.Fatal(err)
		}
		want := mat.Dot(zv, &x) / float64(n)
		s, l := ProfileSigma2(n, st.LogDet, st.Quad, 1e-6, 1e6)
		if math.Abs(s-want) > 1e-12*want {
			t.Fatalf("theta %v: sigma2_hat %.17g, dense %.17g", th, s, want)
		}
		full := append([]float64(nil), th...)
		full[0] = s
		if len(th) == 4 {
			full[3] = th[3] * s
		}
		lf, _, err := ev.LogLik(full)
		if err != nil {
			t.Fatal(err)
		}
		fq := p
		fq.Nugget = 0
		if len(th) == 4 {
			fq.Nugget = full[3]
		}
		ld := denseLogLik(t, fq, full[:3])
		if math.Abs(l-lf) > 1e-12*math.Abs(lf) || math.Abs(l-ld) > 1e-12*math.Abs(ld) {
			t.Fatalf("theta %v: profiled l %.17g, full %.17g, dense %.17g", th, l, lf, ld)
		}
		// Clamped: the l of the bound, below the maximum.
		sb, lb := ProfileSigma2(n, st.LogDet, st.Quad, 2*want, 3*want)
		full[0] = sb
		if len(th) == 4 {
			full[3] = th[3] * sb
		}
		lfb, _, _ := ev.LogLik(full)
		if sb != 2*want || math.Abs(lb-lfb) > 1e-12*math.Abs(lfb) || !(lb < l) {
			t.Fatalf("theta %v: clamped sigma2 %g l %.17g, full %.17g, maximum %.17g", th, sb, lb, lfb, l)
		}
	}
}
