package likelihood

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// denseMean is the reference of a likelihood with a mean X b: Sigma built
// entry by entry (Matérn with BesselK, nugget theta[3] or p.Nugget), its
// inverse by gonum, b_hat = (X' S^-1 X)^-1 X' S^-1 z by a dense solve,
// and the textbook formulas
//
//	l   = -1/2 (z - X b)' S^-1 (z - X b) - 1/2 log|S| - n/2 log(2 pi)
//	l_R = l - 1/2 log|X' S^-1 X| + p/2 log(2 pi).
func denseMean(t *testing.T, p Problem, theta []float64) (l, lREML float64, beta []float64, cov *mat.Dense) {
	t.Helper()
	n, k := len(p.Obs), len(p.Covariates)
	tau2 := p.Nugget
	if len(theta) == 4 {
		tau2 = theta[3]
	}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			c := matern.Matern(matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}, matern.Distance(p.Metric, p.Points, i, p.Points, j))
			if i == j {
				c += tau2
			}
			s.SetSym(i, j, c)
		}
	}
	var sinv mat.Dense
	if err := sinv.Inverse(s); err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(n, k, nil)
	for j, c := range p.Covariates {
		for i := range c {
			x.Set(i, j, c[i])
		}
	}
	z := mat.NewVecDense(n, append([]float64(nil), p.Obs...))
	var xs, a mat.Dense
	xs.Mul(x.T(), &sinv) // X' S^-1
	a.Mul(&xs, x)        // X' S^-1 X
	var rhs, b mat.VecDense
	rhs.MulVec(&xs, z)
	if err := b.SolveVec(&a, &rhs); err != nil {
		t.Fatal(err)
	}
	var r, sr mat.VecDense
	r.MulVec(x, &b)
	r.SubVec(z, &r)
	sr.MulVec(&sinv, &r)
	var lu mat.LU
	lu.Factorize(s)
	logdet, _ := lu.LogDet()
	l = -0.5*mat.Dot(&r, &sr) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	var lua mat.LU
	lua.Factorize(&a)
	logdetA, _ := lua.LogDet()
	lREML = l - 0.5*logdetA + 0.5*float64(k)*math.Log(2*math.Pi)
	cov = mat.NewDense(k, k, nil)
	if err := cov.Inverse(&a); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < k; i++ {
		beta = append(beta, b.AtVec(i))
	}
	return l, lREML, beta, cov
}

// meanProblem returns n random points with observations 2 + 3 x - y +
// noise, and the designs constant (1) and linear (1, x, y).
func meanProblem(n int, seed uint64, design string) Problem {
	p := problem(n, seed)
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
		p.Obs[i] += 2 + 3*p.Points.X[i] - p.Points.Y[i]
	}
	p.Covariates = [][]float64{one}
	if design == "linear" {
		p.Covariates = append(p.Covariates, p.Points.X, p.Points.Y)
	}
	return p
}

// TestMeanMatchesDense: l, l_REML, b_hat and (X' S^-1 X)^-1 against the
// dense computation, for constant and linear means, with and without a
// nugget, over workers.
func TestMeanMatchesDense(t *testing.T) {
	for _, design := range []string{"constant", "linear"} {
		for _, th := range [][]float64{{1, 0.1, 0.5}, {2, 0.2, 1.3}, {0.8, 0.05, 0.9, 0.1}} {
			for _, reml := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%v/reml=%v", design, th, reml), func(t *testing.T) {
					p := meanProblem(83, 4, design)
					p.REML = reml
					wl, wr, wb, wc := denseMean(t, p, th)
					want := wl
					if reml {
						want = wr
					}
					for _, workers := range []int{1, 3} {
						rt := runtime.New(runtime.Options{Workers: workers})
						ev, err := New(p, 16, rt, false)
						if err != nil {
							t.Fatal(err)
						}
						l, st, err := ev.LogLik(th)
						rt.Close()
						if err != nil {
							t.Fatal(err)
						}
						if math.Abs(l-want) > 1e-9*math.Abs(want) {
							t.Fatalf("l = %.15g, dense %.15g", l, want)
						}
						for i := range wb {
							if math.Abs(st.Beta[i]-wb[i]) > 1e-9*(1+math.Abs(wb[i])) {
								t.Fatalf("beta %v, dense %v", st.Beta, wb)
							}
							for j := range wb {
								if w := wc.At(i, j); math.Abs(st.BetaCov[i][j]-w) > 1e-9*math.Abs(wc.At(i, i)) {
									t.Fatalf("cov[%d][%d] = %g, dense %g", i, j, st.BetaCov[i][j], w)
								}
							}
						}
					}
				})
			}
		}
	}
}

// TestMeanProfile: the variance profiled with a mean (ML: sigma2_hat =
// r'R^-1 r / n, REML: / (n - p)) gives the full l at (sigma2_hat, ...),
// the dense l there, and no higher l at other sigma2.
func TestMeanProfile(t *testing.T) {
	for _, reml := range []bool{false, true} {
		for _, th := range [][]float64{{1, 0.1, 0.6}, {1, 0.08, 0.8, 0.2}} {
			p := meanProblem(70, 9, "linear")
			p.REML = reml
			rt := runtime.New(runtime.Options{Workers: 2})
			ev, err := New(p, 16, rt, false)
			if err != nil {
				t.Fatal(err)
			}
			_, st, err := ev.LogLik(th)
			if err != nil {
				t.Fatal(err)
			}
			s, l := p.Profile(st, 1e-6, 1e6)
			full := append([]float64(nil), th...)
			full[0] = s
			if len(th) == 4 {
				full[3] = th[3] * s
			}
			lf, _, err := ev.LogLik(full)
			rt.Close()
			if err != nil {
				t.Fatal(err)
			}
			dl, dr, _, _ := denseMean(t, p, full)
			want := dl
			if reml {
				want = dr
			}
			if math.Abs(l-lf) > 1e-12*math.Abs(lf) || math.Abs(l-want) > 1e-10*math.Abs(want) {
				t.Fatalf("reml=%v theta %v: profiled %.15g, full %.15g, dense %.15g", reml, th, l, lf, want)
			}
			for _, f := range []float64{0.9, 1.1} {
				g := append([]float64(nil), full...)
				g[0] *= f
				if len(g) == 4 {
					g[3] *= f
				}
				a, b, _, _ := denseMean(t, p, g)
				if reml {
					a = b
				}
				if a >= l {
					t.Fatalf("reml=%v: l at %g sigma2_hat %.15g above the profile %.15g", reml, f, a, l)
				}
			}
		}
	}
}

// TestMeanCollinear: a design with dependent columns is an error.
func TestMeanCollinear(t *testing.T) {
	p := meanProblem(30, 2, "constant")
	two := make([]float64, 30)
	for i := range two {
		two[i] = 2
	}
	p.Covariates = append(p.Covariates, two)
	rt := runtime.New(runtime.Options{Workers: 1})
	defer rt.Close()
	ev, err := New(p, 8, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ev.LogLik([]float64{1, 0.1, 0.5}); !errors.Is(err, ErrCollinear) {
		t.Fatalf("error %v, want ErrCollinear", err)
	}
}

// TestMeanBitwiseAcrossWorkers: l with a mean (and REML) is the same bits
// on any number of workers.
func TestMeanBitwiseAcrossWorkers(t *testing.T) {
	p := meanProblem(203, 9, "linear")
	p.REML = true
	var first float64
	for i, w := range []int{1, 2, 8} {
		rt := runtime.New(runtime.Options{Workers: w})
		ev, err := New(p, 24, rt, false)
		if err != nil {
			t.Fatal(err)
		}
		l, _, err := ev.LogLik([]float64{1.1, 0.08, 0.81})
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
