package dataset

import (
	"fmt"
	"math"
)

// Validate checks d before a fit or a prediction:
//
//   - X, Y (and Obs when not nil) have the same length;
//   - there are at least minPoints locations;
//   - every value is finite;
//   - Geographic coordinates lie in longitude [-180, 360] and latitude
//     [-90, 90] degrees;
//   - no two locations have exactly equal coordinates (X, Y, and Z and T
//     when present): the covariance matrix would be singular without a
//     nugget.
//
// Rows are numbered from 1 in the messages. The duplicate check uses a hash
// map and is O(N).
func Validate(d *Data, minPoints int) error { return ValidateWith(d, minPoints, false) }

// ValidateWith is Validate, with duplicate locations accepted when
// duplicates is true: observations under a nugget tau2 > 0, whose
// covariance C + tau2 I is positive definite whatever the locations, and
// prediction locations, over which no matrix is factorised.
func ValidateWith(d *Data, minPoints int, duplicates bool) error {
	if d == nil {
		return fmt.Errorf("no data")
	}
	n := len(d.X)
	if len(d.Y) != n {
		return fmt.Errorf("inconsistent data: %d x values but %d y values", n, len(d.Y))
	}
	if d.Obs != nil && len(d.Obs) != n {
		return fmt.Errorf("inconsistent data: %d locations but %d observations", n, len(d.Obs))
	}
	if d.Obs2 != nil && (len(d.Obs2) != n || d.Obs == nil) {
		return fmt.Errorf("inconsistent data: %d locations but %d first and %d second observations", n, len(d.Obs), len(d.Obs2))
	}
	if (d.Z != nil && len(d.Z) != n) || (d.T != nil && len(d.T) != n) {
		return fmt.Errorf("inconsistent data: %d locations but %d third coordinates and %d times", n, len(d.Z), len(d.T))
	}
	if d.Z != nil && d.Coords == Geographic {
		return fmt.Errorf("a third coordinate needs planar coordinates (x, y): great-circle distances are 2D")
	}
	if d.Coords != Planar && d.Coords != Geographic {
		return fmt.Errorf("unknown coordinate metric %v", d.Coords)
	}
	if n < minPoints {
		return fmt.Errorf("need at least %d locations, got %d", minPoints, n)
	}
	xn, yn := d.names()
	// The columns that must hold finite numbers, in the order a row's are
	// checked; a nil column is absent.
	cols := []struct {
		name string
		v    []float64
	}{{xn, d.X}, {yn, d.Y}, {"z", d.Obs}, {"third coordinate", d.Z}, {"z2", d.Obs2}, {"t", d.T}}
	for i := 0; i < n; i++ {
		for _, c := range cols {
			if c.v == nil {
				continue
			}
			if err := checkFinite(i, c.name, c.v[i]); err != nil {
				return err
			}
		}
		if d.Coords == Geographic {
			if lon := d.X[i]; lon < -180 || lon > 360 {
				return fmt.Errorf("row %d: longitude %g outside [-180, 360] degrees", i+1, lon)
			}
			if lat := d.Y[i]; lat < -90 || lat > 90 {
				return fmt.Errorf("row %d: latitude %g outside [-90, 90] degrees", i+1, lat)
			}
		}
	}
	// Float keys compare with ==, so 0 and -0 are the same location; NaN
	// was rejected above.
	if duplicates {
		return nil
	}
	seen := make(map[[4]float64]int, n)
	for i := 0; i < n; i++ {
		k := [4]float64{d.X[i], d.Y[i]}
		if d.Z != nil {
			k[2] = d.Z[i]
		}
		if d.T != nil {
			k[3] = d.T[i]
		}
		if j, ok := seen[k]; ok {
			return fmt.Errorf("duplicate locations at rows %d and %d: the covariance matrix is singular without a nugget (estimate one: fit with a 4th value in --lb and --ub; or give one: --nugget, or theta's 4th value)", j+1, i+1)
		}
		seen[k] = i
	}
	return nil
}

func checkFinite(i int, name string, v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("row %d: %s is NaN", i+1, name)
	case math.IsInf(v, 0):
		return fmt.Errorf("row %d: %s is %v", i+1, name, v)
	}
	return nil
}
