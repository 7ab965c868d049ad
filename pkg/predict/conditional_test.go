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
