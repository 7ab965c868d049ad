package runtime

import (
	"container/list"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Device is a memory node other than host RAM, with a worker of its own
// (StarPU's CUDA worker and its memory node): a GPU, or HostTest, a device
// in host memory that needs no GPU. The runtime keeps, per handle, which
// memory nodes hold its latest version, and moves copies between host RAM
// and a device through the device's copy functions, which it calls from
// the device's transfer goroutine (its stream) only, one at a time.
type Device interface {
	// Name names the device in traces and errors, e.g. "host-test0".
	Name() string
	// Arch is the worker type of performance models ("host-test",
	// "cuda").
	Arch() string
	// Capacity is the bytes of tile data the device may hold.
	Capacity() int64
	// Alloc returns a device buffer of words float64 values. The runtime
	// calls it only while the device holds less than Capacity bytes, and
	// keeps freed buffers for reuse (no allocation in a task).
	Alloc(words int) (DevBuf, error)
	// Free gives a buffer back to the device.
	Free(DevBuf)
	// ToDevice copies src into dst (len(src) words).
	ToDevice(dst DevBuf, src []float64) error
	// ToHost copies src into dst (len(dst) words).
	ToHost(dst []float64, src DevBuf) error
	// Close releases what the device holds.
	Close()
}

// HostPinner is a Device that page-locks host memory for its copies (a
// GPU: cuMemHostRegister), so that they run at the link's full rate and
// asynchronously. The runtime pins the host buffers it reserves ahead
// (Reserve), never in a task, and unpins a buffer before giving it back
// to the system.
type HostPinner interface {
	PinHost(b []float64) error
	UnpinHost(b []float64)
}

// DevBuf is a buffer on a device: Host is its memory when the device's
// memory is addressable from the host (the host-test device), Ptr its
// address on the device otherwise (a GPU); Words its size.
type DevBuf struct {
	Host  []float64
	Ptr   uintptr
	Words int
}

// HostTest is a device in host RAM (`--devices host-test:N`): a memory
// node of its own with Capacity bytes, its own buffers and explicit copies,
// whose worker runs the CPU kernels. It exercises the runtime's coherence,
// transfers, prefetch and eviction on machines without a GPU; Delay, if
// set, is added per copied byte (a modelled link).
type HostTest struct {
	ID    int
	Bytes int64
	// Delay is the time a copy takes per byte (0: as fast as memcpy).
	Delay time.Duration
	// PerByteNS is Delay in nanoseconds per byte, as a float (Delay has a
	// resolution of 1 ns per byte, too coarse for a link): used when > 0.
	PerByteNS float64
}

// Name returns "host-test<ID>".
func (d *HostTest) Name() string { return fmt.Sprintf("host-test%d", d.ID) }

// Arch returns "host-test".
func (d *HostTest) Arch() string { return "host-test" }

// Capacity returns Bytes.
func (d *HostTest) Capacity() int64 { return d.Bytes }

// Alloc returns a fresh buffer.
func (d *HostTest) Alloc(words int) (DevBuf, error) {
	return DevBuf{Host: make([]float64, words), Words: words}, nil
}

// Free does nothing (the garbage collector takes the buffer).
func (d *HostTest) Free(DevBuf) {}

func (d *HostTest) wait(words int) {
	ns := d.PerByteNS
	if ns <= 0 {
		ns = float64(d.Delay)
	}
	if ns > 0 {
		time.Sleep(time.Duration(ns * float64(8*words)))
	}
}

// ToDevice copies src into dst.Host.
func (d *HostTest) ToDevice(dst DevBuf, src []float64) error {
	copy(dst.Host, src)
	d.wait(len(src))
	return nil
}

// ToHost copies src.Host into dst.
func (d *HostTest) ToHost(dst []float64, src DevBuf) error {
	copy(dst, src.Host[:len(dst)])
	d.wait(len(dst))
	return nil
}

// Close does nothing.
func (d *HostTest) Close() {}

// DeviceStats counts what the runtime did with one device, since New.
type DeviceStats struct {
	Name      string `json:"name"`
	Tasks     int64  `json:"tasks"`      // tasks its worker ran
	Loads     int64  `json:"loads"`      // copies host -> device
	Prefetch  int64  `json:"prefetches"` // of which started ahead of the task (prefetch)
	Stores    int64  `json:"stores"`     // copies device -> host (a host reader, a write-back)
	Evictions int64  `json:"evictions"`  // copies dropped to make room
	WriteBack int64  `json:"writebacks"` // of which the only valid copy, written back first
	BytesIn   int64  `json:"bytes_in"`
	BytesOut  int64  `json:"bytes_out"`
	Peak      int64  `json:"peak_bytes"` // the most bytes of copies it held
	Capacity  int64  `json:"capacity_bytes"`
}

// devNode is the runtime's side of one device: memory node index node
// (1, 2, ...), its buffer pool, its copies in least-recently-used order,
// and its stream.
type devNode struct {
	dev  Device
	node int
	arch string

	mu       sync.Mutex
	room     *sync.Cond // signalled when a copy is unpinned or a buffer freed
	used     int64      // bytes of buffers allocated from the device (in use or free)
	inUse    int64      // bytes of buffers holding copies
	inflight int        // copies in flight into the device
	free     map[int][]DevBuf
	lru      list.List // unpinned copies, least recently used first (*devCopy)
	closed   bool

	stream chan func()

	tasks, loads, prefetch, stores, evictions, writeback, bytesIn, bytesOut, peak atomic.Int64
}

func newDevNode(d Device, node int) *devNode {
	n := &devNode{dev: d, node: node, arch: d.Arch(), free: map[int][]DevBuf{}, stream: make(chan func(), 1024)}
	n.room = sync.NewCond(&n.mu)
	return n
}

// run is the device's stream: copies, one at a time, in the order queued.
func (n *devNode) run(wg *sync.WaitGroup) {
	defer wg.Done()
	for f := range n.stream {
		f()
	}
}

// alloc returns a buffer of words values (n.mu held): a free one of that
// size, a new one while the device has room, else the room made by
// evicting unpinned copies, least recently used first. With wait false it
// fails rather than waiting for a copy to be unpinned.
func (n *devNode) alloc(r *Runtime, words int, wait bool) (DevBuf, bool, error) {
	bytes := bytesOf(words)
	for {
		if l := n.free[words]; len(l) > 0 {
			b := l[len(l)-1]
			n.free[words] = l[:len(l)-1]
			n.grow(bytes)
			return b, true, nil
		}
		if n.used+bytes <= n.dev.Capacity() {
			b, err := n.dev.Alloc(words)
			if err == nil {
				n.used += bytes
				n.grow(bytes)
				return b, true, nil
			}
			// A device short of a block in spite of the count (its
			// memory fragmented): make room as when full.
			if !n.dropFree() && !n.evict(r) {
				return DevBuf{}, false, fmt.Errorf("%s: allocating %d bytes: %w", n.dev.Name(), bytes, err)
			}
			continue
		}
		// Give back a free buffer of another size, else evict a copy.
		if n.dropFree() || n.evict(r) {
			continue
		}
		if !wait || n.closed {
			return DevBuf{}, false, nil
		}
		if n.inflight == 0 {
			return DevBuf{}, false, fmt.Errorf("%s: a buffer of %d bytes does not fit in its %d bytes beside the copies the task holds (give the device more memory)", n.dev.Name(), bytes, n.dev.Capacity())
		}
		n.room.Wait()
	}
}

func (n *devNode) grow(bytes int64) {
	n.inUse += bytes
	for {
		p := n.peak.Load()
		if n.inUse <= p || n.peak.CompareAndSwap(p, n.inUse) {
			return
		}
	}
}

// put returns a copy's buffer to the pool (n.mu held).
func (n *devNode) put(b DevBuf) {
	n.inUse -= bytesOf(b.Words)
	n.free[b.Words] = append(n.free[b.Words], b)
	n.room.Broadcast()
}

// dropFree frees one pooled buffer to the device (n.mu held).
func (n *devNode) dropFree() bool {
	for w, l := range n.free {
		if len(l) > 0 {
			n.dev.Free(l[len(l)-1])
			n.free[w] = l[:len(l)-1]
			n.used -= bytesOf(w)
			return true
		}
	}
	return false
}

// evict drops the least recently used unpinned copy whose handle is not
// busy: a clean one (another node holds the same version) if there is
// one, else a dirty one, written back to host RAM first (n.mu held).
func (n *devNode) evict(r *Runtime) bool {
	return n.evictOne(r, false) || n.evictOne(r, true)
}

// evictOne evicts the least recently used evictable copy, clean ones only
// unless dirty (n.mu held).
func (n *devNode) evictOne(r *Runtime, dirty bool) bool {
	for e := n.lru.Front(); e != nil; e = e.Next() {
		c := e.Value.(*devCopy)
		m := c.h.mn
		if !dirty && m.valid.Load() == 1<<n.node {
			continue
		}
		if !m.mu.TryLock() {
			continue
		}
		if c.pins > 0 || c.loading != nil {
			m.mu.Unlock()
			continue
		}
		if m.valid.Load() == 1<<n.node {
			if err := r.storeLocked(c.h, n); err != nil {
				m.mu.Unlock()
				r.deviceFailure(err)
				continue
			}
			n.writeback.Add(1)
		}
		m.valid.And(^(uint64(1) << n.node))
		n.lru.Remove(e)
		c.elem = nil
		n.put(c.buf)
		c.buf, c.has = DevBuf{}, false
		n.evictions.Add(1)
		m.mu.Unlock()
		return true
	}
	return false
}

// touch puts an unpinned copy at the back of the LRU list (n.mu held).
func (n *devNode) touch(c *devCopy) {
	if c.elem != nil {
		n.lru.MoveToBack(c.elem)
		return
	}
	c.elem = n.lru.PushBack(c)
}

// stats returns the device's counters.
func (n *devNode) stats() DeviceStats {
	return DeviceStats{Name: n.dev.Name(), Tasks: n.tasks.Load(), Loads: n.loads.Load(), Prefetch: n.prefetch.Load(),
		Stores: n.stores.Load(), Evictions: n.evictions.Load(), WriteBack: n.writeback.Load(),
		BytesIn: n.bytesIn.Load(), BytesOut: n.bytesOut.Load(), Peak: n.peak.Load(), Capacity: n.dev.Capacity()}
}

// reserve allocates free buffers of words values until count of that size
// exist or the device is full.
func (n *devNode) reserve(words, count int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	bytes := bytesOf(words)
	for len(n.free[words]) < count && n.used+bytes <= n.dev.Capacity() {
		b, err := n.dev.Alloc(words)
		if err != nil {
			return
		}
		n.used += bytes
		n.free[words] = append(n.free[words], b)
	}
}

// String is one line for a log: "device NAME: tasks, copies, evictions,
// peak of capacity".
func (s DeviceStats) String() string {
	return fmt.Sprintf("device %s: %d tasks, %d copies in (%d prefetched), %d out, %d evictions (%d written back), peak %.1f of %.1f MB",
		s.Name, s.Tasks, s.Loads, s.Prefetch, s.Stores, s.Evictions, s.WriteBack, float64(s.Peak)/1e6, float64(s.Capacity)/1e6)
}
