package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/exageostat/exageostat/pkg/kind"
)

// Lanes of a rank in Chrome traces (thread ids): its workers keep their
// index; transfers and phases get lanes of their own above these bases.
const (
	transferLane = 1000 // transfer lane i is thread transferLane + i
	phaseLane    = 2000 // the span of phase p (Phases order) is thread phaseLane + p
)

// phases are the phases of an evaluation drawn as spans, in lane order.
var phases = [...]string{"generation", "cholesky", "solve"}

type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`            // microseconds
	Dur  float64        `json:"dur,omitempty"` // microseconds
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id,omitempty"` // flow events
	BP   string         `json:"bp,omitempty"` // flow end binding
	S    string         `json:"s,omitempty"`  // instant event scope
	Args map[string]any `json:"args,omitempty"`
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// Transfer is one message between ranks as a trace shows it: the interval
// it was on its way (from the later of the two postings to its completion
// at the receiver), and both sides' events.
type Transfer struct {
	Src, Dst   int
	Handle     string
	Bytes      int64
	Start, End int64  // ns: the transfer
	Send, Recv *Event // the sides recorded (Send nil: a one-sided record)
}

// Transfers pairs the send and recv events of ev (in post order per source,
// destination and tag, as MPI matches them) into transfers; a recv, send
// or xfer without its other side is a transfer of its own interval. The
// result is sorted by start time.
func Transfers(ev []Event) []Transfer {
	type key struct{ src, dst, tag int }
	sends := map[key][]*Event{}
	var recvs []*Event
	var out []Transfer
	for i := range ev {
		e := &ev[i]
		switch e.Kind {
		case kind.Send:
			k := key{e.Src, e.Dst, e.Tag}
			sends[k] = append(sends[k], e)
		case kind.Recv:
			recvs = append(recvs, e)
		case kind.Xfer:
			out = append(out, Transfer{Src: e.Src, Dst: e.Dst, Handle: e.Handle, Bytes: e.Bytes, Start: e.Start, End: e.End, Recv: e})
		}
	}
	for _, s := range sends {
		sort.SliceStable(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	}
	sort.SliceStable(recvs, func(i, j int) bool { return recvs[i].Start < recvs[j].Start })
	for _, r := range recvs {
		k := key{r.Src, r.Dst, r.Tag}
		t := Transfer{Src: r.Src, Dst: r.Dst, Handle: r.Handle, Bytes: r.Bytes, Start: r.Start, End: r.End, Recv: r}
		if q := sends[k]; len(q) > 0 {
			t.Send, sends[k] = q[0], q[1:]
			t.Start = max(r.Start, t.Send.Start)
			if t.Handle == "" {
				t.Handle = t.Send.Handle
			}
		}
		out = append(out, t)
	}
	for _, q := range sends { // sends whose receiver is not in this trace
		for _, s := range q {
			out = append(out, Transfer{Src: s.Src, Dst: s.Dst, Handle: s.Handle, Bytes: s.Bytes, Start: s.Start, End: s.End, Send: s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		if out[i].Src != out[j].Src {
			return out[i].Src < out[j].Src
		}
		return out[i].Dst < out[j].Dst
	})
	return out
}

// laneSet assigns intervals to the first lane free at their start, so that
// no two intervals of one lane overlap.
type laneSet struct{ ends []int64 }

func (l *laneSet) place(start, end int64) int {
	for i, e := range l.ends {
		if e <= start {
			l.ends[i] = end
			return i
		}
	}
	l.ends = append(l.ends, end)
	return len(l.ends) - 1
}

// WriteChrome writes ev as a Chrome trace-event JSON object
// ({"traceEvents": [...]}), which ui.perfetto.dev and chrome://tracing open:
//
//   - one process per rank; one lane (thread) per worker, named after its
//     type ("cpu worker 0", "gpu worker 0"), with one complete ("X") event
//     per task whose args hold its tile (m, n, k), flops, iteration,
//     priority and submission, ready and kernel start times (submit_us,
//     ready_us, exec_us); the worker's states as slices of category
//     "state": "runtime" nested at the start of a task while the worker
//     waited on the runtime (its buffers), "idle" between tasks;
//   - transfers on "transfers i" lanes of each rank, assigned so that no two
//     slices of a lane overlap: the receiver's slice lasts from the later
//     posting of the two sides to the completion (the transfer, not the
//     wait), the sender's from its posting to its completion, both named
//     after the kind and the tile ("recv A(3,2)") with src, dst, tag, tile,
//     bytes and posted_us in args, joined by a flow arrow;
//   - per rank and iteration, the span of each phase (generation, cholesky,
//     solve) on a lane of its own, and a global instant mark at the start
//     of each iteration;
//   - the tile memory a rank holds as a counter track ("tile memory (MB)").
//
// ReadChrome reads the file back into the events.
func WriteChrome(w io.Writer, ev []Event) error {
	out := make([]chromeEvent, 0, len(ev)+16)
	named := map[[2]int]bool{}
	lane := func(rank, tid int, name string) {
		if named[[2]int{rank, tid}] {
			return
		}
		if !named[[2]int{rank, -1}] {
			named[[2]int{rank, -1}] = true
			out = append(out, chromeEvent{Name: "process_name", Ph: "M", Pid: rank, Args: map[string]any{"name": fmt.Sprintf("rank %d", rank)}})
		}
		named[[2]int{rank, tid}] = true
		out = append(out, chromeEvent{Name: "thread_name", Ph: "M", Pid: rank, Tid: tid, Args: map[string]any{"name": name}},
			chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: rank, Tid: tid, Args: map[string]any{"sort_index": tid}})
	}
	type span struct {
		start, end int64
		ok         bool
	}
	// Worker lanes are named by type, numbered within it ("gpu worker 0"
	// is the first GPU worker of the rank, whatever its index).
	ids := map[[2]int]string{} // rank, worker -> resource
	for _, e := range ev {
		if e.Kind != MemoryKind && !e.IsTransfer() {
			ids[[2]int{e.Rank, e.Worker}] = e.resource()
		}
	}
	workerName := map[[2]int]string{}
	{
		keys := make([][2]int, 0, len(ids))
		for k := range ids {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
		count := map[string]int{}
		for i, k := range keys {
			if i > 0 && keys[i-1][0] != k[0] {
				clear(count)
			}
			res := ids[k]
			workerName[k] = fmt.Sprintf("%s worker %d", res, count[res])
			count[res]++
		}
	}
	spans := map[[3]int]*span{}     // rank, iteration, phase
	busy := map[[2]int][][2]int64{} // rank, worker -> task intervals
	iterStart := map[int]int64{}
	for _, e := range ev {
		switch {
		case e.Kind == MemoryKind:
			if !named[[2]int{e.Rank, -1}] {
				named[[2]int{e.Rank, -1}] = true
				out = append(out, chromeEvent{Name: "process_name", Ph: "M", Pid: e.Rank, Args: map[string]any{"name": fmt.Sprintf("rank %d", e.Rank)}})
			}
			out = append(out, chromeEvent{Name: "tile memory (MB)", Ph: "C", Ts: us(e.Start), Pid: e.Rank,
				Args: map[string]any{"MB": float64(e.Bytes) / 1e6}})
			continue
		case e.IsTransfer():
			continue
		}
		lane(e.Rank, e.Worker, workerName[[2]int{e.Rank, e.Worker}])
		args := map[string]any{}
		for i, name := range [3]string{"m", "n", "k"} {
			if e.Tile[i] >= 0 {
				args[name] = e.Tile[i]
			}
		}
		if e.Flops > 0 {
			args["flops"] = e.Flops
		}
		if e.Iter > 0 {
			args["iteration"] = e.Iter
		}
		if e.Priority != 0 {
			args["priority"] = e.Priority
		}
		if e.Submit > 0 {
			args["submit_us"] = us(e.Submit)
		}
		if e.Ready > 0 {
			args["ready_us"] = us(e.Ready)
		}
		if e.Resource != "" && e.Resource != "cpu" {
			args["resource"] = e.Resource
		}
		if e.Exec > 0 {
			args["exec_us"] = us(e.Exec)
		}
		out = append(out, chromeEvent{Name: e.Kind, Cat: "task", Ph: "X", Ts: us(e.Start), Dur: us(e.End - e.Start),
			Pid: e.Rank, Tid: e.Worker, Args: args})
		if e.Exec > e.Start && e.Exec <= e.End { // waiting on the runtime, nested in the task
			out = append(out, chromeEvent{Name: "runtime", Cat: "state", Ph: "X", Ts: us(e.Start), Dur: us(e.Exec - e.Start),
				Pid: e.Rank, Tid: e.Worker})
		}
		busy[[2]int{e.Rank, e.Worker}] = append(busy[[2]int{e.Rank, e.Worker}], [2]int64{e.Start, e.End})
		for p, name := range phases {
			if kind.Phase(e.Kind) == name {
				k := [3]int{e.Rank, e.Iter, p}
				s := spans[k]
				if s == nil {
					s = &span{start: e.Start, end: e.End}
					spans[k] = s
				}
				s.start, s.end = min(s.start, e.Start), max(s.end, e.End)
			}
		}
		if t, ok := iterStart[e.Iter]; !ok || e.Start < t {
			iterStart[e.Iter] = e.Start
		}
	}

	// Idle states: the gaps between a worker's tasks.
	for k, iv := range busy {
		sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
		for i := 1; i < len(iv); i++ {
			if gap := iv[i][0] - iv[i-1][1]; gap > 0 {
				out = append(out, chromeEvent{Name: "idle", Cat: "state", Ph: "X", Ts: us(iv[i-1][1]), Dur: us(gap), Pid: k[0], Tid: k[1]})
			}
		}
	}

	// Transfers, on lanes without overlaps, joined by flows.
	lanes := map[int]*laneSet{}
	place := func(rank int, start, end int64) int {
		l := lanes[rank]
		if l == nil {
			l = &laneSet{}
			lanes[rank] = l
		}
		i := transferLane + l.place(start, end)
		lane(rank, i, fmt.Sprintf("transfers %d", i-transferLane))
		return i
	}
	slice := func(e *Event, k string, rank int, start, end int64, args map[string]any) int {
		tid := place(rank, start, end)
		name := k
		if e.Handle != "" {
			name += " " + e.Handle
		}
		a := map[string]any{"kind": k, "src": e.Src, "dst": e.Dst, "tag": e.Tag, "tile": e.Handle, "bytes": e.Bytes,
			"posted_us": us(e.Start)}
		if e.Iter > 0 {
			a["iteration"] = e.Iter
		}
		if e.Submit > 0 {
			a["submit_us"] = us(e.Submit)
		}
		if e.Ready > 0 {
			a["ready_us"] = us(e.Ready)
		}
		for key, v := range args {
			a[key] = v
		}
		out = append(out, chromeEvent{Name: name, Cat: "transfer", Ph: "X", Ts: us(start), Dur: us(end - start), Pid: rank, Tid: tid, Args: a})
		return tid
	}
	for id, t := range Transfers(ev) {
		var from, to int
		var fromTs float64
		switch {
		case t.Send != nil && t.Recv != nil:
			from = slice(t.Send, kind.Send, t.Src, t.Send.Start, t.Send.End, nil)
			fromTs = us(t.Send.Start)
			to = slice(t.Recv, kind.Recv, t.Dst, t.Start, t.End, nil)
		case t.Recv != nil && t.Recv.Kind == kind.Xfer:
			// A simulated transfer: the link is busy on both sides.
			from = slice(t.Recv, kind.Xfer, t.Src, t.Start, t.End, map[string]any{"side": "sender"})
			fromTs = us(t.Start)
			to = slice(t.Recv, kind.Xfer, t.Dst, t.Start, t.End, nil)
		case t.Recv != nil:
			slice(t.Recv, kind.Recv, t.Dst, t.Start, t.End, nil)
			continue
		default:
			slice(t.Send, kind.Send, t.Src, t.Start, t.End, nil)
			continue
		}
		out = append(out,
			chromeEvent{Name: "transfer", Cat: "transfer", Ph: "s", ID: id + 1, Ts: fromTs, Pid: t.Src, Tid: from},
			chromeEvent{Name: "transfer", Cat: "transfer", Ph: "f", BP: "e", ID: id + 1, Ts: us(t.Start), Pid: t.Dst, Tid: to})
	}

	// Phase spans and iteration marks.
	keys := make([][3]int, 0, len(spans))
	for k := range spans {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		if a[2] != b[2] {
			return a[2] < b[2]
		}
		return a[1] < b[1]
	})
	for _, k := range keys {
		s := spans[k]
		lane(k[0], phaseLane+k[2], "phase "+phases[k[2]])
		out = append(out, chromeEvent{Name: phases[k[2]], Cat: "phase", Ph: "X", Ts: us(s.start), Dur: us(s.end - s.start),
			Pid: k[0], Tid: phaseLane + k[2], Args: map[string]any{"iteration": k[1]}})
	}
	iters := make([]int, 0, len(iterStart))
	for it := range iterStart {
		if it > 0 {
			iters = append(iters, it)
		}
	}
	sort.Ints(iters)
	for _, it := range iters {
		out = append(out, chromeEvent{Name: fmt.Sprintf("iteration %d", it), Cat: "iteration", Ph: "i", S: "g", Ts: us(iterStart[it])})
	}

	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"); err != nil {
		return err
	}
	for i, ce := range out {
		b, err := json.Marshal(ce)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// ReadChrome reads a trace WriteChrome wrote (a real or a simulated run's)
// back into its events, sorted by Sort: tasks, both sides of each
// transfer (a simulated one once, as the xfer event of its receiver) and
// the memory samples. Phase spans, iteration marks and flows are derived
// and skipped.
func ReadChrome(r io.Reader) ([]Event, error) {
	var doc struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("trace: not a Chrome trace-event JSON file: %v", err)
	}
	ns := func(x float64) int64 { return int64(math.Round(x * 1e3)) }
	num := func(a map[string]any, k string, def float64) float64 {
		if v, ok := a[k].(float64); ok {
			return v
		}
		return def
	}
	str := func(a map[string]any, k string) string {
		v, _ := a[k].(string)
		return v
	}
	var ev []Event
	for _, c := range doc.TraceEvents {
		switch {
		case c.Ph == "C" && c.Name == "tile memory (MB)":
			ev = append(ev, Event{Kind: MemoryKind, Tile: [3]int{-1, -1, -1}, Rank: c.Pid, Worker: -1, Start: ns(c.Ts), End: ns(c.Ts),
				Bytes: int64(math.Round(num(c.Args, "MB", 0) * 1e6))})
		case c.Ph == "X" && c.Cat == "task":
			e := Event{Kind: c.Name, Tile: [3]int{-1, -1, -1}, Rank: c.Pid, Worker: c.Tid, Start: ns(c.Ts), End: ns(c.Ts + c.Dur),
				Flops: num(c.Args, "flops", 0), Iter: int(num(c.Args, "iteration", 0)), Priority: int(num(c.Args, "priority", 0)),
				Submit: ns(num(c.Args, "submit_us", 0)), Ready: ns(num(c.Args, "ready_us", 0)), Resource: "cpu",
				Exec: ns(num(c.Args, "exec_us", 0))}
			if r := str(c.Args, "resource"); r != "" {
				e.Resource = r
			}
			for i, k := range [3]string{"m", "n", "k"} {
				e.Tile[i] = int(num(c.Args, k, -1))
			}
			ev = append(ev, e)
		case c.Ph == "X" && c.Cat == "transfer":
			if str(c.Args, "side") == "sender" {
				continue
			}
			k := str(c.Args, "kind")
			e := Event{Kind: k, Tile: [3]int{-1, -1, -1}, Rank: c.Pid, Worker: -1, Start: ns(num(c.Args, "posted_us", c.Ts)), End: ns(c.Ts + c.Dur),
				Src: int(num(c.Args, "src", 0)), Dst: int(num(c.Args, "dst", 0)), Tag: int(num(c.Args, "tag", 0)),
				Handle: str(c.Args, "tile"), Bytes: int64(num(c.Args, "bytes", 0)), Iter: int(num(c.Args, "iteration", 0)),
				Submit: ns(num(c.Args, "submit_us", 0)), Ready: ns(num(c.Args, "ready_us", 0))}
			ev = append(ev, e)
		}
	}
	Sort(ev)
	return ev, nil
}
