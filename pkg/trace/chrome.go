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

// commLane is the thread id of a rank's communication lane in Chrome
// traces; its workers keep their index.
const commLane = 1000

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

// WriteChrome writes ev as a Chrome trace-event JSON object
// ({"traceEvents": [...]}), which ui.perfetto.dev and chrome://tracing open,
// one lane per worker plus one per rank for its messages:
//
//   - one process per rank; one lane (thread) per worker, named after its
//     type ("cpu worker 0", "gpu worker 0"), with one complete ("X") event
//     per task whose args hold its tile (m, n, k), flops, iteration,
//     priority, its submission, ready and kernel start times (submit_us,
//     ready_us, exec_us) and its CPU time (cpu_us); nested at its start, a
//     "runtime" slice (category "state") while the worker waited on the
//     runtime (its buffers);
//   - a "comm" lane per rank: each send or receive completed there, named
//     after the kind and the tile ("recv A(3,2)") with src, dst, tag,
//     tile, bytes and posted_us (when it was posted) in args, ending at its
//     completion and starting at the later of its transfer's start (the
//     later posting of the two sides) and the previous slice's end (so
//     that no two slices overlap: the lane reads as the rank's link,
//     one message at a time); a flow arrow joins the two sides of a
//     transfer (a simulated xfer is drawn on both ranks);
//   - a global instant mark at the start of each iteration;
//   - the tile memory a rank holds as a counter track ("tile memory (MB)").
//
// ReadChrome reads the file back into the events.
func WriteChrome(w io.Writer, ev []Event) error {
	c := &chromeWriter{named: map[[2]int]bool{}}
	c.tasks(ev)
	c.transfers(ev)
	c.iterations(ev)
	return c.encode(w)
}

// chromeWriter collects the Chrome events of a trace.
type chromeWriter struct {
	out   []chromeEvent
	named map[[2]int]bool // (rank, -1): process named; (rank, tid): lane named
}

// lane names rank's process (once) and its lane tid (once, if tid >= 0).
func (c *chromeWriter) lane(rank, tid int, name string) {
	if !c.named[[2]int{rank, -1}] {
		c.named[[2]int{rank, -1}] = true
		c.out = append(c.out, chromeEvent{Name: "process_name", Ph: "M", Pid: rank, Args: map[string]any{"name": fmt.Sprintf("rank %d", rank)}})
	}
	if tid < 0 || c.named[[2]int{rank, tid}] {
		return
	}
	c.named[[2]int{rank, tid}] = true
	c.out = append(c.out, chromeEvent{Name: "thread_name", Ph: "M", Pid: rank, Tid: tid, Args: map[string]any{"name": name}},
		chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: rank, Tid: tid, Args: map[string]any{"sort_index": tid}})
}

// workerNames names the worker lanes of ev by type, numbered within it
// ("gpu worker 0" is the first GPU worker of its rank, whatever its index).
func workerNames(ev []Event) map[[2]int]string {
	ids := map[[2]int]string{} // rank, worker -> resource
	for _, e := range ev {
		if e.Kind != MemoryKind && !e.IsTransfer() {
			ids[[2]int{e.Rank, e.Worker}] = e.resource()
		}
	}
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
	names := map[[2]int]string{}
	count := map[string]int{}
	for i, k := range keys {
		if i > 0 && keys[i-1][0] != k[0] {
			clear(count)
		}
		res := ids[k]
		names[k] = fmt.Sprintf("%s worker %d", res, count[res])
		count[res]++
	}
	return names
}

// taskArgs are the args of task e's slice.
func taskArgs(e *Event) map[string]any {
	args := map[string]any{}
	for i, name := range [3]string{"m", "n", "k"} {
		if e.Tile[i] >= 0 {
			args[name] = e.Tile[i]
		}
	}
	for _, f := range []struct {
		key string
		v   float64
		on  bool
	}{{"flops", e.Flops, e.Flops > 0}, {"iteration", float64(e.Iter), e.Iter > 0}, {"priority", float64(e.Priority), e.Priority != 0},
		{"submit_us", us(e.Submit), e.Submit > 0}, {"ready_us", us(e.Ready), e.Ready > 0}, {"exec_us", us(e.Exec), e.Exec > 0},
		{"cpu_us", us(e.CPU), e.CPU > 0}} {
		if f.on {
			args[f.key] = f.v
		}
	}
	if e.Resource != "" && e.Resource != "cpu" {
		args["resource"] = e.Resource
	}
	return args
}

// tasks adds the tasks of ev on their workers' lanes, and the memory
// samples as counters.
func (c *chromeWriter) tasks(ev []Event) {
	names := workerNames(ev)
	for i := range ev {
		e := &ev[i]
		switch {
		case e.Kind == MemoryKind:
			c.lane(e.Rank, -1, "")
			c.out = append(c.out, chromeEvent{Name: "tile memory (MB)", Ph: "C", Ts: us(e.Start), Pid: e.Rank,
				Args: map[string]any{"MB": float64(e.Bytes) / 1e6}})
			continue
		case e.IsTransfer():
			continue
		}
		c.lane(e.Rank, e.Worker, names[[2]int{e.Rank, e.Worker}])
		c.out = append(c.out, chromeEvent{Name: e.Kind, Cat: "task", Ph: "X", Ts: us(e.Start), Dur: us(e.End - e.Start),
			Pid: e.Rank, Tid: e.Worker, Args: taskArgs(e)})
		if e.Exec > e.Start && e.Exec <= e.End { // waiting on the runtime, nested in the task
			c.out = append(c.out, chromeEvent{Name: "runtime", Cat: "state", Ph: "X", Ts: us(e.Start), Dur: us(e.Exec - e.Start),
				Pid: e.Rank, Tid: e.Worker})
		}
	}
}

// commSlice is one side of a transfer on a rank's comm lane.
type commSlice struct {
	e          *Event
	kind       string
	rank       int
	start, end int64
	sender     bool // the sending side of a simulated transfer
	flow       int  // flow id (0: none)
	ph         string
}

// transfers adds each rank's messages on its comm lane and the flows that
// join the two sides of each transfer.
func (c *chromeWriter) transfers(ev []Event) {
	var sl []commSlice
	for id, t := range Transfers(ev) {
		switch {
		case t.Send != nil && t.Recv != nil:
			sl = append(sl, commSlice{e: t.Send, kind: kind.Send, rank: t.Src, start: t.Send.Start, end: t.Send.End, flow: id + 1, ph: "s"},
				commSlice{e: t.Recv, kind: kind.Recv, rank: t.Dst, start: t.Start, end: t.End, flow: id + 1, ph: "f"})
		case t.Recv != nil && t.Recv.Kind == kind.Xfer: // simulated: the link is busy on both sides
			sl = append(sl, commSlice{e: t.Recv, kind: kind.Xfer, rank: t.Src, start: t.Start, end: t.End, sender: true, flow: id + 1, ph: "s"},
				commSlice{e: t.Recv, kind: kind.Xfer, rank: t.Dst, start: t.Start, end: t.End, flow: id + 1, ph: "f"})
		case t.Recv != nil:
			sl = append(sl, commSlice{e: t.Recv, kind: kind.Recv, rank: t.Dst, start: t.Start, end: t.End})
		default:
			sl = append(sl, commSlice{e: t.Send, kind: kind.Send, rank: t.Src, start: t.Send.Start, end: t.Send.End})
		}
	}
	sort.SliceStable(sl, func(i, j int) bool {
		if sl[i].rank != sl[j].rank {
			return sl[i].rank < sl[j].rank
		}
		return sl[i].end < sl[j].end
	})
	prev := map[int]int64{}
	for i := range sl {
		s := &sl[i]
		start := max(s.start, prev[s.rank])
		prev[s.rank] = s.end
		c.addComm(s, start)
	}
}

// addComm adds s, drawn from start, and its end of a flow.
func (c *chromeWriter) addComm(s *commSlice, start int64) {
	c.lane(s.rank, commLane, "comm")
	e := s.e
	name := s.kind
	if e.Handle != "" {
		name += " " + e.Handle
	}
	a := map[string]any{"kind": s.kind, "src": e.Src, "dst": e.Dst, "tile": e.Handle, "bytes": e.Bytes, "posted_us": us(e.Start)}
	if s.sender {
		a["side"] = "sender"
	} else {
		a["tag"] = e.Tag
		for _, f := range []struct {
			key string
			v   int64
		}{{"iteration", int64(e.Iter)}, {"submit_us", e.Submit}, {"ready_us", e.Ready}} {
			switch {
			case f.v <= 0:
			case f.key == "iteration":
				a[f.key] = f.v
			default:
				a[f.key] = us(f.v)
			}
		}
	}
	c.out = append(c.out, chromeEvent{Name: name, Cat: "transfer", Ph: "X", Ts: us(start), Dur: us(s.end - start), Pid: s.rank, Tid: commLane, Args: a})
	if s.flow > 0 {
		f := chromeEvent{Name: "transfer", Cat: "transfer", Ph: s.ph, ID: s.flow, Ts: us(start), Pid: s.rank, Tid: commLane}
		if s.ph == "f" {
			f.BP = "e"
		}
		c.out = append(c.out, f)
	}
}

// iterations adds a global instant mark at the first task of each
// iteration.
func (c *chromeWriter) iterations(ev []Event) {
	first := map[int]int64{}
	for _, e := range ev {
		if e.Iter <= 0 || e.Kind == MemoryKind || e.IsTransfer() {
			continue
		}
		if t, ok := first[e.Iter]; !ok || e.Start < t {
			first[e.Iter] = e.Start
		}
	}
	iters := make([]int, 0, len(first))
	for it := range first {
		iters = append(iters, it)
	}
	sort.Ints(iters)
	for _, it := range iters {
		c.out = append(c.out, chromeEvent{Name: fmt.Sprintf("iteration %d", it), Cat: "iteration", Ph: "i", S: "g", Ts: us(first[it])})
	}
}

// encode writes the events, one a line.
func (c *chromeWriter) encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")
	for i, ce := range c.out {
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
				Exec: ns(num(c.Args, "exec_us", 0)), CPU: ns(num(c.Args, "cpu_us", 0))}
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
