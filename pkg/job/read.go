package job

import (
	"fmt"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/transform"
)

// readOptions returns the reader's options of a data file (locations
// false: the observations are read) or of prediction locations, as the
// keys z, coords, time, na and dec say, with the mean model's covariates.
func readOptions(c config.Columns, mean string, locations bool) dataset.Options {
	return dataset.Options{Z: c.Z, Coords: c.Coords, Time: c.Time, Covariates: dataset.MeanColumns(mean),
		NA: c.NA, Decimal: c.Decimal(), Locations: locations}
}

// readData reads the observations of a CSV data file, b its content
// read already (Inputs), as c says, with the mean's covariates, parsed
// on workers threads (dataset.ParseCSV), and
// applies c's transform to the observations: an *InputError when a value
// is outside the transform's domain.
func readData(path string, b []byte, c config.Columns, mean, kernel string, workers int) (*dataset.Data, error) {
	d, err := dataset.ParseCSV(path, b, readOptions(c, mean, false), workers)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if err := transformData(path, c, kernel, d); err != nil {
		return nil, err
	}
	return d, nil
}

// transformData applies c's transform to d's observations in place.
func transformData(src string, c config.Columns, kernel string, d *dataset.Data) error {
	t := c.Transformation()
	if t.Kind == transform.None || d.Obs == nil {
		return nil
	}
	if d.Obs2 != nil || kernel == config.BivariateKernel {
		return badInput("%s: --transform %s is for one observed variable (not bivariate data)", src, c.Transform)
	}
	if err := t.Apply(d.Obs); err != nil {
		return badInput("%s: --transform %s: data %v", src, c.Transform, err)
	}
	return nil
}

// dimsNote describes the locations of d for the fit: line: "" for 2D,
// " 3D (x,y,depth)" when a third coordinate was read, and the transform.
func dimsNote(d *dataset.Data, c config.Columns) string {
	s := ""
	if d != nil && d.Z != nil {
		x, y := "x", "y"
		if parts := strings.Split(c.Coords, ","); len(parts) == 3 {
			x, y = strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
		}
		s += " 3D (" + x + "," + y + "," + d.ZName + ")"
	}
	if c.Transform != "" && c.Transform != "none" {
		s += " transform=" + c.Transformation().String()
	}
	return s
}

// describeData records in r how the data were read: the columns as given
// (predict --theta-from reads the same way), the transform, the number of
// spatial dimensions, the observation's column and the rows dropped.
func (r *FitResult) describeData(d *dataset.Data, c config.Columns) {
	if c != (config.Columns{}) {
		cc := c
		r.Columns = &cc
	}
	r.Transform = c.Transformation().String()
	r.Dimensions = 2
	if d == nil {
		return
	}
	if d.Z != nil {
		r.Dimensions = 3
	}
	r.Observation, r.DroppedRows = d.ObsName, d.Dropped
}

// predictionColumns returns predict's table: the coordinates of nw (and
// its third coordinate and time), then the predictions z, their
// variances v and the draws on the scales cfg asks for. Without a
// transform: z_hat, variance, draw_1, ... With one (prefix P: log, sqrt,
// ...): on the transformed scale P_z_hat, P_variance, P_draw_k; on the
// original scale z_hat, variance (transform.T.Back: the mean and variance
// of g^-1(Y), Y ~ N(z, v)) and draw_k = g^-1(draw); both (the default):
// the transformed prediction and variance, then the original scale's
// three.
func predictionColumns(cfg config.Predict, nw *dataset.Data, z, v []float64, draws [][]float64) ([]string, [][]float64) {
	hdr := []string{"x", "y"}
	if nw.Coords == dataset.Geographic {
		hdr = []string{"lon", "lat"}
	}
	hdr, cols := withColumns(nw, hdr, [][]float64{nw.X, nw.Y})
	t := cfg.Transformation()
	scale := cfg.Scale
	switch {
	case t.Kind == transform.None:
		scale = config.ScaleTransformed
	case scale == "":
		scale = config.ScaleBoth
	}
	p := t.Prefix()
	if p != "" {
		p += "_"
	}
	if scale != config.ScaleOriginal {
		hdr, cols = append(hdr, p+"z_hat", p+"variance"), append(cols, z, v)
		if scale == config.ScaleTransformed {
			for i, d := range draws {
				hdr, cols = append(hdr, fmt.Sprintf("%sdraw_%d", p, i+1)), append(cols, d)
			}
			return hdr, cols
		}
	}
	bz, bv := make([]float64, len(z)), make([]float64, len(z))
	for i := range z {
		bz[i], bv[i] = t.Back(z[i], v[i])
	}
	hdr, cols = append(hdr, "z_hat", "variance"), append(cols, bz, bv)
	for i, d := range draws {
		b := make([]float64, len(d))
		for j, y := range d {
			b[j] = t.Inverse(y)
		}
		hdr, cols = append(hdr, fmt.Sprintf("draw_%d", i+1)), append(cols, b)
	}
	return hdr, cols
}

// droppedNote is " (N rows dropped for a missing value)" when the reader
// dropped rows of d, for a message about what is left.
func droppedNote(d *dataset.Data) string {
	switch d.Dropped {
	case 0:
		return ""
	case 1:
		return " (1 row dropped for a missing value)"
	}
	return fmt.Sprintf(" (%d rows dropped for a missing value)", d.Dropped)
}
