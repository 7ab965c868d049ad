package runtime

import (
	"bytes"
	"encoding/gob"

	"github.com/exageostat/exageostat/pkg/trace"
)

// GatherEvents returns, on rank root, the trace events ev of every rank
// merged into one list (each event keeps its Rank, so one trace shows one
// process lane per rank, on the common clock the ranks start together at
// New); other ranks get nil. Every rank must call it (a collective).
func (r *Runtime) GatherEvents(ev []trace.Event, root int) ([]trace.Event, error) {
	if r.size == 1 || r.rec != nil {
		return ev, nil
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(ev); err != nil {
		return nil, err
	}
	all, err := r.opts.Comm.Gather(root, b.Bytes())
	if err != nil || r.rank != root {
		return nil, err
	}
	var out []trace.Event
	for _, p := range all {
		var part []trace.Event
		if err := gob.NewDecoder(bytes.NewReader(p)).Decode(&part); err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	trace.Sort(out)
	return out, nil
}

// GatherBytes returns, on rank root, every rank's b in rank order (nil on
// the other ranks): a collective for small per-rank reports.
func (r *Runtime) GatherBytes(b []byte, root int) ([][]byte, error) {
	if r.size == 1 || r.rec != nil {
		return [][]byte{b}, nil
	}
	return r.opts.Comm.Gather(root, b)
}

// ReplicaBudget returns the replica bytes this rank posts receives for
// ahead of need (Options.ReplicaBudget, or its default from the bytes this
// rank owns so far).
func (r *Runtime) ReplicaBudget() int64 { return r.budget() }
