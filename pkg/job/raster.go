package job

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/gdal"
)

// grid is a prediction grid read from a raster: its cells with a value
// in every band the mean uses are the locations, in the raster's row
// order (top row first).
type grid struct {
	r     *gdal.Raster
	cells []int // the cell index (row*Width + col) of each location
}

// readAt reads predict's new locations: a CSV (through in: rank 0 reads,
// every rank parses the same bytes), or a raster (gdal.IsRaster) whose
// cell centres are the locations and whose bands are covariates (named
// by their descriptions, or as cfg.Bands maps them; GDAL decodes the
// file on rank 0, which sends the raster to every rank: readDecoded). The
// grid is nil for a CSV.
func readAt(in *Inputs, cfg *config.Predict) (*dataset.Data, *grid, error) {
	if !gdal.IsRaster(cfg.At) {
		if len(cfg.Bands) > 0 {
			return nil, nil, badInput("predict: --band is for a raster --at (.tif, .nc, ...), not %s", cfg.At)
		}
		var b []byte
		var err error
		if cfg.At, b, err = in.Read("at", cfg.At); err != nil {
			return nil, nil, readInputError(cfg.At, err)
		}
		nw, err := dataset.ReadCSVFrom(cfg.At, bytes.NewReader(b), readOptions(cfg.Columns, cfg.Mean, true)) // an observation column is not read
		if err != nil {
			return nil, nil, &InputError{Err: err}
		}
		return nw, nil, nil
	}
	r, err := readDecoded(in, "at", cfg.At, gdal.Read)
	if err != nil {
		if isInterrupted(err) {
			return nil, nil, err
		}
		return nil, nil, badInput("predict: --at %v", err)
	}
	names, err := bandNames(r, cfg.Bands)
	if err != nil {
		return nil, nil, badInput("predict: --band: %s: %v", cfg.At, err)
	}
	g := &grid{r: r}
	var used []int // the bands the mean reads
	for _, c := range dataset.MeanColumns(cfg.Mean) {
		k := indexOf(names, c)
		if k < 0 {
			return nil, nil, badInput("predict: --at %s has no band %s (its bands: %s; name one with --band BAND=%s)",
				cfg.At, c, strings.Join(names, ", "), c)
		}
		used = append(used, k)
	}
	nw := &dataset.Data{}
	if geographic(r.Projection) {
		nw.Coords = dataset.Geographic
	}
	cols := make([][]float64, len(used))
	for row := 0; row < r.Height; row++ {
		for col := 0; col < r.Width; col++ {
			i := row*r.Width + col
			if !inside(r, used, i) {
				continue
			}
			x, y := r.Centre(col, row)
			nw.X, nw.Y = append(nw.X, x), append(nw.Y, y)
			for j, k := range used {
				cols[j] = append(cols[j], r.Bands[k].Values[i])
			}
			g.cells = append(g.cells, i)
		}
	}
	for j, k := range used {
		nw.Columns = append(nw.Columns, dataset.Column{Name: names[k], Values: cols[j]})
	}
	return nw, g, nil
}

// bandNames returns the covariate name of each band of r: its
// description, lower-cased, unless a "BAND=COL" of maps renames it (BAND
// a description or a number from 1).
func bandNames(r *gdal.Raster, maps []string) ([]string, error) {
	names := make([]string, len(r.Bands))
	for i, b := range r.Bands {
		names[i] = strings.ToLower(b.Name)
	}
	for _, m := range maps {
		band, col, ok := strings.Cut(m, "=")
		band, col = strings.TrimSpace(band), strings.ToLower(strings.TrimSpace(col))
		if !ok || band == "" || col == "" {
			return nil, fmt.Errorf("%q is not BAND=COL (a band's number or description, then the covariate)", m)
		}
		k := -1
		if n, err := strconv.Atoi(band); err == nil {
			if n < 1 || n > len(r.Bands) {
				return nil, fmt.Errorf("%q: band %d of %d", m, n, len(r.Bands))
			}
			k = n - 1
		} else {
			for i, b := range r.Bands {
				if strings.EqualFold(b.Name, band) {
					k = i
				}
			}
			if k < 0 {
				return nil, fmt.Errorf("%q: no band %q", m, band)
			}
		}
		names[k] = col
	}
	return names, nil
}

func indexOf(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}

// inside reports whether cell i of r is a location: it has a value in
// every band of used, or, when used is empty, in some band.
func inside(r *gdal.Raster, used []int, i int) bool {
	for _, k := range used {
		if r.Bands[k].Missing(i) {
			return false
		}
	}
	if len(used) > 0 {
		return true
	}
	for k := range r.Bands {
		if !r.Bands[k].Missing(i) {
			return true
		}
	}
	return false
}

// geographic reports whether the WKT crs is a geographic (longitude,
// latitude) one.
func geographic(crs string) bool {
	crs = strings.TrimSpace(crs)
	return strings.HasPrefix(crs, "GEOGCS") || strings.HasPrefix(crs, "GEOGCRS") || strings.HasPrefix(crs, "GEODCRS")
}

// rasterOut reports whether out names a raster file (by its extension).
func rasterOut(out string) bool { return gdal.Driver(out) != "" }

// writeGrid writes the columns cols (named hdr) at g's cells as the bands
// of a raster with g's grid and CRS, NaN (the nodata value) elsewhere;
// each variance column ("variance", "log_variance") is followed by its
// square root, the standard deviation ("sd", "log_sd").
func writeGrid(path string, g *grid, hdr []string, cols [][]float64) error {
	r := &gdal.Raster{Width: g.r.Width, Height: g.r.Height, GeoTransform: g.r.GeoTransform, Projection: g.r.Projection}
	var names []string
	var bands [][]float64
	for j, c := range cols {
		names, bands = append(names, hdr[j]), append(bands, c)
		if p, ok := strings.CutSuffix(hdr[j], "variance"); ok {
			sd := make([]float64, len(c))
			for i, v := range c {
				sd[i] = math.Sqrt(v)
			}
			names, bands = append(names, p+"sd"), append(bands, sd)
		}
	}
	for j, c := range bands {
		v := make([]float64, r.Width*r.Height)
		for i := range v {
			v[i] = math.NaN()
		}
		for k, i := range g.cells {
			v[i] = c[k]
		}
		r.Bands = append(r.Bands, gdal.Band{Name: names[j], NoData: math.NaN(), HasNoData: true, Values: v})
	}
	return gdal.Write(path, r)
}
