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
// denseKrigeCond is denseKrige with the condition number of Sigma11.
func denseKrigeCond(p1 matern.Points, z []float64, p2 matern.Points, th matern.Theta, nugget float64) (zhat, v []float64, cond float64) {
	var ch mat.Cholesky
	if !ch.Factorize(denseSigma11(p1, th, nugget)) {
		panic("reference not SPD")
	}
	zhat, v = denseKrige(p1, z, p2, th, nugget)
	return zhat, v, ch.Cond()
}

// denseSigma11 is the covariance matrix of p1 by the direct Matérn, with
// the nugget on its diagonal.
func denseSigma11(p1 matern.Points, th matern.Theta, nugget float64) *mat.SymDense {
	n1 := len(p1.X)
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
	return s11
}

func denseKrige(p1 matern.Points, z []float64, p2 matern.Points, th matern.Theta, nugget float64) (zhat, v []float64) {
	n1, n2 := len(p1.X), len(p2.X)
	s11 := denseSigma11(p1, th, nugget)
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
			res, err := krige(ev, c.theta, p2, nil, c.nb)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Factored {
				t.Fatal("first prediction did not factor")
			}
			th := matern.Theta{Sigma2: c.theta[0], Beta: c.theta[1], Nu: c.theta[2]}
			wz, wv, cond := denseKrigeCond(p1, z, p2, th, c.nugget)
			// Covariances that differ in their last bits (the reference's
			// direct Bessel function against the fast kernels) move the
			// prediction by up to about cond x 1e-16: the smooth nu = 2.5
			// case has cond ~ 1e7-1e8.
			tol := max(1e-10, 1e-16*cond)
			t.Logf("condition number %.3g, tolerance %.2g", cond, tol)
			for i := range wz {
				if math.Abs(res.Z[i]-wz[i]) > tol*math.Max(1, math.Abs(wz[i])) {
					t.Fatalf("zhat[%d] = %.15g, dense %.15g (tolerance %.2g, condition number %.3g)", i, res.Z[i], wz[i], tol, cond)
				}
				if math.Abs(res.Var[i]-wv[i]) > tol*math.Max(1e-3, math.Abs(wv[i])) {
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

// denseUniversal is the textbook universal kriging, densely: b =
// (X' S^-1 X)^-1 X' S^-1 z, zhat = x0' b + s' S^-1 (z - X b), var = C(0) +
// tau2 - s' S^-1 s + d' (X' S^-1 X)^-1 d with d = x0 - X' S^-1 s, s the
// covariances between the observations and the new location.
func denseUniversal(p1 matern.Points, z []float64, x [][]float64, p2 matern.Points, x0 [][]float64, th matern.Theta, nugget float64) (zhat, v []float64) {
	n1, n2, k := len(p1.X), len(p2.X), len(x)
	s11 := mat.NewDense(n1, n1, nil)
	for i := 0; i < n1; i++ {
		for j := 0; j < n1; j++ {
			c := matern.Matern(th, matern.Distance(matern.Euclidean, p1, i, p1, j))
			if i == j {
				c += nugget
			}
			s11.Set(i, j, c)
		}
	}
	var sinv mat.Dense
	if err := sinv.Inverse(s11); err != nil {
		panic(err)
	}
	xm := mat.NewDense(n1, k, nil)
	for c := range x {
		for i := range x[c] {
			xm.Set(i, c, x[c][i])
		}
	}
	var sx, a, ainv mat.Dense
	sx.Mul(&sinv, xm)  // S^-1 X
	a.Mul(xm.T(), &sx) // X' S^-1 X
	if err := ainv.Inverse(&a); err != nil {
		panic(err)
	}
	zv := mat.NewVecDense(n1, z)
	var xsz, b, r, sr mat.VecDense
	xsz.MulVec(sx.T(), zv)
	b.MulVec(&ainv, &xsz)
	r.MulVec(xm, &b)
	r.SubVec(zv, &r)
	sr.MulVec(&sinv, &r)
	for j := 0; j < n2; j++ {
		s := mat.NewVecDense(n1, nil)
		for i := 0; i < n1; i++ {
			s.SetVec(i, matern.Matern(th, matern.Distance(matern.Euclidean, p1, i, p2, j)))
		}
		var ss mat.VecDense
		ss.MulVec(&sinv, s)
		zh := mat.Dot(s, &sr)
		d := mat.NewVecDense(k, nil)
		for c := 0; c < k; c++ {
			zh += x0[c][j] * b.AtVec(c)
			var xs float64
			for i := 0; i < n1; i++ {
				xs += xm.At(i, c) * ss.AtVec(i)
			}
			d.SetVec(c, x0[c][j]-xs)
		}
		var ad mat.VecDense
		ad.MulVec(&ainv, d)
		zhat = append(zhat, zh)
		v = append(v, th.Sigma2+nugget-mat.Dot(s, &ss)+mat.Dot(d, &ad))
	}
	return zhat, v
}

// TestKrigeUniversalMatchesDense: universal kriging (constant and linear
// means, with a nugget parameter) against the dense computation, over
// column widths that split the new locations into several tiles.
func TestKrigeUniversalMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	p1, p2 := randomPoints(90, rng), randomPoints(23, rng)
	z := make([]float64, 90)
	for i := range z {
		z[i] = 5 + 2*p1.X[i] + rng.NormFloat64()
	}
	ones := func(n int) []float64 {
		o := make([]float64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	for _, design := range []string{"constant", "linear"} {
		x, x0 := [][]float64{ones(90)}, [][]float64{ones(23)}
		if design == "linear" {
			x, x0 = append(x, p1.X, p1.Y), append(x0, p2.X, p2.Y)
		}
		theta := []float64{1.2, 0.1, 0.8, 0.05}
		p := likelihood.Problem{Points: p1, Obs: z, Model: likelihood.Matern, Covariates: x}
		rt := runtime.New(runtime.Options{Workers: 2})
		ev, err := likelihood.New(p, 16, rt, false)
		if err != nil {
			t.Fatal(err)
		}
		zw, vw := denseUniversal(p1, z, x, p2, x0, matern.Theta{Sigma2: 1.2, Beta: 0.1, Nu: 0.8}, 0.05)
		for _, cw := range []int{5, colTile} {
			r, err := krige(ev, theta, p2, x0, cw)
			if err != nil {
				t.Fatal(err)
			}
			for i := range zw {
				if math.Abs(r.Z[i]-zw[i]) > 1e-8*(1+math.Abs(zw[i])) || math.Abs(r.Var[i]-vw[i]) > 1e-8*vw[i] {
					t.Fatalf("%s, width %d, point %d: (%.12g, %.12g), dense (%.12g, %.12g)", design, cw, i, r.Z[i], r.Var[i], zw[i], vw[i])
				}
			}
		}
		if _, err := Krige(ev, theta, p2); err == nil {
			t.Fatal("simple kriging of a problem with a mean")
		}
		if _, err := KrigeUniversal(ev, theta, p2, x0[:1]); design == "linear" && err == nil {
			t.Fatal("too few covariates accepted")
		}
		rt.Close()
	}
}
