package plot

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

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
	// Transfers is the number of messages drawn between the ranks.
	Transfers int `json:"transfers"`
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

// phaseColor is the colour of a task of kind k in the panels (the trace
// files' colours, trace.PhaseColor).
func phaseColor(k string) color.Color { return trace.PhaseColor(k) }

// transferColor is the colour of the lines of the transfers.
var transferColor = color.RGBA{R: 90, G: 90, B: 90, A: 160}

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

// segments is a gonum plotter of line segments (the transfers), from
// (x0, y0) to (x1, y1).
type segments [][4]float64

func (s segments) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	st := draw.LineStyle{Color: transferColor, Width: vg.Points(0.4)}
	for _, g := range s {
		c.StrokeLines(st, c.ClipLinesXY([]vg.Point{{X: tx(g[0]), Y: ty(g[1])}, {X: tx(g[2]), Y: ty(g[3])}})...)
	}
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
//     chain (the Cholesky's critical path) in red and outlined; under the
//     workers of a rank that sent or received messages, its comm lane,
//     and a line per transfer from the sender's comm lane at the transfer's
//     start to the receiver's at its end; the makespan and the
//     utilisation in the title;
//  2. the iteration panel of seed 000's Figure 3: each task at the height
//     of its Cholesky step k (generation at 0, the Cholesky's step k at
//     k + 1, the post-Cholesky solve and products at NT + 1);
//  3. tasks submitted and not started, and ready and not started, over
//     time (real traces only: a simulation has no submission);
//  4. the tile memory each rank holds over time (MB).
//
// Each panel's legend sits in a column of its own at the right, off the
// data.
func TraceView(path string, ev []trace.Event, o TraceViewOptions) (*TraceSummary, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return nil, fmt.Errorf("plot: the trace view is an .svg or a .png file, not %q", path)
	}
	if o.Iteration > 0 {
		ev = iterationOf(ev, o.Iteration)
	}
	v := splitTrace(ev)
	if len(v.tasks) == 0 {
		if o.Iteration > 0 {
			return nil, fmt.Errorf("plot: the trace has no task of iteration %d", o.Iteration)
		}
		return nil, fmt.Errorf("plot: the trace has no task")
	}
	title := o.Title
	if title == "" {
		title = filepath.Base(path)
	}
	if o.Iteration > 0 {
		title += fmt.Sprintf(", iteration %d", o.Iteration)
	}
	rows, sum, err := v.panels(title)
	if err != nil {
		return nil, err
	}
	b, err := drawRows(ext, rows, o.DPI)
	if err != nil {
		return nil, err
	}
	return sum, writeAtomic([]outFile{{path, b}})
}

// iterationOf keeps the tasks and transfers of iteration it, and the
// memory samples taken while they ran (samples carry no iteration mark).
func iterationOf(ev []trace.Event, it int) []trace.Event {
	var kept, mem []trace.Event
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, e := range ev {
		switch {
		case e.Kind == trace.MemoryKind:
			mem = append(mem, e)
		case e.Iter == it:
			kept = append(kept, e)
			lo, hi = min(lo, e.Start), max(hi, e.End)
		}
	}
	for _, m := range mem {
		if m.Start >= lo && m.Start <= hi {
			kept = append(kept, m)
		}
	}
	return kept
}

// traceView is a trace split for drawing: its tasks, memory samples and
// transfers, and the time origin (the first task's start).
type traceView struct {
	tasks, mem []trace.Event
	transfers  []trace.Transfer
	t0         int64
}

func splitTrace(ev []trace.Event) *traceView {
	v := &traceView{t0: math.MaxInt64, transfers: trace.Transfers(ev)}
	for _, e := range ev {
		switch {
		case e.Kind == trace.MemoryKind:
			v.mem = append(v.mem, e)
		case e.IsTransfer() || e.Kind == kind.Free:
		default:
			v.tasks = append(v.tasks, e)
			v.t0 = min(v.t0, e.Start)
		}
	}
	return v
}

// sec is ns on the figure's time axis (seconds from the first task).
func (v *traceView) sec(ns int64) float64 { return float64(ns-v.t0) * 1e-9 }

// row is one panel of the figure, its legend (drawn beside it, nil: none)
// and its share of the height.
type row struct {
	p      *gplot.Plot
	legend *gplot.Legend
	frac   float64
}

// panels makes the four panels and the summary.
func (v *traceView) panels(title string) ([]row, *TraceSummary, error) {
	whole, first90, span, nlanes := Utilization(v.tasks)
	sum := &TraceSummary{Makespan: span, Workers: nlanes, Utilization: whole, Utilization90: first90, Tasks: len(v.tasks)}
	ls := v.lanes()
	sum.Ranks = ls.ranks
	pOcc, lOcc := v.occupation(ls, sum)
	pOcc.Title.Text = fmt.Sprintf("%s: makespan %.4g s, utilisation %.1f %% (first 90 %%: %.1f %%), %d workers on %d rank(s)",
		title, span, 100*whole, 100*first90, nlanes, ls.ranks)
	pIter := v.iterationPanel()
	pReady, lReady, err := v.readyPanel()
	if err != nil {
		return nil, nil, err
	}
	pMem, lMem, err := v.memoryPanel()
	if err != nil {
		return nil, nil, err
	}
	for _, p := range []*gplot.Plot{pOcc, pIter, pReady, pMem} {
		p.X.Min, p.X.Max = 0, span // one time axis for the four panels
	}
	return []row{{pOcc, lOcc, 0.36}, {pIter, nil, 0.26}, {pReady, lReady, 0.19}, {pMem, lMem, 0.19}}, sum, nil
}

// laneKey is a lane of the occupation panel: a worker of a rank, or the
// rank's comm lane (comm true).
type laneKey struct {
	rank int
	comm bool
	gpu  bool
	w    int
}

// laneLayout places the lanes: y of each, the labels, the count.
type laneLayout struct {
	y      map[laneKey]float64
	labels labelTicks
	n      int
	ranks  int
}

// lanes orders the lanes: ranks in order, CPU workers before GPU workers,
// then the rank's comm lane if it sent or received a message; rank 0 on
// top.
func (v *traceView) lanes() laneLayout {
	set := map[laneKey]bool{}
	ranks := map[int]bool{}
	for _, e := range v.tasks {
		set[laneKey{rank: e.Rank, gpu: e.Resource == "gpu", w: e.Worker}] = true
		ranks[e.Rank] = true
	}
	for _, t := range v.transfers {
		for _, q := range []int{t.Src, t.Dst} {
			if ranks[q] {
				set[laneKey{rank: q, comm: true}] = true
			}
		}
	}
	keys := make([]laneKey, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch {
		case a.rank != b.rank:
			return a.rank < b.rank
		case a.comm != b.comm:
			return !a.comm
		case a.gpu != b.gpu:
			return !a.gpu
		}
		return a.w < b.w
	})
	l := laneLayout{y: map[laneKey]float64{}, labels: labelTicks{}, n: len(keys), ranks: len(ranks)}
	for i, k := range keys {
		l.y[k] = float64(len(keys) - 1 - i)
	}
	l.label(keys)
	return l
}

// label names each lane ("r0 cpu1", "r0 comm") when there are at most 24,
// else each rank once, at its middle lane.
func (l *laneLayout) label(keys []laneKey) {
	if len(keys) <= 24 {
		for _, k := range keys {
			res := "cpu"
			switch {
			case k.comm:
				l.labels[l.y[k]] = fmt.Sprintf("r%d comm", k.rank)
				continue
			case k.gpu:
				res = "gpu"
			}
			l.labels[l.y[k]] = fmt.Sprintf("r%d %s%d", k.rank, res, k.w)
		}
		return
	}
	first, count := map[int]int{}, map[int]int{}
	for i, k := range keys {
		if _, ok := first[k.rank]; !ok {
			first[k.rank] = i
		}
		count[k.rank]++
	}
	every := max(1, len(first)/16)
	for r, i := range first {
		if r%every == 0 {
			l.labels[float64(len(keys)-1-i-count[r]/2)] = fmt.Sprintf("rank %d", r)
		}
	}
}
