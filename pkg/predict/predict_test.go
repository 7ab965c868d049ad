package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

func randomPoints(n int, rng *rand.Rand) matern.Points {
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := 0; i < n; i++ {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
	}
	return p
}

// denseKrige is the reference: Sigma built with the direct Matérn (BesselK),
// gonum's dense Cholesky and solves.
func denseKrige(p1 matern.Points, z []float64, p2 matern.Points, th matern.Theta, nugget float64) (zhat, v []float64) {
	n1, n2 := len(p1.X), len(p2.X)
	s11 := mat.NewSymDense(n1, nil)
	for i := 0; i < n1; i++ {
		for j := 0; j <= i; j++ {
			c := matern.Matern(th, matern.Distance(matern.Euclidean, p1, i, p1, j))
			if i == j {
				c += nugget
			}
			s11.SetSym(i, j, c)
		}
	}
	s12 := mat.NewDense(n1, n2, nil)
	for i := 0; i < n1; i++ {
		for j := 0; j < n2; j++ {
			s12.Set(i, j, matern.Matern(th, matern.Distance(matern.Euclidean, p1, i, p2, j)))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s11) {
		panic("reference not SPD")
	}
	var a mat.Dense // Sigma11^-1 Sigma12
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
		v = append(v, th.Sigma2+nugget-q)
	}
	return zhat, v
}

func TestKrigeMatchesDense(t *testing.T) {
	cases := []struct {
		n1, n2, nb, workers int
		theta               []float64
		nugget              float64
	}{
		{30, 7, 8, 1, []float64{1, 0.1, 0.5}, 0},
		{57, 23, 10, 3, []float64{1.5, 0.2, 1.3}, 0},
		{100, 40, 16, 2, []float64{0.8, 0.05, 0.73}, 0.05},
		{64, 1, 64, 2, []float64{1, 0.3, 2.5}, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n1=%d/n2=%d/nb=%d/w=%d", c.n1, c.n2, c.nb, c.workers), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.n1), 1))
			p1, p2 := randomPoints(c.n1, rng), randomPoints(c.n2, rng)
			z := make([]float64, c.n1)
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			rt := runtime.New(runtime.Options{Workers: c.workers})
			defer rt.Close()
			ev, err := likelihood.New(likelihood.Problem{Points: p1, Obs: z, Model: likelihood.Matern, Nugget: c.nugget}, c.nb, rt, false)
			if err != nil {
				t.Fatal(err)
			}
			// Column tiles as wide as the row tiles: several column tiles.
			res, err := krige(ev, c.theta, p2, c.nb)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Factored {
				t.Fatal("first prediction did not factor")
			}
			th := matern.Theta{Sigma2: c.theta[0], Beta: c.theta[1], Nu: c.theta[2]}
			wz, wv := denseKrige(p1, z, p2, th, c.nugget)
			for i := range wz {
				if math.Abs(res.Z[i]-wz[i]) > 1e-10*math.Max(1, math.Abs(wz[i])) {
					t.Fatalf("zhat[%d] = %.15g, dense %.15g", i, res.Z[i], wz[i])
				}
				if math.Abs(res.Var[i]-wv[i]) > 1e-10*math.Max(1e-3, math.Abs(wv[i])) {
					t.Fatalf("var[%d] = %.15g, dense %.15g", i, res.Var[i], wv[i])
				}
			}
			// A second prediction at the same theta reuses the factor.
			res2, err := Krige(ev, c.theta, p2)
			if err != nil || res2.Factored || res2.Z[0] != res.Z[0] {
				t.Fatalf("reuse: err %v factored %v", err, res2.Factored)
			}
		})
	}
}

// TestKrigeNuggetParameter: a theta of 4 values carries the nugget tau2
// (the problem's Nugget is ignored): the same as the dense kriging with
// that nugget, on observations with a duplicate location.
func TestKrigeNuggetParameter(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	p1, p2 := randomPoints(70, rng), randomPoints(9, rng)
	p1.X[30], p1.Y[30] = p1.X[4], p1.Y[4]
	z := make([]float64, 70)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	theta := []float64{1.1, 0.09, 0.7, 0.08}
	p := likelihood.Problem{Points: p1, Obs: z, Model: likelihood.Matern, Nugget: 0.5}
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := likelihood.New(p, 16, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Krige(ev, theta, p2)
	if err != nil {
		t.Fatal(err)
	}
	zw, vw := denseKrige(p1, z, p2, matern.Theta{Sigma2: 1.1, Beta: 0.09, Nu: 0.7}, 0.08)
	for i := range zw {
		if math.Abs(r.Z[i]-zw[i]) > 1e-10 || math.Abs(r.Var[i]-vw[i]) > 1e-10 {
			t.Fatalf("point %d: (%g, %g), dense (%g, %g)", i, r.Z[i], r.Var[i], zw[i], vw[i])
		}
	}
}
