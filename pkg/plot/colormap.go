package plot

import (
	"image"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// viridis returns the colour of t in [0, 1] (clamped; NaN counts as 0)
// on a perceptually uniform sequential map: the linear interpolation, in
// sRGB, of nine equally spaced samples of matplotlib's viridis, from dark
// purple (0) through blue and green to yellow (1).
func viridis(t float64) color.NRGBA {
	anchors := [...][3]float64{
		{68, 1, 84},    // #440154
		{72, 40, 120},  // #482878
		{62, 73, 137},  // #3e4989
		{49, 104, 142}, // #31688e
		{38, 130, 142}, // #26828e
		{31, 158, 137}, // #1f9e89
		{53, 183, 121}, // #35b779
		{110, 206, 88}, // #6ece58
		{253, 231, 37}, // #fde725
	}
	return interpolate(anchors[:], t)
}

// diverging returns the colour of t in [0, 1] (clamped; NaN counts as 0)
// on a diverging map: the linear interpolation, in sRGB, of five colours
// of ColorBrewer's RdBu scheme, from dark blue (0) through white (1/2) to
// dark red (1).
func diverging(t float64) color.NRGBA {
	anchors := [...][3]float64{
		{33, 102, 172},  // #2166ac
		{103, 169, 207}, // #67a9cf
		{247, 247, 247}, // #f7f7f7
		{239, 138, 98},  // #ef8a62
		{178, 24, 43},   // #b2182b
	}
	return interpolate(anchors[:], t)
}

// nanColor is the colour of the points of Map whose value is NaN.
func nanColor() color.Color { return color.Gray{Y: 160} }

// scale maps values in [lo, hi] (lo < hi) to colours: viridis, or
// diverging when div is set.
type scale struct {
	lo, hi float64
	div    bool
}

// color returns the colour of the fraction t of the range.
func (s scale) color(t float64) color.NRGBA {
	if s.div {
		return diverging(t)
	}
	return viridis(t)
}

// newScale returns the scale of opts.Min and opts.Max if they are finite
// with Min < Max, otherwise that of the range of the finite values of v:
// widened by 1% of |v| (or to [-1, 1] around 0) if they are all equal,
// [0, 1] if there are none. With opts.Diverging the range found is made
// symmetric about 0, [-m, m] with m the largest |v| (1 if all are 0).
func newScale(v []float64, opts MapOptions) scale {
	s := newRange(v, opts)
	s.div = opts.Diverging
	if s.div && !(finite(opts.Min) && finite(opts.Max) && opts.Min < opts.Max) {
		m := max(math.Abs(s.lo), math.Abs(s.hi))
		if m == 0 {
			m = 1
		}
		s.lo, s.hi = -m, m
	}
	return s
}

// newRange is newScale's range before the diverging map's symmetry.
func newRange(v []float64, opts MapOptions) scale {
	if finite(opts.Min) && finite(opts.Max) && opts.Min < opts.Max {
		return scale{lo: opts.Min, hi: opts.Max}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if finite(x) {
			lo = min(lo, x)
			hi = max(hi, x)
		}
	}
	switch {
	case lo > hi:
		return scale{lo: 0, hi: 1}
	case lo == hi:
		d := 0.01 * math.Abs(lo)
		if d == 0 {
			d = 1
		}
		return scale{lo: lo - d, hi: hi + d}
	}
	return scale{lo: lo, hi: hi}
}

// at returns the colour of v, values out of [lo, hi] (infinities
// included) taking the colour of the nearer end; ok is false for NaN.
func (s scale) at(v float64) (c color.NRGBA, ok bool) {
	if math.IsNaN(v) {
		return color.NRGBA{}, false
	}
	return s.color((v - s.lo) / (s.hi - s.lo)), true
}

// Layout of the colour bar, right of the plot's data area.
const (
	barGap      = vg.Length(16) // between the plot's area and the bar
	barWidth    = vg.Length(14)
	barTick     = vg.Length(4) // tick marks, right of the bar
	barTickPad  = vg.Length(3) // between tick marks and their labels
	barLabelPad = vg.Length(9) // between tick labels and the bar's label
	barRightPad = vg.Length(8) // right of the bar's label
)

// colorFigure draws p, whose plotters are added, into dc, keeping a strip
// on the right for a vertical colour bar of sc labelled label, aligned
// with p's data area. The axes span the data ranges xr and yr, widened
// (about their centre) so that one unit of y is drawn aspect times as
// long as one unit of x if aspect > 0 (1: equal units).
func colorFigure(dc draw.Canvas, p *gplot.Plot, sc scale, label string, aspect float64, xr, yr [2]float64) error {
	xr, yr = nonEmpty(xr), nonEmpty(yr)
	p.X.Min, p.X.Max = xr[0], xr[1]
	p.Y.Min, p.Y.Max = yr[0], yr[1]

	// The colour bar's ticks and the width they need.
	tickSty := p.Y.Tick.Label
	tickSty.XAlign, tickSty.YAlign = draw.XLeft, draw.YCenter
	var ticks []gplot.Tick
	var tickW vg.Length
	for _, t := range (niceTicks{}).Ticks(sc.lo, sc.hi) {
		if t.IsMinor() || t.Value < sc.lo || t.Value > sc.hi {
			continue
		}
		ticks = append(ticks, t)
		tickW = max(tickW, tickSty.Width(t.Label))
	}
	labelSty := p.Y.Label.TextStyle
	labelSty.Rotation = math.Pi / 2
	var labelH vg.Length
	if label != "" {
		labelH = barLabelPad + labelSty.Height(label)
	}
	strip := barGap + barWidth + barTick + barTickPad + tickW + labelH + barRightPad
	main := draw.Crop(dc, 0, -strip, 0, 0)

	// Fixed aspect: widen the range that leaves room to the data area's
	// shape; the tick labels, hence the area, may change with the
	// ranges: iterate.
	if aspect > 0 {
		cx, cy := (xr[0]+xr[1])/2, (yr[0]+yr[1])/2
		for range 3 {
			da := p.DataCanvas(main)
			w, h := float64(da.Max.X-da.Min.X), float64(da.Max.Y-da.Min.Y)
			if !(w > 0 && h > 0) {
				break
			}
			u := max((xr[1]-xr[0])/w, aspect*(yr[1]-yr[0])/h) // x units per point
			p.X.Min, p.X.Max = cx-u*w/2, cx+u*w/2
			p.Y.Min, p.Y.Max = cy-u*h/aspect/2, cy+u*h/aspect/2
		}
	}
	p.Draw(main)
	da := p.DataCanvas(main)

	// The bar: a gradient image with a frame, tick marks and labels.
	x0 := main.Max.X + barGap
	bar := vg.Rectangle{Min: vg.Point{X: x0, Y: da.Min.Y}, Max: vg.Point{X: x0 + barWidth, Y: da.Max.Y}}
	const n = 256
	img := image.NewNRGBA(image.Rect(0, 0, 1, n))
	for k := range n {
		img.SetNRGBA(0, n-1-k, sc.color((float64(k)+0.5)/n))
	}
	dc.DrawImage(bar, img)
	frame := draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	dc.StrokeLines(frame, []vg.Point{bar.Min, {X: bar.Max.X, Y: bar.Min.Y}, bar.Max, {X: bar.Min.X, Y: bar.Max.Y}, bar.Min})
	descent := tickSty.FontExtents().Descent
	for _, t := range ticks {
		y := bar.Min.Y + vg.Length((t.Value-sc.lo)/(sc.hi-sc.lo))*(bar.Max.Y-bar.Min.Y)
		dc.StrokeLine2(frame, bar.Max.X, y, bar.Max.X+barTick, y)
		dc.FillText(tickSty, vg.Point{X: bar.Max.X + barTick + barTickPad, Y: y + descent}, t.Label)
	}
	if label != "" {
		x := bar.Max.X + barTick + barTickPad + tickW + labelH
		y := (bar.Min.Y + bar.Max.Y) / 2
		dc.FillText(labelSty, vg.Point{X: x - labelSty.FontExtents().Descent, Y: y}, label)
	}
	return nil
}

// nonEmpty returns r, or for an empty range [c, c] the range [c-d, c+d]
// with d = 1% of |c| (1 if c is 0).
func nonEmpty(r [2]float64) [2]float64 {
	if r[0] < r[1] {
		return r
	}
	d := 0.01 * math.Abs(r[0])
	if d == 0 {
		d = 1
	}
	return [2]float64{r[0] - d, r[0] + d}
}

// interpolate returns the colour of t in [0, 1] (clamped; NaN counts as
// 0) on the map that interpolates linearly, in sRGB, between equally
// spaced anchors (at least two).
func interpolate(anchors [][3]float64, t float64) color.NRGBA {
	if !(t > 0) {
		t = 0
	}
	t = min(t, 1) * float64(len(anchors)-1)
	k := min(int(t), len(anchors)-2)
	f := t - float64(k)
	a, b := anchors[k], anchors[k+1]
	ch := func(c int) uint8 { return uint8(math.Round(a[c] + (b[c]-a[c])*f)) }
	return color.NRGBA{R: ch(0), G: ch(1), B: ch(2), A: 255}
}
