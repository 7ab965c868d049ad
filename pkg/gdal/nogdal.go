//go:build !gdal

package gdal

// Available reports whether this binary reads and writes GIS files.
func Available() bool { return false }

// Read returns ErrNoGDAL: this binary was built without the gdal tag.
func Read(path string) (*Raster, error) { return nil, ErrNoGDAL }

// Write returns ErrNoGDAL: this binary was built without the gdal tag.
func Write(path string, r *Raster) error { return ErrNoGDAL }

// ReadPolygons returns ErrNoGDAL: this binary was built without the gdal tag.
func ReadPolygons(path string) ([]Polygon, error) { return nil, ErrNoGDAL }

// WritePoints returns ErrNoGDAL: this binary was built without the gdal tag.
func WritePoints(path string, p *Points) error { return ErrNoGDAL }
