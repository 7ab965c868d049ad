package job

import (
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// sameColumns refuses observed and new locations that differ in their
// extra columns: both or neither must have times (t), and both or neither
// a third coordinate.
func sameColumns(dataPath string, obs *dataset.Data, atPath string, nw *dataset.Data) error {
	if (obs.T != nil) != (nw.T != nil) {
		return badInput("predict: %s and %s must both have a time column (t) or neither", dataPath, atPath)
	}
	if (obs.Z != nil) != (nw.Z != nil) {
		return badInput("predict: %s and %s must both have a third coordinate or neither", dataPath, atPath)
	}
	return nil
}

// checkKernelColumns refuses data that the kernel cannot use: the
// space-time Matérn needs a time column, and a time column needs it.
func checkKernelColumns(path, kernel string, d *dataset.Data) error {
	st := likelihood.Model(kernel) == likelihood.SpaceTimeMatern
	switch {
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
	if cfg.Grid != "" && (st || (d != nil && d.Z != nil)) {
		return badInput("fit: --grid maps 2D locations without times: leave it out for space-time or 3D data")
	}
	return check3D("fit", d, metric)
}

// check3D refuses great-circle distances between 3D locations (d nil: no
// data).
func check3D(cmd string, d *dataset.Data, metric matern.Metric) error {
	if d != nil && d.Z != nil && metric == matern.GreatCircle {
		return badInput("%s: great-circle distances are 2D: 3D locations need --distance euclidean", cmd)
	}
	return nil
}
