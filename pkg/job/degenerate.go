package job

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/mle"
)

// Degenerate problems: refused before the work when the data say so,
// explained when the search finds out, flagged when the result is one.

// spreadLimit is the largest span of a coordinate whose squared distances
// stay finite in float64 (1e150 squared is 1e300), and its inverse the
// smallest whose squared distances do not underflow to 0.
const spreadLimit = 1e150

// checkSpread refuses locations from which no covariance can be estimated
// (file src): spread so wide or so narrow that squared distances overflow
// or underflow float64 (every distance infinite or zero), or, for a fit
// (onePoint), all at one point (the range and smoothness are not
// identified; kriging from them is fine).
func checkSpread(src string, d *dataset.Data, onePoint bool) error {
	cols := []struct {
		name string
		v    []float64
	}{{"x", d.X}, {"y", d.Y}, {"z", d.Z}}
	if d.Coords == dataset.Geographic {
		cols[0].name, cols[1].name = "lon", "lat"
	}
	same := true
	for _, c := range cols {
		if len(c.v) == 0 {
			continue
		}
		lo, hi := slices.Min(c.v), slices.Max(c.v)
		span := hi - lo
		switch {
		case span > spreadLimit || math.IsInf(span, 0):
			return badInput("%s: %s spans %.3g: squared distances overflow float64, every correlation would be 0; rescale the coordinates (e.g. to km)", src, c.name, span)
		case span > 0 && span < 1/spreadLimit:
			return badInput("%s: %s spans only %.3g: squared distances underflow float64 to 0; rescale the coordinates", src, c.name, span)
		}
		same = same && span == 0
	}
	if onePoint && same && d.Len() > 1 && d.T == nil {
		return badInput("%s: all %d locations are the same point: the range and the smoothness cannot be estimated (they need distinct locations)", src, d.Len())
	}
	return nil
}

// unusedColumns returns a warning for the covariate columns of d (file src)
// that the mean model does not use, with how to make a third coordinate of
// one named like it; "" when there is none.
func unusedColumns(src string, d *dataset.Data, mean, kernel string) string {
	used := dataset.MeanColumns(mean)
	var unused, coord []string
	for _, c := range d.Columns {
		if slices.Contains(used, strings.ToLower(c.Name)) {
			continue
		}
		unused = append(unused, c.Name)
		switch strings.ToLower(c.Name) {
		case "depth", "height", "elevation", "elev":
			coord = append(coord, c.Name)
		}
	}
	if len(unused) == 0 {
		return ""
	}
	msg := fmt.Sprintf("%s: column %s is read as a covariate that the mean model (--mean %s) does not use", src, strings.Join(unused, ", "), meanName(mean))
	switch m := likelihood.Model(kernel); {
	case len(coord) > 0 && (m == likelihood.AnisoMatern || m == likelihood.BivariateMatern):
		msg += fmt.Sprintf("; kernel %s takes 2D locations, so %s is no coordinate either", kernel, coord[0])
	case len(coord) > 0:
		msg += fmt.Sprintf(" (to make %s a third coordinate, name the observation value or obs: x,y,%s,value)", coord[0], coord[0])
	}
	return msg
}

// searchFailed turns a search in which no evaluation succeeded into bad
// input that says why and what to change (exit status 2).
func searchFailed(cfg config.Fit, err error) error {
	var ns *mle.NoSuccess
	if !errors.As(err, &ns) {
		return err
	}
	var why string
	switch {
	case cfg.Computation == "tlr":
		why = fmt.Sprintf("the tile low-rank factor at --tlr-accuracy %g is not positive definite: lower --tlr-accuracy (default 1e-9)", cfg.TLRAccuracy)
	case cfg.Computation == "mp":
		why = "the mixed-precision factor (float32 beyond --mp-band) is not positive definite: raise --mp-band, or use --computation exact"
	case cfg.Computation == "dst":
		why = "the factor with the tiles beyond --mp-band dropped is not positive definite: raise --mp-band, or use --computation exact"
	case cfg.Nugget == 0 && !config.HasTau2(cfg.Kernel, len(cfg.Lower)):
		why = "the covariance matrix is numerically singular at every theta tried"
		if names, err := config.ParamNames(cfg.Kernel); err == nil && len(names) > 2 && cfg.Lower[2] == cfg.Upper[2] {
			why += fmt.Sprintf(" (%s fixed at %g)", names[2], cfg.Lower[2])
		}
		why += ": not positive definite without a nugget: add one (--nugget 1e-6, or a fourth bound to estimate it)"
	default:
		why = "the covariance matrix is not positive definite at any theta tried: narrow --lb and --ub"
	}
	return badInput("fit: %v: %s", ns, why)
}

// flagApprox warns of an approximation too coarse for the data: a TLR
// accuracy (an absolute error per tile) that is not small against the
// observations' variance leaves l and theta far from the exact ones.
func flagApprox(r *FitResult, cfg config.Fit, obs []float64) {
	if cfg.Computation != "tlr" {
		return
	}
	v, _ := variance(obs)
	if cfg.TLRAccuracy > 1e-3*v {
		r.Warnings = append(r.Warnings, fmt.Sprintf("--tlr-accuracy %g is coarse against the observations' variance %.3g: each tile of the factor may be off by that much, so l and theta may be far from the exact ones (1e-9, the default, to 1e-5 keep them close: docs/approx.md)",
			cfg.TLRAccuracy, v))
	}
}
