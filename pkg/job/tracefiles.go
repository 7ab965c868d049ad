package job

import (
	"fmt"
	"os"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/trace"
)

// runtimeOption sets part of a job's runtime options (its placement, its
// trace).
type runtimeOption interface{ apply(*runtime.Options) }

// traceRun is the trace of a job run with --trace PATH: each rank writes
// its own Paje file as it goes (trace.RankPath: readable after a kill -9),
// and rank 0 merges them at the end into PATH and the Paje file beside it
// (trace.WriteOutputs).
type traceRun struct {
	path string
	st   *trace.Stream
}

// openTrace starts rank's trace file of path; nil without a path.
func openTrace(path string, w comm.Comm) (*traceRun, error) {
	if path == "" {
		return nil, nil
	}
	st, err := trace.CreateStream(trace.RankPath(path, w.Rank()), w.Rank())
	if err != nil {
		return nil, badInput("--trace %s: %v", path, err)
	}
	return &traceRun{path: path, st: st}, nil
}

// apply makes the runtime hand its events to the stream.
func (t *traceRun) apply(ro *runtime.Options) {
	if t != nil {
		ro.Sink = t.st
	}
}

// close writes what the stream holds and closes the rank's file (a run
// that stops early leaves it for `exageostat trace merge`).
func (t *traceRun) close() error {
	if t == nil {
		return nil
	}
	return t.st.Close()
}

// finish closes every rank's file, gathers them on rank 0 (a collective:
// the files may be on each node's own disk) and writes the merged trace;
// it returns the files written (rank 0).
func (t *traceRun) finish(w comm.Comm) ([]string, error) {
	if t == nil {
		return nil, nil
	}
	if err := t.close(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(trace.RankPath(t.path, w.Rank()))
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	all, err := w.Gather(0, b)
	if err != nil || w.Rank() != 0 {
		return nil, err
	}
	ev, err := trace.Merge(all)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return trace.WriteOutputs(t.path, ev)
}
