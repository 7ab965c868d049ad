package comm

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Group is a communicator of Size ranks that are goroutines of one process:
// messages are copied through mailboxes. It has MPI's matching rules (by
// source and tag, in posting order) and lets the distributed runtime be
// tested, race detector included, without MPI.
type Group struct {
	size  int
	boxes []*mailbox

	mu      sync.Mutex
	cond    *sync.Cond
	gen     int
	arrived int
	vals    []any
	out     []any
	aborted atomic.Int64 // exit code + 1 once Abort was called
}

type mailbox struct {
	mu      sync.Mutex
	arrived []*message // sent, not yet matched
	posted  []*groupReq
}

type message struct {
	src, tag int
	data     []float64
}

type groupReq struct {
	done     atomic.Bool
	src, tag int
	buf      []float64
	n        int // values received
}

// NewGroup returns a communicator of size ranks; Endpoint(r) is rank r's.
func NewGroup(size int) *Group {
	g := &Group{size: size, boxes: make([]*mailbox, size)}
	for i := range g.boxes {
		g.boxes[i] = &mailbox{}
	}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// Endpoint returns rank r's Comm.
func (g *Group) Endpoint(r int) Comm { return &endpoint{g: g, rank: r} }

// Aborted returns the code passed to Abort and whether it was called.
func (g *Group) Aborted() (int, bool) {
	c := g.aborted.Load()
	return int(c - 1), c > 0
}

type endpoint struct {
	g    *Group
	rank int
}

func (e *endpoint) Rank() int   { return e.rank }
func (e *endpoint) Size() int   { return e.g.size }
func (e *endpoint) MaxTag() int { return 1<<31 - 1 }

func (e *endpoint) Isend(buf []float64, dst, tag int) (Request, error) {
	if dst < 0 || dst >= e.g.size || dst == e.rank {
		return nil, fmt.Errorf("comm: rank %d cannot send to rank %d", e.rank, dst)
	}
	b := e.g.boxes[dst]
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, r := range b.posted {
		if r.src == e.rank && r.tag == tag {
			if len(r.buf) < len(buf) {
				return nil, fmt.Errorf("comm: message of %d values for a receive of %d (tag %d)", len(buf), len(r.buf), tag)
			}
			r.n = copy(r.buf, buf)
			r.done.Store(true)
			b.posted = append(b.posted[:i], b.posted[i+1:]...)
			return doneReq(), nil
		}
	}
	b.arrived = append(b.arrived, &message{src: e.rank, tag: tag, data: append([]float64(nil), buf...)})
	return doneReq(), nil
}

func doneReq() *groupReq {
	r := &groupReq{}
	r.done.Store(true)
	return r
}

func (e *endpoint) Irecv(buf []float64, src, tag int) (Request, error) {
	if src < 0 || src >= e.g.size || src == e.rank {
		return nil, fmt.Errorf("comm: rank %d cannot receive from rank %d", e.rank, src)
	}
	b := e.g.boxes[e.rank]
	b.mu.Lock()
	defer b.mu.Unlock()
	r := &groupReq{src: src, tag: tag, buf: buf}
	for i, m := range b.arrived {
		if m.src == src && m.tag == tag {
			if len(m.data) > len(buf) {
				return nil, fmt.Errorf("comm: message of %d values for a receive of %d (tag %d)", len(m.data), len(buf), tag)
			}
			r.n = copy(buf, m.data)
			r.done.Store(true)
			b.arrived = append(b.arrived[:i], b.arrived[i+1:]...)
			return r, nil
		}
	}
	b.posted = append(b.posted, r)
	return r, nil
}

func (e *endpoint) Received(q Request) int { return q.(*groupReq).n }

func (e *endpoint) Test(reqs []Request, done []int) ([]int, error) {
	for i, q := range reqs {
		if q != nil && q.(*groupReq).done.Load() {
			done = append(done, i)
		}
	}
	return done, nil
}

// exchange is a rendezvous of all ranks: each gives v and gets every rank's.
func (g *Group) exchange(rank int, v any) []any {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.vals == nil {
		g.vals = make([]any, g.size)
	}
	g.vals[rank] = v
	g.arrived++
	gen := g.gen
	if g.arrived == g.size {
		g.out, g.vals = g.vals, nil
		g.arrived = 0
		g.gen++
		g.cond.Broadcast()
	} else {
		for gen == g.gen {
			g.cond.Wait()
		}
	}
	return g.out
}

func (e *endpoint) AllreduceMin(x int64) (int64, error) {
	all := e.g.exchange(e.rank, x)
	m := x
	for _, v := range all {
		m = min(m, v.(int64))
	}
	return m, nil
}

func (e *endpoint) AllreduceSum(x []int64) error {
	all := e.g.exchange(e.rank, append([]int64(nil), x...))
	clear(x)
	for _, v := range all {
		for i, y := range v.([]int64) {
			x[i] += y
		}
	}
	return nil
}

func (e *endpoint) Bcast(root int, b []byte) ([]byte, error) {
	var v any
	if e.rank == root {
		v = append([]byte(nil), b...)
	}
	all := e.g.exchange(e.rank, v)
	return append([]byte(nil), all[root].([]byte)...), nil
}

func (e *endpoint) Gather(root int, b []byte) ([][]byte, error) {
	all := e.g.exchange(e.rank, append([]byte(nil), b...))
	if e.rank != root {
		return nil, nil
	}
	out := make([][]byte, len(all))
	for i, v := range all {
		out[i] = v.([]byte)
	}
	return out, nil
}

func (e *endpoint) Abort(code int) { e.g.aborted.CompareAndSwap(0, int64(code)+1) }
