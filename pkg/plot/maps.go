package plot

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DefaultMaxPoints is the number of points Map draws at most when
// MapOptions.MaxPoints is 0.
const DefaultMaxPoints = 50000

// MapOptions are the texts and settings of Map and Grid. The zero value
// gives an untitled map with axes "x" and "y", no colour-bar label, the
// colour range of the data and equal units on both axes.
type MapOptions struct {
	// Title is the title above the map; none if empty.
	Title string
	// Label names the values: it is written along the colour bar.
	Label string
	// XLabel and YLabel name the axes ("lon" and "lat" for GreatCircle
	// data, say); "x" and "y" if empty.
	XLabel, YLabel string
	// Min and Max, when finite with Min < Max, fix the range of the
	// colour bar (to compare maps on one scale); values outside it take
	// the colour of the nearer end. Otherwise the range is that of the
	// finite values.
	Min, Max float64
	// FreeAspect lets each axis span its own data range. By default
	// (false) one unit has the same length on both axes: the shorter
	// range is widened about its centre to the drawing area's shape.
	FreeAspect bool
	// Aspect, with equal units (FreeAspect false), is the drawn length
	// of one unit of y over that of one unit of x; 0 means 1. A
	// longitude/latitude map takes LonLatAspect: a degree of latitude is
	// 1/cos(latitude) times as long as one of longitude.
	Aspect float64
	// MaxPoints (Map only) bounds the number of points drawn: if there
	// are more, Map draws a random subset of MaxPoints of them, the same
	// for the same input, which keeps the SVG file small (about 200
	// bytes a point). The colour range and axes still cover all points.
	// 0 means DefaultMaxPoints; a negative value means no limit.
	MaxPoints int
	// PointsX and PointsY (Grid only), if not empty, are locations drawn
	// over the map as small black dots: the data a prediction comes from.
	PointsX, PointsY []float64
	// Diverging colours the values on a diverging map (blue, white at 0,
	// red) whose range, unless Min and Max fix it, is symmetric about 0:
	// [-m, m] with m the largest |value|.
	Diverging bool
	// DPI is the PNG's resolution in dots per inch; 0 means DPI.
	DPI float64
}

// aspect returns the length of a unit of y over that of a unit of x,
// or 0 for FreeAspect (each axis spans its own range).
func (o MapOptions) aspect() float64 {
	switch {
	case o.FreeAspect:
		return 0
	case o.Aspect > 0 && !math.IsInf(o.Aspect, 0):
		return o.Aspect
	}
	return 1
}

// LonLatAspect is the Aspect of a longitude/latitude map whose latitudes
// span [lat0, lat1] degrees: 1/cos of the middle latitude, so that
// lengths east-west and north-south are drawn to one scale there (the
// equirectangular projection at that latitude; 30 % taller than 1:1 at
// 40 degrees). Latitudes beyond 89 degrees are taken as 89.
func LonLatAspect(lat0, lat1 float64) float64 {
	mid := min(math.Abs(lat0+lat1)/2, 89)
	return 1 / math.Cos(mid*math.Pi/180)
}

// labels returns the axis names, "x" and "y" by default.
func (o MapOptions) labels() (x, y string) {
	x, y = o.XLabel, o.YLabel
	if x == "" {
		x = "x"
	}
	if y == "" {
		y = "y"
	}
	return x, y
}

// Map draws the locations (x[i], y[i]) as dots coloured by v[i] (NaN
// values in grey), with a colour bar of the value range labelled
// opts.Label, into base.svg and base.png (1950 x 1500 pixels at the default DPI; see the
// package documentation). The dots shrink as their number grows, from a
// radius of 3.5 points to 1.
//
// It returns an error if x, y and v have different or zero lengths, if a
// coordinate is NaN or infinite, or if the files cannot be written.
func Map(base string, x, y, v []float64, opts MapOptions) error {
	if len(x) != len(y) || len(x) != len(v) {
		return fmt.Errorf("plot: Map: %d x, %d y and %d values", len(x), len(y), len(v))
	}
	if len(x) == 0 {
		return fmt.Errorf("plot: Map: no points")
	}
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			return fmt.Errorf("plot: Map: non-finite location (%g, %g)", x[i], y[i])
		}
	}
	sc := newScale(v, opts)
	idx := sample(len(x), opts.MaxPoints)
	pts := make(plotter.XYs, len(idx))
	for k, i := range idx {
		pts[k] = plotter.XY{X: x[i], Y: y[i]}
	}
	var xr, yr [2]float64
	xr[0], xr[1] = bounds(x)
	yr[0], yr[1] = bounds(y)
	// About the spacing of the dots in a data area of 4.4 x 3.9 inches.
	r := min(max(0.4*math.Sqrt(4.4*3.9*72*72/float64(len(idx))), 1), 3.5)
	radius := vg.Points(r)
	xl, yl := opts.labels()
	return saveDPI(base, mapWidth, mapHeight, opts.DPI, func(dc draw.Canvas) error {
		p := newPlot(opts.Title, xl, yl)
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.GlyphStyleFunc = func(k int) draw.GlyphStyle {
			c, ok := sc.at(v[idx[k]])
			if !ok {
				return draw.GlyphStyle{Color: nanColor(), Radius: radius, Shape: draw.RingGlyph{}}
			}
			return draw.GlyphStyle{Color: c, Radius: radius, Shape: draw.CircleGlyph{}}
		}
		p.Add(s)
		return colorFigure(dc, p, sc, opts.Label, opts.aspect(), xr, yr)
	})
}

// sample returns the indices of the points Map draws: all n if n <=
// max (max 0 meaning DefaultMaxPoints, negative no limit), otherwise max
// distinct indices chosen at random with a fixed seed, in increasing
// order.
func sample(n, limit int) []int {
	if limit == 0 {
		limit = DefaultMaxPoints
	}
	if limit < 0 || n <= limit {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	// Partial Fisher-Yates shuffle of 0..n-1.
	rng := rand.New(rand.NewPCG(1, 2))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := range limit {
		j := i + rng.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	idx := perm[:limit]
	slices.Sort(idx)
	return idx
}

// Grid draws a heat map of the values v on the regular nx x ny grid over
// the box [x0, x1] x [y0, y1], v being row-major with x fastest: v[j*nx +
// i] is the value of the cell centred at the point (x_i, y_j) of
// GridPoints, and each value fills its cell, of size (x1-x0)/nx by
// (y1-y0)/ny. NaN values leave their cell blank. A colour bar labelled
// opts.Label shows the colour range. It writes base.svg and base.png (1950
// x 1500 pixels at the default DPI; see the package documentation); the cells are a raster
// image in both.
//
// It returns an error if nx or ny is below 1, if len(v) is not nx*ny, if
// the box is not finite with x0 < x1 and y0 < y1, or if the files cannot
// be written.
func Grid(base string, nx, ny int, x0, x1, y0, y1 float64, v []float64, opts MapOptions) error {
	if nx < 1 || ny < 1 {
		return fmt.Errorf("plot: Grid: %d x %d grid", nx, ny)
	}
	if len(v)/nx != ny || len(v)%nx != 0 {
		return fmt.Errorf("plot: Grid: %d values for a %d x %d grid", len(v), nx, ny)
	}
	if !(finite(x0) && finite(x1) && finite(y0) && finite(y1) && x0 < x1 && y0 < y1) {
		return fmt.Errorf("plot: Grid: invalid box [%g, %g] x [%g, %g]", x0, x1, y0, y1)
	}
	sc := newScale(v, opts)
	// Each cell is fx x fy pixels, so that the image is about 600 pixels
	// or more a side and the smoothing of its scaling stays at the cells'
	// edges.
	fx, fy := max(1, 600/nx), max(1, 600/ny)
	img := image.NewNRGBA(image.Rect(0, 0, nx*fx, ny*fy))
	for j := range ny {
		for i := range nx {
			c, ok := sc.at(v[j*nx+i])
			if !ok {
				continue
			}
			for py := (ny - 1 - j) * fy; py < (ny-j)*fy; py++ {
				for px := i * fx; px < (i+1)*fx; px++ {
					img.SetNRGBA(px, py, c)
				}
			}
		}
	}
	xl, yl := opts.labels()
	return saveDPI(base, mapWidth, mapHeight, opts.DPI, func(dc draw.Canvas) error {
		p := newPlot(opts.Title, xl, yl)
		p.X.Padding, p.Y.Padding = 0, 0
		p.Add(plotter.NewImage(img, x0, y0, x1, y1))
		if n := min(len(opts.PointsX), len(opts.PointsY)); n > 0 {
			xy := make(plotter.XYs, n)
			for i := range xy {
				xy[i].X, xy[i].Y = opts.PointsX[i], opts.PointsY[i]
			}
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return err
			}
			sc.GlyphStyle.Color = color.Black
			sc.GlyphStyle.Radius = vg.Points(1.2)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(sc)
		}
		return colorFigure(dc, p, sc, opts.Label, opts.aspect(), [2]float64{x0, x1}, [2]float64{y0, y1})
	})
}

// GridPoints returns the centres of the cells of the regular nx x ny grid
// over the box [x0, x1] x [y0, y1], in Grid's order (row-major, x
// fastest): point j*nx + i is
//
//	x_i = x0 + (i + 0.5) (x1 - x0)/nx,  y_j = y0 + (j + 0.5) (y1 - y0)/ny,
//
// so the points stay half a cell inside the box's edges. It returns nil
// slices if nx or ny is below 1.
func GridPoints(nx, ny int, x0, x1, y0, y1 float64) (x, y []float64) {
	if nx < 1 || ny < 1 {
		return nil, nil
	}
	x = make([]float64, 0, nx*ny)
	y = make([]float64, 0, nx*ny)
	dx, dy := (x1-x0)/float64(nx), (y1-y0)/float64(ny)
	for j := range ny {
		yj := y0 + (float64(j)+0.5)*dy
		for i := range nx {
			x = append(x, x0+(float64(i)+0.5)*dx)
			y = append(y, yj)
		}
	}
	return x, y
}
