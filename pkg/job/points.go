package job

import (
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/gdal"
)

// checkPointsOut refuses, before any work, a GeoPackage --out (a point
// layer: gdal.IsPoints) of a binary built without GDAL, naming what to
// install.
func checkPointsOut(cmd, out string) error {
	if gdal.IsPoints(out) && !gdal.Available() {
		return badInput("%s: --out %s: %v", cmd, out, gdal.ErrNoGDAL)
	}
	return nil
}

// writePoints writes a table whose first two columns are the coordinates
// (hdr, cols as the CSV has them) as a GeoPackage point layer in crs,
// the other columns as its fields.
func writePoints(path, crs string, hdr []string, cols [][]float64) error {
	return gdal.WritePoints(path, &gdal.Points{X: cols[0], Y: cols[1], Names: hdr[2:], Columns: cols[2:], CRS: crs})
}

// pointsCRS is the CRS of written points: the raster grid's (g not nil),
// else the one given (--crs), else WGS 84 (EPSG:4326) for longitude and
// latitude, else none.
func pointsCRS(g *grid, given string, coords dataset.Coords) string {
	switch {
	case g != nil && g.r.Projection != "":
		return g.r.Projection
	case given != "":
		return given
	case coords == dataset.Geographic:
		return "EPSG:4326"
	}
	return ""
}
