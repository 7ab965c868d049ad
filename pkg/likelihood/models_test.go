package likelihood

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// denseFromCov returns the dense l of obs under the covariance matrix
// cov(i, j), written out in the test (gonum's dense Cholesky).
func denseFromCov(t *testing.T, n int, obs []float64, cov func(i, j int) float64) float64 {
	t.Helper()
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, cov(i, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		t.Fatal("reference: not positive definite")
	}
	z := mat.NewVecDense(n, append([]float64(nil), obs...))
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, z); err != nil {
		t.Fatal(err)
	}
	return -0.5*mat.Dot(z, &x) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
}

// evalAll evaluates l(theta) of p with tile size nb on 1 and 3 workers and
// checks that both give the same bits.
func evalAll(t *testing.T, p Problem, nb int, theta []float64) float64 {
	t.Helper()
	var first float64
	for i, w := range []int{1, 3} {
		rt := runtime.New(runtime.Options{Workers: w})
		ev, err := New(p, nb, rt, false)
		if err != nil {
			rt.Close()
			t.Fatal(err)
		}
		l, _, err := ev.LogLik(theta)
		rt.Close()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = l
		} else if math.Float64bits(l) != math.Float64bits(first) {
			t.Fatalf("workers=%d: l=%.17g, 1 worker %.17g", w, l, first)
		}
	}
	return first
}

// spaceTimeProblem returns ns random sites in the unit square observed at
// nt times 0, 1, ..., nt-1 (time-major), with observations.
func spaceTimeProblem(ns, nt int, seed uint64) Problem {
	rng := rand.New(rand.NewPCG(seed, 2))
	n := ns * nt
	p := Problem{Points: matern.Points{X: make([]float64, n), Y: make([]float64, n), T: make([]float64, n)},
		Obs: make([]float64, n), Model: SpaceTimeMatern}
	for s := 0; s < ns; s++ {
		x, y := rng.Float64(), rng.Float64()
		for k := 0; k < nt; k++ {
			i := k*ns + s
			p.Points.X[i], p.Points.Y[i], p.Points.T[i] = x, y, float64(k)
		}
	}
	for i := range p.Obs {
		p.Obs[i] = rng.NormFloat64()
	}
	return p
}

// TestSpaceTimeLogLikMatchesDense checks l of the space-time Matérn
// against a dense computation whose covariance is written out here from
// Gneiting's formula (psi, the Matérn of the shrunk distance).
func TestSpaceTimeLogLikMatchesDense(t *testing.T) {
	for _, c := range []struct {
		ns, nt, nb int
		nugget     float64
		theta      []float64
	}{
		{20, 3, 16, 0, []float64{1, 0.1, 0.5, 1, 0.5, 0.5, 0}},
		{15, 4, 7, 0.01, []float64{1.3, 0.07, 0.73, 0.4, 0.9, 0.25, 0.3}},
		{25, 2, 64, 0, []float64{2, 0.2, 1.5, 2.5, 1, 1, 1.2}},
		{12, 5, 9, 0, []float64{0.6, 0.05, 2.2, 0.15, 0.3, 0.001, 0}},
	} {
		t.Run(fmt.Sprintf("%dx%d/nb=%d/theta=%v", c.ns, c.nt, c.nb, c.theta), func(t *testing.T) {
			p := spaceTimeProblem(c.ns, c.nt, uint64(c.ns))
			p.Nugget = c.nugget
			th := c.theta
			x, y, tt := p.Points.X, p.Points.Y, p.Points.T
			want := denseFromCov(t, len(p.Obs), p.Obs, func(i, j int) float64 {
				h := math.Hypot(x[i]-x[j], y[i]-y[j])
				psi := math.Pow(math.Abs(tt[i]-tt[j]), 2*th[4])/th[3] + 1
				c := th[0] / math.Pow(psi, th[5]+th[6]) *
					matern.Matern(matern.Theta{Sigma2: 1, Beta: th[1] * math.Pow(psi, th[5]/2), Nu: th[2]}, h)
				if i == j {
					c += p.Nugget
				}
				return c
			})
			got := evalAll(t, p, c.nb, th)
			if rel := math.Abs(got-want) / math.Abs(want); rel > 1e-10 {
				t.Fatalf("l = %.17g, dense %.17g, rel %g", got, want, rel)
			}
		})
	}
}

func TestSpaceTimeNeedsTimes(t *testing.T) {
	p := problem(10, 1)
	p.Model = SpaceTimeMatern
	rt := runtime.New(runtime.Options{Workers: 1})
	defer rt.Close()
	if _, err := New(p, 4, rt, false); err == nil || !strings.Contains(err.Error(), "time") {
		t.Fatalf("points without times: err %v", err)
	}
	p = spaceTimeProblem(5, 2, 1)
	ev, err := New(p, 4, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ev.LogLik([]float64{1, 0.1, 0.5, 1, 1.5, 0.5, 0}); err == nil {
		t.Fatal("alpha 1.5 accepted")
	}
}

// TestLogLik3DMatchesDense checks l on 3D Euclidean locations against a
// dense computation with the 3D distance written out here.
func TestLogLik3DMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 3))
	n := 70
	p := Problem{Points: matern.Points{X: make([]float64, n), Y: make([]float64, n), Z: make([]float64, n)}, Obs: make([]float64, n), Model: Matern}
	for i := range n {
		p.Points.X[i], p.Points.Y[i], p.Points.Z[i] = rng.Float64(), rng.Float64(), 0.3*rng.Float64()
		p.Obs[i] = rng.NormFloat64()
	}
	x, y, z := p.Points.X, p.Points.Y, p.Points.Z
	for _, th := range [][]float64{{1, 0.1, 0.5}, {1.4, 0.07, 0.9}, {0.8, 0.15, 2.5}} {
		want := denseFromCov(t, n, p.Obs, func(i, j int) float64 {
			dx, dy, dz := x[i]-x[j], y[i]-y[j], z[i]-z[j]
			return matern.Matern(matern.Theta{Sigma2: th[0], Beta: th[1], Nu: th[2]}, math.Sqrt(dx*dx+dy*dy+dz*dz))
		})
		got := evalAll(t, p, 16, th)
		if rel := math.Abs(got-want) / math.Abs(want); rel > 1e-10 {
			t.Fatalf("theta %v: l = %.17g, dense %.17g, rel %g", th, got, want, rel)
		}
	}
}

// TestBivariateLogLikMatchesDense checks l of the parsimonious bivariate
// Matérn against a dense computation of the interleaved 2N x 2N
// covariance written out here (Gneiting et al.'s bound from math.Gamma).
func TestBivariateLogLikMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	nl := 40
	loc := matern.Points{X: make([]float64, nl), Y: make([]float64, nl)}
	for i := range nl {
		loc.X[i], loc.Y[i] = rng.Float64(), rng.Float64()
	}
	p := Problem{Points: matern.Interleave(loc), Obs: make([]float64, 2*nl), Model: BivariateMatern}
	for i := range p.Obs {
		p.Obs[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		nb    int
		theta []float64
	}{
		{16, []float64{1, 1, 0.1, 0.5, 0.5, 0.5}},
		{7, []float64{1.3, 0.7, 0.08, 0.73, 1.5, -0.4}},
		{33, []float64{0.9, 2.1, 0.05, 1.2, 2.5, 0.95}},
		{80, []float64{1, 2, 0.1, 0.5, 1.5, 0}},
	} {
		th := c.theta
		nu12 := 0.5 * (th[3] + th[4])
		bound := math.Sqrt(math.Gamma(th[3]+1)*math.Gamma(th[4]+1)/(math.Gamma(th[3])*math.Gamma(th[4]))) * math.Gamma(nu12) / math.Gamma(nu12+1)
		want := denseFromCov(t, 2*nl, p.Obs, func(i, j int) float64 {
			h := math.Hypot(loc.X[i/2]-loc.X[j/2], loc.Y[i/2]-loc.Y[j/2])
			switch {
			case i%2 == 0 && j%2 == 0:
				return matern.Matern(matern.Theta{Sigma2: th[0], Beta: th[2], Nu: th[3]}, h)
			case i%2 == 1 && j%2 == 1:
				return matern.Matern(matern.Theta{Sigma2: th[1], Beta: th[2], Nu: th[4]}, h)
			}
			return th[5] * bound * math.Sqrt(th[0]*th[1]) * matern.Matern(matern.Theta{Sigma2: 1, Beta: th[2], Nu: nu12}, h)
		})
		got := evalAll(t, p, c.nb, th)
		if rel := math.Abs(got-want) / math.Abs(want); rel > 1e-10 {
			t.Fatalf("nb %d theta %v: l = %.17g, dense %.17g, rel %g", c.nb, th, got, want, rel)
		}
	}
	// rho outside [-1, 1] is a theta the model refuses.
	rt := runtime.New(runtime.Options{Workers: 1})
	defer rt.Close()
	ev, err := New(p, 16, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ev.LogLik([]float64{1, 1, 0.1, 0.5, 1.5, 1.2}); !errors.Is(err, ErrBadTheta) || !strings.Contains(err.Error(), "rho") {
		t.Fatalf("rho 1.2: err %v", err)
	}
	// Points not interleaved are refused.
	bad := p
	bad.Points = matern.Points{X: append([]float64(nil), p.Points.X...), Y: p.Points.Y}
	bad.Points.X[1] += 0.5
	if _, err := New(bad, 16, rt, false); err == nil {
		t.Fatal("points not interleaved accepted")
	}
}
