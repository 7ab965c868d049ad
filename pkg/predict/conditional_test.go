package predict

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestConditionalDraws: 2000 conditional draws at 20 new locations have,
// within Monte-Carlo error, the kriging mean and the conditional
// covariance Sigma22 - Sigma21 Sigma11^-1 Sigma12 computed densely here:
// |mean_i - mu_i| <= 5 sqrt(C_ii / K) and
// |S_ij - C_ij| <= 5 sqrt((C_ii C_jj + C_ij^2) / K) (K draws, S the sample
// covariance; the standard errors of a Gaussian sample's mean and
// covariance, 5 of them).
func TestConditionalDraws(t *testing.T) {
	const n1, n2, k = 150, 20, 2000
	rng := rand.New(rand.NewPCG(11, 12))
	p1, p2 := randomPoints(n1, rng), randomPoints(n2, rng)
	z := make([]float64, n1)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	theta, nugget := []float64{1.1, 0.15, 0.8}, 0.02
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := likelihood.New(likelihood.Problem{Points: p1, Obs: z, Model: likelihood.Matern, Nugget: nugget}, 32, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ConditionalDraws(ev, theta, p2, k, 7, false)
	if err != nil {
		t.Fatal(err)
	}
	// Dense reference: mu = S21 S11^-1 z, C = S22 - S21 S11^-1 S12 (latent).
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	cov := func(a matern.Points, i int, b matern.Points, j int) float64 {
		return matern.Matern(th, matern.Distance(matern.Euclidean, a, i, b, j))
	}
	s11 := mat.NewSymDense(n1, nil)
	for i := range n1 {
		for j := 0; j <= i; j++ {
			v := cov(p1, i, p1, j)
			if i == j {
				v += nugget
			}
			s11.SetSym(i, j, v)
		}
	}
	s12 := mat.NewDense(n1, n2, nil)
	for i := range n1 {
		for j := range n2 {
			s12.Set(i, j, cov(p1, i, p2, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s11) {
		t.Fatal("not SPD")
	}
	var a mat.Dense
	if err := ch.SolveTo(&a, s12); err != nil {
		t.Fatal(err)
	}
	mu := make([]float64, n2)
	c := mat.NewDense(n2, n2, nil)
	for i := range n2 {
		for j := range n1 {
			mu[i] += a.At(j, i) * z[j]
		}
		for j := range n2 {
			v := cov(p2, i, p2, j)
			for m := range n1 {
				v -= s12.At(m, i) * a.At(m, j)
			}
			c.Set(i, j, v)
		}
	}
	if len(d.Z) != k {
		t.Fatalf("%d draws, want %d", len(d.Z), k)
	}
	mean := make([]float64, n2)
	for _, dr := range d.Z {
		for i, v := range dr {
			mean[i] += v / k
		}
	}
	for i := range n2 {
		if math.Abs(d.Result.Z[i]-mu[i]) > 1e-9*math.Max(1, math.Abs(mu[i])) {
			t.Fatalf("kriging mean %d: %v, dense %v", i, d.Result.Z[i], mu[i])
		}
		if math.Abs(d.Result.Var[i]-c.At(i, i)) > 1e-9 {
			t.Fatalf("conditional variance %d: %v, dense %v", i, d.Result.Var[i], c.At(i, i))
		}
		if se := math.Sqrt(c.At(i, i) / k); math.Abs(mean[i]-mu[i]) > 5*se {
			t.Errorf("location %d: mean of the draws %v, kriging mean %v (5 se = %.3g)", i, mean[i], mu[i], 5*se)
		}
	}
	worst := 0.0
	for i := range n2 {
		for j := 0; j <= i; j++ {
			var s float64
			for _, dr := range d.Z {
				s += (dr[i] - mean[i]) * (dr[j] - mean[j])
			}
			s /= k - 1
			cij := c.At(i, j)
			se := math.Sqrt((c.At(i, i)*c.At(j, j) + cij*cij) / k)
			worst = max(worst, math.Abs(s-cij)/se)
			if math.Abs(s-cij) > 5*se {
				t.Errorf("covariance (%d, %d): sample %v, conditional %v (5 se = %.3g)", i, j, s, cij, 5*se)
			}
		}
	}
	t.Logf("largest covariance deviation %.2f standard errors", worst)
}

// TestConditionalDrawsUniversal: with a mean b0 + b1 x estimated by GLS,
// the draws' mean and conditional covariance are universal kriging's,
// computed densely here: b_hat = A^-1 X^T S11^-1 z with A = X^T S11^-1 X,
// mu = x0^T b_hat + S21 S11^-1 (z - X b_hat) and
// C = S22 - S21 S11^-1 S12 + D^T A^-1 D, D = x0^T - X^T S11^-1 S12
// (to 1e-9), and 2000 draws match them within 5 Monte-Carlo standard
// errors.
func TestConditionalDrawsUniversal(t *testing.T) {
	const n1, n2, k = 120, 12, 2000
	rng := rand.New(rand.NewPCG(21, 22))
	p1, p2 := randomPoints(n1, rng), randomPoints(n2, rng)
	z := make([]float64, n1)
	for i := range z {
		z[i] = 3 + 2*p1.X[i] + rng.NormFloat64()
	}
	ones := func(n int) []float64 {
		o := make([]float64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	x1 := [][]float64{ones(n1), p1.X}
	x0 := [][]float64{ones(n2), p2.X}
	theta, nugget := []float64{0.9, 0.2, 1.2}, 0.05
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := likelihood.New(likelihood.Problem{Points: p1, Obs: z, Model: likelihood.Matern, Nugget: nugget, Covariates: x1}, 32, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConditionalDraws(ev, theta, p2, 1, 1, true); err == nil {
		t.Error("ConditionalDraws with a mean model: no error")
	}
	d, err := ConditionalDrawsUniversal(ev, theta, p2, x0, k, 9, true)
	if err != nil {
		t.Fatal(err)
	}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	cov := func(a matern.Points, i int, b matern.Points, j int) float64 {
		return matern.Matern(th, matern.Distance(matern.Euclidean, a, i, b, j))
	}
	s11 := mat.NewSymDense(n1, nil)
	for i := range n1 {
		for j := 0; j <= i; j++ {
			v := cov(p1, i, p1, j)
			if i == j {
				v += nugget
			}
			s11.SetSym(i, j, v)
		}
	}
	s12 := mat.NewDense(n1, n2, nil)
	x := mat.NewDense(n1, 2, nil)
	for i := range n1 {
		x.Set(i, 0, x1[0][i])
		x.Set(i, 1, x1[1][i])
		for j := range n2 {
			s12.Set(i, j, cov(p1, i, p2, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s11) {
		t.Fatal("not SPD")
	}
	var si12, six mat.Dense // S11^-1 S12, S11^-1 X
	if err := ch.SolveTo(&si12, s12); err != nil {
		t.Fatal(err)
	}
	if err := ch.SolveTo(&six, x); err != nil {
		t.Fatal(err)
	}
	var a, ainv mat.Dense
	a.Mul(x.T(), &six)
	if err := ainv.Inverse(&a); err != nil {
		t.Fatal(err)
	}
	zv := mat.NewVecDense(n1, z)
	var xtsz, bhat mat.VecDense
	xtsz.MulVec(six.T(), zv)
	bhat.MulVec(&ainv, &xtsz)
	var xb, r mat.VecDense
	xb.MulVec(x, &bhat)
	r.SubVec(zv, &xb)
	dm := mat.NewDense(2, n2, nil) // D = x0^T - X^T S11^-1 S12
	var xts mat.Dense
	xts.Mul(x.T(), &si12)
	for c := range 2 {
		for j := range n2 {
			dm.Set(c, j, x0[c][j]-xts.At(c, j))
		}
	}
	var dad mat.Dense
	dad.Product(dm.T(), &ainv, dm)
	mu := make([]float64, n2)
	cm := mat.NewDense(n2, n2, nil)
	for i := range n2 {
		mu[i] = x0[0][i]*bhat.AtVec(0) + x0[1][i]*bhat.AtVec(1)
		for m := range n1 {
			mu[i] += si12.At(m, i) * r.AtVec(m)
		}
		for j := range n2 {
			v := cov(p2, i, p2, j) + dad.At(i, j)
			if i == j {
				v += nugget
			}
			for m := range n1 {
				v -= s12.At(m, i) * si12.At(m, j)
			}
			cm.Set(i, j, v)
		}
	}
	mean := make([]float64, n2)
	for _, dr := range d.Z {
		for i, v := range dr {
			mean[i] += v / k
		}
	}
	for i := range n2 {
		if math.Abs(d.Result.Z[i]-mu[i]) > 1e-9*math.Max(1, math.Abs(mu[i])) {
			t.Errorf("universal kriging mean %d: %v, dense %v", i, d.Result.Z[i], mu[i])
		}
		if math.Abs(d.Result.Var[i]-cm.At(i, i)) > 1e-9 {
			t.Errorf("conditional variance %d: %v, dense %v", i, d.Result.Var[i], cm.At(i, i))
		}
		if se := math.Sqrt(cm.At(i, i) / k); math.Abs(mean[i]-mu[i]) > 5*se {
			t.Errorf("location %d: mean of the draws %v, kriging mean %v (5 se = %.3g)", i, mean[i], mu[i], 5*se)
		}
		for j := 0; j <= i; j++ {
			var s float64
			for _, dr := range d.Z {
				s += (dr[i] - mean[i]) * (dr[j] - mean[j])
			}
			s /= k - 1
			cij := cm.At(i, j)
			if se := math.Sqrt((cm.At(i, i)*cm.At(j, j) + cij*cij) / k); math.Abs(s-cij) > 5*se {
				t.Errorf("covariance (%d, %d): sample %v, conditional %v (5 se = %.3g)", i, j, s, cij, 5*se)
			}
		}
	}
}
