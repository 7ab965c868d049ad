package bench

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// TestVecchiaBench: with every earlier location in the sets (m = N-1)
// the benchmark's l is the exact profile log-likelihood of its problem
// (a dense GLS in the test, gonum's Cholesky); the floor and the ratio
// follow from the counts and the rates; the phases' worker seconds fit in
// the workers' wall time.
func TestVecchiaBench(t *testing.T) {
	const n = 150
	theta := []float64{1.2, 0.1, 0.9, 0.15}
	r, err := VecchiaBench(VecchiaOptions{N: n, M: n - 1, Workers: 2, Reps: 1, Theta: theta, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := denseProfileL(t, vecchiaProblem(n, 3), theta)
	if d := math.Abs(r.LogLik-want) / math.Abs(want); !(d < 1e-9) {
		t.Errorf("l %.15g, dense %.15g (relative %.2g)", r.LogLik, want, d)
	}
	floor := r.CholFlops/r.PotrfRate + r.SolveFlops/r.GemmRate + r.Entries/r.GenRate + r.GradFlops/r.GemmRate
	if math.Abs(r.Floor-floor) > 1e-12*floor || math.Abs(r.Ratio-r.Seconds/r.Floor) > 1e-12*r.Ratio || !(r.Floor > 0) {
		t.Errorf("floor %g (want %g), ratio %g (seconds %g)", r.Floor, floor, r.Ratio, r.Seconds)
	}
	for _, c := range []struct {
		name        string
		busy        map[string]float64
		wall, share float64
	}{{"with gradient", r.Busy, r.TimedSeconds, r.BusyShare}, {"l alone", r.LBusy, r.LTimedSeconds, r.LBusyShare}} {
		busy := 0.0
		for _, v := range c.busy {
			busy += v
		}
		if !(busy > 0 && busy <= 2*c.wall*1.05+0.01) || math.Abs(c.share-busy/(2*c.wall)) > 1e-9 {
			t.Errorf("%s: worker seconds %g for %g s on 2 workers (share %g)", c.name, busy, c.wall, c.share)
		}
	}
	if r.LBusy["derivatives"] != 0 || !(r.Busy["derivatives"] > 0) {
		t.Errorf("derivatives' worker seconds %g alone, %g with the gradient", r.LBusy["derivatives"], r.Busy["derivatives"])
	}
}

// denseProfileL returns the Gaussian log-likelihood of p's values under
// the Matérn covariance (theta: sigma2, beta, nu, tau2) with the mean of
// p's covariates profiled by GLS, from the dense matrix.
func denseProfileL(t *testing.T, p likelihood.Problem, theta []float64) float64 {
	t.Helper()
	n := len(p.Obs)
	k, err := likelihood.Matern.Kernel(theta[:3], 2)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]float64, n*n)
	matern.FillTile(k, theta[3], matern.Euclidean, p.Points, 0, n, p.Points, 0, n, true, s, n)
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			a.SetSym(i, j, s[i+j*n])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("dense: not positive definite")
	}
	x := mat.NewDense(n, 1, p.Covariates[0])
	z := mat.NewVecDense(n, p.Obs)
	var six, siz mat.Dense
	if err := ch.SolveTo(&six, x); err != nil {
		t.Fatal(err)
	}
	if err := ch.SolveTo(&siz, z); err != nil {
		t.Fatal(err)
	}
	var xsx, xsz mat.Dense
	xsx.Mul(x.T(), &six)
	xsz.Mul(x.T(), &siz)
	beta := xsz.At(0, 0) / xsx.At(0, 0)
	r := make([]float64, n)
	for i := range r {
		r[i] = p.Obs[i] - beta
	}
	var sr mat.VecDense
	if err := ch.SolveVecTo(&sr, mat.NewVecDense(n, r)); err != nil {
		t.Fatal(err)
	}
	q := mat.Dot(mat.NewVecDense(n, r), &sr)
	return -0.5 * (float64(n)*math.Log(2*math.Pi) + ch.LogDet() + q)
}
