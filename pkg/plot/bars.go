package plot

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarsOptions are the texts of Bars.
type BarsOptions struct {
	Title, YLabel string
	// Notes, if not nil (one per bar), are written small above each bar
	// (e.g. its gain and utilisation).
	Notes []string
}

// Bars writes base.svg and base.png: one bar per name at the height of
// its median, with an error bar from lo to hi (e.g. the minimum and
// maximum of repeated measurements; lo <= median <= hi).
func Bars(base string, names []string, median, lo, hi []float64, opts BarsOptions) error {
	n := len(names)
	if n == 0 || len(median) != n || len(lo) != n || len(hi) != n || (opts.Notes != nil && len(opts.Notes) != n) {
		return fmt.Errorf("plot: Bars: %d names, %d medians, %d lows, %d highs", n, len(median), len(lo), len(hi))
	}
	top := 0.0
	for i := range n {
		if !finite(median[i]) || !finite(lo[i]) || !finite(hi[i]) || lo[i] > median[i] || median[i] > hi[i] || lo[i] < 0 {
			return fmt.Errorf("plot: Bars: bar %s: want 0 <= lo <= median <= hi, got %g, %g, %g", names[i], lo[i], median[i], hi[i])
		}
		top = max(top, hi[i])
	}
	return save(base, mapWidth, mapHeight, func(dc draw.Canvas) error {
		p := newPlot(opts.Title, "", opts.YLabel)
		grid := plotter.NewGrid()
		grid.Vertical.Color = nil
		grid.Horizontal.Color = gridColor()
		p.Add(grid)
		bars, err := plotter.NewBarChart(plotter.Values(median), vg.Points(34))
		if err != nil {
			return err
		}
		bars.Color = color.NRGBA{R: 70, G: 130, B: 180, A: 255}
		bars.LineStyle.Width = 0
		p.Add(bars)
		pts := make(plotter.XYs, n)
		errs := make(plotter.YErrors, n)
		for i := range n {
			pts[i] = plotter.XY{X: float64(i), Y: median[i]}
			errs[i].Low, errs[i].High = median[i]-lo[i], hi[i]-median[i]
		}
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return err
		}
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = vg.Points(10)
		p.Add(eb)
		if opts.Notes != nil {
			lp := make(plotter.XYs, n)
			for i := range n {
				lp[i] = plotter.XY{X: float64(i), Y: hi[i] + 0.02*top}
			}
			labels, err := plotter.NewLabels(plotter.XYLabels{XYs: lp, Labels: opts.Notes})
			if err != nil {
				return err
			}
			for i := range labels.TextStyle {
				labels.TextStyle[i].Font = sansFont(8)
				labels.TextStyle[i].XAlign = draw.XCenter
			}
			p.Add(labels)
		}
		p.NominalX(names...)
		p.X.Tick.Label.Font = sansFont(8)
		p.Y.Min, p.Y.Max = 0, 1.2*top
		p.X.Min, p.X.Max = -0.7, float64(n)-0.3 // room for the notes of the end bars
		p.Draw(dc)
		return nil
	})
}
