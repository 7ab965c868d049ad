package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/trace"
)

// TraceSummary is what TraceView measured on the events it drew.
type TraceSummary struct {
	// Makespan is the time from the first task's start to the last one's
	// end, in seconds; Workers the number of worker lanes.
	Makespan float64 `json:"makespan_s"`
	Workers  int     `json:"workers"`
	// Utilization is seed 000's resource-utilisation metric: the time the
	// workers spent in tasks divided by Workers x Makespan; Utilization90
	// the same over the first 90 % of the makespan (the tail, where the
	// last Cholesky steps leave workers idle, left out).
	Utilization   float64 `json:"utilization"`
	Utilization90 float64 `json:"utilization_first90"`
	// Potrf is the number of potrf tasks, the Cholesky's critical path.
	Potrf int `json:"potrf"`
	Tasks int `json:"tasks"`
	Ranks int `json:"ranks"`
}

// Utilization returns seed 000's resource-utilisation metric of the task
// events of ev (trace.UtilizationOf) over their span (first start to last
// end) with the distinct (rank, worker) lanes that ran a task as the
// workers: over the whole span and over its first 90 %, the span in
// seconds and the lanes.
func Utilization(ev []trace.Event) (whole, first90 float64, span float64, lanes int) {
	t0, t1 := int64(math.MaxInt64), int64(math.MinInt64)
	seen := map[[2]int]bool{}
	for _, e := range ev {
		if e.Kind == trace.MemoryKind || e.IsTransfer() || e.Worker < 0 {
			continue
		}
		t0, t1 = min(t0, e.Start), max(t1, e.End)
		seen[[2]int{e.Rank, e.Worker}] = true
	}
	if len(seen) == 0 || t1 <= t0 {
		return 0, 0, 0, len(seen)
	}
	u := trace.UtilizationOf(ev, len(seen), t0, t1)
	return u.Whole, u.First90, float64(t1-t0) * 1e-9, len(seen)
}

// TraceViewOptions configure TraceView.
type TraceViewOptions struct {
	// Iteration, if > 0, keeps only the events of that iteration mark (one
	// likelihood evaluation of a fit).
	Iteration int
	// Title heads the figure (default: the file's base name).
	Title string
	// DPI of a PNG (0: DPI).
	DPI float64
}

// phaseColor is the colour of a task of kind k in the panels: generation
// green, Cholesky blue (potrf, the critical path, red), solve orange,
// other grey.
func phaseColor(k string) color.Color {
	if k == kind.Potrf {
		return color.RGBA{R: 214, G: 39, B: 40, A: 255}
	}
	switch kind.Phase(k) {
	case "generation":
		return color.RGBA{R: 44, G: 160, B: 44, A: 255}
	case "cholesky":
		return color.RGBA{R: 31, G: 119, B: 180, A: 255}
	case "solve":
		return color.RGBA{R: 255, G: 127, B: 14, A: 255}
	}
	return color.Gray{Y: 150}
}

// rect is one filled rectangle in data coordinates.
type rect struct {
	x0, x1, y0, y1 float64
	c              color.Color
	outline        bool
}

// rects is a gonum plotter of rectangles, drawn in order.
type rects []rect

func (rs rects) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, r := range rs {
		x0, x1, y0, y1 := tx(r.x0), tx(r.x1), ty(r.y0), ty(r.y1)
		if x1-x0 < vg.Points(0.3) { // keep short tasks visible
			x1 = x0 + vg.Points(0.3)
		}
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(r.c, c.ClipPolygonXY(pts))
		if r.outline {
			c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(0.6)}, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

func (rs rects) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, r := range rs {
		xmin, xmax = math.Min(xmin, r.x0), math.Max(xmax, r.x1)
		ymin, ymax = math.Min(ymin, r.y0), math.Max(ymax, r.y1)
	}
	return
}

// labelTicks puts one labelled tick at each integer position with a label.
type labelTicks map[float64]string

func (l labelTicks) Ticks(lo, hi float64) []gplot.Tick {
	var t []gplot.Tick
	for v, s := range l {
		if v >= lo && v <= hi {
			t = append(t, gplot.Tick{Value: v, Label: s})
		}
	}
	sort.Slice(t, func(i, j int) bool { return t[i].Value < t[j].Value })
	return t
}

// TraceView draws StarVZ-style panels of a real or simulated trace (ranks
// merged) to path, an SVG or a PNG by its extension, one time axis in
// seconds from the first task's start:
//
//  1. node occupation: one lane per worker of each rank (grouped by rank
//     and worker type), each task a box coloured by phase, the potrf
//     chain (the Cholesky's critical path) in red and outlined; the
//     makespan and the utilisation in the title;
//  2. the iteration panel of seed 000's Figure 3: each task at the height
//     of its Cholesky step k (generation at 0, the Cholesky's step k at
//     k + 1, the post-Cholesky solve and products at NT + 1);
//  3. tasks submitted and not started, and ready and not started, over
//     time (real traces only: a simulation has no submission);
//  4. the tile memory each rank holds over time (MB).
func TraceView(path string, ev []trace.Event, o TraceViewOptions) (*TraceSummary, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return nil, fmt.Errorf("plot: the trace view is an .svg or a .png file, not %q", path)
	}
	if o.Iteration > 0 {
		// The iteration's tasks and transfers, and the memory samples
		// taken while they ran (samples carry no iteration mark).
		var kept, mem []trace.Event
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, e := range ev {
			switch {
			case e.Kind == trace.MemoryKind:
				mem = append(mem, e)
			case e.Iter == o.Iteration:
				kept = append(kept, e)
				lo, hi = min(lo, e.Start), max(hi, e.End)
			}
		}
		for _, m := range mem {
			if m.Start >= lo && m.Start <= hi {
				kept = append(kept, m)
			}
		}
		ev = kept
	}
	var tasks []trace.Event
	var mem []trace.Event
	t0 := int64(math.MaxInt64)
	for _, e := range ev {
		switch {
		case e.Kind == trace.MemoryKind:
			mem = append(mem, e)
		case e.IsTransfer():
		default:
			tasks = append(tasks, e)
			t0 = min(t0, e.Start)
		}
	}
	if len(tasks) == 0 {
		if o.Iteration > 0 {
			return nil, fmt.Errorf("plot: the trace has no task of iteration %d", o.Iteration)
		}
		return nil, fmt.Errorf("plot: the trace has no task")
	}
	sec := func(ns int64) float64 { return float64(ns-t0) * 1e-9 }
	whole, first90, span, nlanes := Utilization(tasks)
	sum := &TraceSummary{Makespan: span, Workers: nlanes, Utilization: whole, Utilization90: first90, Tasks: len(tasks)}

	// Lanes: ranks in order, CPU workers before GPU workers.
	type laneKey struct {
		rank int
		gpu  bool
		w    int
	}
	laneSet := map[laneKey]bool{}
	ranks := map[int]bool{}
	for _, e := range tasks {
		laneSet[laneKey{e.Rank, e.Resource == "gpu", e.Worker}] = true
		ranks[e.Rank] = true
	}
	sum.Ranks = len(ranks)
	keys := make([]laneKey, 0, len(laneSet))
	for k := range laneSet {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.gpu != b.gpu {
			return !a.gpu
		}
		return a.w < b.w
	})
	laneOf := map[laneKey]float64{}
	laneLabels := labelTicks{}
	for i, k := range keys {
		y := float64(len(keys) - 1 - i) // rank 0 on top
		laneOf[k] = y
		if len(keys) <= 24 {
			res := "cpu"
			if k.gpu {
				res = "gpu"
			}
			laneLabels[y] = fmt.Sprintf("r%d %s%d", k.rank, res, k.w)
		}
	}
	if len(keys) > 24 { // one label per rank, at its middle lane
		first := map[int]int{}
		count := map[int]int{}
		for i, k := range keys {
			if _, ok := first[k.rank]; !ok {
				first[k.rank] = i
			}
			count[k.rank]++
		}
		every := max(1, len(first)/16)
		for r, i := range first {
			if r%every == 0 {
				laneLabels[float64(len(keys)-1-i-count[r]/2)] = fmt.Sprintf("rank %d", r)
			}
		}
	}
	var gantt, steps rects
	var potrf rects
	nt := 0
	for _, e := range tasks {
		if kind.Phase(e.Kind) == "cholesky" && e.Tile[2] >= nt {
			nt = e.Tile[2] + 1
		}
	}
	for _, e := range tasks {
		y := laneOf[laneKey{e.Rank, e.Resource == "gpu", e.Worker}]
		r := rect{x0: sec(e.Start), x1: sec(e.End), y0: y - 0.4, y1: y + 0.4, c: phaseColor(e.Kind)}
		step := float64(nt + 1)
		switch kind.Phase(e.Kind) {
		case "generation":
			step = 0
		case "cholesky":
			step = float64(e.Tile[2] + 1)
		}
		s := rect{x0: sec(e.Start), x1: sec(e.End), y0: step - 0.35, y1: step + 0.35, c: phaseColor(e.Kind)}
		if e.Kind == kind.Potrf {
			sum.Potrf++
			r.outline, s.outline = true, true
			potrf = append(potrf, r)
			continue
		}
		gantt = append(gantt, r)
		steps = append(steps, s)
	}
	gantt = append(gantt, potrf...) // the critical path on top
	for _, e := range tasks {
		if e.Kind == kind.Potrf {
			k := float64(e.Tile[2] + 1)
			steps = append(steps, rect{x0: sec(e.Start), x1: sec(e.End), y0: k - 0.35, y1: k + 0.35, c: phaseColor(e.Kind), outline: true})
		}
	}

	title := o.Title
	if title == "" {
		title = filepath.Base(path)
	}
	if o.Iteration > 0 {
		title += fmt.Sprintf(", iteration %d", o.Iteration)
	}
	pOcc := newPlot(fmt.Sprintf("%s: makespan %.4g s, utilisation %.1f %% (first 90 %%: %.1f %%), %d workers on %d rank(s)",
		title, span, 100*whole, 100*first90, nlanes, len(ranks)), "", "worker")
	pOcc.Add(gantt)
	pOcc.Y.Tick.Marker = laneLabels
	pOcc.Y.Min, pOcc.Y.Max = -0.6, float64(len(keys))-0.4

	// The legend goes where the iteration panel is empty: its upper left
	// (the steps rise with time).
	pIter := newPlot("iteration panel: Cholesky step of each task (0 generation, NT+1 solve)", "", "step")
	pIter.Add(steps)
	pIter.Y.Min, pIter.Y.Max = -0.6, float64(nt+1)+0.6
	stepTicks := labelTicks{}
	every := max(1, (nt+2)/10)
	for k := 0; k <= nt+1; k += every {
		stepTicks[float64(k)] = fmt.Sprint(k)
	}
	stepTicks[float64(nt+1)] = fmt.Sprint(nt + 1)
	pIter.Y.Tick.Marker = stepTicks
	pIter.Legend.Top, pIter.Legend.Left = true, true
	for _, l := range []struct {
		name string
		k    string
	}{{"generation", kind.Dcmg}, {"cholesky", kind.Gemm}, {"potrf (critical path)", kind.Potrf}, {"solve", kind.Dot}} {
		pIter.Legend.Add(l.name, legendBox{phaseColor(l.k)})
	}

	pReady := newPlot("tasks submitted and ready, not yet started", "", "tasks")
	// Counts of tasks submitted (or ready) and not started: +1 at the
	// mark, -1 at the start.
	counts := func(mark func(trace.Event) int64) plotter.XYs {
		type change struct {
			t int64
			d int
		}
		var ch []change
		for _, e := range tasks {
			if m := mark(e); m > 0 {
				ch = append(ch, change{m, 1}, change{e.Start, -1})
			}
		}
		sort.SliceStable(ch, func(i, j int) bool { return ch[i].t < ch[j].t })
		var xy plotter.XYs
		n := 0
		for _, c := range ch {
			n += c.d
			xy = append(xy, plotter.XY{X: math.Max(0, sec(c.t)), Y: float64(n)})
		}
		return xy
	}
	sub := counts(func(e trace.Event) int64 { return e.Submit })
	rdy := counts(func(e trace.Event) int64 { return e.Ready })
	for _, l := range []struct {
		name string
		xy   plotter.XYs
		c    color.Color
	}{{"submitted", sub, color.RGBA{R: 120, G: 120, B: 120, A: 255}}, {"ready", rdy, color.RGBA{R: 148, G: 103, B: 189, A: 255}}} {
		if len(l.xy) == 0 {
			continue
		}
		line, err := plotter.NewLine(stepXY(l.xy))
		if err != nil {
			return nil, err
		}
		line.Color = l.c
		line.Width = vg.Points(1)
		pReady.Add(line)
		pReady.Legend.Add(l.name, line)
	}
	pReady.Legend.Top = true
	if len(sub) == 0 {
		pReady.Title.Text += " (no submission times: a simulated trace)"
	}

	pMem := newPlot("tile memory held per rank", "time (s)", "MB")
	if len(mem) > 0 {
		byRank := map[int]plotter.XYs{}
		for _, m := range mem {
			byRank[m.Rank] = append(byRank[m.Rank], plotter.XY{X: math.Max(0, sec(m.Start)), Y: float64(m.Bytes) / 1e6})
		}
		rs := make([]int, 0, len(byRank))
		for r := range byRank {
			rs = append(rs, r)
		}
		sort.Ints(rs)
		for i, r := range rs {
			line, err := plotter.NewLine(stepXY(byRank[r]))
			if err != nil {
				return nil, err
			}
			line.Color = rankColor(i)
			line.Width = vg.Points(1)
			pMem.Add(line)
			pMem.Legend.Add(fmt.Sprintf("rank %d", r), line)
		}
		pMem.Legend.Top = true
	} else {
		pMem.Title.Text += " (no memory samples in the trace)"
	}
	// One time axis for the four panels.
	xmax := span
	for _, p := range []*gplot.Plot{pOcc, pIter, pReady, pMem} {
		p.X.Min, p.X.Max = 0, xmax
	}
	dpi := o.DPI
	if dpi <= 0 {
		dpi = DPI
	}
	w, h := 10*vg.Inch, 11*vg.Inch
	fig := func(dc draw.Canvas) error {
		rows := []struct {
			p    *gplot.Plot
			frac float64
		}{{pOcc, 0.36}, {pIter, 0.26}, {pReady, 0.19}, {pMem, 0.19}}
		top := dc.Max.Y
		height := dc.Max.Y - dc.Min.Y
		for _, r := range rows {
			hh := vg.Length(r.frac) * height
			c := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: dc.Min.X, Y: top - hh}, Max: vg.Point{X: dc.Max.X, Y: top}}}
			r.p.Draw(c)
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
		b := fixSVG(buf.Bytes())
		buf.Reset()
		buf.Write(b)
	} else {
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(int(dpi)))
		if err := render(draw.New(c), fig); err != nil {
			return nil, err
		}
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, err
		}
	}
	return sum, writeAtomic([]outFile{{path, buf.Bytes()}})
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
