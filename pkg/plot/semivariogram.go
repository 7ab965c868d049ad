package plot

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bounds returns the smallest and largest of v, ignoring NaNs.
func bounds(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo = min(lo, x)
		hi = max(hi, x)
	}
	return lo, hi
}

// Colours of the semivariogram plot (functions: no package-level state).
func gridColor() color.Color  { return color.Gray{Y: 222} }
func pointColor() color.Color { return color.RGBA{R: 31, G: 86, B: 160, A: 255} }
func lineColor() color.Color  { return color.RGBA{R: 222, G: 96, B: 22, A: 255} }

// Semivariogram draws the empirical semivariogram (h[k], gamma[k]) as
// points and, when model is not nil, the fitted semivariogram model(r) as
// a line over [0, 1.05 max(h)], into base.svg and base.png (1800 x 1350
// pixels at the default DPI; see the package documentation). For a Matérn fit, model(r) is
// sigma2 + nugget - C(r). The axes are "distance" and "semivariance" and
// both start at 0; the legend, top left, reads "empirical" and "fitted
// model".
// Points where model is NaN or infinite are left out of the line.
//
// It returns an error if h and gamma have different or zero lengths, if
// they hold a NaN or an infinite value, or if the files cannot be
// written.
func Semivariogram(base string, h, gamma []float64, model func(r float64) float64, title string) error {
	return SemivariogramWith(base, h, gamma, model, SemivariogramOptions{Title: title})
}

// SemivariogramOptions are the texts of SemivariogramWith.
type SemivariogramOptions struct {
	Title string
	// XLabel names the distance axis with its unit ("distance (km)");
	// "distance" if empty.
	XLabel string
	// Counts, if not nil (one per point), are the numbers of pairs of
	// each bin, written small above its point.
	Counts []int
	// DPI is the PNG's resolution in dots per inch; 0 means DPI.
	DPI float64
}

// SemivariogramWith is Semivariogram with an axis label and the bins' pair
// counts (opts).
func SemivariogramWith(base string, h, gamma []float64, model func(r float64) float64, opts SemivariogramOptions) error {
	title := opts.Title
	if len(h) != len(gamma) {
		return fmt.Errorf("plot: Semivariogram: %d distances but %d semivariances", len(h), len(gamma))
	}
	if len(h) == 0 {
		return fmt.Errorf("plot: Semivariogram: no points")
	}
	pts := make(plotter.XYs, len(h))
	hmax := 0.0
	for k := range h {
		if !finite(h[k]) || !finite(gamma[k]) {
			return fmt.Errorf("plot: Semivariogram: non-finite point (%g, %g)", h[k], gamma[k])
		}
		pts[k].X, pts[k].Y = h[k], gamma[k]
		hmax = max(hmax, h[k])
	}
	if hmax == 0 {
		hmax = 1
	}
	var line plotter.XYs
	if model != nil {
		const m = 400
		rmax := 1.05 * hmax
		for i := range m + 1 {
			r := rmax * float64(i) / m
			if g := model(r); finite(g) {
				line = append(line, plotter.XY{X: r, Y: g})
			}
		}
	}
	return saveDPI(base, semivarWidth, semivarHeight, opts.DPI, func(dc draw.Canvas) error {
		xl := opts.XLabel
		if xl == "" {
			xl = "distance"
		}
		p := newPlot(title, xl, "semivariance")
		grid := plotter.NewGrid()
		grid.Vertical.Color = gridColor()
		grid.Horizontal.Color = gridColor()
		p.Add(grid)

		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: pointColor(), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		if len(opts.Counts) == len(pts) {
			p.Legend.Add("empirical (numbers: pairs per bin)", sc)
		} else {
			p.Legend.Add("empirical", sc)
		}
		if len(line) > 1 {
			l, err := plotter.NewLine(line)
			if err != nil {
				return err
			}
			l.LineStyle = draw.LineStyle{Color: lineColor(), Width: vg.Points(1.75)}
			p.Add(l)
			p.Legend.Add("fitted model", l)
		}
		p.Add(sc)
		if len(opts.Counts) == len(pts) {
			lb := &countLabels{font: vg.Points(6.5)}
			lb.add(pts, opts.Counts, color.Gray{Y: 110})
			p.Add(lb)
		}
		// Bottom right, below the sill at long distances: empty space.
		drawSemivariogram(p, dc, hmax)
		return nil
	})
}

// countLabels is a plotter of the pair counts of semivariogram bins:
// each label is centred above its point, or, where that place is taken,
// below it, then one and two lines further up or down, at the first place
// where it overlaps no other label and no point; a label with no such
// place is left out (the counts stay in the exported bins). The labels
// are placed in order, so the first series' win.
type countLabels struct {
	pts    plotter.XYs
	text   []string
	colors []color.Color
	font   vg.Length
}

// add appends the counts of the points pts (one per point) in colour col.
func (l *countLabels) add(pts plotter.XYs, counts []int, col color.Color) {
	for k, c := range counts {
		l.pts = append(l.pts, pts[k])
		l.text = append(l.text, strconv.Itoa(c))
		l.colors = append(l.colors, col)
	}
}

// Plot implements plot.Plotter.
func (l *countLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	at := make([]vg.Point, len(l.pts))
	size := make([]vg.Point, len(l.pts))
	sty := make([]draw.TextStyle, len(l.pts))
	for k, pt := range l.pts {
		sty[k] = draw.TextStyle{Color: l.colors[k], Font: sansFont(l.font), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: p.Title.TextStyle.Handler}
		at[k] = vg.Point{X: trX(pt.X), Y: trY(pt.Y)}
		size[k] = vg.Point{X: sty[k].Width(l.text[k]), Y: sty[k].Height(l.text[k])}
	}
	for k, box := range placeLabels(at, size, vg.Points(3), vg.Points(2), c.Rectangle) {
		if box != (vg.Rectangle{}) {
			c.FillText(sty[k], vg.Point{X: (box.Min.X + box.Max.X) / 2, Y: box.Min.Y}, l.text[k])
		}
	}
}

// placeLabels places a label of size size[k] (width, height) at each
// point at[k] (marked by a glyph of radius r) inside area: centred above
// the glyph at a distance gap, else below, then one and two heights
// further up or down, at the first place that overlaps no glyph and no
// label placed before; the zero rectangle for a label with no such place.
func placeLabels(at, size []vg.Point, r, gap vg.Length, area vg.Rectangle) []vg.Rectangle {
	var taken []vg.Rectangle
	for _, q := range at {
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: q.X - r, Y: q.Y - r}, Max: vg.Point{X: q.X + r, Y: q.Y + r}})
	}
	inside := func(b vg.Rectangle) bool {
		return b.Min.X >= area.Min.X && b.Min.Y >= area.Min.Y && b.Max.X <= area.Max.X && b.Max.Y <= area.Max.Y
	}
	out := make([]vg.Rectangle, len(at))
	for k, q := range at {
		w, h := size[k].X, size[k].Y
		for try := range 6 {
			lift := vg.Length(try/2) * h
			y0 := q.Y + r + gap + lift // above
			if try%2 == 1 {
				y0 = q.Y - r - gap - h - lift // below
			}
			box := vg.Rectangle{Min: vg.Point{X: q.X - w/2, Y: y0}, Max: vg.Point{X: q.X + w/2, Y: y0 + h}}
			if inside(box) && !overlapsAny(box, taken) {
				out[k] = box
				taken = append(taken, box)
				break
			}
		}
	}
	return out
}

// overlapsAny reports whether b overlaps one of the rectangles of taken.
func overlapsAny(b vg.Rectangle, taken []vg.Rectangle) bool {
	for _, t := range taken {
		if b.Min.X < t.Max.X && t.Min.X < b.Max.X && b.Min.Y < t.Max.Y && t.Min.Y < b.Max.Y {
			return true
		}
	}
	return false
}

// drawSemivariogram draws a semivariogram p on dc: distances from 0 to 5 %
// past hmax (or the data's), semivariances from 0 with 5 % of headroom,
// the legend in the bottom right corner.
func drawSemivariogram(p *plot.Plot, dc draw.Canvas, hmax float64) {
	p.X.Min = min(p.X.Min, 0)
	p.X.Max = max(p.X.Max, 1.05*hmax)
	p.Y.Min = min(p.Y.Min, 0)
	p.Y.Max += 0.05 * (p.Y.Max - p.Y.Min)
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(8)
	p.Legend.YOffs = vg.Points(8)
	p.Draw(draw.Crop(dc, 0, -vg.Points(12), 0, 0))
}
