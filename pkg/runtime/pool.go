package runtime

import (
	"sync"
	"sync/atomic"
)

// pool hands out the buffers of handles' copies and keeps the returned ones
// for reuse, by size, for the life of the Runtime (seed 000's memory
// optimisations: no allocation in task submission, a cache of chunks reused
// between phases and iterations, and pre-allocation before the first
// iteration with Reserve). Large buffers come from the operating system
// outside the Go heap (sysAlloc), so that they count exactly and the
// garbage collector's pacing is not inflated by them.
//
// On a machine of several NUMA nodes (nodes > 1, bind set), a buffer asked
// for node k is placed there when it is allocated (bind, before any page
// is touched) and returns to node k's free buffers; a request for node k
// takes one of node k's first, another node's only when k has none (memory
// before locality).
type pool struct {
	mu   sync.Mutex
	free map[freeKey][][]float64 // by capacity in words and node
	// nodes and bind: see above; home is the node of each buffer
	// allocated for one (nodes > 1).
	nodes int
	bind  func(b []float64, node int) error
	home  map[*float64]int
	// fresh turns the pool off (Options.NoPool): every get allocates from
	// the system, every put gives the buffer back, reserve does nothing.
	fresh bool

	// release, if not nil, is told of every buffer given back to the
	// system (a device unpins it first).
	release func([]float64)

	inUse, peak atomic.Int64 // bytes of buffers handed out
	held        atomic.Int64 // bytes allocated from the system, in use or free
	allocs      atomic.Int64 // buffers allocated from the system
}

// freeKey is a class of free buffers: capacity in words, NUMA node (0 on
// one node).
type freeKey struct{ words, node int }

func newPool() *pool { return &pool{free: map[freeKey][][]float64{}, nodes: 1} }

// slack is how much larger than asked a free buffer may be and still be
// handed out (the ragged last tiles of a matrix take a full tile's buffer
// rather than a new one).
const slack = 1.25

// get returns a buffer of words float64 values (its capacity may be up to
// slack times more); its contents are undefined.
func (p *pool) get(words int) []float64 { return p.getOn(words, -1) }

// getOn is get for a worker on NUMA node node (-1: any).
func (p *pool) getOn(words, node int) []float64 {
	if p.nodes <= 1 {
		node = 0
	}
	if p.fresh {
		b := p.alloc(words, node)
		p.grow(bytesOf(words))
		return b
	}
	p.mu.Lock()
	b := p.take(words, node)
	for n := 0; b == nil && n < p.nodes; n++ {
		if n != node {
			b = p.take(words, n)
		}
	}
	p.mu.Unlock()
	if b == nil {
		b = p.alloc(words, node)
	}
	p.grow(bytesOf(cap(b)))
	return b
}

// take removes and returns a free buffer of node for words values, of
// that capacity or the smallest up to slack times more; nil if none (p.mu
// held).
func (p *pool) take(words, node int) []float64 {
	class := freeKey{words, node}
	if len(p.free[class]) == 0 {
		for c, l := range p.free {
			if len(l) > 0 && c.node == node && c.words > words && float64(c.words) <= slack*float64(words) &&
				(class.words == words || c.words < class.words) {
				class = c
			}
		}
	}
	l := p.free[class]
	if len(l) == 0 {
		return nil
	}
	n := len(l)
	b := l[n-1][:words]
	l[n-1] = nil
	p.free[class] = l[:n-1]
	return b
}

// alloc allocates a buffer from the system, on node when there are
// several (node >= 0).
func (p *pool) alloc(words, node int) []float64 {
	b := sysAlloc(words)
	p.held.Add(bytesOf(words))
	p.allocs.Add(1)
	if p.nodes > 1 && node >= 0 && p.bind != nil {
		_ = p.bind(b, node) // a placement that fails leaves the pages to the first touch
		p.mu.Lock()
		p.home[&b[:1][0]] = node
		p.mu.Unlock()
	}
	return b
}

// nodeOf returns the node buffer b was allocated for (0 on one node).
func (p *pool) nodeOf(b []float64) int {
	if p.nodes <= 1 {
		return 0
	}
	return p.home[&b[:1][0]]
}

// grow adds bytes to the buffers in use and raises the peak.
func (p *pool) grow(bytes int64) {
	v := p.inUse.Add(bytes)
	for {
		pk := p.peak.Load()
		if v <= pk || p.peak.CompareAndSwap(pk, v) {
			return
		}
	}
}

// put returns b, obtained from get, for reuse.
func (p *pool) put(b []float64) {
	words := cap(b)
	b = b[:words]
	p.inUse.Add(-bytesOf(words))
	if p.fresh {
		if p.nodes > 1 {
			p.mu.Lock()
			delete(p.home, &b[:1][0])
			p.mu.Unlock()
		}
		p.free1(b)
		p.held.Add(-bytesOf(words))
		return
	}
	p.mu.Lock()
	k := freeKey{words, p.nodeOf(b)}
	p.free[k] = append(p.free[k], b)
	p.mu.Unlock()
}

// reserve makes sure that count buffers of words values are free or in
// use, spread over the NUMA nodes.
func (p *pool) reserve(words, count int) {
	if p.fresh {
		return
	}
	have := 0
	p.mu.Lock()
	for n := range p.nodes {
		have += len(p.free[freeKey{words, n}])
	}
	p.mu.Unlock()
	for i := have; i < count; i++ {
		node := i % p.nodes
		b := p.alloc(words, node)
		p.mu.Lock()
		k := freeKey{words, node}
		p.free[k] = append(p.free[k], b)
		p.mu.Unlock()
	}
}

// trim gives the free buffers back to the system.
func (p *pool) trim() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.free {
		for _, b := range l {
			if p.nodes > 1 {
				delete(p.home, &b[:1][0])
			}
			p.free1(b)
			p.held.Add(-bytesOf(k.words))
		}
		delete(p.free, k)
	}
}

func bytesOf(words int) int64 { return 8 * int64(words) }

// MemStats describes the tile data a runtime holds on this rank, in bytes.
type MemStats struct {
	InUse int64 `json:"in_use_bytes"` // buffers of handles' copies now
	Peak  int64 `json:"peak_bytes"`   // the most InUse has been
	// Replicas are the buffers of copies on a rank other than the
	// handle's owner (received replicas, data generated for another rank);
	// PeakReplicas the most they have been.
	Replicas     int64 `json:"replica_bytes"`
	PeakReplicas int64 `json:"peak_replica_bytes"`
	Held         int64 `json:"held_bytes"` // allocated from the system: in use or kept for reuse
	Allocs       int64 `json:"allocations"`
}

// free1 gives b back to the system.
func (p *pool) free1(b []float64) {
	if p.release != nil {
		p.release(b)
	}
	sysFree(b)
}

// each calls f with every free buffer of words values.
func (p *pool) each(words int, f func([]float64)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.free {
		if k.words == words {
			for _, b := range l {
				f(b)
			}
		}
	}
}
