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
type pool struct {
	mu   sync.Mutex
	free map[int][][]float64 // by capacity in words
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

func newPool() *pool { return &pool{free: map[int][][]float64{}} }

// slack is how much larger than asked a free buffer may be and still be
// handed out (the ragged last tiles of a matrix take a full tile's buffer
// rather than a new one).
const slack = 1.25

// get returns a buffer of words float64 values (its capacity may be up to
// slack times more); its contents are undefined.
func (p *pool) get(words int) []float64 {
	if p.fresh {
		b := sysAlloc(words)
		p.held.Add(bytesOf(words))
		p.allocs.Add(1)
		p.grow(bytesOf(words))
		return b
	}
	p.mu.Lock()
	class := words
	if len(p.free[class]) == 0 {
		for c, l := range p.free {
			if len(l) > 0 && c > words && float64(c) <= slack*float64(words) && (class == words || c < class) {
				class = c
			}
		}
	}
	var b []float64
	if l := p.free[class]; len(l) > 0 {
		n := len(l)
		b = l[n-1][:words]
		l[n-1] = nil
		p.free[class] = l[:n-1]
	}
	p.mu.Unlock()
	if b == nil {
		b = sysAlloc(words)
		p.held.Add(bytesOf(words))
		p.allocs.Add(1)
	}
	p.grow(bytesOf(cap(b)))
	return b
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
		p.free1(b)
		p.held.Add(-bytesOf(words))
		return
	}
	p.mu.Lock()
	p.free[words] = append(p.free[words], b)
	p.mu.Unlock()
}

// reserve makes sure that count buffers of words values are free or in use.
func (p *pool) reserve(words, count int) {
	if p.fresh {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.free[words]) < count {
		p.free[words] = append(p.free[words], sysAlloc(words))
		p.held.Add(bytesOf(words))
		p.allocs.Add(1)
	}
}

// trim gives the free buffers back to the system.
func (p *pool) trim() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for words, l := range p.free {
		for _, b := range l {
			p.free1(b)
			p.held.Add(-bytesOf(words))
		}
		delete(p.free, words)
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
	for _, b := range p.free[words] {
		f(b)
	}
}
