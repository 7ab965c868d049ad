package gdal

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Points is a table of point locations (X[i], Y[i]) with named numeric
// columns, in a coordinate reference system: what WritePoints writes as
// a GeoPackage point layer.
type Points struct {
	X, Y []float64
	// Names and Columns are the fields of each point: Columns[j][i] is
	// field Names[j] of point i.
	Names   []string
	Columns [][]float64
	// CRS is the coordinates' reference system, anything GDAL's
	// OSRSetFromUserInput reads (EPSG:28992, WKT, a PROJ string); "" for
	// none (an engineering CRS "unknown": Cartesian, units unknown).
	CRS string
}

// IsPoints reports whether path names a GeoPackage (.gpkg): a point
// table written by WritePoints.
func IsPoints(path string) bool { return strings.EqualFold(filepath.Ext(path), ".gpkg") }

// check reports columns of the wrong length or a path that is not a
// .gpkg.
func (p *Points) check(path string) error {
	if !IsPoints(path) {
		return fmt.Errorf("%s: points are written as a GeoPackage (.gpkg)", path)
	}
	if len(p.Y) != len(p.X) || len(p.Names) != len(p.Columns) {
		return fmt.Errorf("%s: %d x, %d y, %d names for %d columns", path, len(p.X), len(p.Y), len(p.Names), len(p.Columns))
	}
	for j, c := range p.Columns {
		if len(c) != len(p.X) {
			return fmt.Errorf("%s: column %s has %d values for %d points", path, p.Names[j], len(c), len(p.X))
		}
	}
	return nil
}
