package predict

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// TestFisherAnisoMatchesDense compares the Fisher information of the five
// parameters of the anisotropic Matérn (the Wald standard errors of a
// fit) with I = 1/2 tr(S^-1 D_j S^-1 D_k) built densely, the derivatives
// analytic except nu's: with x = r'/beta, r'^2 = u^2 + (ratio v)^2,
// dC/dr' = -sigma2 2^(1-nu)/Gamma(nu) x^nu K_{nu-1}(x) / beta,
// dr'/dangle = u v (1 - ratio^2) / r' (du/dangle = v, dv/dangle = -u),
// dr'/dratio = ratio v^2 / r', dC/dbeta = -dC/dr' x; D_nu a sixth-order
// central difference of the direct CovLag; S^-1 by gonum.
func TestFisherAnisoMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 60
	pts := randomPoints(n, rng)
	theta := []float64{1.3, 0.12, 0.8, 0.7, 2.5}
	nugget := 0.01
	p := likelihood.Problem{Points: pts, Model: likelihood.AnisoMatern, Nugget: nugget, Obs: make([]float64, n)}
	ev := evaluator(t, p, 16, 2)
	f, err := FisherInfo(ev, theta, []bool{true, true, true, true, true})
	if err != nil {
		t.Fatal(err)
	}
	a := matern.Aniso{Sigma2: theta[0], Beta: theta[1], Nu: theta[2], Angle: theta[3], Ratio: theta[4]}
	c, s := math.Cos(a.Angle), math.Sin(a.Angle)
	k := math.Pow(2, 1-a.Nu) / math.Gamma(a.Nu)
	// entry returns the matrix of f(u, v, r') over all pairs (0 at r' = 0
	// unless diag).
	entry := func(f func(u, v, r float64) float64, diagAdd float64) *mat.Dense {
		m := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				dx, dy := pts.X[i]-pts.X[j], pts.Y[i]-pts.Y[j]
				u, v := c*dx+s*dy, -s*dx+c*dy
				r := math.Hypot(u, a.Ratio*v)
				val := 0.0
				if r > 0 {
					val = f(u, v, r)
				}
				if i == j {
					val += diagAdd
				}
				m.Set(i, j, val)
			}
		}
		return m
	}
	dCdr := func(r float64) float64 {
		x := r / a.Beta
		return -a.Sigma2 * k * math.Pow(x, a.Nu) * matern.BesselK(math.Abs(a.Nu-1), x) / a.Beta
	}
	sigma := entry(func(u, v, r float64) float64 { return a.CovLag(u*c-v*s, u*s+v*c) }, a.Sigma2+nugget)
	var sinv mat.Dense
	if err := sinv.Inverse(sigma); err != nil {
		t.Fatal(err)
	}
	ds := []*mat.Dense{
		entry(func(u, v, r float64) float64 { return a.CovLag(u*c-v*s, u*s+v*c) / a.Sigma2 }, 1),
		entry(func(u, v, r float64) float64 { return -dCdr(r) * r / a.Beta }, 0),
		entry(func(u, v, r float64) float64 {
			h := 1e-3
			m := func(d float64) float64 {
				b := a
				b.Nu += d
				return b.CovLag(u*c-v*s, u*s+v*c)
			}
			return (45*(m(h)-m(-h)) - 9*(m(2*h)-m(-2*h)) + (m(3*h) - m(-3*h))) / (60 * h)
		}, 0),
		entry(func(u, v, r float64) float64 { return dCdr(r) * u * v * (1 - a.Ratio*a.Ratio) / r }, 0),
		entry(func(u, v, r float64) float64 { return dCdr(r) * a.Ratio * v * v / r }, 0),
	}
	for j := range 5 {
		for l := range 5 {
			var x, y mat.Dense
			x.Mul(&sinv, ds[j])
			y.Mul(&sinv, ds[l])
			var tr float64
			for i := range n {
				for m := range n {
					tr += x.At(i, m) * y.At(m, i)
				}
			}
			want := 0.5 * tr
			if rel := math.Abs(f.Info[j][l]-want) / math.Abs(want); rel > 1e-7 {
				t.Errorf("I[%s][%s] = %.12g, dense %.12g (rel %.1e)", f.Params[j], f.Params[l], f.Info[j][l], want, rel)
			}
		}
	}
	// With the nugget as a sixth parameter: D_tau2 = I, the other five
	// unchanged (the same Sigma).
	p0 := p
	p0.Nugget = 0
	f6, err := FisherInfo(evaluator(t, p0, 16, 2), append(theta[:5:5], nugget), []bool{true, true, true, true, true, true})
	if err != nil {
		t.Fatal(err)
	}
	ds = append(ds, entry(func(u, v, r float64) float64 { return 0 }, 1))
	if f6.Params[5] != "tau2" {
		t.Fatalf("parameters %v", f6.Params)
	}
	for j := range 6 {
		for l := range 6 {
			var x, y mat.Dense
			x.Mul(&sinv, ds[j])
			y.Mul(&sinv, ds[l])
			var tr float64
			for i := range n {
				for m := range n {
					tr += x.At(i, m) * y.At(m, i)
				}
			}
			if rel := math.Abs(f6.Info[j][l]-0.5*tr) / math.Abs(0.5*tr); rel > 1e-7 {
				t.Errorf("with tau2: I[%s][%s] = %.12g, dense %.12g (rel %.1e)", f6.Params[j], f6.Params[l], f6.Info[j][l], 0.5*tr, rel)
			}
		}
	}
	// The angle at 0 (an absolute step) and the ratio at its bound 1
	// (a one-sided difference): still finite standard errors.
	if f, err := FisherInfo(ev, []float64{1.3, 0.12, 0.8, 0, 1.5}, []bool{false, false, false, true, true}); err != nil || len(f.StdErr) != 2 {
		t.Errorf("angle 0: %v", err)
	}
	if f, err := FisherInfo(ev, []float64{1.3, 0.12, 0.8, 0.7, 1}, []bool{false, false, false, false, true}); err != nil || len(f.StdErr) != 1 {
		t.Errorf("ratio 1: %v", err)
	}
}
