package job

import (
	"fmt"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/transform"
	"github.com/exageostat/exageostat/pkg/variogram"
)

// semivariogramValues returns the values whose semivariogram describes
// the fit of d with the mean model mean, and what they are (z names the
// observation: "log(zinc)"): the
// observations themselves for a zero or constant mean, else the residuals
// of the mean's ordinary least squares fit (variogram.OLSResiduals:
// gstat's variogram(z ~ covariates)), whose semivariogram is that of the
// field the covariance models, where the observations' own would add the
// mean's spread.
func semivariogramValues(d *dataset.Data, mean, z string) (v []float64, what string, err error) {
	names, cols, err := dataset.Design(d, mean)
	if err != nil {
		return nil, "", badInput("--mean %s: %v", mean, err)
	}
	if len(cols) <= 1 {
		return d.Obs, "points: the observations " + z, nil
	}
	r, _, err := variogram.OLSResiduals(d.Obs, cols)
	if err != nil {
		return nil, "", badInput("--mean %s: %v", mean, err)
	}
	return r, "points: OLS residuals of " + z + " ~ " + strings.Join(names[1:], " + "), nil
}

// obsLabel names the observations of d read as c says: the column's name
// (z when it has none), inside the transform's ("log(zinc)").
func obsLabel(d *dataset.Data, c config.Columns) string {
	z := d.ObsName
	if z == "" {
		z = "z"
	}
	if t := c.Transformation(); t.Kind != transform.None {
		z = t.String() + "(" + z + ")"
	}
	return z
}

// fitVariogramOptions are the bins of fit --plot's semivariogram: gstat's
// defaults (cutoff a third of the bounding box's diagonal, 15 bins), bins
// of fewer than variogram.DefaultMinPairs pairs left out, at most
// 2,000,000 pairs drawn (seeded by seed).
func fitVariogramOptions(seed uint64) variogram.Options {
	return variogram.Options{MinPairs: variogram.DefaultMinPairs, MaxPairs: 2_000_000, Seed: seed}
}

// binDist, binGamma and binPairs return the mean distances, semivariances
// and pair counts of bins.
func binDist(bins []variogram.Bin) []float64 {
	v := make([]float64, len(bins))
	for k, b := range bins {
		v[k] = b.Dist
	}
	return v
}

func binGamma(bins []variogram.Bin) []float64 {
	v := make([]float64, len(bins))
	for k, b := range bins {
		v[k] = b.Gamma
	}
	return v
}

func binPairs(bins []variogram.Bin) []int {
	v := make([]int, len(bins))
	for k, b := range bins {
		v[k] = b.Pairs
	}
	return v
}

// sparseNote says how many bins of s were left out for having fewer than
// s.MinPairs pairs ("" when none).
func sparseNote(s *variogram.Sample) string {
	if len(s.Sparse) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d bins of < %d pairs left out", len(s.Sparse), s.MinPairs)
}
