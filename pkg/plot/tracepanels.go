package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/trace"
)

// occupation is the node-occupation panel: the tasks on their lanes, the
// potrf chain on top, and the transfers between the comm lanes; with its
// legend (the phases and the transfers).
func (v *traceView) occupation(ls laneLayout, sum *TraceSummary) (*gplot.Plot, *gplot.Legend) {
	var gantt, potrf rects
	for _, e := range v.tasks {
		y := ls.y[laneKey{rank: e.Rank, gpu: e.Resource == "gpu", w: e.Worker}]
		r := rect{x0: v.sec(e.Start), x1: v.sec(e.End), y0: y - 0.4, y1: y + 0.4, c: phaseColor(e.Kind)}
		if e.Kind == kind.Potrf {
			sum.Potrf++
			r.outline = true
			potrf = append(potrf, r)
			continue
		}
		gantt = append(gantt, r)
	}
	var lines segments
	for _, t := range v.transfers {
		ys, okS := ls.y[laneKey{rank: t.Src, comm: true}]
		yd, okD := ls.y[laneKey{rank: t.Dst, comm: true}]
		switch {
		case okS && okD:
		case okD:
			ys = yd // the sender is not in the trace: a mark on the receiver's lane
		case okS:
			yd = ys
		default:
			continue
		}
		lines = append(lines, [4]float64{v.sec(t.Start), ys, v.sec(t.End), yd})
		sum.Transfers++
	}
	p := newPlot("", "", "worker")
	p.Add(append(gantt, potrf...), lines) // the critical path over the rest, the transfers on top
	p.Y.Tick.Marker = ls.labels
	p.Y.Min, p.Y.Max = -0.6, float64(ls.n)-0.4
	l := newLegend()
	for _, e := range []struct {
		name string
		k    string
	}{{"generation", kind.Dcmg}, {"cholesky", kind.Gemm}, {"potrf (critical path)", kind.Potrf}, {"solve", kind.Dot}} {
		l.Add(e.name, legendBox{phaseColor(e.k)})
	}
	if len(lines) > 0 {
		ln, _ := plotter.NewLine(plotter.XYs{{}, {}})
		ln.Color, ln.Width = transferColor, vg.Points(1)
		l.Add("transfer", ln)
	}
	return p, l
}

// iterationPanel places each task at the height of its Cholesky step.
func (v *traceView) iterationPanel() *gplot.Plot {
	nt := 0
	for _, e := range v.tasks {
		if kind.Phase(e.Kind) == "cholesky" && e.Tile[2] >= nt {
			nt = e.Tile[2] + 1
		}
	}
	var steps, potrf rects
	for _, e := range v.tasks {
		step := float64(nt + 1)
		switch kind.Phase(e.Kind) {
		case "generation":
			step = 0
		case "cholesky":
			step = float64(e.Tile[2] + 1)
		}
		s := rect{x0: v.sec(e.Start), x1: v.sec(e.End), y0: step - 0.35, y1: step + 0.35, c: phaseColor(e.Kind), outline: e.Kind == kind.Potrf}
		if s.outline {
			potrf = append(potrf, s)
		} else {
			steps = append(steps, s)
		}
	}
	p := newPlot("iteration panel: Cholesky step of each task (0 generation, NT+1 solve)", "", "step")
	p.Add(append(steps, potrf...))
	p.Y.Min, p.Y.Max = -0.6, float64(nt+1)+0.6
	ticks := labelTicks{}
	for k := 0; k <= nt+1; k += max(1, (nt+2)/10) {
		ticks[float64(k)] = fmt.Sprint(k)
	}
	ticks[float64(nt+1)] = fmt.Sprint(nt + 1)
	p.Y.Tick.Marker = ticks
	return p
}

// readyPanel counts the tasks submitted (or ready) and not started: +1 at
// the mark, -1 at the start.
func (v *traceView) readyPanel() (*gplot.Plot, *gplot.Legend, error) {
	counts := func(mark func(trace.Event) int64) plotter.XYs {
		type change struct {
			t int64
			d int
		}
		var ch []change
		for _, e := range v.tasks {
			if m := mark(e); m > 0 {
				ch = append(ch, change{m, 1}, change{e.Start, -1})
			}
		}
		sort.SliceStable(ch, func(i, j int) bool { return ch[i].t < ch[j].t })
		var xy plotter.XYs
		n := 0
		for _, c := range ch {
			n += c.d
			xy = append(xy, plotter.XY{X: math.Max(0, v.sec(c.t)), Y: float64(n)})
		}
		return xy
	}
	p := newPlot("tasks submitted and ready, not yet started", "", "tasks")
	l := newLegend()
	sub := counts(func(e trace.Event) int64 { return e.Submit })
	rdy := counts(func(e trace.Event) int64 { return e.Ready })
	for _, c := range []struct {
		name string
		xy   plotter.XYs
		c    color.Color
	}{{"submitted", sub, color.RGBA{R: 120, G: 120, B: 120, A: 255}}, {"ready", rdy, color.RGBA{R: 148, G: 103, B: 189, A: 255}}} {
		if len(c.xy) == 0 {
			continue
		}
		line, err := plotter.NewLine(stepXY(c.xy))
		if err != nil {
			return nil, nil, err
		}
		line.Color, line.Width = c.c, vg.Points(1)
		p.Add(line)
		l.Add(c.name, line)
	}
	if len(sub) == 0 {
		p.Title.Text += " (no submission times: a simulated trace)"
	}
	return p, l, nil
}

// memoryPanel draws the tile memory each rank holds.
func (v *traceView) memoryPanel() (*gplot.Plot, *gplot.Legend, error) {
	p := newPlot("tile memory held per rank", "time (s)", "MB")
	if len(v.mem) == 0 {
		p.Title.Text += " (no memory samples in the trace)"
		return p, nil, nil
	}
	l := newLegend()
	byRank := map[int]plotter.XYs{}
	for _, m := range v.mem {
		byRank[m.Rank] = append(byRank[m.Rank], plotter.XY{X: math.Max(0, v.sec(m.Start)), Y: float64(m.Bytes) / 1e6})
	}
	rs := make([]int, 0, len(byRank))
	for r := range byRank {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	for i, r := range rs {
		line, err := plotter.NewLine(stepXY(byRank[r]))
		if err != nil {
			return nil, nil, err
		}
		line.Color, line.Width = rankColor(i), vg.Points(1)
		p.Add(line)
		l.Add(fmt.Sprintf("rank %d", r), line)
	}
	return p, l, nil
}

// legendWidth is the column at the right of the panels that holds their
// legends.
const legendWidth = 1.6 * vg.Inch

// newLegend returns a legend in the package's look, to draw beside a
// panel.
func newLegend() *gplot.Legend {
	l := gplot.NewLegend()
	setSans(&l.TextStyle)
	l.Top, l.Left = true, true
	return &l
}

// drawRows draws the rows one under the other on a 10 x 11 inch figure,
// each panel left of a column with its legend, as an SVG or a PNG (ext)
// of dpi dots per inch (0: DPI).
func drawRows(ext string, rows []row, dpi float64) ([]byte, error) {
	w, h := 10*vg.Inch, 11*vg.Inch
	fig := func(dc draw.Canvas) error {
		top, height := dc.Max.Y, dc.Max.Y-dc.Min.Y
		for _, r := range rows {
			hh := vg.Length(r.frac) * height
			panel := vg.Rectangle{Min: vg.Point{X: dc.Min.X, Y: top - hh}, Max: vg.Point{X: dc.Max.X - legendWidth, Y: top}}
			r.p.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: panel})
			if r.legend != nil {
				col := vg.Rectangle{Min: vg.Point{X: dc.Max.X - legendWidth + vg.Points(6), Y: top - hh}, Max: vg.Point{X: dc.Max.X, Y: top - vg.Points(24)}}
				r.legend.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: col})
			}
			top -= hh
		}
		return nil
	}
	var buf bytes.Buffer
	if ext == ".svg" {
		c := vgsvg.New(w, h)
		if err := render(draw.New(c), fig); err != nil {
			return nil, err
		}
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, err
		}
		return fixSVG(buf.Bytes()), nil
	}
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(int(dpiOr(dpi))))
	if err := render(draw.New(c), fig); err != nil {
		return nil, err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stepXY turns samples of a step function into the corners of its graph.
func stepXY(xy plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, 0, 2*len(xy))
	for i, p := range xy {
		if i > 0 {
			out = append(out, plotter.XY{X: p.X, Y: xy[i-1].Y})
		}
		out = append(out, p)
	}
	return out
}

// rankColor is the colour of rank i's line.
func rankColor(i int) color.Color {
	palette := []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255},
		{255, 127, 14, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}}
	return palette[i%len(palette)]
}

// legendBox is a legend thumbnail: a filled square.
type legendBox struct{ c color.Color }

func (l legendBox) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(l.c, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}
