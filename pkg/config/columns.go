package config

import (
	"fmt"
	"strings"

	"github.com/exageostat/exageostat/pkg/transform"
)

// Columns says how a data file is read (the keys z, coords, time, na,
// dec) and which transform of the observation is modelled (transform):
// fit's, predict's and cv's. Empty values guess the columns from the
// header's names (dataset.Options).
type Columns struct {
	// Z is the observation column (or two, bivariate), by name or number.
	Z string `toml:"z" json:"z,omitempty"`
	// Coords are the coordinate columns X,Y or X,Y,Z (3D).
	Coords string `toml:"coords" json:"coords,omitempty"`
	// Time is the time column (space-time data).
	Time string `toml:"time" json:"time,omitempty"`
	// NA is what a missing value in a column read does: drop (its row;
	// the default) or error.
	NA string `toml:"na" json:"na,omitempty"`
	// Dec is the decimal mark: "." (the default) or ",".
	Dec string `toml:"dec" json:"dec,omitempty"`
	// Transform is the transform the model is fitted on: log, log1p,
	// sqrt or boxcox:LAMBDA ("" none).
	Transform string `toml:"transform" json:"transform,omitempty"`
	// CRS is the coordinates' reference system (EPSG:28992, WKT, a PROJ
	// string: what GDAL reads), written with the points of a GeoPackage
	// --out; "" for none (lon/lat data: EPSG:4326).
	CRS string `toml:"crs" json:"crs,omitempty"`
}

// Validate checks c and returns the key that is wrong with a one-line
// message, or "" and nil.
func (c Columns) Validate() (key string, err error) {
	count := func(s string) int {
		if strings.TrimSpace(s) == "" {
			return 0
		}
		n := 0
		for _, p := range strings.Split(s, ",") {
			if strings.TrimSpace(p) == "" {
				return -1
			}
			n++
		}
		return n
	}
	switch n := count(c.Z); {
	case n < 0 || n > 2:
		return "z", fmt.Errorf("--z %q: give one column (a name or a number from 1), or two for bivariate data", c.Z)
	}
	switch n := count(c.Coords); {
	case n != 0 && n != 2 && n != 3:
		return "coords", fmt.Errorf("--coords %q: give two columns X,Y or three X,Y,Z (names or numbers from 1)", c.Coords)
	}
	if n := count(c.Time); n != 0 && n != 1 {
		return "time", fmt.Errorf("--time %q: give one column", c.Time)
	}
	switch c.NA {
	case "", "drop", "error":
	default:
		return "na", fmt.Errorf("--na must be drop or error, got %q", c.NA)
	}
	switch c.Dec {
	case "", ".", ",":
	default:
		return "dec", fmt.Errorf("--dec must be . or , (the decimal mark), got %q", c.Dec)
	}
	if _, err := transform.Parse(c.Transform); err != nil {
		return "transform", err
	}
	return "", nil
}

// Decimal returns the decimal mark as a byte ('.' or ',').
func (c Columns) Decimal() byte {
	if c.Dec == "," {
		return ','
	}
	return '.'
}

// Transformation returns the parsed transform (None when invalid:
// Validate reports it).
func (c Columns) Transformation() transform.T {
	t, _ := transform.Parse(c.Transform)
	return t
}
