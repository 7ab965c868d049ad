package runtime

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"sort"
	"sync"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/trace"
)

// The distributed runtime (StarPU-MPI model, seed 003).
//
// Every rank submits the whole graph in the same order and keeps, for every
// handle, the same record of where its latest version lives: the rank that
// ran its last writer (home) and the ranks holding a valid replica. A task
// runs on one rank (the owner of the first handle it writes, or Task.Rank).
// When it reads a handle its rank has no valid replica of, the home rank sends
// it and the running rank receives it into the handle's own buffer: both
// ranks derive the message and its tag from the submission alone, so they
// agree without talking. The replica stays valid until the handle is written
// again, so a version goes to a rank at most once. Ranks that neither run a
// task nor send for it only update that record.
//
// On each rank a message is a node of the local graph: a send reads the
// handle (it waits for the local writer, and the next local writer waits for
// it), a receive writes it (it waits for local readers of the old replica).
// Ready messages go to one progress goroutine that posts them with Isend and
// Irecv and polls them with Test, so waiting for data never occupies a worker.

// distState is a handle's location record, identical on every rank.
type distState struct {
	init     bool
	home     int      // rank that holds the latest version (ran the last writer)
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

// xfer is a message of the local graph.
type xfer struct {
	send      bool
	peer, tag int
	h         *Handle
	start     int64
}

// TrafficKey classifies messages: from Src to Dst, carrying a handle last
// written by a task of kind Writer to a task of kind Reader ("fetch" for
// Fetch).
type TrafficKey struct {
	Src, Dst       int
	Writer, Reader string
}

// Traffic counts messages and their payload bytes.
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

	w *worker // the progress goroutine's buffers and trace events

	traffic map[TrafficKey]Traffic // every message of the run, on every rank
}

func newNetwork(r *Runtime) *network {
	return &network{r: r, tags: make([]int, r.size*r.size), wake: make(chan struct{}, 1),
		w: &worker{id: r.opts.Workers}, traffic: map[TrafficKey]Traffic{}}
}

// execRank returns the rank a task runs on.
func execRank(t *Task) int {
	if t.Pin {
		return t.Rank
	}
	for _, a := range t.Access {
		if a.Mode&W != 0 {
			return a.H.owner
		}
	}
	if len(t.Access) > 0 {
		return t.Access[0].H.owner
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
		if a.Mode&R == 0 {
			continue
		}
		a.H.dist.setup(a.H.owner, r.size)
		if !a.H.dist.has(e) {
			r.transfer(a.H, e, t.Kind)
		}
	}
	if e == r.rank {
		r.submitLocal(t, nil)
	}
	for _, a := range t.Access {
		if a.Mode&W != 0 {
			a.H.dist.setup(a.H.owner, r.size)
			a.H.dist.written(e, t.Kind)
		}
	}
}

// transfer records that rank dst receives h's latest version from its home,
// and inserts the send or the receive into the local graph when this rank
// takes part.
func (r *Runtime) transfer(h *Handle, dst int, reader string) {
	n := r.net
	src := h.dist.home
	if h.data == nil {
		panic(fmt.Sprintf("runtime: handle %s has no data to send from rank %d to rank %d (register it with NewData)", h.name, src, dst))
	}
	ti := src*r.size + dst
	tag := n.tags[ti] % (r.opts.Comm.MaxTag() + 1)
	n.tags[ti]++
	count(n.traffic, TrafficKey{Src: src, Dst: dst, Writer: h.dist.lastKind, Reader: reader}, h.size)
	h.dist.add(dst)
	switch r.rank {
	case dst:
		r.submitLocal(Task{Kind: "recv", Tile: [3]int{src, -1, -1}, Access: []Access{{H: h, Mode: W}}},
			&xfer{peer: src, tag: tag, h: h})
	case src:
		r.submitLocal(Task{Kind: "send", Tile: [3]int{dst, -1, -1}, Access: []Access{{H: h, Mode: R}}},
			&xfer{send: true, peer: dst, tag: tag, h: h})
	}
}

// Fetch makes the latest version of h valid on every rank once Wait returns
// (a broadcast through the same messages as task data): for results that all
// ranks need, such as the partial sums of a log-likelihood. A recording
// runtime records these messages; a single-rank run does nothing.
func (r *Runtime) Fetch(h *Handle) {
	if r.rec != nil {
		s := r.rec.get(h)
		for q := 0; q < r.rec.size; q++ {
			if !s.dist.has(q) {
				r.rec.xfer(r, h, s, q, "fetch", [3]int{-1, -1, -1}, 0)
			}
		}
		return
	}
	if r.net == nil {
		return
	}
	h.dist.setup(h.owner, r.size)
	for q := 0; q < r.size; q++ {
		if !h.dist.has(q) {
			r.transfer(h, q, "fetch")
		}
	}
}

// Flush tells the runtime that the replicas of h made so far will not be read
// again (Chameleon's flush hint): ranks other than the one holding the latest
// version drop them, so a later reader there receives the handle anew. Every
// rank flushes at the same point of the submission, so they stay in step.
// Replica buffers are not freed: every rank allocates every tile.
func (r *Runtime) Flush(h *Handle) {
	switch {
	case r.net != nil:
		h.dist.setup(h.owner, r.size)
		h.dist.flush()
	case r.rec != nil:
		r.rec.get(h).dist.flush()
	}
}

func (d *distState) flush() {
	clear(d.valid)
	d.add(d.home)
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

func (n *network) enqueue(t *task) {
	n.mu.Lock()
	n.queue = append(n.queue, t)
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *network) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// progress posts ready messages and completes them: the only goroutine that
// makes point-to-point calls. With messages in flight it polls, backing off
// from 5 us to 200 us while nothing completes; otherwise it sleeps until a
// message is ready.
func (r *Runtime) progress() {
	defer r.wg.Done()
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	n := r.net
	c := r.opts.Comm
	var active []*task
	var reqs []comm.Request
	var done []int
	timer := time.NewTimer(time.Hour)
	backoff := 5 * time.Microsecond
	for {
		n.mu.Lock()
		q, closed := n.queue, n.closed
		n.queue = nil
		n.mu.Unlock()
		if closed && len(q) == 0 && len(active) == 0 {
			return
		}
		for _, t := range q {
			var err error
			var req comm.Request
			if t.x.send {
				req, err = c.Isend(t.x.h.data, t.x.peer, t.x.tag)
			} else {
				req, err = c.Irecv(t.x.h.data, t.x.peer, t.x.tag)
			}
			if err != nil {
				r.commFailure(t, err)
			}
			if r.opts.Trace {
				t.x.start = r.Now()
			}
			active = append(active, t)
			reqs = append(reqs, req)
		}
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
			if r.opts.Trace {
				n.w.events = append(n.w.events, trace.Event{Kind: t.Kind, Tile: t.Tile, Rank: r.rank,
					Worker: n.w.id, Start: t.x.start, End: r.Now(), Flops: float64(8 * len(t.x.h.data)), Iter: t.iter})
			}
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
			backoff = 5 * time.Microsecond
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
			backoff = min(2*backoff, 200*time.Microsecond)
		}
	}
}

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

// recorder builds the Graph of Options.Record: the tasks of every rank, with
// the dependencies and messages each rank's runtime would create.
type recorder struct {
	size    int
	g       Graph
	state   map[*Handle]*recState
	traffic map[TrafficKey]Traffic
}

type recState struct {
	dist    distState
	writer  []int   // per rank: the node that last wrote its copy (-1 none)
	readers [][]int // per rank: the nodes that read its copy since
}

func newRecorder(size int) *recorder {
	return &recorder{size: size, g: Graph{Ranks: size}, state: map[*Handle]*recState{}, traffic: map[TrafficKey]Traffic{}}
}

func (rc *recorder) get(h *Handle) *recState {
	s := rc.state[h]
	if s == nil {
		s = &recState{writer: make([]int, rc.size), readers: make([][]int, rc.size)}
		for i := range s.writer {
			s.writer[i] = -1
		}
		s.dist.setup(min(h.owner, rc.size-1), rc.size)
		rc.state[h] = s
	}
	return s
}

// access adds node id's dependencies for mode on h's copy on rank q.
func (rc *recorder) access(id int, s *recState, q int, mode Mode) {
	nd := &rc.g.Nodes[id]
	if mode&W != 0 {
		if len(s.readers[q]) > 0 {
			nd.Deps = append(nd.Deps, s.readers[q]...)
		} else if s.writer[q] >= 0 {
			nd.Deps = append(nd.Deps, s.writer[q])
		}
		s.writer[q] = id
		s.readers[q] = s.readers[q][:0]
		return
	}
	if s.writer[q] >= 0 {
		nd.Deps = append(nd.Deps, s.writer[q])
	}
	s.readers[q] = append(s.readers[q], id)
}

// xfer records the message that brings h's latest version (state s) from
// its home to rank dst for a reader of kind reader (tile and priority are
// the reader's).
func (rc *recorder) xfer(r *Runtime, h *Handle, s *recState, dst int, reader string, tile [3]int, prio int) {
	src := s.dist.home
	id := len(rc.g.Nodes)
	rc.g.Nodes = append(rc.g.Nodes, Node{Kind: XferKind, Tile: tile, Rank: dst, Src: src,
		Bytes: 8 * h.size, Iter: r.iter, Handle: h.name, Priority: prio})
	rc.access(id, s, src, R)
	rc.access(id, s, dst, W)
	x := &rc.g.Nodes[id]
	sort.Ints(x.Deps)
	x.Deps = compactInts(x.Deps)
	s.dist.add(dst)
	count(rc.traffic, TrafficKey{Src: src, Dst: dst, Writer: s.dist.lastKind, Reader: reader}, h.size)
}

func (rc *recorder) submit(r *Runtime, t Task) {
	e := execRank(&t)
	if !t.Pin {
		e = min(e, rc.size-1)
	}
	r.checkRank(e, &t)
	for _, a := range t.Access {
		if a.Mode&R == 0 {
			continue
		}
		s := rc.get(a.H)
		if !s.dist.has(e) {
			rc.xfer(r, a.H, s, e, t.Kind, t.Tile, t.Priority)
		}
	}
	id := len(rc.g.Nodes)
	rc.g.Nodes = append(rc.g.Nodes, Node{Kind: t.Kind, Tile: t.Tile, Priority: t.Priority, Flops: t.Flops,
		Rank: e, Src: -1, Iter: r.iter})
	for _, a := range t.Access {
		s := rc.get(a.H)
		rc.access(id, s, e, a.Mode)
		if a.Mode&W != 0 {
			s.dist.written(e, t.Kind)
		}
	}
	nd := &rc.g.Nodes[id]
	sort.Ints(nd.Deps)
	nd.Deps = compactInts(nd.Deps)
}

func compactInts(x []int) []int {
	if len(x) < 2 {
		return x
	}
	j := 1
	for i := 1; i < len(x); i++ {
		if x[i] != x[j-1] {
			x[j] = x[i]
			j++
		}
	}
	return x[:j]
}

// Graph returns the graph recorded since the last call (Options.Record) and
// starts a new one; handles keep their location records.
func (r *Runtime) Graph() *Graph {
	if r.rec == nil {
		return nil
	}
	g := r.rec.g
	r.rec.g = Graph{Ranks: r.rec.size}
	return &g
}
