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

// denseKrigeCov is the reference kriging with a covariance cov(a, i, b, j)
// between point i of a and point j of b written out in the test.
func denseKrigeCov(p1 matern.Points, z []float64, p2 matern.Points, cov func(a matern.Points, i int, b matern.Points, j int) float64) (zhat, v []float64) {
	n1, n2 := len(p1.X), len(p2.X)
	s11 := mat.NewSymDense(n1, nil)
	for i := 0; i < n1; i++ {
		for j := 0; j <= i; j++ {
			s11.SetSym(i, j, cov(p1, i, p1, j))
		}
	}
	s12 := mat.NewDense(n1, n2, nil)
	for i := 0; i < n1; i++ {
		for j := 0; j < n2; j++ {
			s12.Set(i, j, cov(p1, i, p2, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s11) {
		panic("reference not SPD")
	}
	var a mat.Dense
	if err := ch.SolveTo(&a, s12); err != nil {
		panic(err)
	}
	for j := 0; j < n2; j++ {
		var s, q float64
		for i := 0; i < n1; i++ {
			s += a.At(i, j) * z[i]
			q += s12.At(i, j) * a.At(i, j)
		}
		zhat = append(zhat, s)
		v = append(v, cov(p2, j, p2, j)-q)
	}
	return zhat, v
}

func checkKrige(t *testing.T, p likelihood.Problem, theta []float64, at matern.Points, nb, cw int, cov func(a matern.Points, i int, b matern.Points, j int) float64) {
	t.Helper()
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := likelihood.New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := krige(ev, theta, at, nil, cw)
	if err != nil {
		t.Fatal(err)
	}
	wz, wv := denseKrigeCov(p.Points, p.Obs, at, cov)
	for i := range wz {
		if math.Abs(res.Z[i]-wz[i]) > 1e-10*math.Max(1, math.Abs(wz[i])) {
			t.Fatalf("zhat[%d] = %.15g, dense %.15g", i, res.Z[i], wz[i])
		}
		if math.Abs(res.Var[i]-wv[i]) > 1e-10*math.Max(1e-3, math.Abs(wv[i])) {
			t.Fatalf("var[%d] = %.15g, dense %.15g", i, res.Var[i], wv[i])
		}
	}
}

// TestKrigeSpaceTimeMatchesDense: space-time kriging (new sites and times)
// equals a dense computation with Gneiting's covariance written out here.
func TestKrigeSpaceTimeMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	mk := func(n int) matern.Points {
		p := randomPoints(n, rng)
		p.T = make([]float64, n)
		for i := range p.T {
			p.T[i] = float64(rng.IntN(5))
		}
		return p
	}
	p1, p2 := mk(70), mk(15)
	z := make([]float64, 70)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	th := []float64{1.3, 0.1, 0.73, 0.7, 0.8, 0.6, 0.2}
	cov := func(a matern.Points, i int, b matern.Points, j int) float64 {
		h := math.Hypot(a.X[i]-b.X[j], a.Y[i]-b.Y[j])
		psi := math.Pow(math.Abs(a.T[i]-b.T[j]), 2*th[4])/th[3] + 1
		return th[0] / math.Pow(psi, th[5]+th[6]) * matern.Matern(matern.Theta{Sigma2: 1, Beta: th[1] * math.Pow(psi, th[5]/2), Nu: th[2]}, h)
	}
	checkKrige(t, likelihood.Problem{Points: p1, Obs: z, Model: likelihood.SpaceTimeMatern}, th, p2, 16, 4, cov)
	// New points without times are refused.
	rt := runtime.New(runtime.Options{Workers: 1})
	defer rt.Close()
	ev, err := likelihood.New(likelihood.Problem{Points: p1, Obs: z, Model: likelihood.SpaceTimeMatern}, 16, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Krige(ev, th, matern.Points{X: p2.X, Y: p2.Y}); err == nil {
		t.Fatal("new points without times accepted")
	}
}

// TestCoKrigeBivariateMatchesDense: co-kriging of both variables at new
// locations from both variables at the observed ones equals a dense
// computation; odd tile and column widths exercise the interleaving.
func TestCoKrigeBivariateMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	l1, l2 := randomPoints(35, rng), randomPoints(9, rng)
	z := make([]float64, 70)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	th := []float64{1.3, 0.7, 0.1, 0.73, 1.5, -0.6}
	nu12 := 0.5 * (th[3] + th[4])
	bound := math.Sqrt(th[3]*th[4]) / nu12
	cov := func(a matern.Points, i int, b matern.Points, j int) float64 {
		h := math.Hypot(a.X[i]-b.X[j], a.Y[i]-b.Y[j])
		switch {
		case i%2 == 0 && j%2 == 0:
			return matern.Matern(matern.Theta{Sigma2: th[0], Beta: th[2], Nu: th[3]}, h)
		case i%2 == 1 && j%2 == 1:
			return matern.Matern(matern.Theta{Sigma2: th[1], Beta: th[2], Nu: th[4]}, h)
		}
		return th[5] * bound * math.Sqrt(th[0]*th[1]) * matern.Matern(matern.Theta{Sigma2: 1, Beta: th[2], Nu: nu12}, h)
	}
	p := likelihood.Problem{Points: matern.Interleave(l1), Obs: z, Model: likelihood.BivariateMatern}
	for _, w := range [][2]int{{7, 3}, {16, 5}, {70, 18}} {
		checkKrige(t, p, th, matern.Interleave(l2), w[0], w[1], cov)
	}
}
