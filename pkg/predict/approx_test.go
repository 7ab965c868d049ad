package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// approxEvaluator returns an evaluator of p with the approximate
// computation a on a runtime of the given workers (closed with the test).
func approxEvaluator(t *testing.T, p likelihood.Problem, nb, workers int, a likelihood.Approx) *likelihood.Evaluator {
	t.Helper()
	rt := runtime.New(runtime.Options{Workers: workers})
	t.Cleanup(func() { rt.Close() })
	ev, err := likelihood.NewWith(p, rt, likelihood.Options{NB: nb, Approx: a})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// gridProblem returns n Morton-ordered jittered grid points (the order
// that makes off-diagonal tiles low-rank) with standard normal
// observations.
func gridProblem(n int, seed uint64) likelihood.Problem {
	d := dataset.Grid(n, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	return likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: z, Model: likelihood.Matern}
}

// TestKrigeApproxMatchesDense: kriging on the TLR, mixed-precision and
// DST factors against the dense kriging of gonum (direct Matérn, dense
// Cholesky) at N = 1024, 9 x 9 tiles. The predictor and the variance
// move by the approximation of Sigma only (the cross-covariance is
// exact): at TLR accuracy 1e-9 per tile by ~1e-9, at 1e-5 by ~1e-5
// (the error follows the accuracy), float32 off the band (mp) by ~1e-6;
// dst drops every tile beyond the band and is off by far more (at band 4
// of 9 tile rows Sigma is not even positive definite). Two workers give
// one worker's bits.
func TestKrigeApproxMatchesDense(t *testing.T) {
	const n, n2, nb = 1024, 40, 114
	p := gridProblem(n, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	at := randomPoints(n2, rng)
	theta := []float64{1, 0.1, 0.5}
	th := matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}
	wz, wv := denseKrige(p.Points, p.Obs, at, th, 0)
	cases := []struct {
		a            likelihood.Approx
		tolZ, tolV   float64 // max abs error
		minZ         float64 // the error is at least this (dst: the approximation shows)
		lowRankTiles bool
	}{
		{likelihood.Approx{Computation: likelihood.TLR, Accuracy: 1e-9}, 2e-8, 1e-10, 0, true}, // measured 1.7e-9, 2.2e-15
		{likelihood.Approx{Computation: likelihood.TLR, Accuracy: 1e-5}, 2e-4, 2e-8, 0, true},  // 1.7e-5, 1.5e-9
		{likelihood.Approx{Computation: likelihood.MP, Band: -1}, 3e-5, 2e-7, 0, false},        // 2.4e-6, 2.0e-8
		{likelihood.Approx{Computation: likelihood.DST, Band: 7}, 0.1, 1e-3, 1e-3, false},      // 0.024, 3.0e-5
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/acc=%g/band=%d", c.a.Computation, c.a.Accuracy, c.a.Band), func(t *testing.T) {
			var first *Result
			for _, workers := range []int{1, 2} {
				ev := approxEvaluator(t, p, nb, workers, c.a)
				res, err := Krige(ev, theta, at)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Factored || ev.Computation() != c.a.Computation {
					t.Fatalf("factored %v computation %s", res.Factored, ev.Computation())
				}
				if c.lowRankTiles {
					_, ranks := ev.TileRanks()
					lr := 0
					for _, r := range ranks {
						if r >= 0 {
							lr++
						}
					}
					if lr == 0 {
						t.Fatal("no tile held as U V^T")
					}
				}
				if first != nil {
					if !slices.Equal(res.Z, first.Z) || !slices.Equal(res.Var, first.Var) {
						t.Fatal("2 workers differ from 1 worker")
					}
					continue
				}
				first = res
				var ez, ev2 float64
				for i := range wz {
					ez = math.Max(ez, math.Abs(res.Z[i]-wz[i]))
					ev2 = math.Max(ev2, math.Abs(res.Var[i]-wv[i]))
				}
				t.Logf("max |zhat - dense| %.3g, max |var - dense| %.3g", ez, ev2)
				if ez > c.tolZ || ev2 > c.tolV || ez < c.minZ {
					t.Fatalf("errors %.3g, %.3g: want <= %g, %g (and >= %g)", ez, ev2, c.tolZ, c.tolV, c.minZ)
				}
			}
		})
	}
}

// TestFisherApproxMatchesDense: the Fisher information on the TLR and
// mixed-precision factors against I = 1/2 tr(S^-1 D_j S^-1 D_k) built
// densely by gonum at N = 900 (sigma2 and beta free: D_sigma2 = S/sigma2
// and D_beta analytic through K_{nu-1}).
func TestFisherApproxMatchesDense(t *testing.T) {
	const n, nb = 900, 100
	p := gridProblem(n, 5)
	theta := []float64{1.2, 0.08, 0.5}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	pts := p.Points
	s := denseSigma(pts, pts, func(r float64) float64 { return matern.Matern(th, r) }, 0, true)
	var sinv mat.Dense
	if err := sinv.Inverse(s); err != nil {
		t.Fatal(err)
	}
	a := math.Pow(2, 1-th.Nu) / math.Gamma(th.Nu)
	ds := []*mat.Dense{
		denseSigma(pts, pts, func(r float64) float64 { return matern.Matern(th, r) / th.Sigma2 }, 0, false),
		denseSigma(pts, pts, func(r float64) float64 {
			if r == 0 {
				return 0
			}
			x := r / th.Beta
			return th.Sigma2 * a * math.Pow(x, th.Nu+1) * matern.BesselK(math.Abs(th.Nu-1), x) / th.Beta
		}, 0, false),
	}
	xs := make([]mat.Dense, 2)
	for j := range ds {
		xs[j].Mul(&sinv, ds[j])
	}
	want := [2][2]float64{}
	for j := 0; j < 2; j++ {
		for k := 0; k < 2; k++ {
			var tr float64
			for i := 0; i < n; i++ {
				for l := 0; l < n; l++ {
					tr += xs[j].At(i, l) * xs[k].At(l, i)
				}
			}
			want[j][k] = 0.5 * tr
		}
	}
	cases := []struct {
		a   likelihood.Approx
		tol float64 // relative
	}{
		{likelihood.Approx{Computation: likelihood.TLR, Accuracy: 1e-9}, 1e-9}, // measured 3.6e-12
		{likelihood.Approx{Computation: likelihood.MP, Band: -1}, 1e-7},        // 5.7e-9
	}
	for _, c := range cases {
		t.Run(string(c.a.Computation), func(t *testing.T) {
			var first *Fisher
			for _, workers := range []int{1, 2} {
				ev := approxEvaluator(t, p, nb, workers, c.a)
				f, err := FisherInfo(ev, theta, []bool{true, true, false})
				if err != nil {
					t.Fatal(err)
				}
				if first != nil {
					for j := range f.Info {
						if !slices.Equal(f.Info[j], first.Info[j]) {
							t.Fatal("2 workers differ from 1 worker")
						}
					}
					continue
				}
				first = f
				for j := 0; j < 2; j++ {
					for k := 0; k < 2; k++ {
						rel := math.Abs(f.Info[j][k]-want[j][k]) / math.Abs(want[j][k])
						t.Logf("I[%d][%d] = %.10g, dense %.10g (rel %.1e)", j, k, f.Info[j][k], want[j][k], rel)
						if rel > c.tol {
							t.Errorf("I[%d][%d] rel error %.2g > %g", j, k, rel, c.tol)
						}
					}
				}
			}
		})
	}
}

// TestConditionalDrawsApprox: conditional draws whose kriging solves run
// on the TLR factor (accuracy 1e-9) at N = 1024: their mean and variance
// are gonum's dense kriging's to 2e-8, and each draw (the same seed) is
// the exact factor's draw to 2e-8 (the exact draws are tested against
// the dense conditional law in TestConditionalDraws); bitwise the same on
// 1 and 2 workers.
func TestConditionalDrawsApprox(t *testing.T) {
	const n, n2, nb, k = 1024, 30, 114, 5
	p := gridProblem(n, 3)
	at := randomPoints(n2, rand.New(rand.NewPCG(5, 5)))
	theta := []float64{1, 0.1, 0.5}
	wz, wv := denseKrige(p.Points, p.Obs, at, matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, 0)
	exact, err := ConditionalDraws(approxEvaluator(t, p, nb, 2, likelihood.Approx{}), theta, at, k, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	var first *Draws
	for _, workers := range []int{1, 2} {
		d, err := ConditionalDraws(approxEvaluator(t, p, nb, workers, likelihood.Approx{Computation: likelihood.TLR}), theta, at, k, 7, true)
		if err != nil {
			t.Fatal(err)
		}
		if first != nil {
			for i := range d.Z {
				if !slices.Equal(d.Z[i], first.Z[i]) {
					t.Fatal("2 workers differ from 1 worker")
				}
			}
			continue
		}
		first = d
		var ez, ev, ed float64
		for i := range wz {
			ez = math.Max(ez, math.Abs(d.Result.Z[i]-wz[i]))
			ev = math.Max(ev, math.Abs(d.Result.Var[i]-wv[i]))
		}
		for i := range d.Z {
			ed = math.Max(ed, maxAbsDiff(d.Z[i], exact.Z[i]))
		}
		t.Logf("mean %.2g, variance %.2g (against dense), draws %.2g (against the exact factor's)", ez, ev, ed)
		if ez > 2e-8 || ev > 2e-8 || ed > 2e-8 { // measured 1.7e-9, 2.9e-15, 1.7e-9
			t.Fatalf("errors %.3g %.3g %.3g", ez, ev, ed)
		}
	}
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
