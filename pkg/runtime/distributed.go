package runtime

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/trace"
)

// The distributed runtime (StarPU-MPI model, seed 003).
//
// Every rank submits the whole graph in the same order and keeps, for every
// handle, the same record of where its latest version lives: the rank that
// ran its last writer (home) and the ranks holding a valid replica. A task
// runs on one rank (the owner of the first handle it writes, or Task.Rank).
// When it reads a handle its rank has no valid replica of, the home rank sends
// it and the running rank receives it: both ranks derive the message and its
// tag from the submission alone, so they agree without talking. The replica
// stays valid until the handle is written again (or flushed), so a version
// goes to a rank at most once. Ranks that neither run a task nor send for it
// only update that record.
//
// Memory follows the data: a receive allocates the replica's buffer from the
// pool when it is posted, and a replica that becomes stale (a writer
// elsewhere, Flush, Invalidate) is returned to the pool by a release node
// that waits for its local readers, so a rank holds the tiles it owns plus
// the replicas its part of the graph is reading. Receives of replicas are
// posted in submission order within Options.ReplicaBudget; beyond it a
// receive is posted only once it is the earliest incomplete node of its
// rank. That always lets the program advance: the globally earliest
// incomplete node (in the submission order every rank shares) is either a
// task whose inputs are ready, or a message whose send is posted and whose
// receive is the earliest incomplete node of its rank.
//
// On each rank a message is a node of the local graph: a send reads the
// handle (it waits for the local writer, and the next local writer waits for
// it), a receive writes it (it waits for local readers of the old replica).
// Ready messages go to one progress goroutine that posts them with Isend and
// Irecv and polls them with Test, so waiting for data never occupies a worker.

// distState is a handle's location record, identical on every rank.
type distState struct {
	init     bool
	home     int      // rank that holds the latest version (ran the last writer); -1 after invalidate
	valid    []uint64 // bitset of the ranks holding the latest version
	lastKind string   // kind of the task that wrote the latest version
}

func (d *distState) setup(owner, size int) {
	if !d.init {
		d.init = true
		d.home = owner
		d.valid = make([]uint64, (size+63)/64)
		d.valid[owner/64] |= 1 << (owner % 64)
	}
}

func (d *distState) has(r int) bool { return d.valid[r/64]&(1<<(r%64)) != 0 }
func (d *distState) add(r int)      { d.valid[r/64] |= 1 << (r % 64) }

func (d *distState) written(r int, kind string) {
	clear(d.valid)
	d.home = r
	d.add(r)
	d.lastKind = kind
}

func (d *distState) flush() {
	if d.home >= 0 {
		clear(d.valid)
		d.add(d.home)
	}
}

func (d *distState) invalidate() {
	clear(d.valid)
	d.home = -1
}

// xfer is a message of the local graph.
type xfer struct {
	send      bool
	peer, tag int
	h         *Handle
	start     int64
	req       comm.Request
}

// TrafficKey classifies messages: from Src to Dst, carrying a handle last
// written by a task of kind Writer to a task of kind Reader ("fetch" for
// Fetch).
type TrafficKey struct {
	Src, Dst       int
	Writer, Reader string
}

// Traffic counts messages and their payload bytes (the size of the
// handle's format: what every rank knows at submission).
type Traffic struct {
	Messages int
	Bytes    int64
}

// count adds one message of words float64 values to tr[k].
func count(tr map[TrafficKey]Traffic, k TrafficKey, words int) {
	v := tr[k]
	v.Messages++
	v.Bytes += int64(8 * words)
	tr[k] = v
}

// network is the distributed part of a Runtime.
type network struct {
	r    *Runtime
	tags []int // messages so far from rank i to rank j, at i*size+j

	mu     sync.Mutex
	queue  []*task
	closed bool
	wake   chan struct{}
	// order holds the local nodes (tasks, messages, releases) in
	// submission order; completed ones are dropped from the front lazily.
	order []*task

	w *worker // the progress goroutine's buffers and trace events

	traffic map[TrafficKey]Traffic // every message of the run, on every rank
	sent    atomic.Int64           // bytes this rank actually sent (packed content)
	// waiting counts receives held back by the replica budget: while there
	// are some, every completed node wakes the progress goroutine (the
	// frontier may have moved to one of them).
	waiting atomic.Int32
	// inflight counts the messages posted and not yet completed (the
	// progress goroutine's, as of its last round).
	inflight atomic.Int32
}

// handOff gives the progress goroutine a turn on this worker's core
// between two tasks, when messages are queued or in flight: it posts the
// sends the task just made ready and tests the receives now, instead of
// once the OS or Go's sysmon takes the core from the next task (a rank
// bound to one core runs with GOMAXPROCS 1: its P is held by the worker
// through its cgo kernel).
func (n *network) handOff() {
	n.mu.Lock()
	queued := len(n.queue) > 0
	n.mu.Unlock()
	if !queued && n.inflight.Load() == 0 {
		return
	}
	n.poke()
	goruntime.Gosched()
}

func newNetwork(r *Runtime) *network {
	return &network{r: r, tags: make([]int, r.size*r.size), wake: make(chan struct{}, 1),
		w: &worker{id: r.opts.Workers + r.opts.Helpers}, traffic: map[TrafficKey]Traffic{}}
}

// execRank returns the rank a task runs on.
func execRank(t *Task) int {
	if t.Pin {
		return t.Rank
	}
	for _, a := range t.Access {
		if a.Mode&W != 0 && a.Mode != Scratch {
			return a.H.owner
		}
	}
	for _, a := range t.Access {
		if a.Mode != Scratch {
			return a.H.owner
		}
	}
	return 0
}

func (r *Runtime) checkRank(e int, t *Task) {
	if e < 0 || e >= r.size {
		panic(fmt.Sprintf("runtime: task %s placed on rank %d of %d", t.Name(), e, r.size))
	}
}

func (r *Runtime) submitDistributed(t Task) {
	e := execRank(&t)
	r.checkRank(e, &t)
	for _, a := range t.Access {
		if a.Mode&R == 0 || a.Mode == Scratch {
			continue
		}
		a.H.dist.setup(a.H.owner, r.size)
		if !a.H.dist.has(e) {
			r.transfer(a.H, e, t.Kind)
		}
	}
	if e == r.rank {
		r.insert(r.newTask(t))
	}
	for _, a := range t.Access {
		if a.Mode&W == 0 || a.Mode == Scratch {
			continue
		}
		h := a.H
		h.dist.setup(h.owner, r.size)
		switch {
		case e == r.rank:
			h.copyHere = true
		case h.copyHere && h.owner != r.rank:
			// This rank's copy goes stale: release it after its readers.
			r.submitFree(h)
		}
		h.dist.written(e, t.Kind)
	}
}

// transfer records that rank dst receives h's latest version from its home,
// and inserts the send or the receive into the local graph when this rank
// takes part.
func (r *Runtime) transfer(h *Handle, dst int, reader string) {
	n := r.net
	src := h.dist.home
	if src < 0 {
		panic(fmt.Sprintf("runtime: %s is read on rank %d after Invalidate, before any task wrote it", h.name, dst))
	}
	if h.format == nil {
		panic(fmt.Sprintf("runtime: handle %s has no data to send from rank %d to rank %d (register it with a format)", h.name, src, dst))
	}
	ti := src*r.size + dst
	tag := n.tags[ti] % (r.opts.Comm.MaxTag() + 1)
	n.tags[ti]++
	count(n.traffic, TrafficKey{Src: src, Dst: dst, Writer: h.dist.lastKind, Reader: reader}, h.words)
	h.dist.add(dst)
	switch r.rank {
	case dst:
		tk := r.newTask(Task{Kind: kind.Recv, Tile: [3]int{src, -1, -1}, Access: []Access{{H: h, Mode: W}}})
		tk.x = &xfer{peer: src, tag: tag, h: h}
		r.insert(tk)
		h.copyHere = true
	case src:
		tk := r.newTask(Task{Kind: kind.Send, Tile: [3]int{dst, -1, -1}, Access: []Access{{H: h, Mode: R}}})
		tk.x = &xfer{send: true, peer: dst, tag: tag, h: h}
		r.insert(tk)
	}
}

// Fetch makes the latest version of h valid on every rank once Wait returns
// (a broadcast through the same messages as task data): for results that all
// ranks need, such as the partial sums of a log-likelihood. A recording
// runtime records these messages; a single-rank run does nothing.
func (r *Runtime) Fetch(h *Handle) {
	for q := 0; q < r.size; q++ {
		r.FetchOn(h, q)
	}
}

// FetchOn makes the latest version of h valid on rank q once Wait returns
// (e.g. the blocks of a result that rank 0 writes to a file).
func (r *Runtime) FetchOn(h *Handle, q int) {
	switch {
	case r.rec != nil:
		s := r.rec.get(h)
		if !s.dist.has(q) {
			r.rec.xfer(r, h, s, q, kind.Fetch, [3]int{-1, -1, -1}, 0)
		}
	case r.net != nil:
		h.dist.setup(h.owner, r.size)
		if !h.dist.has(q) {
			r.transfer(h, q, kind.Fetch)
		}
	}
}

// Traffic returns the messages of every rank since the last call, by
// (source, destination, writer kind, reader kind), and forgets them. Every
// rank knows every message, so the counts are the same on all ranks.
func (r *Runtime) Traffic() map[TrafficKey]Traffic {
	switch {
	case r.net != nil:
		t := r.net.traffic
		r.net.traffic = map[TrafficKey]Traffic{}
		return t
	case r.rec != nil:
		t := r.rec.traffic
		r.rec.traffic = map[TrafficKey]Traffic{}
		return t
	}
	return nil
}

// SentBytes returns the bytes this rank has put on the wire so far: the
// packed content of each message (a low-rank tile's current rank, not its
// largest).
func (r *Runtime) SentBytes() int64 {
	if r.net == nil {
		return 0
	}
	return r.net.sent.Load()
}

func (n *network) enqueue(t *task) {
	n.mu.Lock()
	n.queue = append(n.queue, t)
	n.mu.Unlock()
	n.poke()
}

// poke wakes the progress goroutine (a message is ready or replica memory
// was freed).
func (n *network) poke() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *network) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.poke()
}

// track records a local node in submission order.
func (n *network) track(t *task) {
	n.mu.Lock()
	n.order = append(n.order, t)
	n.mu.Unlock()
}

// frontier returns the earliest local node in submission order that has
// not completed, or nil. When it is a receive, everything this rank
// submitted before it is done: the program advances only through it.
func (n *network) frontier() *task {
	n.mu.Lock()
	defer n.mu.Unlock()
	for len(n.order) > 0 {
		t := n.order[0]
		if !t.finished.Load() {
			return t
		}
		n.order[0] = nil
		n.order = n.order[1:]
	}
	return nil
}

// budget returns the replica bytes receives may be posted for ahead of need.
func (r *Runtime) budget() int64 {
	if b := r.opts.ReplicaBudget; b != 0 {
		if b < 0 {
			return math.MaxInt64
		}
		return b
	}
	return max(r.owned.Load()/8, 32*r.maxWords.Load())
}

// post starts message t.
func (r *Runtime) post(t *task) {
	x := t.x
	h := x.h
	var err error
	if x.send {
		if h.buf == nil {
			// Only after a failure skipped the writer: send something of
			// the right size so that the receiver does not wait forever.
			r.allocate(h)
			clear(h.buf)
		}
		if err := r.hostRead(h); err != nil {
			r.commFailure(t, err)
		}
		msg := h.format.Pack(h.buf)
		r.net.sent.Add(bytesOf(len(msg)))
		x.req, err = r.opts.Comm.Isend(msg, x.peer, x.tag)
	} else {
		if h.buf != nil && len(h.buf) < h.words {
			r.release(h) // a copy resized to its content (Context.Resize)
		}
		if h.buf == nil {
			r.allocate(h)
		}
		r.hostWrote(h)
		x.req, err = r.opts.Comm.Irecv(h.buf, x.peer, x.tag)
	}
	if err != nil {
		r.commFailure(t, err)
	}
	if r.opts.Trace {
		x.start = r.Now()
	}
}

// progress posts ready messages and completes them: the only goroutine that
// makes point-to-point calls. Sends and receives into existing buffers are
// posted at once; receives that allocate a replica wait, in submission
// order, for room in the replica budget, except a receive that is the
// earliest incomplete node of this rank (nothing else can advance).
// With messages in flight it polls: from 5 us backing off to 50 us while a
// worker waits for work (a completed receive may be what it waits for), and
// every 2 ms while all workers are busy (each wake-up takes a core from a
// worker: with one worker per rank on a 2-core machine, polling at 200 us
// cost 7 % of an evaluation at N = 8192, and slowed the tile kernels by
// evicting their caches). A worker that goes idle wakes it, and a worker
// that ends a task while messages are queued or in flight hands it a turn
// (network.handOff). Without messages in flight it sleeps until a
// message is ready or replica memory is freed.
func (r *Runtime) progress() {
	defer r.wg.Done()
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	n := r.net
	c := r.opts.Comm
	var active, waiting []*task
	var reqs []comm.Request
	var done []int
	timer := time.NewTimer(time.Hour)
	backoff := pollFast
	for {
		n.mu.Lock()
		q, closed := n.queue, n.closed
		n.queue = nil
		n.mu.Unlock()
		if closed && len(q) == 0 && len(active) == 0 && len(waiting) == 0 {
			return
		}
		for _, t := range q {
			h := t.x.h
			if !t.x.send && h.buf == nil && h.owner != r.rank {
				i := sort.Search(len(waiting), func(i int) bool { return waiting[i].seq > t.seq })
				waiting = slices.Insert(waiting, i, t)
				n.waiting.Store(int32(len(waiting)))
				continue
			}
			r.post(t)
			active = append(active, t)
			reqs = append(reqs, t.x.req)
		}
		if len(waiting) > 0 {
			budget, first := r.budget(), n.frontier()
			for len(waiting) > 0 {
				t := waiting[0]
				if r.replicas.Load()+bytesOf(t.x.h.words) > budget && t != first {
					break
				}
				r.post(t)
				active = append(active, t)
				reqs = append(reqs, t.x.req)
				waiting[0] = nil
				waiting = waiting[1:]
			}
			n.waiting.Store(int32(len(waiting)))
		}
		n.inflight.Store(int32(len(active)))
		if len(active) == 0 {
			<-n.wake
			continue
		}
		var err error
		done, err = c.Test(reqs, done[:0])
		if err != nil {
			r.commFailure(active[0], err)
		}
		for _, i := range done {
			t := active[i]
			words := 0
			if t.x.send {
				words = len(t.x.h.format.Pack(t.x.h.buf))
			} else {
				words = c.Received(t.x.req)
				if err := t.x.h.format.Unpack(t.x.h.buf, words); err != nil {
					r.commFailure(t, err)
				}
			}
			if r.opts.Trace {
				src, dst := t.x.peer, r.rank
				if t.x.send {
					src, dst = r.rank, t.x.peer
				}
				r.record(&n.w.events, trace.Event{Kind: t.Kind, Tile: [3]int{-1, -1, -1}, Rank: r.rank,
					Worker: -1, Start: t.x.start, End: r.Now(), Iter: t.iter, Submit: t.submitted, Ready: t.readyAt,
					Src: src, Dst: dst, Tag: t.x.tag, Handle: t.x.h.name, Bytes: int64(8 * words)})
			}
			t.x.req = nil
			r.complete(n.w, t, false)
			active[i], reqs[i] = nil, nil
		}
		if len(done) > 0 {
			j := 0
			for i := range active {
				if active[i] != nil {
					active[j], reqs[j] = active[i], reqs[i]
					j++
				}
			}
			clear(active[j:])
			clear(reqs[j:])
			active, reqs = active[:j], reqs[:j]
			n.inflight.Store(int32(len(active)))
			backoff = pollFast
			if r.idleWorkers.Load() == 0 {
				backoff = pollBusy
			}
			continue
		}
		if len(q) > 0 {
			continue
		}
		timer.Reset(backoff)
		select {
		case <-n.wake:
			if !timer.Stop() {
				<-timer.C
			}
		case <-timer.C:
			if r.idleWorkers.Load() > 0 {
				backoff = min(2*backoff, pollIdle)
			} else {
				backoff = pollBusy
			}
		}
	}
}

// Polling intervals of the progress goroutine.
const (
	pollFast = 5 * time.Microsecond  // right after a completion, a worker idle
	pollIdle = 50 * time.Microsecond // the longest while a worker is idle
	pollBusy = 2 * time.Millisecond  // while every worker runs a task
)

// commFailure ends every rank: a message that cannot be posted or completed
// leaves the ranks out of step, with no way to agree on an error.
func (r *Runtime) commFailure(t *task, err error) {
	fmt.Fprintf(os.Stderr, "exageostat: rank %d: %s of %s: %v\n", r.rank, t.Kind, t.x.h.name, err)
	r.opts.Comm.Abort(1)
	panic(err) // Abort does not return under MPI
}

// RemoteError is a task error raised on another rank, as every rank learns
// it from Wait.
type RemoteError struct {
	Class string // the ErrorClass of the original error, if it had one
	Msg   string
}

func (e *RemoteError) Error() string { return e.Msg }

// ErrorClass returns the class of the original error.
func (e *RemoteError) ErrorClass() string { return e.Class }

// Classed is implemented by task errors that other ranks must recognise
// (such as a matrix that is not positive definite): the class travels with
// the message.
type Classed interface{ ErrorClass() string }

// ClassOf returns the ErrorClass of the first Classed error in err's chain,
// or "".
func ClassOf(err error) string {
	var c Classed
	if errors.As(err, &c) {
		return c.ErrorClass()
	}
	return ""
}

type wireError struct {
	Task, Class, Msg string
	Rank             int
}

// agree makes every rank return the same error after a distributed graph:
// the failure of the earliest submitted failed task, from the rank it failed
// on (seq*size + rank is unique and the same notion on every rank).
func (r *Runtime) agree(err error, seq uint64) error {
	c := r.opts.Comm
	key := int64(math.MaxInt64)
	if err != nil {
		key = int64(seq)*int64(r.size) + int64(r.rank)
	}
	m, cerr := c.AllreduceMin(key)
	if cerr != nil {
		return cerr
	}
	if m == math.MaxInt64 {
		return nil
	}
	origin := int(m % int64(r.size))
	var payload []byte
	if origin == r.rank {
		var te *TaskError
		w := wireError{Msg: err.Error(), Rank: r.rank}
		if errors.As(err, &te) {
			w.Task, w.Msg = te.Task, te.Err.Error()
			w.Class = ClassOf(te.Err)
		}
		var b bytes.Buffer
		if e := gob.NewEncoder(&b).Encode(w); e != nil {
			return e
		}
		payload = b.Bytes()
	}
	payload, cerr = c.Bcast(origin, payload)
	if cerr != nil {
		return cerr
	}
	if origin == r.rank {
		return err
	}
	var w wireError
	if e := gob.NewDecoder(bytes.NewReader(payload)).Decode(&w); e != nil {
		return e
	}
	return &TaskError{Task: w.Task, Rank: w.Rank, Ranks: r.size, Err: &RemoteError{Class: w.Class, Msg: w.Msg}}
}
