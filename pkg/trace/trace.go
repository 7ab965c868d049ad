// Package trace records what a task runtime did and writes it in formats that
// people and tools read: Chrome trace-event JSON (Perfetto, chrome://tracing)
// and CSV.
//
// An Event is one task execution: a closed interval [Start, End] of wall-clock
// time, in nanoseconds since the runtime started, on one worker of one rank.
package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/exageostat/exageostat/pkg/atomicfile"
)

// Event is one recorded task execution.
type Event struct {
	Kind   string // task kind (package kind): dcmg, potrf, trmm, syrk, gemm, ...
	Tile   [3]int // tile indices (m, n, k) of the task; -1 where unused
	Rank   int    // MPI rank that ran it
	Worker int    // worker index within the rank
	Start  int64  // ns since the runtime's epoch
	End    int64  // ns since the runtime's epoch
	Flops  float64
	Iter   int // iteration mark of the submitting program (e.g. likelihood evaluation), 0 if none
	// Bytes is, for an event of kind MemoryKind (a sample at Start, End =
	// Start), the tile data the rank holds from then on.
	Bytes int64
}

// MemoryKind is the kind of a memory sample: the bytes of tile data a rank
// holds after an allocation or a release. Chrome traces show the samples
// as a counter track per rank; CSV writes the bytes in the flops column.
const MemoryKind = "memory"

// Duration returns End-Start in seconds.
func (e Event) Duration() float64 { return float64(e.End-e.Start) * 1e-9 }

// Sort orders events by start time, then rank and worker, so that output files
// do not depend on the order in which workers handed their buffers over.
func Sort(ev []Event) {
	sort.SliceStable(ev, func(i, j int) bool {
		a, b := ev[i], ev[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.Rank != b.Rank {
			return a.Rank < b.Rank
		}
		return a.Worker < b.Worker
	})
}

type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`            // microseconds
	Dur  float64        `json:"dur,omitempty"` // microseconds
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteChrome writes ev as a Chrome trace-event JSON object
// ({"traceEvents": [...]}) with one complete ("X") event per task, one process
// per rank and one thread per worker. The file opens in ui.perfetto.dev and
// chrome://tracing.
func WriteChrome(w io.Writer, ev []Event) error {
	out := make([]chromeEvent, 0, len(ev)+8)
	seen := map[[2]int]bool{}
	for _, e := range ev {
		if !seen[[2]int{e.Rank, -1}] {
			seen[[2]int{e.Rank, -1}] = true
			out = append(out, chromeEvent{Name: "process_name", Ph: "M", Pid: e.Rank,
				Args: map[string]any{"name": fmt.Sprintf("rank %d", e.Rank)}})
		}
		if key := [2]int{e.Rank, e.Worker}; !seen[key] && e.Kind != MemoryKind {
			seen[key] = true
			out = append(out, chromeEvent{Name: "thread_name", Ph: "M", Pid: e.Rank, Tid: e.Worker,
				Args: map[string]any{"name": fmt.Sprintf("worker %d", e.Worker)}})
		}
		if e.Kind == MemoryKind {
			out = append(out, chromeEvent{Name: "tile memory (MB)", Ph: "C", Ts: float64(e.Start) / 1e3, Pid: e.Rank,
				Args: map[string]any{"MB": float64(e.Bytes) / 1e6}})
			continue
		}
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
		out = append(out, chromeEvent{
			Name: e.Kind, Cat: "task", Ph: "X",
			Ts: float64(e.Start) / 1e3, Dur: float64(e.End-e.Start) / 1e3,
			Pid: e.Rank, Tid: e.Worker, Args: args,
		})
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

// WriteCSV writes ev as CSV with the header
// rank,worker,kind,m,n,k,start_s,end_s,flops,iteration.
func WriteCSV(w io.Writer, ev []Event) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "rank,worker,kind,m,n,k,start_s,end_s,flops,iteration")
	for _, e := range ev {
		f := e.Flops
		if e.Kind == MemoryKind {
			f = float64(e.Bytes)
		}
		fmt.Fprintf(bw, "%d,%d,%s,%d,%d,%d,%.9f,%.9f,%g,%d\n", e.Rank, e.Worker, e.Kind,
			e.Tile[0], e.Tile[1], e.Tile[2], float64(e.Start)*1e-9, float64(e.End)*1e-9, f, e.Iter)
	}
	return bw.Flush()
}

// WriteFile writes ev to path atomically (see package atomicfile: a failed
// run never leaves a half-written trace). The format follows the extension:
// ".csv" for CSV, anything else Chrome JSON.
func WriteFile(path string, ev []Event) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		if strings.HasSuffix(strings.ToLower(path), ".csv") {
			return WriteCSV(w, ev)
		}
		return WriteChrome(w, ev)
	})
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}
