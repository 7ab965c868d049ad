package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// QQOptions are the texts and settings of NormalQQ.
type QQOptions struct {
	// Title is the title above the plot; none if empty.
	Title string
	// YLabel names the values ("standardised residual"); "sample
	// quantile" if empty.
	YLabel string
	// DPI is the PNG's resolution in dots per inch; 0 means DPI.
	DPI float64
}

// NormalQuantiles returns the points of the normal quantile-quantile plot
// of the finite values of v: q[i] = Phi^-1((i + 1/2)/n), i = 0..n-1, the
// standard normal quantiles at Hazen's plotting positions (R's
// qqnorm for n > 10), and s the finite values of v sorted in increasing
// order.
func NormalQuantiles(v []float64) (q, s []float64) {
	for _, x := range v {
		if finite(x) {
			s = append(s, x)
		}
	}
	slices.Sort(s)
	n := float64(len(s))
	q = make([]float64, len(s))
	for i := range q {
		q[i] = distuv.UnitNormal.Quantile((float64(i) + 0.5) / n)
	}
	return q, s
}

// NormalQQ draws the normal quantile-quantile plot of the finite values of
// v (NormalQuantiles: the sorted values against the standard normal
// quantiles) with the line y = x, the standard normal's (standardised
// residuals of a well-specified model lie about it), into base.svg and
// base.png (5 x 5 inches: 1500 x 1500 pixels at the default DPI).
//
// It returns an error if v has no finite value or if the files cannot be
// written.
func NormalQQ(base string, v []float64, opts QQOptions) error {
	q, s := NormalQuantiles(v)
	if len(s) == 0 {
		return fmt.Errorf("plot: NormalQQ: no finite values")
	}
	pts := make(plotter.XYs, len(s))
	lo, hi := math.Min(q[0], s[0]), math.Max(q[len(q)-1], s[len(s)-1])
	for i := range s {
		pts[i] = plotter.XY{X: q[i], Y: s[i]}
	}
	yl := opts.YLabel
	if yl == "" {
		yl = "sample quantile"
	}
	r := min(max(0.4*math.Sqrt(3.9*3.9*72*72/float64(len(s))), 1), 3)
	return saveDPI(base, qqSize, qqSize, opts.DPI, func(dc draw.Canvas) error {
		p := newPlot(opts.Title, "standard normal quantile", yl)
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
		if err != nil {
			return err
		}
		line.Color = color.NRGBA{R: 178, G: 24, B: 43, A: 255}
		line.Width = vg.Points(1)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{R: 33, G: 102, B: 172, A: 255}, Radius: vg.Points(r), Shape: draw.RingGlyph{}}
		p.Add(plotter.NewGrid(), line, sc)
		p.Legend.Add("y = x (standard normal)", line)
		p.Legend.Top, p.Legend.Left = true, true
		p.Draw(dc)
		return nil
	})
}
