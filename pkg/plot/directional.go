package plot

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SemivariogramSeries is one direction of SemivariogramDirections: its
// empirical semivariogram (H, Gamma, with the pairs per bin Counts, or
// nil) and its model curve Model (nil: none), drawn in one colour and
// named Label in the legend.
type SemivariogramSeries struct {
	Label    string
	H, Gamma []float64
	Counts   []int
	Model    func(r float64) float64
}

// seriesColors are the colours of the directions (blue, orange, green,
// purple), distinct in print and for the common colour-vision deficiencies.
func seriesColors() []color.Color {
	return []color.Color{
		color.RGBA{R: 31, G: 86, B: 160, A: 255},
		color.RGBA{R: 222, G: 96, B: 22, A: 255},
		color.RGBA{R: 40, G: 140, B: 80, A: 255},
		color.RGBA{R: 120, G: 60, B: 150, A: 255},
	}
}

// SemivariogramDirections draws several semivariograms on one figure
// (base.svg and base.png, the size of Semivariogram's): for each series
// its empirical points (with the pair counts written small above them,
// when given) and its model line over [0, 1.05 max h], in the series'
// colour, with circles, squares, triangles then crosses for the points,
// and one legend entry (line and point) named by its Label. The title
// may hold several lines ("\n"): say there what the points and lines are.
// The axes are opts.XLabel (or "distance") and "semivariance", both from
// 0. It returns an error for no series, a series whose H and Gamma differ
// in length or hold a non-finite value, or files that cannot be written.
func SemivariogramDirections(base string, series []SemivariogramSeries, opts SemivariogramOptions) error {
	if len(series) == 0 || len(series) > len(seriesColors()) {
		return fmt.Errorf("plot: SemivariogramDirections: %d series (want 1 to %d)", len(series), len(seriesColors()))
	}
	hmax := 0.0
	pts := make([]plotter.XYs, len(series))
	for s, se := range series {
		if len(se.H) != len(se.Gamma) {
			return fmt.Errorf("plot: SemivariogramDirections: %s: %d distances but %d semivariances", se.Label, len(se.H), len(se.Gamma))
		}
		for k := range se.H {
			if !finite(se.H[k]) || !finite(se.Gamma[k]) {
				return fmt.Errorf("plot: SemivariogramDirections: %s: non-finite point (%g, %g)", se.Label, se.H[k], se.Gamma[k])
			}
			pts[s] = append(pts[s], plotter.XY{X: se.H[k], Y: se.Gamma[k]})
			hmax = max(hmax, se.H[k])
		}
	}
	if hmax == 0 {
		hmax = 1
	}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}
	return saveDPI(base, semivarWidth, semivarHeight, opts.DPI, func(dc draw.Canvas) error {
		xl := opts.XLabel
		if xl == "" {
			xl = "distance"
		}
		p := newPlot(opts.Title, xl, "semivariance")
		p.Title.TextStyle.Font = sansFont(11)
		grid := plotter.NewGrid()
		grid.Vertical.Color = gridColor()
		grid.Horizontal.Color = gridColor()
		p.Add(grid)
		labels := &countLabels{font: vg.Points(6)}
		for s, se := range series {
			col := seriesColors()[s]
			var icons []plot.Thumbnailer
			if se.Model != nil {
				const m = 400
				var line plotter.XYs
				for i := range m + 1 {
					r := 1.05 * hmax * float64(i) / m
					if g := se.Model(r); finite(g) {
						line = append(line, plotter.XY{X: r, Y: g})
					}
				}
				if len(line) > 1 {
					l, err := plotter.NewLine(line)
					if err != nil {
						return err
					}
					l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.75)}
					p.Add(l)
					icons = append(icons, l)
				}
			}
			if len(pts[s]) == 0 {
				if len(icons) > 0 {
					p.Legend.Add(se.Label, icons...)
				}
				continue
			}
			sc, err := plotter.NewScatter(pts[s])
			if err != nil {
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: shapes[s]}
			p.Add(sc)
			p.Legend.Add(se.Label, append(icons, sc)...)
			if len(se.Counts) == len(pts[s]) {
				labels.add(pts[s], se.Counts, col)
			}
		}
		p.Add(labels)
		// Bottom right, where a semivariogram is high: empty space.
		drawSemivariogram(p, dc, hmax)
		return nil
	})
}
