package job

import (
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/mle"
)

// sameColumns refuses observed and new locations that differ in their
// extra columns: both or neither must have times (t), and both or neither
// a third coordinate.
func sameColumns(cmd, dataPath string, obs *dataset.Data, atPath string, nw *dataset.Data) error {
	if (obs.T != nil) != (nw.T != nil) {
		return badInput("%s: %s and %s must both have a time column (t) or neither", cmd, dataPath, atPath)
	}
	if (obs.Z != nil) != (nw.Z != nil) {
		return badInput("%s: %s and %s must both have a third coordinate or neither", cmd, dataPath, atPath)
	}
	return nil
}

// checkKernelColumns refuses data that the kernel cannot use: the
// space-time Matérn needs a time column, and a time column needs it.
func checkKernelColumns(path, kernel string, d *dataset.Data) error {
	st := likelihood.Model(kernel) == likelihood.SpaceTimeMatern
	bi := likelihood.Model(kernel) == likelihood.BivariateMatern
	switch {
	case bi && d.Obs2 == nil:
		return badInput("%s: kernel %s needs two observation columns (a header such as x,y,z1,z2)", path, kernel)
	case !bi && d.Obs2 != nil:
		return badInput("%s: the data have two observed variables (z1, z2): use --kernel %s", path, likelihood.BivariateMatern)
	case bi && (d.T != nil || d.Z != nil):
		return badInput("%s: kernel %s takes 2D locations without times (its rho bound is the plane's)", path, kernel)
	case st && d.T == nil:
		return badInput("%s: kernel %s needs a time column (a header such as x,y,t,z)", path, kernel)
	case !st && d.T != nil:
		return badInput("%s: the data have a time column: use --kernel spacetime-matern (kernel %s has no time)", path, kernel)
	}
	return nil
}

// withColumns inserts d's third coordinate and time after the first two
// columns of a table (header z and t).
func withColumns(d *dataset.Data, hdr []string, cols [][]float64) ([]string, [][]float64) {
	h := append([]string(nil), hdr[:2]...)
	c := append([][]float64(nil), cols[:2]...)
	if d.Z != nil {
		h, c = append(h, "z"), append(c, d.Z)
	}
	if d.T != nil {
		h, c = append(h, "t"), append(c, d.T)
	}
	return append(h, hdr[2:]...), append(c, cols[2:]...)
}

// checkFitColumns refuses the fit options that need 2D locations without
// times: the prediction grid of --grid (a map of x, y), and great-circle
// distances of 3D locations. d is nil for simulated data.
func checkFitColumns(cfg config.Fit, d *dataset.Data, metric matern.Metric) error {
	st := likelihood.Model(cfg.Kernel) == likelihood.SpaceTimeMatern
	if likelihood.Model(cfg.Kernel) == likelihood.BivariateMatern {
		switch {
		case d == nil:
			return badInput("fit: kernel %s fits data (--data x,y,z1,z2; exageostat simulate --kernel %s writes some)", cfg.Kernel, cfg.Kernel)
		case cfg.Holdout > 0 || cfg.Plot != "":
			return badInput("fit: --holdout and --plot are for univariate kernels (co-kriging: exageostat predict --kernel %s)", cfg.Kernel)
		}
	}
	if cfg.Grid != "" && (st || (d != nil && d.Z != nil)) {
		return badInput("fit: --grid maps 2D locations without times: leave it out for space-time or 3D data")
	}
	return check3D("fit", cfg.Kernel, d, metric)
}

// check3D refuses great-circle distances between 3D locations (d nil: no
// data), and the anisotropic Matérn with great-circle distances (lon,lat
// data with --distance auto) or 3D locations.
func check3D(cmd, kernel string, d *dataset.Data, metric matern.Metric) error {
	if d != nil && d.Z != nil && metric == matern.GreatCircle {
		return badInput("%s: great-circle distances are 2D: 3D locations need --distance euclidean", cmd)
	}
	if likelihood.Model(kernel) == likelihood.AnisoMatern {
		switch {
		case metric == matern.GreatCircle:
			return badInput("%s: kernel %s is defined on planar x, y with Euclidean distances (its angle and ratio are an ellipse in the plane), not on lon,lat with great-circle distances: project the data to x,y first", cmd, kernel)
		case d != nil && d.Z != nil:
			return badInput("%s: kernel %s takes 2D locations x,y (no third coordinate)", cmd, kernel)
		}
	}
	return nil
}

// variables returns the number of observed variables per location of a
// model (2 for the bivariate Matérn): the covariance matrix of N
// locations has order variables * N.
func variables(m likelihood.Model) int {
	if m == likelihood.BivariateMatern {
		return 2
	}
	return 1
}

// bivariateColumns appends the co-kriging predictions of both variables,
// z and v interleaved per location (z1_hat, z1_variance, z2_hat,
// z2_variance).
func bivariateColumns(hdr []string, cols [][]float64, z, v []float64) ([]string, [][]float64) {
	n := len(z) / 2
	out := [4][]float64{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := range n {
		out[0][i], out[1][i], out[2][i], out[3][i] = z[2*i], v[2*i], z[2*i+1], v[2*i+1]
	}
	return append(hdr, "z1_hat", "z1_variance", "z2_hat", "z2_variance"), append(cols, out[:]...)
}

// problemData returns the likelihood problem's points and observations of
// d (mle.ProblemData: interleaved for the bivariate Matérn).
func problemData(d *dataset.Data, model likelihood.Model) (matern.Points, []float64) {
	return mle.ProblemData(d, model)
}

// predictAt returns the points to predict at nw's locations: both
// variables of each location for the bivariate Matérn (co-kriging).
func predictAt(nw *dataset.Data, model likelihood.Model) matern.Points {
	if model == likelihood.BivariateMatern {
		return matern.Interleave(points(nw))
	}
	return points(nw)
}
