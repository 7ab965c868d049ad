// Package gdal reads and writes georeferenced rasters (GeoTIFF, NetCDF and
// any raster format GDAL reads) through a small cgo binding of GDAL's C
// API, built with the `gdal` build tag (Debian libgdal-dev; the Makefile
// sets the tag when gdal-config exists). Without the tag every function
// returns ErrNoGDAL, whose message says what to install, and the rest of
// the project builds and runs without GDAL.
//
// A Raster is a grid of Height rows by Width columns with an affine
// geotransform g: the cell (col, row) (counted from 0, row 0 at the top)
// covers the parallelogram whose corner is
//
//	x = g[0] + col*g[1] + row*g[2],  y = g[3] + col*g[4] + row*g[5],
//
// and its centre is at col+0.5, row+0.5. Values are stored row by row
// (index row*Width + col), one slice per band, as float64.
package gdal

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// ErrNoGDAL is returned by every reader and writer of a binary built
// without the gdal build tag.
var ErrNoGDAL = errors.New("GIS files need GDAL: install libgdal-dev (Debian: apt-get install libgdal-dev, or scripts/deps.sh) and rebuild with `make build` (it adds the gdal build tag when gdal-config exists)")

// Raster is a georeferenced grid of one or more bands.
type Raster struct {
	Width, Height int
	// GeoTransform maps cell corners to coordinates (see the package
	// comment); GDAL's default (0,1,0,0,0,1) when the file has none.
	GeoTransform [6]float64
	// Projection is the coordinate reference system as WKT ("" when the
	// file has none).
	Projection string
	Bands      []Band
}

// Band is one layer of a raster.
type Band struct {
	// Name is the band's description ("" when it has none).
	Name string
	// NoData marks the cells outside the data when HasNoData.
	NoData    float64
	HasNoData bool
	// Values holds Height*Width values row by row.
	Values []float64
}

// Centre returns the coordinates of the centre of cell (col, row).
func (r *Raster) Centre(col, row int) (x, y float64) {
	g := r.GeoTransform
	c, w := float64(col)+0.5, float64(row)+0.5
	return g[0] + c*g[1] + w*g[2], g[3] + c*g[4] + w*g[5]
}

// Missing reports whether band b has no value at cell index i: its
// nodata value, or NaN.
func (b *Band) Missing(i int) bool {
	v := b.Values[i]
	return math.IsNaN(v) || (b.HasNoData && v == b.NoData)
}

// Band returns the band named name (its description), or nil.
func (r *Raster) Band(name string) *Band {
	for i := range r.Bands {
		if r.Bands[i].Name == name {
			return &r.Bands[i]
		}
	}
	return nil
}

// Check reports a raster whose bands do not hold Width*Height values.
func (r *Raster) Check() error {
	if r.Width <= 0 || r.Height <= 0 {
		return fmt.Errorf("raster of %d x %d cells", r.Width, r.Height)
	}
	if len(r.Bands) == 0 {
		return errors.New("raster without bands")
	}
	for i, b := range r.Bands {
		if len(b.Values) != r.Width*r.Height {
			return fmt.Errorf("band %d has %d values for %d x %d cells", i+1, len(b.Values), r.Width, r.Height)
		}
	}
	return nil
}

// Driver returns the GDAL driver that writes path, from its extension:
// GTiff for .tif and .tiff, netCDF for .nc; "" for any other.
func Driver(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tif", ".tiff":
		return "GTiff"
	case ".nc":
		return "netCDF"
	}
	return ""
}

// IsRaster reports whether path names a raster by its extension (.tif,
// .tiff, .nc, .img, .vrt, .asc): a file the CSV readers leave to GDAL.
func IsRaster(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tif", ".tiff", ".nc", ".img", ".vrt", ".asc":
		return true
	}
	return false
}
