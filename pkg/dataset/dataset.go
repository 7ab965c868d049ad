// Package dataset holds spatial locations and observations: reading and
// writing them, checking them before a fit, generating ExaGeoStat-style
// synthetic locations, and ordering them for locality.
//
// A Data value stores one row per location: X[i], Y[i] (x, y for planar
// coordinates, or longitude, latitude in degrees for geographic ones) and,
// when observations were read, Obs[i]. Rows are numbered from 1 in every
// message meant for users.
//
// Input formats:
//
//   - ReadCSV, ReadCSVWith, ReadCSVFrom: a CSV table whose columns have
//     roles (Options): the coordinates (x,y, lon,lat, easting,northing
//     ... guessed, or named: --coords X,Y[,Z]), the observation (z,
//     value, obs ... guessed, or --z COL), the time (t, or --time COL)
//     and the covariates the mean names; every other column is not read.
//     Separated by commas, semicolons, tabs or spaces, with quotes, R's
//     row names, missing values (rows dropped, or refused), a decimal
//     comma, or no header (columns by number): see ReadCSVFrom.
//   - ReadPair: ExaGeoStat's headerless pair of files, locations "x,y" per
//     line and observations one value per line.
//
// Errors about input files are *InputError values whose message is one
// line, "file:line: msg".
//
// Random functions (Grid, Split, StandardNormal) use math/rand/v2's PCG
// generator seeded with PCG(seed, stream), where stream is a constant that
// differs between the three functions, so that the same seed given to each
// of them yields independent streams. Results are deterministic for a seed.
package dataset

import (
	"fmt"
	"strings"
)

// Coords is the metric of the coordinates: planar (x, y) or geographic
// (longitude, latitude in degrees).
type Coords int

const (
	// Planar coordinates (x, y) with Euclidean distance.
	Planar Coords = iota
	// Geographic coordinates (longitude, latitude) in degrees, with
	// great-circle distance.
	Geographic
)

// coordsNames are the Coords' names, by value.
var coordsNames = [...]string{Planar: "planar", Geographic: "geographic"}

// String returns "planar" or "geographic".
func (c Coords) String() string {
	if c >= 0 && int(c) < len(coordsNames) {
		return coordsNames[c]
	}
	return fmt.Sprintf("Coords(%d)", int(c))
}

// Data is a set of locations with optional observations, one row per
// location.
type Data struct {
	X, Y   []float64 // x, y (Planar) or longitude, latitude in degrees (Geographic)
	Obs    []float64 // observations z, one per location; nil when only locations were read
	Coords Coords    // metric of X, Y
	// Z is the third spatial coordinate of 3D Euclidean locations (Planar
	// only), nil for 2D locations.
	Z []float64
	// ZName is the header's name of the Z column ("depth", "z").
	ZName string
	// T is the time of each location (space-time data), nil when the
	// data have no time column.
	T []float64
	// Obs2 is the second observed variable of bivariate data (header
	// x,y,z1,z2: Obs is z1), nil for univariate data.
	Obs2 []float64
	// Columns are the named columns of a CSV that follow its coordinates
	// (and z), in the header's order: covariates of a mean model.
	Columns []Column
	// ObsName is the header's name of the observation column ("zinc"),
	// "" when none was read.
	ObsName string
	// Dropped counts the rows the reader dropped for a missing value
	// (Options.NA drop).
	Dropped int
	// Notes are remarks of the reader for the user (one line each), e.g.
	// that planar x,y values look like longitudes and latitudes.
	Notes []string
}

// Column is a named column of values, one per location.
type Column struct {
	Name   string
	Values []float64
}

// Len returns the number of locations.
func (d *Data) Len() int { return len(d.X) }

// names returns the column names of d's coordinates.
func (d *Data) names() (x, y string) {
	if d.Coords == Geographic {
		return "lon", "lat"
	}
	return "x", "y"
}

// InputError is an error about an input file: the file as given by the
// caller, the 1-based line number (0 when the error is about the file as a
// whole) and a one-line message.
type InputError struct {
	File string // path as given by the caller
	Line int    // 1-based line number, 0 when not about one line
	Msg  string // what is wrong, one line
	Err  error  // underlying error, if any (for errors.Is / errors.As)
}

// Error returns "file:line: msg", or "file: msg" when Line is 0.
func (e *InputError) Error() string {
	msg := oneLine(e.Msg)
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.File, msg)
}

// oneLine escapes the line breaks a message can quote from the input (a
// column name holding a carriage return), so that an error stays one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

// Unwrap returns the underlying error, or nil.
func (e *InputError) Unwrap() error { return e.Err }
