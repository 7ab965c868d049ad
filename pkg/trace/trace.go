// Package trace records what a task runtime did and writes it in formats that
// people and tools read: Chrome trace-event JSON (Perfetto, chrome://tracing),
// which ReadChrome reads back, and CSV.
//
// An Event is one task execution: a closed interval [Start, End] of wall-clock
// time, in nanoseconds since the runtime started, on one worker of one rank;
// or one side of a message between ranks (a transfer); or a sample of the
// tile memory a rank holds. Real runs (pkg/runtime) and simulations
// (pkg/sim) write the same vocabulary.
package trace

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
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
	// Start), the tile data the rank holds from then on; for a transfer
	// (IsTransfer), the message's payload.
	Bytes int64
	// Submit and Ready are when the task was submitted and when its last
	// dependency was satisfied (ns since the epoch; 0: not recorded), and
	// Priority its scheduling priority. Start is when a worker took it.
	Submit, Ready int64
	Priority      int
	// Exec is when the task's kernel began (ns; 0: not recorded): from
	// Start to Exec the worker waited on the runtime (its buffers:
	// allocation, data arriving).
	Exec int64
	// CPU is the CPU time of the task's kernel, Exec to End, on its
	// worker's OS thread (ns; 0: not measured, e.g. a GPU worker): below
	// End - Exec by what the OS took from the worker (a loaded machine).
	CPU int64
	// Resource is the type of worker that ran a task: "cpu" or "gpu"
	// ("" reads as "cpu").
	Resource string
	// A transfer (kinds send, recv, and xfer in simulations) carries a
	// tile, Handle (e.g. "A(3,2)"), of Bytes bytes from rank Src to rank
	// Dst under message tag Tag. A runtime records each side on its own
	// rank, from Start, when the message was posted, to End, when the
	// runtime saw it complete; a simulation records the transfer itself
	// (Start to End on the link) as one xfer event.
	Src, Dst, Tag int
	Handle        string
}

// IsTransfer reports whether e is a message: kind send, recv or xfer.
func (e Event) IsTransfer() bool { return e.Kind == "send" || e.Kind == "recv" || e.Kind == "xfer" }

// MemoryKind is the kind of a memory sample: the bytes of tile data a rank
// holds after an allocation or a release. Chrome traces show the samples
// as a counter track per rank; CSV writes the bytes in the flops column.
const MemoryKind = "memory"

// Duration returns End-Start in seconds.
func (e Event) Duration() float64 { return float64(e.End-e.Start) * 1e-9 }

// Sort orders events by start time, then rank, worker, kind, end, source
// and destination, so that output files do not depend on the order in
// which workers handed their buffers over.
func Sort(ev []Event) {
	slices.SortStableFunc(ev, func(a, b Event) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 { // the usual case, first
			return c
		}
		return cmp.Or(cmp.Compare(a.Rank, b.Rank),
			cmp.Compare(a.Worker, b.Worker), cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.End, b.End), cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst))
	})
}

// CSVHeader is the first line WriteCSV writes.
const CSVHeader = "rank,worker,kind,m,n,k,start_s,end_s,flops,iteration,submit_s,ready_s,priority,resource,src,dst,tag,tile,bytes,cpu_s"

// WriteCSV writes ev as CSV with the header CSVHeader: times in seconds
// since the epoch; flops holds a memory sample's bytes as before; src, dst,
// tag, tile (the handle's name) and bytes describe transfers (-1, -1, 0,
// empty and 0 for tasks); cpu_s is a task's CPU time (Event.CPU, 0 when
// not measured).
func WriteCSV(w io.Writer, ev []Event) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, CSVHeader)
	for _, e := range ev {
		f := e.Flops
		if e.Kind == MemoryKind {
			f = float64(e.Bytes)
		}
		src, dst, bytes := -1, -1, int64(0)
		if e.IsTransfer() {
			src, dst, bytes = e.Src, e.Dst, e.Bytes
		}
		fmt.Fprintf(bw, "%d,%d,%s,%d,%d,%d,%.9f,%.9f,%g,%d,%.9f,%.9f,%d,%s,%d,%d,%d,%s,%d,%.9f\n", e.Rank, e.Worker, e.Kind,
			e.Tile[0], e.Tile[1], e.Tile[2], float64(e.Start)*1e-9, float64(e.End)*1e-9, f, e.Iter,
			float64(e.Submit)*1e-9, float64(e.Ready)*1e-9, e.Priority, e.resource(), src, dst, e.Tag, e.Handle, bytes, float64(e.CPU)*1e-9)
	}
	return bw.Flush()
}

// resource is e.Resource, "cpu" when empty.
func (e Event) resource() string {
	if e.Resource == "" {
		return "cpu"
	}
	return e.Resource
}
