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

// TestLeaveOneOutMatchesDense: the closed-form leave-one-out residuals and
// variances equal n separate dense kriging predictions, each from the
// other n - 1 points (their own Cholesky factorisation), at fixed theta:
// n = 400 with a nugget, and a smaller problem without one on 3 workers.
func TestLeaveOneOutMatchesDense(t *testing.T) {
	cases := []struct {
		n, nb, workers int
		theta          []float64
		nugget         float64
	}{
		{400, 64, 2, []float64{1.2, 0.1, 0.5}, 0.1},
		{90, 16, 3, []float64{0.8, 0.07, 1.3}, 0},
	}
	if raceOn {
		cases[0].n = 120 // the same check, smaller, under the race detector
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(c.n), 9))
		pts := randomPoints(c.n, rng)
		z := make([]float64, c.n)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		rt := runtime.New(runtime.Options{Workers: c.workers})
		ev, err := likelihood.New(likelihood.Problem{Points: pts, Obs: z, Model: likelihood.Matern, Nugget: c.nugget}, c.nb, rt, false)
		if err != nil {
			t.Fatal(err)
		}
		loo, err := LeaveOneOut(ev, c.theta)
		if err != nil {
			t.Fatal(err)
		}
		rt.Close()
		th := matern.Theta{Sigma2: c.theta[0], Beta: c.theta[1], Nu: c.theta[2]}
		worst := 0.0
		for i := 0; i < c.n; i++ {
			// Krige point i from the others, densely.
			var rest []int
			for j := 0; j < c.n; j++ {
				if j != i {
					rest = append(rest, j)
				}
			}
			m := len(rest)
			s := mat.NewSymDense(m, nil)
			k := mat.NewVecDense(m, nil)
			zr := mat.NewVecDense(m, nil)
			for a, ja := range rest {
				k.SetVec(a, matern.Matern(th, matern.Distance(matern.Euclidean, pts, ja, pts, i)))
				zr.SetVec(a, z[ja])
				for b := 0; b <= a; b++ {
					v := matern.Matern(th, matern.Distance(matern.Euclidean, pts, ja, pts, rest[b]))
					if a == b {
						v += c.nugget
					}
					s.SetSym(a, b, v)
				}
			}
			var ch mat.Cholesky
			if !ch.Factorize(s) {
				t.Fatal("reference not SPD")
			}
			var sk mat.VecDense
			if err := ch.SolveVecTo(&sk, k); err != nil {
				t.Fatal(err)
			}
			pred := mat.Dot(&sk, zr)
			vr := c.theta[0] + c.nugget - mat.Dot(&sk, k)
			e := z[i] - pred
			de := math.Abs(loo.Residual[i]-e) / math.Max(1, math.Abs(e))
			dv := math.Abs(loo.Var[i]-vr) / vr
			worst = max(worst, de, dv)
			if de > 1e-10 || dv > 1e-10 {
				t.Fatalf("n %d, point %d: residual %.15g variance %.15g; dense %.15g %.15g", c.n, i, loo.Residual[i], loo.Var[i], e, vr)
			}
		}
		t.Logf("n %d: largest relative difference %.2g", c.n, worst)
	}
}

// TestLeaveOneOutUniversalMatchesDense: with a mean model (an intercept,
// or 1, x, y) the closed-form leave-one-out residuals and variances equal
// n dense universal krigings, each from the other n - 1 points with the
// mean's coefficients re-estimated by GLS without the point, at fixed
// theta, to 1e-10.
func TestLeaveOneOutUniversalMatchesDense(t *testing.T) {
	cases := []struct {
		name       string
		n, nb      int
		covariates int // 1: intercept; 3: 1, x, y
		theta      []float64
		nugget     float64
	}{
		{"constant", 150, 32, 1, []float64{1.2, 0.1, 0.5}, 0.1},
		{"linear", 120, 25, 3, []float64{0.8, 0.07, 1.3}, 0.02},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.n), 19))
			pts := randomPoints(c.n, rng)
			z := make([]float64, c.n)
			cols := make([][]float64, c.covariates)
			for j := range cols {
				cols[j] = make([]float64, c.n)
			}
			for i := range z {
				row := []float64{1, pts.X[i], pts.Y[i]}
				for j := range cols {
					cols[j][i] = row[j]
				}
				z[i] = 2 + 3*pts.X[i] + rng.NormFloat64()
			}
			rt := runtime.New(runtime.Options{Workers: 2})
			defer rt.Close()
			ev, err := likelihood.New(likelihood.Problem{Points: pts, Obs: z, Model: likelihood.Matern, Nugget: c.nugget, Covariates: cols}, c.nb, rt, false)
			if err != nil {
				t.Fatal(err)
			}
			loo, err := LeaveOneOut(ev, c.theta)
			if err != nil {
				t.Fatal(err)
			}
			th := matern.Theta{Sigma2: c.theta[0], Beta: c.theta[1], Nu: c.theta[2]}
			worst := 0.0
			for i := 0; i < c.n; i++ {
				var rest []int
				for j := 0; j < c.n; j++ {
					if j != i {
						rest = append(rest, j)
					}
				}
				pr := matern.Points{}
				var zr []float64
				xr := make([][]float64, c.covariates)
				x0 := make([][]float64, c.covariates)
				for _, j := range rest {
					pr.X, pr.Y, zr = append(pr.X, pts.X[j]), append(pr.Y, pts.Y[j]), append(zr, z[j])
					for q := range xr {
						xr[q] = append(xr[q], cols[q][j])
					}
				}
				for q := range x0 {
					x0[q] = []float64{cols[q][i]}
				}
				zh, vh := denseUniversal(pr, zr, xr, matern.Points{X: []float64{pts.X[i]}, Y: []float64{pts.Y[i]}}, x0, th, c.nugget)
				pred, vr := zh[0], vh[0]
				e := z[i] - pred
				de := math.Abs(loo.Residual[i]-e) / math.Max(1, math.Abs(e))
				dv := math.Abs(loo.Var[i]-vr) / vr
				worst = max(worst, de, dv)
				if de > 1e-10 || dv > 1e-10 {
					t.Fatalf("point %d: residual %.15g variance %.15g; dense %.15g %.15g", i, loo.Residual[i], loo.Var[i], e, vr)
				}
			}
			t.Logf("largest relative difference %.2g", worst)
		})
	}
}
