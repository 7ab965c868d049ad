package vecchia

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/greedy"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// SelectGreedy returns conditioning sets of m chosen by conditional
// variance (package greedy) at theta among the rows of cand (each
// location's nearest earlier locations in the ordering perm of pr's
// locations): for location i, m of its candidates picked one at a time,
// each the c of the largest Cov(y_i, y_c | y_S)^2 / Var(y_c | y_S) under
// the model's covariance at theta, the nugget on the diagonal. The
// covariances come a row at a time: the Matérn on planar Euclidean points
// for nu other than 1/2, 3/2 and 5/2 from the blocks' own evaluator
// (greedy.GradRows: matern.Grad over [rmin, rmax], rmin the closest pair
// of distinct locations, from each one's nearest earlier candidate, rmax
// the points' diameter), every other kernel by greedy.KernelRows (the
// kernel's own values, bitwise those of its Cov). The bivariate Matérn is
// refused (a location is two variables). Rows are split over workers
// threads; the sets do not depend on them.
func SelectGreedy(pr likelihood.Problem, perm []int, theta []float64, cand *neighbors.Sets, m, workers int) (*neighbors.Sets, error) {
	if pr.Model == likelihood.BivariateMatern {
		return nil, fmt.Errorf("vecchia: the greedy selection reads one covariance a location, not the bivariate Matérn's pairs")
	}
	if len(perm) != pr.Points.Len() || cand.N != len(perm) {
		return nil, fmt.Errorf("vecchia: the greedy selection of %d candidate rows in an ordering of %d for %d locations", cand.N, len(perm), pr.Points.Len())
	}
	q := matern.Points{X: permutedF(pr.Points.X, perm), Y: permutedF(pr.Points.Y, perm), Z: permutedF(pr.Points.Z, perm), T: permutedF(pr.Points.T, perm)}
	rows, err := selectionRows(pr, q, theta, cand, workers)
	if err != nil {
		return nil, err
	}
	return greedy.SelectRows(cand, m, rows, workers)
}

// permutedF returns v in the ordering perm (v[perm[k]] at k; nil for nil).
func permutedF(v []float64, perm []int) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(perm))
	for k, i := range perm {
		out[k] = v[i]
	}
	return out
}

// selectionRows returns the covariance rows SelectGreedy reads at theta
// over the ordered points q.
func selectionRows(pr likelihood.Problem, q matern.Points, theta []float64, cand *neighbors.Sets, workers int) (greedy.Rows, error) {
	tau2 := pr.Tau2(theta)
	rmax := matern.MaxDistance(pr.Metric, q)
	if pr.Model == likelihood.Matern && pr.Metric == matern.Euclidean && q.Z == nil && q.T == nil {
		if nu := theta[2]; nu != 0.5 && nu != 1.5 && nu != 2.5 {
			rmin := 0.0
			if cand.M > 0 {
				first := cand.Prefix(1)
				rmin = closest(pr.Metric, q, 1, 1, first.Idx, workers)
			}
			g, err := matern.NewGrad(matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: nu}, rmin, rmax, false)
			if err != nil {
				return nil, fmt.Errorf("%w (theta %v): %v", likelihood.ErrBadTheta, theta, err)
			}
			return &greedy.GradRows{G: g, Nugget: tau2, P: q}, nil
		}
	}
	k, err := pr.Model.Kernel(theta, rmax)
	if err != nil {
		return nil, fmt.Errorf("%w (theta %v): %v", likelihood.ErrBadTheta, theta, err)
	}
	return &greedy.KernelRows{K: k, Nugget: tau2, Metric: pr.Metric, P: q}, nil
}

// SelectScratch returns the bytes the greedy selection of m among k
// candidates holds per worker thread (package greedy's row scratch: the
// factor's k x m columns, four vectors of k and the covariance row).
func SelectScratch(k, m int) int64 { return 8*int64(k)*int64(m) + 48*int64(k) + 64 }
