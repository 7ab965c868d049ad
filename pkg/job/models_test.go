package job

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/matern"
)

// denseNuggetLogLik is the reference log-likelihood of zero-mean data z at
// points (x, y) for the Matérn theta = (sigma2, beta, nu, tau2): Sigma =
// sigma2 R + tau2 I built entry by entry and factorised by gonum.
func denseNuggetLogLik(t *testing.T, x, y, z []float64, theta []float64) float64 {
	t.Helper()
	n := len(z)
	pts := matern.Points{X: x, Y: y}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			c := matern.Matern(th, matern.Distance(matern.Euclidean, pts, i, pts, j))
			if i == j {
				c += theta[3]
			}
			s.SetSym(i, j, c)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("reference: not positive definite")
	}
	var w mat.VecDense
	zv := mat.NewVecDense(n, append([]float64(nil), z...))
	if err := ch.SolveVecTo(&w, zv); err != nil {
		t.Fatal(err)
	}
	return -0.5*mat.Dot(zv, &w) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
}

// nuggetData writes n random points (with duplicates) and a draw of the
// field with theta = (1, 0.1, 0.5) plus white noise of variance tau2.
func nuggetData(t *testing.T, n int, tau2 float64) (path string, x, y, z []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 7))
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	for i := 0; i < 6; i++ { // duplicate locations: legal with a nugget
		x[n-1-i], y[n-1-i] = x[i], y[i]
	}
	pts := matern.Points{X: x, Y: y}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s.SetSym(i, j, matern.Matern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, matern.Distance(matern.Euclidean, pts, i, pts, j))+map[bool]float64{true: 1e-10}[i == j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	e := make([]float64, n)
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	var f mat.VecDense
	f.MulVec(&l, mat.NewVecDense(n, e))
	z = make([]float64, n)
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range z {
		z[i] = f.AtVec(i) + math.Sqrt(tau2)*rng.NormFloat64()
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g\n", x[i], y[i], z[i])
	}
	path = filepath.Join(t.TempDir(), "nugget.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, x, y, z
}

// TestFitNuggetEstimated: four bounds make tau2 the fourth parameter; the
// data have duplicate locations (legal then, refused without a nugget);
// the reported l is the dense l at the reported theta, and no point of a
// small grid around the estimate is higher; the JSON's nugget is the
// estimate and predict --theta-from takes it.
func TestFitNuggetEstimated(t *testing.T) {
	data, x, y, z := nuggetData(t, 150, 0.2)
	f := config.DefaultFit()
	f.Data, f.NB, f.Workers = data, 40, 2
	if _, err := Fit(f, Env{}); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicates without a nugget: %v", err)
	}
	f.Lower, f.Upper = []float64{0.01, 0.005, 0.5, 1e-4}, []float64{10, 2, 0.5, 5}
	f.JSON = filepath.Join(t.TempDir(), "r.json")
	r, err := Fit(f, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Theta) != 4 || strings.Join(r.Params, ",") != "sigma2,beta,nu,tau2" || r.Nugget != r.Theta[3] {
		t.Fatalf("params %v theta %v nugget %v", r.Params, r.Theta, r.Nugget)
	}
	want := denseNuggetLogLik(t, x, y, z, r.Theta)
	if math.Abs(r.LogLik-want) > 1e-10*math.Abs(want) {
		t.Fatalf("l = %.15g, dense at the estimate %.15g", r.LogLik, want)
	}
	for _, d := range [][]float64{{1.05, 1, 1, 1}, {0.95, 1, 1, 1}, {1, 1.05, 1, 1}, {1, 0.95, 1, 1}, {1, 1, 1, 1.1}, {1, 1, 1, 0.9}} {
		th := []float64{r.Theta[0] * d[0], r.Theta[1] * d[1], r.Theta[2], r.Theta[3] * d[3]}
		if l := denseNuggetLogLik(t, x, y, z, th); l > r.LogLik+1e-6 {
			t.Errorf("dense l at %v = %.10g, above the fit's %.10g", th, l, r.LogLik)
		}
	}
	t.Logf("theta %v l %.10g evaluations %d status %s", r.Theta, r.LogLik, r.Evaluations, r.Status)
	if r.Theta[3] < 0.05 || r.Theta[3] > 0.6 {
		t.Errorf("tau2 = %g, simulated with 0.2", r.Theta[3])
	}
	back, err := ReadFitResult(f.JSON)
	if err != nil {
		t.Fatal(err)
	}
	p := config.DefaultPredict()
	if err := back.ApplyTo(&p, f.JSON, func(string) bool { return false }); err != nil || p.Nugget != r.Theta[3] || len(p.Theta) != 3 {
		t.Fatalf("theta-from: %v %+v", err, p)
	}
}
