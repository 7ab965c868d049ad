package job

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/gdal"
	"github.com/exageostat/exageostat/pkg/plot"
)

// PlotConfig configures `exageostat plot`: maps of the columns of a
// predict, cv or simulate output.
type PlotConfig struct {
	// In is the output to draw: a CSV (x,y or lon,lat, then value
	// columns) or a raster (gdal.IsRaster: its bands).
	In string
	// Out is the directory of the pictures: one LAYER.svg and LAYER.png
	// per layer.
	Out string
	// Layers are the columns (bands) drawn; all when empty.
	Layers []string
	// Mask is a polygon file (GeoPackage, shapefile, GeoJSON): only the
	// cells and points inside a polygon are drawn.
	Mask string
	// Data are observations drawn as dots over a grid; without Mask,
	// only the cells inside their convex hull are drawn.
	Data string
	// Title replaces each map's title (suffixed ": LAYER" when there
	// are several layers); NoTitle draws none.
	Title   string
	NoTitle bool
	// SharedScale gives the layers of the field's values (z, z_hat,
	// z_loo, draw_k on one scale) one colour range; by default each
	// layer's colour bar spans its own values.
	SharedScale bool
	DPI         float64
	XYUnits     string // the units of planar x and y on the axes
}

// PlotResult lists the pictures written and each layer's colour range.
type PlotResult struct {
	Pictures []string
	Layers   []string
	// Ranges are the colour bars' ranges [lo, hi], one per layer (NaN
	// for the diverging maps of residuals: symmetric about 0).
	Ranges [][2]float64
}

// layerSet is what plot draws: named layers of values at points, which
// are the centres of a regular grid's cells (grid not nil: in
// plot.GridPoints order, NaN where there is no value) or scattered.
type layerSet struct {
	x, y   []float64
	grid   *gridBox
	names  []string
	vals   [][]float64
	lonlat bool
	notes  []string
}

// gridBox is a regular grid of nx x ny cells over [x0, x1] x [y0, y1].
type gridBox struct {
	nx, ny         int
	x0, x1, y0, y1 float64
}

// Plot draws each layer of cfg.In into cfg.Out as a map in the style of
// fit --plot: a heat map for a grid (a raster, or a CSV whose points are
// the centres of a regular grid's cells), coloured dots for scattered
// points; lon/lat maps drawn with plot.LonLatAspect.
func Plot(cfg PlotConfig, env Env) (*PlotResult, error) {
	if err := checkPlot(cfg); err != nil {
		return nil, err
	}
	ls, err := readLayers(cfg.In)
	if err != nil {
		return nil, err
	}
	for _, n := range ls.notes {
		env.logf("plot: %s: %s\n", cfg.In, n)
	}
	if err := ls.pick(cfg.Layers); err != nil {
		return nil, badInput("plot: --layer: %s: %v", cfg.In, err)
	}
	var dx, dy []float64
	if cfg.Data != "" {
		d, err := dataset.ReadCSVWith(cfg.Data, dataset.Options{Locations: true})
		if err != nil {
			return nil, badInput("plot: --data %v", err)
		}
		dx, dy = d.X, d.Y
	}
	if err := ls.mask(cfg.Mask, dx, dy); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, badInput("plot: --out %v", err)
	}
	res := &PlotResult{Layers: ls.names, Ranges: ls.ranges(cfg.SharedScale)}
	for k := range ls.names {
		path, err := ls.draw(k, cfg, res.Ranges[k], dx, dy)
		if err != nil {
			return nil, err
		}
		res.Pictures = append(res.Pictures, path)
	}
	return res, nil
}

// checkPlot refuses, before anything is read, what plot cannot do:
// missing flags, the outputs (Outputs.Check), a GIS file without GDAL.
func checkPlot(cfg PlotConfig) error {
	switch {
	case cfg.In == "":
		return badInput("plot: give the file to draw (a predict, cv or simulate output: CSV, or a raster)")
	case cfg.Out == "":
		return badInput("plot: --out DIR is required (the pictures' directory)")
	case cfg.NoTitle && cfg.Title != "":
		return badInput("plot: --title and --no-title together")
	case !(cfg.DPI >= 0 && cfg.DPI <= 2400):
		return badInput("plot: --dpi must be in [0, 2400], got %v", cfg.DPI)
	}
	for _, f := range []struct{ flag, path string }{{"the file", cfg.In}, {"--mask", cfg.Mask}} {
		if f.path != "" && (gdal.IsRaster(f.path) || f.flag == "--mask") && !gdal.Available() {
			return badInput("plot: %s %s: %v", f.flag, f.path, gdal.ErrNoGDAL)
		}
	}
	return Outputs{Cmd: "plot", Outputs: []File{{Flag: "out", Path: cfg.Out, Dir: true}},
		Inputs: []File{{Flag: "data", Path: cfg.Data}, {Flag: "mask", Path: cfg.Mask}}}.Check()
}

// readLayers reads a raster's bands or a CSV's columns.
func readLayers(path string) (*layerSet, error) {
	if gdal.IsRaster(path) {
		r, err := gdal.Read(path)
		if err != nil {
			return nil, badInput("plot: %v", err)
		}
		return rasterLayers(path, r)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput("plot: %v", dataset.OpenError(path, err))
	}
	defer f.Close()
	return csvLayers(path, f)
}

// rasterLayers returns the bands of r as layers on its grid (north up:
// no rotation, cells of positive width and height).
func rasterLayers(path string, r *gdal.Raster) (*layerSet, error) {
	g := r.GeoTransform
	if g[2] != 0 || g[4] != 0 || !(g[1] > 0) || !(g[5] < 0) {
		return nil, badInput("plot: %s: a rotated or south-up raster (geotransform %v) is not drawn", path, g)
	}
	b := &gridBox{nx: r.Width, ny: r.Height, x0: g[0], x1: g[0] + float64(r.Width)*g[1], y0: g[3] + float64(r.Height)*g[5], y1: g[3]}
	ls := &layerSet{grid: b, lonlat: geographic(r.Projection)}
	ls.x, ls.y = plot.GridPoints(b.nx, b.ny, b.x0, b.x1, b.y0, b.y1)
	for _, band := range r.Bands {
		v := make([]float64, len(band.Values))
		for row := range r.Height {
			for col := range r.Width {
				i := row*r.Width + col
				x := band.Values[i]
				if band.Missing(i) {
					x = math.NaN()
				}
				v[(r.Height-1-row)*r.Width+col] = x
			}
		}
		ls.names, ls.vals = append(ls.names, band.Name), append(ls.vals, v)
	}
	return ls, nil
}

// coordPairs are the coordinate headers plot reads (lower case), the
// geographic ones first.
var coordPairs = [...][3]string{{"lon", "lat", "geo"}, {"longitude", "latitude", "geo"}, {"long", "lat", "geo"},
	{"x", "y", ""}, {"easting", "northing", ""}}

// csvLayers reads a CSV with a header: the coordinates (coordPairs) and
// every other column as a layer (NA, NaN or empty: NaN); a column with
// text is left out with a note. A variance column gains its square root
// (sd) as the raster outputs have it.
func csvLayers(path string, rd io.Reader) (*layerSet, error) {
	r := csv.NewReader(rd)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		return nil, badInput("plot: %s: %v", path, err)
	}
	if len(rows) < 2 {
		return nil, badInput("plot: %s: no rows below a header", path)
	}
	head := rows[0]
	ix, iy, geo := -1, -1, false
	for _, p := range coordPairs {
		ix, iy = slices.IndexFunc(head, eqFold(p[0])), slices.IndexFunc(head, eqFold(p[1]))
		if ix >= 0 && iy >= 0 {
			geo = p[2] == "geo"
			break
		}
	}
	if ix < 0 || iy < 0 {
		return nil, badInput("plot: %s: no coordinate columns (x,y, lon,lat or easting,northing) in the header %q", path, strings.Join(head, ","))
	}
	cols := make([][]float64, len(head))
	text := make([]bool, len(head))
	for li, row := range rows[1:] {
		for j, s := range row {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil && isMissing(s) {
				v, err = math.NaN(), nil
			}
			switch {
			case err != nil && (j == ix || j == iy):
				return nil, badInput("plot: %s:%d: %s %q is not a number", path, li+2, head[j], s)
			case err != nil:
				text[j] = true
			}
			cols[j] = append(cols[j], v)
		}
	}
	ls := &layerSet{x: cols[ix], y: cols[iy], lonlat: geo}
	for i := range ls.x {
		if !finite([]float64{ls.x[i], ls.y[i]}) {
			return nil, badInput("plot: %s:%d: a missing or infinite coordinate", path, i+2)
		}
	}
	for j, name := range head {
		switch {
		case j == ix || j == iy:
		case text[j]:
			ls.notes = append(ls.notes, fmt.Sprintf("column %s holds text: not drawn", name))
		default:
			ls.names, ls.vals = append(ls.names, name), append(ls.vals, cols[j])
			if p, ok := strings.CutSuffix(name, "variance"); ok && !slices.Contains(head, p+"sd") {
				ls.names, ls.vals = append(ls.names, p+"sd"), append(ls.vals, sqrtAll(cols[j]))
			}
		}
	}
	if len(ls.names) == 0 {
		return nil, badInput("plot: %s: no column to draw besides the coordinates", path)
	}
	ls.toGrid()
	return ls, nil
}

func eqFold(s string) func(string) bool {
	return func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), s) }
}

func isMissing(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "na", "nan", "n/a", "null":
		return true
	}
	return false
}

// toGrid turns scattered points that are the centres of a regular
// grid's cells (each cell at most once, at least a quarter of the cells
// given, two or more in each direction) into that grid.
func (ls *layerSet) toGrid() {
	xs, dx, ok1 := lattice(ls.x)
	ys, dy, ok2 := lattice(ls.y)
	nx, ny := len(xs), len(ys)
	if !ok1 || !ok2 || 4*len(ls.x) < nx*ny {
		return
	}
	cell := make([]int, len(ls.x))
	seen := make([]bool, nx*ny)
	for i := range ls.x {
		c := int(math.Round((ls.y[i]-ys[0])/dy))*nx + int(math.Round((ls.x[i]-xs[0])/dx))
		if seen[c] {
			return
		}
		seen[c], cell[i] = true, c
	}
	b := &gridBox{nx: nx, ny: ny, x0: xs[0] - dx/2, x1: xs[nx-1] + dx/2, y0: ys[0] - dy/2, y1: ys[ny-1] + dy/2}
	for k, v := range ls.vals {
		g := make([]float64, nx*ny)
		for i := range g {
			g[i] = math.NaN()
		}
		for i, c := range cell {
			g[c] = v[i]
		}
		ls.vals[k] = g
	}
	ls.grid = b
	ls.x, ls.y = plot.GridPoints(nx, ny, b.x0, b.x1, b.y0, b.y1)
}

// lattice returns the distinct values of v, sorted, and their step, ok
// when there are two or more, equally spaced (to 1e-6 of the step).
func lattice(v []float64) ([]float64, float64, bool) {
	u := slices.Clone(v)
	slices.Sort(u)
	u = slices.Compact(u)
	if len(u) < 2 {
		return u, 0, false
	}
	step := (u[len(u)-1] - u[0]) / float64(len(u)-1)
	for k, x := range u {
		if math.Abs(x-(u[0]+float64(k)*step)) > 1e-6*step {
			return u, step, false
		}
	}
	return u, step, true
}

// pick keeps the layers named (all when none is).
func (ls *layerSet) pick(names []string) error {
	if len(names) == 0 {
		return nil
	}
	var n []string
	var v [][]float64
	for _, want := range names {
		k := slices.IndexFunc(ls.names, eqFold(strings.TrimSpace(want)))
		if k < 0 {
			return fmt.Errorf("no layer %q (its layers: %s)", want, strings.Join(ls.names, ", "))
		}
		n, v = append(n, ls.names[k]), append(v, ls.vals[k])
	}
	ls.names, ls.vals = n, v
	return nil
}

// mask sets to NaN the values at the points outside every polygon of
// the file mask, or, without one, outside the convex hull of the data
// (dx, dy; none: no mask).
func (ls *layerSet) mask(mask string, dx, dy []float64) error {
	if mask == "" {
		for _, v := range ls.vals {
			if len(dx) > 0 {
				plot.MaskOutsideHull(dx, dy, ls.x, ls.y, v)
			}
		}
		return nil
	}
	polys, err := gdal.ReadPolygons(mask)
	if err != nil {
		return badInput("plot: --mask %v", err)
	}
	n := 0
	for i := range ls.x {
		if slices.IndexFunc(polys, func(p gdal.Polygon) bool { return p.Contains(ls.x[i], ls.y[i]) }) >= 0 {
			n++
			continue
		}
		for _, v := range ls.vals {
			v[i] = math.NaN()
		}
	}
	if n == 0 {
		return badInput("plot: --mask %s: no point of the map inside its polygons (is it in the map's CRS?)", mask)
	}
	return nil
}

// diverging reports whether a layer holds residuals: drawn on a
// diverging scale symmetric about 0, as cv --plot draws them.
func diverging(name string) bool {
	return strings.HasSuffix(name, "residual") || strings.HasSuffix(name, "standardized")
}

// fieldGroup is the scale group of a layer under --shared-scale: the
// values of the field on one scale (z, z_hat, z_loo, z_cv, draw_k, with
// the same transform prefix) share one; every other layer has its own.
func fieldGroup(name string) string {
	prefix, base := "", name
	if p, b, ok := strings.Cut(name, "_"); ok && (p == "log" || p == "log1p" || p == "sqrt" || p == "boxcox") {
		prefix, base = p, b
	}
	switch {
	case base == "z" || base == "z_hat" || base == "z_loo" || base == "z_cv" || strings.HasPrefix(base, "draw_"):
		return prefix + ":field"
	}
	return name
}

// ranges returns each layer's colour range: that of its finite values
// (after the mask), or with shared that of its group's (fieldGroup); NaN
// for a diverging layer.
func (ls *layerSet) ranges(shared bool) [][2]float64 {
	own := make([][2]float64, len(ls.names))
	group := map[string][2]float64{}
	for k, v := range ls.vals {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		own[k] = [2]float64{lo, hi}
		g, ok := group[fieldGroup(ls.names[k])]
		if !ok {
			g = own[k]
		}
		group[fieldGroup(ls.names[k])] = [2]float64{min(g[0], lo), max(g[1], hi)}
	}
	for k, name := range ls.names {
		switch {
		case diverging(name):
			own[k] = [2]float64{math.NaN(), math.NaN()}
		case shared:
			own[k] = group[fieldGroup(name)]
		}
	}
	return own
}

// draw writes layer k's map into cfg.Out and returns its PNG's path.
func (ls *layerSet) draw(k int, cfg PlotConfig, rng [2]float64, dx, dy []float64) (string, error) {
	name := ls.names[k]
	xl, yl := axes(map[bool]dataset.Coords{true: dataset.Geographic}[ls.lonlat], cfg.XYUnits)
	o := plot.MapOptions{Title: fmt.Sprintf("%s (%s)", name, filepath.Base(cfg.In)), Label: name, XLabel: xl, YLabel: yl,
		Min: rng[0], Max: rng[1], Diverging: diverging(name), DPI: cfg.DPI, MaxPoints: -1}
	switch {
	case cfg.NoTitle:
		o.Title = ""
	case cfg.Title != "" && len(ls.names) > 1:
		o.Title = cfg.Title + ": " + name
	case cfg.Title != "":
		o.Title = cfg.Title
	}
	base := filepath.Join(cfg.Out, fileName(name))
	v := ls.vals[k]
	if ls.grid != nil {
		b := ls.grid
		if ls.lonlat {
			o.Aspect = plot.LonLatAspect(b.y0, b.y1)
		}
		o.PointsX, o.PointsY = dx, dy
		return base + ".png", plotErr(plot.Grid(base, b.nx, b.ny, b.x0, b.x1, b.y0, b.y1, v, o))
	}
	var x, y, z []float64 // the points not masked
	for i := range v {
		if !math.IsNaN(v[i]) {
			x, y, z = append(x, ls.x[i]), append(y, ls.y[i]), append(z, v[i])
		}
	}
	if len(z) == 0 {
		return "", badInput("plot: %s: layer %s has no value to draw", cfg.In, name)
	}
	if ls.lonlat {
		lo, hi := slices.Min(y), slices.Max(y)
		o.Aspect = plot.LonLatAspect(lo, hi)
	}
	return base + ".png", plotErr(plot.Map(base, x, y, z, o))
}

func plotErr(err error) error {
	if err != nil {
		return badInput("plot: %v", err)
	}
	return nil
}

// fileName is a layer's name as a file name: letters, digits, '.', '-'
// and '_' kept, anything else '_'.
func fileName(name string) string {
	s := []rune(name)
	for i, r := range s {
		if !(r == '.' || r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			s[i] = '_'
		}
	}
	if len(s) == 0 {
		return "layer"
	}
	return string(s)
}
