package trace

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/kind"
)

// Paje (the trace format of ViTE, pajeng's pj_dump and StarVZ): a header
// of event definitions, then one event a line in time order. A trace of
// this package holds, under the root container:
//
//	R  one container per rank ("rank 0"), alias r<rank>, with the
//	   variable M: the tile memory the rank holds (bytes);
//	W  one container per worker of a rank, alias r<rank>w<worker>, named
//	   after its resource ("rank 0 cpu 1"), whose state S is the task it
//	   runs (the kind, with the task's tile, flops, iteration, priority,
//	   submission, ready and CPU times as fields), "runtime" while it waits
//	   on the runtime before a kernel (its buffers), or "idle";
//	C  one container per rank for its messages, alias r<rank>c, on which
//	   event E marks each completed send or receive (fields: source,
//	   destination, tag, tile, bytes, when it was posted, ...);
//	L  in a merged trace, a link from the sender's C to the receiver's C
//	   per transfer, from the later posting to the receive's completion.
//
// Times are seconds since the runtime's epoch, to the nanosecond.
const pajeHeader = `%EventDef PajeDefineContainerType 0
%	Alias string
%	Type string
%	Name string
%EndEventDef
%EventDef PajeDefineStateType 1
%	Alias string
%	Type string
%	Name string
%EndEventDef
%EventDef PajeDefineVariableType 2
%	Alias string
%	Type string
%	Name string
%	Color color
%EndEventDef
%EventDef PajeDefineEventType 3
%	Alias string
%	Type string
%	Name string
%EndEventDef
%EventDef PajeDefineLinkType 4
%	Alias string
%	Type string
%	StartContainerType string
%	EndContainerType string
%	Name string
%EndEventDef
%EventDef PajeDefineEntityValue 5
%	Alias string
%	Type string
%	Name string
%	Color color
%EndEventDef
%EventDef PajeCreateContainer 6
%	Time date
%	Alias string
%	Type string
%	Container string
%	Name string
%EndEventDef
%EventDef PajeSetState 10
%	Time date
%	Type string
%	Container string
%	Value string
%EndEventDef
%EventDef PajeSetState 11
%	Time date
%	Type string
%	Container string
%	Value string
%	Tile string
%	Flops double
%	Iteration int
%	Priority int
%	Submit date
%	Ready date
%	CPU double
%	Resource string
%	Handle string
%	Bytes int
%EndEventDef
%EventDef PajeSetVariable 12
%	Time date
%	Type string
%	Container string
%	Value double
%EndEventDef
%EventDef PajeNewEvent 13
%	Time date
%	Type string
%	Container string
%	Value string
%	Src int
%	Dst int
%	Tag int
%	Handle string
%	Bytes int
%	Posted date
%	Iteration int
%	Submit date
%	Ready date
%EndEventDef
%EventDef PajeStartLink 14
%	Time date
%	Type string
%	Container string
%	Value string
%	StartContainer string
%	Key string
%EndEventDef
%EventDef PajeEndLink 15
%	Time date
%	Type string
%	Container string
%	Value string
%	EndContainer string
%	Key string
%EndEventDef
0 R 0 Rank
0 W R Worker
0 C R Communication
1 S W "Worker state"
2 M R "Tile memory (bytes)" "0.12 0.47 0.71"
3 E C Transfer
4 L 0 C C Transfer
5 idle S idle "0.95 0.95 0.95"
5 runtime S runtime "0.55 0.55 0.55"
`

// Worker states besides the task kinds.
const (
	stateIdle    = "idle"
	stateRuntime = "runtime"
)

// Point operations: what a point of an event writes.
const (
	opRuntime   = iota // the worker waits on the runtime
	opTask             // the worker runs the task
	opIdle             // the worker is idle again
	opMemory           // a memory sample
	opTransfer         // a completed send, receive or simulated transfer
	opLinkStart        // a merged transfer leaves its sender
	opLinkEnd          // it arrives
)

// point is one line of a Paje trace: at time t, operation op of event e;
// seq orders points of equal time as they were made, key names a link.
type point struct {
	t   int64
	seq uint64
	op  uint8
	key int
	e   Event
}

// points appends the points of e to ps, numbered from *seq: a task's
// runtime wait (when Exec is known), its run and the idle state at its end;
// a memory sample; a message's completion. Kinds a trace does not draw
// (free) make none.
func points(ps []point, e Event, seq *uint64) []point {
	add := func(t int64, op uint8) {
		ps = append(ps, point{t: t, seq: *seq, op: op, e: e})
		*seq++
	}
	switch {
	case e.Kind == MemoryKind:
		add(e.Start, opMemory)
	case e.IsTransfer():
		add(e.End, opTransfer)
	case e.Worker < 0 || e.Kind == kind.Free:
	default:
		run := e.Start
		if e.Exec > 0 { // the runtime wait before the kernel, maybe empty
			add(e.Start, opRuntime)
			run = max(e.Exec, e.Start)
		}
		add(run, opTask)
		add(max(e.End, run), opIdle)
	}
	return ps
}

// pajeEncoder writes points as Paje lines, keeping times non-decreasing (a
// point earlier than the last one written is written at the last one's
// time) and creating containers and state values on first use.
type pajeEncoder struct {
	b          bytes.Buffer
	last       int64
	containers map[string]bool
	values     map[string]bool
}

func newPajeEncoder() *pajeEncoder {
	return &pajeEncoder{containers: map[string]bool{}, values: map[string]bool{stateIdle: true, stateRuntime: true}}
}

// sec formats ns as seconds.
func sec(ns int64) string { return strconv.FormatFloat(float64(ns)*1e-9, 'f', 9, 64) }

// emptyField stands for an empty string in a Paje line (pj_dump does not
// read "" as a field).
const emptyField = "-"

// quote returns s as one Paje field.
func quote(s string) string {
	switch {
	case s == "":
		return emptyField
	case strings.ContainsAny(s, " \t\""):
		return strconv.Quote(s)
	}
	return s
}

// rank makes the containers of rank q (at time t).
func (p *pajeEncoder) rank(q int, t string) {
	a := fmt.Sprintf("r%d", q)
	if p.containers[a] {
		return
	}
	p.containers[a] = true
	fmt.Fprintf(&p.b, "6 %s %s R 0 \"rank %d\"\n6 %s r%dc C %s \"rank %d comm\"\n", t, a, q, t, q, a, q)
}

// worker makes the container of e's worker and returns its alias.
func (p *pajeEncoder) worker(e *Event, t string) string {
	a := fmt.Sprintf("r%dw%d", e.Rank, e.Worker)
	if !p.containers[a] {
		p.rank(e.Rank, t)
		p.containers[a] = true
		fmt.Fprintf(&p.b, "6 %s %s W r%d \"rank %d %s %d\"\n", t, a, e.Rank, e.Rank, e.resource(), e.Worker)
	}
	return a
}

// value defines state value k on first use, coloured as trace view does.
func (p *pajeEncoder) value(k string) {
	if p.values[k] {
		return
	}
	p.values[k] = true
	r, g, b, _ := PhaseColor(k).RGBA()
	fmt.Fprintf(&p.b, "5 %s S %s \"%.2f %.2f %.2f\"\n", quote(k), quote(k), float64(r)/65535, float64(g)/65535, float64(b)/65535)
}

// write writes p's line.
func (p *pajeEncoder) write(pt *point) {
	p.last = max(p.last, pt.t)
	t := sec(p.last)
	e := &pt.e
	switch pt.op {
	case opRuntime, opIdle:
		w := p.worker(e, t)
		v := stateIdle
		if pt.op == opRuntime {
			v = stateRuntime
		}
		fmt.Fprintf(&p.b, "10 %s S %s %s\n", t, w, v)
	case opTask:
		w := p.worker(e, t)
		p.value(e.Kind)
		fmt.Fprintf(&p.b, "11 %s S %s %s %d,%d,%d %g %d %d %s %s %s %s %s %d\n", t, w, quote(e.Kind),
			e.Tile[0], e.Tile[1], e.Tile[2], e.Flops, e.Iter, e.Priority, sec(e.Submit), sec(e.Ready), sec(e.CPU),
			quote(e.resource()), quote(e.Handle), e.Bytes)
	case opMemory:
		p.rank(e.Rank, t)
		fmt.Fprintf(&p.b, "12 %s M r%d %d\n", t, e.Rank, e.Bytes)
	case opTransfer:
		p.rank(e.Rank, t)
		fmt.Fprintf(&p.b, "13 %s E r%dc %s %d %d %d %s %d %s %d %s %s\n", t, e.Rank, quote(e.Kind), e.Src, e.Dst, e.Tag,
			quote(e.Handle), e.Bytes, sec(e.Start), e.Iter, sec(e.Submit), sec(e.Ready))
	case opLinkStart:
		p.rank(e.Src, t)
		fmt.Fprintf(&p.b, "14 %s L 0 %s r%dc k%d\n", t, quote(e.Handle), e.Src, pt.key)
	case opLinkEnd:
		p.rank(e.Dst, t)
		fmt.Fprintf(&p.b, "15 %s L 0 %s r%dc k%d\n", t, quote(e.Handle), e.Dst, pt.key)
	}
}

// sortPoints orders points by time, then by the order they were made.
func sortPoints(ps []point) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].t != ps[j].t {
			return ps[i].t < ps[j].t
		}
		return ps[i].seq < ps[j].seq
	})
}

// WritePaje writes ev (every rank of a run, or one) as a Paje trace (see
// pajeHeader): the tasks as worker states, the memory samples as each
// rank's variable, the messages as events on each rank's communication
// container, and each transfer whose two sides are in ev (or a simulated
// xfer) as a link between the ranks, from the later posting to the
// completion (Transfers). ReadPaje reads it back.
func WritePaje(w io.Writer, ev []Event) error {
	var ps []point
	var seq uint64
	for _, e := range ev {
		ps = points(ps, e, &seq)
	}
	for i, t := range Transfers(ev) {
		var e Event
		switch {
		case t.Send != nil && t.Recv != nil:
			e = *t.Recv
		case t.Recv != nil && t.Recv.Kind == kind.Xfer:
			e = *t.Recv
		default:
			continue // one side only: no link
		}
		e.Src, e.Dst, e.Handle = t.Src, t.Dst, t.Handle
		ps = append(ps, point{t: t.Start, seq: seq, op: opLinkStart, key: i, e: e},
			point{t: t.End, seq: seq + 1, op: opLinkEnd, key: i, e: e})
		seq += 2
	}
	sortPoints(ps)
	enc := newPajeEncoder()
	enc.b.WriteString(pajeHeader)
	for i := range ps {
		enc.write(&ps[i])
		if enc.b.Len() > 1<<20 {
			if _, err := w.Write(enc.b.Bytes()); err != nil {
				return err
			}
			enc.b.Reset()
		}
	}
	_, err := w.Write(enc.b.Bytes())
	return err
}

// PhaseColor is the colour of a task of kind k in pictures: generation
// green, Cholesky blue (potrf, its critical path, red), solve orange,
// other grey.
func PhaseColor(k string) color.RGBA {
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
	return color.RGBA{R: 150, G: 150, B: 150, A: 255}
}
