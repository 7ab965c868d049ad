package vecchia

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/greedy"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// TestSelectGreedy: SelectGreedy's sets are greedy.Select's with the
// covariance an entry at a time (the kernel at matern.Distance between the
// ordered points, plus the nugget on the diagonal, written out here) among
// the same candidates (the 24 nearest earlier points by brute force in
// the same ordering), for a closed-form Matérn (KernelRows), a Matérn of
// general nu (GradRows: matern.Grad's values, within 1e-14 of the
// kernel's) and the powered exponential, on 1 and 3 workers; the
// bivariate Matérn is refused.
func TestSelectGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 5))
	const n, k, m = 400, 24, 8
	pts := randomPoints(rng, n, false)
	perm := rng.Perm(n)
	ord := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for q, i := range perm {
		ord.X[q], ord.Y[q] = pts.X[i], pts.Y[i]
	}
	cand := &neighbors.Sets{N: n, M: k, Idx: bruteSets(matern.Euclidean, ord, n, 1, k)}
	for _, c := range []struct {
		name  string
		model likelihood.Model
		theta []float64
		kern  matern.Kernel
	}{
		{"matern nu 0.5", likelihood.Matern, []float64{1, 0.1, 0.5, 0.1}, nil},
		{"matern nu 1.3", likelihood.Matern, []float64{1, 0.1, 1.3, 0.05}, nil},
		{"powexp", likelihood.PowExp, []float64{1.5, 0.2, 1.4, 0.1}, matern.PowExp{Sigma2: 1.5, Beta: 0.2, Delta: 1.4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			kern := c.kern
			if kern == nil {
				var err error
				if kern, err = matern.NewMatern(matern.Theta{Sigma2: c.theta[0], Beta: c.theta[1], Nu: c.theta[2]}, 2); err != nil {
					t.Fatal(err)
				}
			}
			cov := func(i, j int) float64 {
				v := kern.Cov(matern.Distance(matern.Euclidean, ord, i, ord, j))
				if i == j {
					v += c.theta[3]
				}
				return v
			}
			want, err := greedy.Select(cand, m, cov, 1)
			if err != nil {
				t.Fatal(err)
			}
			pr := likelihood.Problem{Points: pts, Model: c.model, Obs: make([]float64, n)}
			for _, w := range []int{1, 3} {
				got, err := SelectGreedy(pr, perm, c.theta, cand, m, w)
				if err != nil {
					t.Fatal(err)
				}
				if got.M != m || !slices.Equal(got.Idx, want.Idx) {
					diff := 0
					for i := range n {
						if !slices.Equal(got.Row(i), want.Row(i)) {
							diff++
						}
					}
					t.Errorf("%d workers: %d of %d rows differ from greedy.Select's", w, diff, n)
				}
			}
		})
	}
	biv := likelihood.Problem{Points: matern.Interleave(pts), Model: likelihood.BivariateMatern}
	if _, err := SelectGreedy(biv, perm, []float64{1, 1, 0.1, 0.5, 0.5, 0.3}, cand, m, 1); err == nil {
		t.Error("the bivariate Matérn: no error")
	}
}
