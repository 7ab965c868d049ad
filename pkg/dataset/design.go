package dataset

import (
	"fmt"
	"math"
	"strings"
)

// Mean models (Design).
const (
	MeanZero     = "zero"     // no mean: a zero-mean field
	MeanConstant = "constant" // an intercept
	MeanLinear   = "linear"   // intercept, x and y (longitude and latitude)
)

// MeanColumns returns the named columns of a mean model: nil for zero,
// constant and linear, else the comma-separated names of mean.
func MeanColumns(mean string) []string {
	switch mean {
	case "", MeanZero, MeanConstant, MeanLinear:
		return nil
	}
	names := strings.Split(mean, ",")
	for i := range names {
		names[i] = strings.ToLower(strings.TrimSpace(names[i]))
	}
	return names
}

// Design returns the columns of the design matrix X of the mean model
// mean at d's rows, and their names: zero, none (X is empty); constant,
// the intercept (1); linear, (1, x, y) or (1, lon, lat); a
// comma-separated list of d's named columns (Data.Columns), the intercept
// followed by those columns. A name d lacks, or a value that is not
// finite, is an error naming the column (and the row, from 1).
func Design(d *Data, mean string) (names []string, cols [][]float64, err error) {
	n := d.Len()
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	switch mean {
	case "", MeanZero:
		return nil, nil, nil
	case MeanConstant:
		return []string{"intercept"}, [][]float64{one}, nil
	case MeanLinear:
		x, y := d.names()
		return []string{"intercept", x, y}, [][]float64{one, d.X, d.Y}, nil
	}
	names, cols = []string{"intercept"}, [][]float64{one}
	for _, name := range MeanColumns(mean) {
		var col *Column
		for i := range d.Columns {
			if d.Columns[i].Name == name {
				col = &d.Columns[i]
			}
		}
		if col == nil {
			have := make([]string, len(d.Columns))
			for i, c := range d.Columns {
				have[i] = c.Name
			}
			return nil, nil, fmt.Errorf("mean: no column %q (the header's covariate columns: %s)", name, strings.Join(append(have, "none")[:max(len(have), 1)], ","))
		}
		for i, v := range col.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("mean: column %q, row %d: %g is not finite", name, i+1, v)
			}
		}
		names, cols = append(names, name), append(cols, col.Values)
	}
	return names, cols, nil
}
