package runtime

import (
	"container/list"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exageostat/exageostat/pkg/trace"
)

// Memory nodes (StarPU's data coherence). Node 0 is host RAM, node d >= 1
// the d-th device of Options.Devices. With devices, each handle with data
// keeps a nodeState: the set of nodes whose copy is the latest version
// (MSI: a node in the set holds a valid copy, Modified when it is the only
// one, Shared otherwise; a node outside it, Invalid). A task reads a
// handle on its worker's node, after the runtime copies the handle there
// when that node's copy is invalid (read = replicate); a task that writes
// it leaves only its node's copy valid (write = invalidate the others).
// The dependency graph orders every write after the reads before it, so a
// node's copy never changes under a running reader.
//
// Host RAM is always the source of a copy to a device (a device's copy
// goes through host RAM to reach another device), and every host reader
// (a CPU task, a message sent to another rank, Local, Wait for the
// caller's buffers) first gets the data back from the device that holds
// the latest version.

// nodeState is where a handle's copies live (Options.Devices only).
type nodeState struct {
	mu    sync.Mutex
	valid atomic.Uint64 // bit k: node k holds the latest version (bit 0: host RAM)
	dev   []devCopy     // the copy on device node k at index k-1
}

// devCopy is a handle's copy on one device.
type devCopy struct {
	h       *Handle
	buf     DevBuf
	has     bool          // buf is allocated
	pins    int           // running tasks and in-flight copies that use it
	loading chan struct{} // closed when the copy in flight into it ends
	elem    *list.Element // its place in the device's LRU list, when unpinned
}

// setupNodes gives h its coherence state when the runtime has devices.
func (r *Runtime) setupNodes(h *Handle) {
	if len(r.devs) == 0 || h.format == nil {
		return
	}
	h.mn = &nodeState{dev: make([]devCopy, len(r.devs))}
	h.mn.valid.Store(1)
	for i := range h.mn.dev {
		h.mn.dev[i].h = h
	}
}

// hostRead makes host RAM's copy of h the latest version before a host
// reader uses it: the device that holds it copies it back.
func (r *Runtime) hostRead(h *Handle) error {
	m := h.mn
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.valid.Load()&1 != 0 {
		return nil
	}
	for _, n := range r.devs {
		if m.valid.Load()&(1<<n.node) != 0 {
			return r.storeLocked(h, n)
		}
	}
	return nil
}

// storeLocked copies h's copy on device n back into host RAM, which then
// holds the latest version too (h.mn.mu held; n's copy is valid and not
// loading). The copy is synchronous, on the calling goroutine.
func (r *Runtime) storeLocked(h *Handle, n *devNode) error {
	c := &h.mn.dev[n.node-1]
	if h.buf == nil || len(h.buf) < h.words {
		if h.buf != nil {
			r.release(h)
		}
		r.allocate(h)
	}
	start := r.Now()
	if err := n.dev.ToHost(h.buf[:h.words], c.buf); err != nil {
		return fmt.Errorf("%s: copying %s back to host RAM: %w", n.dev.Name(), h.name, err)
	}
	r.traceCopy(n, "d2h", h, start)
	n.stores.Add(1)
	n.bytesOut.Add(bytesOf(h.words))
	h.mn.valid.Or(1)
	return nil
}

// hostWrote records that a host writer (a CPU task, a received message)
// is about to write h, or that h's buffers are released: host RAM will
// hold the only valid copy, and the devices' copies are dropped.
func (r *Runtime) hostWrote(h *Handle) {
	m := h.mn
	if m == nil {
		return
	}
	m.mu.Lock()
	m.valid.Store(1)
	r.dropLocked(h, 0)
	m.mu.Unlock()
}

// dropLocked returns the buffers of h's device copies, except on node
// keep, to their devices' pools (h.mn.mu held).
func (r *Runtime) dropLocked(h *Handle, keep int) {
	for i := range h.mn.dev {
		c := &h.mn.dev[i]
		n := r.devs[i]
		if !c.has || n.node == keep || c.pins > 0 || c.loading != nil {
			continue
		}
		n.mu.Lock()
		if c.elem != nil {
			n.lru.Remove(c.elem)
			c.elem = nil
		}
		n.put(c.buf)
		n.mu.Unlock()
		c.buf, c.has = DevBuf{}, false
		h.mn.valid.And(^(uint64(1) << n.node))
	}
}

// load copies h from host RAM into its copy on device n on n's stream
// (h.mn.mu held; the copy is allocated and pinned by the caller, host RAM
// valid): the copy becomes valid, and its pin is dropped, when done. It
// returns the channel closed then.
func (r *Runtime) loadLocked(h *Handle, n *devNode, prefetch bool) chan struct{} {
	c := &h.mn.dev[n.node-1]
	ch := make(chan struct{})
	c.loading = ch
	c.pins++
	src := h.buf[:h.words]
	dst := c.buf
	n.loads.Add(1)
	n.mu.Lock()
	n.inflight++
	n.mu.Unlock()
	if prefetch {
		n.prefetch.Add(1)
	}
	n.stream <- func() {
		start := r.Now()
		err := n.dev.ToDevice(dst, src)
		if err == nil {
			r.traceCopy(n, "h2d", h, start)
			n.bytesIn.Add(bytesOf(h.words))
			if r.opts.History != nil {
				r.opts.History.Record(TransferArch(n.arch), "xfer", h.words, float64(time.Duration(r.Now()-start))/1e9)
			}
		}
		m := h.mn
		m.mu.Lock()
		if err != nil {
			r.deviceFailure(fmt.Errorf("%s: copying %s to the device: %w", n.dev.Name(), h.name, err))
		} else {
			m.valid.Or(1 << n.node)
		}
		c.loading = nil
		c.pins--
		n.mu.Lock()
		n.inflight--
		if c.pins == 0 {
			n.touch(c)
		}
		n.room.Broadcast()
		n.mu.Unlock()
		m.mu.Unlock()
		close(ch)
	}
	return ch
}

// TransferArch is the architecture name under which copies from host RAM
// to a device of architecture arch are recorded in a performance model
// (kind "xfer", size in words): "host>arch".
func TransferArch(arch string) string { return "host>" + arch }

// deviceFailure records a failed copy as the error of the graph.
func (r *Runtime) deviceFailure(err error) {
	r.errMu.Lock()
	if r.firstErr == nil {
		r.firstErr = err
		r.firstSeq = ^uint64(0)
	}
	r.errMu.Unlock()
	r.failed.Store(true)
}

// devBuffers resolves t's accesses to buffers on device worker w's node:
// it waits for copies in flight, allocates (evicting if needed), starts
// the copies of the handles t reads that the node lacks, pins every copy
// until devRelease, and marks the handles t writes valid on this node
// only.
func (r *Runtime) devBuffers(w *worker, t *task) ([][]float64, error) {
	n := r.devs[w.node-1]
	bit := uint64(1) << w.node
	bufs := w.bufs[:0]
	w.dbufs = w.dbufs[:0]
	var wait []chan struct{}
	for _, a := range t.Access {
		h := a.H
		switch {
		case h.format == nil:
			bufs = append(bufs, nil)
			w.dbufs = append(w.dbufs, DevBuf{})
			continue
		case a.Mode == Scratch:
			b := r.scratch(w, h.words)
			bufs = append(bufs, b)
			w.dbufs = append(w.dbufs, DevBuf{Host: b, Words: h.words})
			continue
		}
		m := h.mn
		c := &m.dev[w.node-1]
		m.mu.Lock()
		for c.loading != nil {
			ch := c.loading
			m.mu.Unlock()
			<-ch
			m.mu.Lock()
		}
		need := a.Mode&R != 0 && m.valid.Load()&bit == 0
		if need {
			if m.valid.Load()&1 == 0 {
				// The latest version is on another device: through host RAM.
				for _, o := range r.devs {
					if m.valid.Load()&(1<<o.node) != 0 {
						if err := r.storeLocked(h, o); err != nil {
							m.mu.Unlock()
							return nil, err
						}
						break
					}
				}
			}
			if h.buf == nil {
				m.mu.Unlock()
				return nil, fmt.Errorf("%s %w on rank %d", h.name, ErrUnwritten, r.rank)
			}
		}
		if !c.has {
			n.mu.Lock()
			b, ok, err := n.alloc(r, h.words, true)
			n.mu.Unlock()
			if err != nil || !ok {
				m.mu.Unlock()
				if err == nil {
					err = fmt.Errorf("%s: no room for %s", n.dev.Name(), h.name)
				}
				return nil, err
			}
			c.buf, c.has = b, true
		}
		if c.pins == 0 {
			n.mu.Lock()
			if c.elem != nil {
				n.lru.Remove(c.elem)
				c.elem = nil
			}
			n.mu.Unlock()
		}
		c.pins++
		if need {
			wait = append(wait, r.loadLocked(h, n, false))
		}
		if a.Mode&W != 0 {
			m.valid.Store(bit)
			r.dropLocked(h, w.node)
		}
		m.mu.Unlock()
		bufs = append(bufs, c.buf.Host)
		w.dbufs = append(w.dbufs, c.buf)
	}
	for _, ch := range wait {
		<-ch
	}
	w.bufs = bufs
	return bufs, nil
}

// devRelease unpins the copies devBuffers pinned for t.
func (r *Runtime) devRelease(w *worker, t *task) {
	n := r.devs[w.node-1]
	for i, a := range t.Access {
		h := a.H
		if h.format == nil || a.Mode == Scratch || i >= len(w.dbufs) || !w.dbufs[i].hasData() {
			continue
		}
		m := h.mn
		c := &m.dev[w.node-1]
		m.mu.Lock()
		if c.pins > 0 {
			c.pins--
		}
		if c.pins == 0 && c.has {
			n.mu.Lock()
			n.touch(c)
			n.room.Broadcast()
			n.mu.Unlock()
		}
		m.mu.Unlock()
	}
	clear(w.dbufs)
	w.dbufs = w.dbufs[:0]
}

func (b DevBuf) hasData() bool { return b.Host != nil || b.Ptr != 0 }

// prefetch starts, on device worker w's stream, the copies of the handles
// t reads that w's node lacks (StarPU's prefetch when a task is scheduled
// on a worker): only into free room or room made by evicting unpinned
// copies, never waiting for it.
func (r *Runtime) prefetch(w *worker, t *task) {
	n := r.devs[w.node-1]
	bit := uint64(1) << w.node
	for _, a := range t.Access {
		h := a.H
		if h.format == nil || a.Mode&R == 0 || a.Mode == Scratch {
			continue
		}
		m := h.mn
		c := &m.dev[w.node-1]
		m.mu.Lock()
		if v := m.valid.Load(); v&bit != 0 || c.loading != nil || v&1 == 0 || h.buf == nil {
			m.mu.Unlock()
			continue
		}
		if !c.has {
			n.mu.Lock()
			b, ok, err := n.alloc(r, h.words, false)
			n.mu.Unlock()
			if err != nil || !ok {
				m.mu.Unlock()
				return
			}
			c.buf, c.has = b, true
		} else if c.pins == 0 {
			n.mu.Lock()
			if c.elem != nil {
				n.lru.Remove(c.elem)
				c.elem = nil
			}
			n.mu.Unlock()
		}
		r.loadLocked(h, n, true)
		m.mu.Unlock()
	}
}

// writeBack copies back to host RAM the caller's buffers (RegisterData)
// whose latest version is on a device, after Wait: the program reads them
// directly.
func (r *Runtime) writeBack() error {
	for _, n := range r.devs {
		n.mu.Lock()
		var hs []*Handle
		for e := n.lru.Front(); e != nil; e = e.Next() {
			if h := e.Value.(*devCopy).h; h.user {
				hs = append(hs, h)
			}
		}
		n.mu.Unlock()
		for _, h := range hs {
			if err := r.hostRead(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// traceCopy records a copy between host RAM and device n as a trace event
// of kind "h2d" or "d2h" on the device's stream lane (Options.Trace).
func (r *Runtime) traceCopy(n *devNode, k string, h *Handle, start int64) {
	if !r.opts.Trace {
		return
	}
	now := r.Now()
	r.memMu.Lock()
	r.record(&r.memEvents, traceXfer(k, h, r.rank, r.Workers()+n.node-1, start, now, n.arch))
	r.memMu.Unlock()
}

// DeviceStats returns the counters of each device, in Options.Devices
// order.
func (r *Runtime) DeviceStats() []DeviceStats {
	out := make([]DeviceStats, len(r.devs))
	for i, n := range r.devs {
		out[i] = n.stats()
	}
	return out
}

// traceXfer is the trace event of a copy of h between host RAM and a
// device, on lane (the device's stream).
func traceXfer(k string, h *Handle, rank, lane int, start, end int64, arch string) trace.Event {
	return trace.Event{Kind: k, Tile: [3]int{-1, -1, -1}, Rank: rank, Worker: lane, Start: start, End: end,
		Handle: h.name, Bytes: bytesOf(h.words), Resource: arch}
}

// hostAccess prepares host RAM's copy of h for a CPU task's access in mode
// m: a read first gets the latest version back from a device, a write
// leaves host RAM the only valid copy. It reports false when the copy
// back failed.
func (r *Runtime) hostAccess(h *Handle, m Mode) bool {
	if m&R != 0 {
		if err := r.hostRead(h); err != nil {
			r.deviceFailure(err)
			return false
		}
	}
	if m&W != 0 {
		r.hostWrote(h)
	}
	return true
}
