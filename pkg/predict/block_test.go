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

// denseBlocks is block kriging's reference, from the joint law of the
// point predictions' errors: at the block's points P with covariates X0,
// the universal-kriging error covariance is
// E = C(P,P) - C(P,X1) S^-1 C(X1,P) + D^T (X^T S^-1 X)^-1 D with
// D = X0^T - X^T S^-1 C(X1,P) (latent field, no nugget), and the block
// mean's prediction and variance are the mean of the point predictions
// and 1^T E 1 / m^2. The direct Matérn (BesselK) and gonum's inverses.
func denseBlocks(p1 matern.Points, z []float64, x [][]float64, b Blocks, x0pts [][]float64, th matern.Theta, nugget float64) (zb, vb []float64) {
	n1, k := len(p1.X), len(x)
	s11 := mat.NewDense(n1, n1, nil)
	s11.Copy(denseSigma11(p1, th, nugget))
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
	sx.Mul(&sinv, xm)
	a.Mul(xm.T(), &sx)
	if err := ainv.Inverse(&a); err != nil {
		panic(err)
	}
	zh, _ := denseUniversal(p1, z, x, b.Points, x0pts, th, nugget)
	for i := 0; i < b.Len(); i++ {
		s, e := b.Start[i], b.Start[i+1]
		m := e - s
		pts := b.points(i)
		c12 := mat.NewDense(n1, m, nil)
		c22 := mat.NewDense(m, m, nil)
		d := mat.NewDense(k, m, nil)
		mean := 0.0
		for j := 0; j < m; j++ {
			mean += zh[s+j] / float64(m)
			for r := 0; r < n1; r++ {
				c12.Set(r, j, matern.Matern(th, matern.Distance(matern.Euclidean, p1, r, pts, j)))
			}
			for q := 0; q < m; q++ {
				c22.Set(j, q, matern.Matern(th, matern.Distance(matern.Euclidean, pts, j, pts, q)))
			}
			for c := 0; c < k; c++ {
				d.Set(c, j, x0pts[c][s+j])
			}
		}
		var sc, q, xsc, dd, e1, e2 mat.Dense
		sc.Mul(&sinv, c12)
		q.Mul(c12.T(), &sc)
		xsc.Mul(xm.T(), &sc)
		d.Sub(d, &xsc)
		dd.Mul(&ainv, d)
		e1.Mul(d.T(), &dd)
		e2.Sub(c22, &q)
		e2.Add(&e2, &e1)
		v := 0.0
		for j := 0; j < m; j++ {
			for q := 0; q < m; q++ {
				v += e2.At(j, q)
			}
		}
		zb, vb = append(zb, mean), append(vb, v/float64(m*m))
	}
	return zb, vb
}

// TestKrigeBlocksMatchesDense: block kriging of four blocks of 1 to 30
// points (a constant and a covariate mean, a nugget) equals the dense
// reference of the joint point errors to 1e-9 relative, on 1 and 3
// workers, with tiles of 16 and 40; a block without points is refused.
func TestKrigeBlocksMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 5))
	p1 := randomPoints(80, rng)
	z, cov := make([]float64, 80), make([]float64, 80)
	for i := range z {
		cov[i] = math.Sin(3 * p1.X[i])
		z[i] = 2 + cov[i] + rng.NormFloat64()
	}
	ones := func(n int) []float64 {
		o := make([]float64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	sizes := []int{1, 12, 30, 5}
	b := Blocks{Start: []int{0}}
	for _, m := range sizes {
		cx, cy := rng.Float64(), rng.Float64()
		for j := 0; j < m; j++ {
			b.Points.X = append(b.Points.X, cx+0.1*rng.Float64())
			b.Points.Y = append(b.Points.Y, cy+0.1*rng.Float64())
		}
		b.Start = append(b.Start, len(b.Points.X))
	}
	n2 := len(b.Points.X)
	x0pts := [][]float64{ones(n2), make([]float64, n2)}
	for j := range x0pts[1] {
		x0pts[1][j] = math.Sin(3 * b.Points.X[j])
	}
	for c := range x0pts { // the blocks' covariates: the means over their points
		b.X0 = append(b.X0, make([]float64, b.Len()))
		for i := 0; i < b.Len(); i++ {
			s := 0.0
			for j := b.Start[i]; j < b.Start[i+1]; j++ {
				s += x0pts[c][j]
			}
			b.X0[c][i] = s / float64(b.Start[i+1]-b.Start[i])
		}
	}
	th := matern.Theta{Sigma2: 1.3, Beta: 0.15, Nu: 0.9}
	theta := []float64{1.3, 0.15, 0.9, 0.08}
	zw, vw := denseBlocks(p1, z, [][]float64{ones(80), cov}, b, x0pts, th, 0.08)
	for _, c := range []struct{ workers, nb int }{{1, 16}, {3, 40}} {
		rt := runtime.New(runtime.Options{Workers: c.workers})
		ev, err := likelihood.New(likelihood.Problem{Points: p1, Obs: z, Model: likelihood.Matern, Covariates: [][]float64{ones(80), cov}}, c.nb, rt, false)
		if err != nil {
			t.Fatal(err)
		}
		r, err := KrigeBlocks(ev, theta, b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range zw {
			if math.Abs(r.Z[i]-zw[i]) > 1e-9*(1+math.Abs(zw[i])) || math.Abs(r.Var[i]-vw[i]) > 1e-9*vw[i] {
				t.Errorf("workers %d nb %d block %d: (%.12g, %.12g), dense (%.12g, %.12g)", c.workers, c.nb, i, r.Z[i], r.Var[i], zw[i], vw[i])
			}
		}
		bad := b
		bad.Start = []int{0, 0, n2}
		bad.X0 = [][]float64{{1, 1}, {0, 0}}
		if _, err := KrigeBlocks(ev, theta, bad); err == nil {
			t.Error("a block without points accepted")
		}
		rt.Close()
	}
}
