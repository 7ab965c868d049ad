package likelihood

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestApproxMeanMatchesDense: a mean model (constant; linear 1, x, y)
// on the TLR and mixed-precision factors: l, b_hat and
// (X' Sigma^-1 X)^-1 (the GLS solves X := L^-1 X run on the approximate
// factor) against the dense gonum computation at N = 900, 9 x 9 tiles,
// bitwise the same on 1 and 2 workers.
func TestApproxMeanMatchesDense(t *testing.T) {
	const n, nb = 900, 100
	theta := []float64{1, 0.1, 0.5}
	for _, design := range []string{"constant", "linear"} {
		p := gridProblem(n, 6)
		one := make([]float64, n)
		for i := range one {
			one[i] = 1
			p.Obs[i] += 2 + 3*p.Points.X[i] - p.Points.Y[i]
		}
		p.Covariates = [][]float64{one}
		if design == "linear" {
			p.Covariates = append(p.Covariates, p.Points.X, p.Points.Y)
		}
		wl, _, wb, wc := denseMean(t, p, theta)
		for _, c := range []struct {
			a   Approx
			tol float64 // relative, on l, b and cov
		}{
			{Approx{Computation: TLR, Accuracy: 1e-9}, 1e-9}, // measured: l 4.3e-11, b 1.6e-10
			{Approx{Computation: MP, Band: -1}, 1e-6},        // l 1.9e-8, b 8.5e-8
		} {
			t.Run(fmt.Sprintf("%s/%s", design, c.a.Computation), func(t *testing.T) {
				var first Stats
				var firstL float64
				for _, workers := range []int{1, 2} {
					l, st := approxLogLik(t, p, nb, workers, c.a, theta)
					if workers > 1 {
						if l != firstL || !slices.Equal(st.Beta, first.Beta) {
							t.Fatal("2 workers differ from 1 worker")
						}
						continue
					}
					first, firstL = st, l
					t.Logf("l %.12g dense %.12g (rel %.1e); beta %v dense %v", l, wl, math.Abs(l-wl)/math.Abs(wl), st.Beta, wb)
					if math.Abs(l-wl) > c.tol*math.Abs(wl) {
						t.Fatalf("l = %.15g, dense %.15g", l, wl)
					}
					for i := range wb {
						if math.Abs(st.Beta[i]-wb[i]) > c.tol*(1+math.Abs(wb[i])) {
							t.Fatalf("beta %v, dense %v", st.Beta, wb)
						}
						for j := range wb {
							if w := wc.At(i, j); math.Abs(st.BetaCov[i][j]-w) > c.tol*math.Abs(wc.At(i, i)) {
								t.Fatalf("cov[%d][%d] = %g, dense %g", i, j, st.BetaCov[i][j], w)
							}
						}
					}
				}
			})
		}
	}
}

// TestSimulateApprox: z = L e with L the TLR, mixed-precision or DST
// factor against gonum's dense Cholesky factor times e at N = 900: the
// draws differ by the approximation only (TLR at accuracy 1e-9 per tile
// by ~1e-9, float32 off the band by ~1e-5), bitwise the same on 1 and 2
// workers.
func TestSimulateApprox(t *testing.T) {
	const n, nb = 900, 100
	p := gridProblem(n, 8)
	theta := []float64{1, 0.1, 0.5}
	e := make([]float64, n)
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, matern.Matern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, matern.Distance(p.Metric, p.Points, i, p.Points, j)))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		t.Fatal("reference not SPD")
	}
	var l mat.TriDense
	ch.LTo(&l)
	var want mat.VecDense
	want.MulVec(&l, mat.NewVecDense(n, e))
	for _, c := range []struct {
		a        Approx
		tol, min float64 // max abs error, and at least (dst)
	}{
		{Approx{Computation: TLR, Accuracy: 1e-9}, 2e-8, 0}, // measured 1.4e-9
		{Approx{Computation: TLR, Accuracy: 1e-5}, 2e-4, 0}, // 2.1e-5
		{Approx{Computation: MP, Band: -1}, 2e-5, 0},        // 1.6e-6
		{Approx{Computation: DST, Band: 7}, 0.05, 1e-3},     // 4.1e-3
	} {
		t.Run(fmt.Sprintf("%s/acc=%g", c.a.Computation, c.a.Accuracy), func(t *testing.T) {
			var first []float64
			for _, workers := range []int{1, 2} {
				rt := runtime.New(runtime.Options{Workers: workers})
				z, err := Simulate(p, theta, e, rt, Options{NB: nb, Approx: c.a}, -1)
				rt.Close()
				if err != nil {
					t.Fatal(err)
				}
				if first != nil {
					if !slices.Equal(z, first) {
						t.Fatal("2 workers differ from 1 worker")
					}
					continue
				}
				first = z
				var d float64
				for i := range z {
					d = math.Max(d, math.Abs(z[i]-want.AtVec(i)))
				}
				t.Logf("max |z - L e| %.3g", d)
				if d > c.tol || d < c.min {
					t.Fatalf("max |z - L e| = %.3g, want <= %g (and >= %g)", d, c.tol, c.min)
				}
			}
		})
	}
}

// TestMemoryNeedApprox: the tiles of the approximate computations are
// budgeted in their formats (MemoryNeed, TileBytes), against sums by hand for N = 1000, nb = 100
// (10 x 10 tiles, 55 lower tiles of 10^4 entries, 10 diagonal) on one
// rank: mp and dst with band 1 (19 dense tiles, 36 float32 or dropped),
// tlr with a rank estimate of 13 (16 after rounding to a multiple of 8:
// 45 tiles of 1 + 200 x 16 words) and without one (dense).
func TestMemoryNeedApprox(t *testing.T) {
	const n, nb = 1000, 100
	exact := MemoryNeed(n, Options{NB: nb}, 1)[0]
	dense := int64(8 * nb * nb)
	rest := exact - 55*dense // the same in all: workspaces, vectors, Overhead
	for _, c := range []struct {
		a    Approx
		want int64
	}{
		{Approx{Computation: MP, Band: 1}, 19*dense + 36*4*nb*nb},
		{Approx{Computation: DST, Band: 1}, 19 * dense},
		{Approx{Computation: TLR, RankEstimate: 13}, 10*dense + 45*8*(1+200*16)},
		{Approx{Computation: TLR}, 55 * dense},
	} {
		if got := MemoryNeed(n, Options{NB: nb, Approx: c.a}, 1)[0] - rest; got != c.want {
			t.Errorf("%+v: tiles %d bytes, want %d", c.a, got, c.want)
		}
		if got := TileBytes(n, Options{NB: nb, Approx: c.a}); got != c.want {
			t.Errorf("%+v: TileBytes %d, want %d", c.a, got, c.want)
		}
	}
}
