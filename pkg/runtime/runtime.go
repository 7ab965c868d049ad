// Package runtime is exageostat's task runtime: a sequential-task-flow
// scheduler in the StarPU/QUARK model.
//
// A program registers its data once as Handles and then submits Tasks in
// sequential program order, each with an access mode (R, W, RW) per handle.
// The runtime infers the dependencies a sequential execution implies:
//
//	read after write  (RaW): a reader waits for the last writer;
//	write after read  (WaR): a writer waits for every reader since the last write;
//	write after write (WaW): a writer waits for the last writer.
//
// Ready tasks run on a pool of workers, highest Priority first (ties in
// submission order), one task per worker at a time. Because every handle's
// updates happen in submission order, results do not depend on the number
// of workers or on timing.
//
// Each handle has an owner rank. With a communicator of several ranks
// (Options.Comm) the runtime is distributed in the StarPU-MPI model: every
// rank submits the whole graph in the same order, each task runs on the rank
// that owns the first handle it writes (or the rank it is pinned to), and the
// runtime posts the messages that carry handles between ranks (see
// distributed.go). With one rank there are no messages and no MPI at all.
package runtime

import (
	"container/heap"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/trace"
)

// Mode is how a task accesses a handle.
type Mode uint8

// Access modes.
const (
	R  Mode    = 1 << iota // read only
	W                      // write only (previous contents are not read)
	RW = R | W             // read and write
)

func (m Mode) String() string {
	switch m {
	case R:
		return "R"
	case W:
		return "W"
	case RW:
		return "RW"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Handle is a piece of data (a tile, a small vector) known to the runtime.
// Its dependency state is updated only by the goroutine that submits tasks.
type Handle struct {
	name       string
	owner      int
	data       []float64
	size       int // words of data (of the modelled data for NewSized)
	lastWriter *task
	readers    []*task
	dist       distState // where the latest version lives (distributed runs)
}

// NewHandle registers a piece of data owned by rank owner, without a buffer
// the runtime can send: a handle for ordering only. name is used in error
// messages and traces.
func NewHandle(name string, owner int) *Handle {
	return &Handle{name: name, owner: owner}
}

// NewData registers the buffer data, owned by rank owner. In a distributed
// run the runtime sends and receives the buffer itself: tasks must read and
// write it in place (it is never reallocated).
func NewData(name string, owner int, data []float64) *Handle {
	return &Handle{name: name, owner: owner, data: data, size: len(data)}
}

// NewSized registers data of size float64 words that is only modelled, not
// allocated: for graphs recorded (Options.Record) rather than run.
func NewSized(name string, owner, size int) *Handle {
	return &Handle{name: name, owner: owner, size: size}
}

// Data returns the handle's buffer (nil for NewHandle).
func (h *Handle) Data() []float64 { return h.data }

// Name returns the handle's name.
func (h *Handle) Name() string { return h.name }

// Owner returns the rank that owns the handle's data.
func (h *Handle) Owner() int { return h.owner }

// Access pairs a handle with the mode a task uses it in.
type Access struct {
	H    *Handle
	Mode Mode
}

// Context is what a running task learns about where it runs.
type Context struct {
	Worker int // worker index in [0, Workers())
	Rank   int
}

// Task describes one unit of work.
type Task struct {
	Kind     string  // kernel name: dcmg, potrf, trsm, syrk, gemm, ...
	Tile     [3]int  // tile indices for traces and errors; -1 where unused
	Priority int     // higher runs first among ready tasks
	Flops    float64 // floating-point operations, for rates and traces
	Access   []Access
	Run      func(Context) error
	// Pin runs the task on rank Rank instead of on the owner of the first
	// handle it writes (e.g. the generation of a tile under a distribution
	// of its own).
	Pin  bool
	Rank int
}

// Name returns "kind(m,n,k)" with the used tile indices.
func (t *Task) Name() string {
	s := t.Kind + "("
	first := true
	for _, v := range t.Tile {
		if v < 0 {
			continue
		}
		if !first {
			s += ","
		}
		s += fmt.Sprint(v)
		first = false
	}
	return s + ")"
}

type task struct {
	Task
	seq     uint64
	iter    int
	pending atomic.Int32

	mu   sync.Mutex
	done bool
	succ []*task

	x *xfer // a message to send or receive, run by the progress goroutine
}

// Options configure a Runtime.
type Options struct {
	Workers int  // number of CPU workers; <= 0 means one per core
	Trace   bool // record one trace.Event per task (and per message)
	// Comm connects the ranks of a distributed run; nil means a single
	// rank (comm.Self).
	Comm comm.Comm
	// Record makes Submit record the graph of Ranks ranks (Graph) instead
	// of running anything: the model pkg/sim replays.
	Record bool
	Ranks  int
	// FailTask makes the task of that name (Task.Name) fail on rank
	// FailRank: a forced failure to test error handling.
	FailTask string
	FailRank int
}

// Runtime schedules submitted tasks over a pool of workers.
// Submit and Wait must be called from one goroutine (the program's
// sequential flow); tasks run concurrently on the workers.
type Runtime struct {
	opts  Options
	epoch time.Time
	seq   uint64
	iter  int

	mu          sync.Mutex
	work        *sync.Cond // signalled when tasks become ready or on close
	idle        *sync.Cond // signalled when outstanding reaches 0
	ready       taskHeap
	outstanding int
	sleeping    int
	closed      bool

	failed   atomic.Bool
	errMu    sync.Mutex
	firstErr error
	firstSeq uint64

	workers []*worker
	wg      sync.WaitGroup

	rank, size int
	net        *network  // distributed runs: messages and their progress
	rec        *recorder // Options.Record
}

type worker struct {
	id     int
	events []trace.Event
	buf    []*task
}

// New starts a runtime with its workers. Call Close when done.
func New(opts Options) *Runtime {
	if opts.Workers <= 0 {
		opts.Workers = goruntime.NumCPU()
	}
	if opts.Comm == nil {
		opts.Comm = comm.Self{}
	}
	r := &Runtime{opts: opts, epoch: time.Now(), rank: opts.Comm.Rank(), size: opts.Comm.Size()}
	if opts.Record {
		r.rank, r.size = 0, max(opts.Ranks, 1)
		r.rec = newRecorder(r.size)
		return r
	}
	r.work = sync.NewCond(&r.mu)
	r.idle = sync.NewCond(&r.mu)
	if r.size > 1 {
		r.net = newNetwork(r)
		r.wg.Add(1)
		go r.progress()
	}
	r.workers = make([]*worker, opts.Workers)
	for i := range r.workers {
		r.workers[i] = &worker{id: i}
		r.wg.Add(1)
		go r.loop(r.workers[i])
	}
	return r
}

// Workers returns the number of workers.
func (r *Runtime) Workers() int { return r.opts.Workers }

// Rank returns this process's rank.
func (r *Runtime) Rank() int { return r.rank }

// Size returns the number of ranks.
func (r *Runtime) Size() int { return r.size }

// Submit adds a task after all previously submitted ones in program order.
// After a task has failed, a single-rank runtime drops new tasks until Wait
// has returned the error; a distributed one still carries out their messages
// (so that no rank waits for data that never comes) but runs no task.
func (r *Runtime) Submit(t Task) {
	if r.closed {
		panic("runtime: Submit after Close")
	}
	switch {
	case r.rec != nil:
		r.rec.submit(r, t)
	case r.size > 1:
		r.submitDistributed(t)
	default:
		if !r.failed.Load() {
			r.submitLocal(t, nil)
		}
	}
}

// submitLocal inserts a task that runs on this rank (or the message x) into
// the local dependency graph.
func (r *Runtime) submitLocal(t Task, x *xfer) {
	tk := &task{Task: t, seq: r.seq, iter: r.iter, x: x}
	r.seq++
	tk.pending.Store(1) // submission guard
	for _, a := range t.Access {
		h := a.H
		if a.Mode&W != 0 {
			if len(h.readers) > 0 {
				for _, rd := range h.readers {
					addEdge(rd, tk)
				}
			} else if h.lastWriter != nil {
				addEdge(h.lastWriter, tk)
			}
			h.lastWriter = tk
			clear(h.readers)
			h.readers = h.readers[:0]
		} else {
			if h.lastWriter != nil {
				addEdge(h.lastWriter, tk)
			}
			h.readers = append(h.readers, tk)
		}
	}
	r.mu.Lock()
	r.outstanding++
	r.mu.Unlock()
	if tk.pending.Add(-1) == 0 {
		if tk.x != nil {
			r.net.enqueue(tk)
			return
		}
		r.mu.Lock()
		heap.Push(&r.ready, tk)
		if r.sleeping > 0 {
			r.work.Signal()
		}
		r.mu.Unlock()
	}
}

// addEdge makes succ wait for pred unless pred has already completed.
func addEdge(pred, succ *task) {
	if pred == succ {
		return
	}
	pred.mu.Lock()
	if !pred.done {
		if n := len(pred.succ); n == 0 || pred.succ[n-1] != succ {
			pred.succ = append(pred.succ, succ)
			succ.pending.Add(1)
		}
	}
	pred.mu.Unlock()
}

// SetIteration labels the tasks submitted from now on with iteration i in
// the trace (Chameleon's iteration marks): e.g. the likelihood evaluation
// they belong to.
func (r *Runtime) SetIteration(i int) { r.iter = i }

// Wait blocks until every submitted task has completed (or been skipped after
// a failure) and returns the first task error, if any. The error is then
// cleared: the runtime and its handles can be used for the next graph.
//
// In a distributed run every rank returns the same error: the failure of the
// earliest submitted task that failed on any rank, named with its rank.
func (r *Runtime) Wait() error {
	if r.rec != nil {
		return nil
	}
	r.mu.Lock()
	for r.outstanding > 0 {
		r.idle.Wait()
	}
	r.mu.Unlock()
	r.errMu.Lock()
	err, seq := r.firstErr, r.firstSeq
	r.firstErr = nil
	r.errMu.Unlock()
	r.failed.Store(false)
	if r.size > 1 {
		return r.agree(err, seq)
	}
	return err
}

// Close waits for outstanding tasks, stops the workers and returns the
// pending error, if any. The runtime cannot be used afterwards.
func (r *Runtime) Close() error {
	err := r.Wait()
	if r.rec != nil {
		r.closed = true
		return err
	}
	r.mu.Lock()
	r.closed = true
	r.work.Broadcast()
	r.mu.Unlock()
	if r.net != nil {
		r.net.close()
	}
	r.wg.Wait()
	return err
}

// Events returns the trace events recorded since the last call, sorted by
// start time, and forgets them. Call it after Wait.
func (r *Runtime) Events() []trace.Event {
	var ev []trace.Event
	for _, w := range r.workers {
		ev = append(ev, w.events...)
		w.events = nil
	}
	if r.net != nil {
		ev = append(ev, r.net.w.events...)
		r.net.w.events = nil
	}
	trace.Sort(ev)
	return ev
}

// Now returns nanoseconds since the runtime's epoch, the clock of its trace.
func (r *Runtime) Now() int64 { return int64(time.Since(r.epoch)) }

// TaskError is the error Wait returns when a task fails: it names the task.
type TaskError struct {
	Task string // e.g. "potrf(3,3)"
	Err  error
	// Rank is the rank the task failed on; Ranks the number of ranks (the
	// message names the rank when there are several).
	Rank, Ranks int
}

func (e *TaskError) Error() string {
	if e.Ranks > 1 {
		return fmt.Sprintf("rank %d: task %s: %v", e.Rank, e.Task, e.Err)
	}
	return fmt.Sprintf("task %s: %v", e.Task, e.Err)
}
func (e *TaskError) Unwrap() error { return e.Err }

// ErrPanic wraps a panic raised inside a task.
var ErrPanic = errors.New("panic in task")

// ErrForced is the error of the task named by Options.FailTask.
var ErrForced = errors.New("forced failure (Options.FailTask)")

func (r *Runtime) fail(t *task, err error) {
	r.errMu.Lock()
	if r.firstErr == nil || t.seq < r.firstSeq {
		r.firstErr = &TaskError{Task: t.Name(), Err: err, Rank: r.rank, Ranks: r.size}
		r.firstSeq = t.seq
	}
	r.errMu.Unlock()
	r.failed.Store(true)
}

func (r *Runtime) execute(w *worker, t *task) {
	if r.failed.Load() || t.Run == nil {
		return
	}
	var start int64
	if r.opts.Trace {
		start = r.Now()
	}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("%w: %v", ErrPanic, p)
			}
		}()
		if r.opts.FailTask != "" && r.rank == r.opts.FailRank && t.Name() == r.opts.FailTask {
			return ErrForced
		}
		return t.Run(Context{Worker: w.id, Rank: r.rank})
	}()
	if err != nil {
		r.fail(t, err)
	}
	if r.opts.Trace {
		w.events = append(w.events, trace.Event{Kind: t.Kind, Tile: t.Tile, Rank: r.rank,
			Worker: w.id, Start: start, End: r.Now(), Flops: t.Flops, Iter: t.iter})
	}
}

// loop is one worker: take the best ready task, run it, release its
// successors. A successor that becomes ready and beats every queued task runs
// next on the same worker without a trip through the queue.
func (r *Runtime) loop(w *worker) {
	defer r.wg.Done()
	// One OS thread per worker: BLAS keeps per-thread buffers warm, and
	// libraries with thread-local state (GLPK, CUDA contexts) stay put.
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	var next *task
	for {
		if next == nil {
			r.mu.Lock()
			for r.ready.Len() == 0 && !r.closed {
				r.sleeping++
				r.work.Wait()
				r.sleeping--
			}
			if r.ready.Len() == 0 {
				r.mu.Unlock()
				return
			}
			next = heap.Pop(&r.ready).(*task)
			r.mu.Unlock()
		}
		t := next
		r.execute(w, t)
		next = r.complete(w, t, true)
	}
}

// complete marks t done, makes its successors ready and returns the one this
// worker should run next (or nil; always nil without keep). Ready messages go
// to the progress goroutine.
func (r *Runtime) complete(w *worker, t *task, keep bool) *task {
	t.mu.Lock()
	t.done = true
	succ := t.succ
	t.succ = nil
	t.mu.Unlock()
	ready := w.buf[:0]
	for _, s := range succ {
		if s.pending.Add(-1) == 0 {
			if s.x != nil {
				r.net.enqueue(s)
				continue
			}
			ready = append(ready, s)
		}
	}
	var local *task
	bi := -1
	for i, s := range ready {
		if bi < 0 || before(s, ready[bi]) {
			bi = i
		}
	}
	r.mu.Lock()
	r.outstanding--
	if bi >= 0 {
		if keep && (r.ready.Len() == 0 || !before(r.ready[0], ready[bi])) {
			local = ready[bi]
		}
		for _, s := range ready {
			if s != local {
				heap.Push(&r.ready, s)
			}
		}
		n := len(ready)
		if local != nil {
			n--
		}
		for ; n > 0 && r.sleeping > 0; n-- {
			r.work.Signal()
		}
	}
	if r.outstanding == 0 {
		r.idle.Broadcast()
	}
	r.mu.Unlock()
	clear(ready)
	w.buf = ready[:0]
	return local
}

// before reports whether a should run before b: higher priority first, then
// submission order.
func before(a, b *task) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.seq < b.seq
}

type taskHeap []*task

func (h taskHeap) Len() int           { return len(h) }
func (h taskHeap) Less(i, j int) bool { return before(h[i], h[j]) }
func (h taskHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *taskHeap) Push(x any)        { *h = append(*h, x.(*task)) }
func (h *taskHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return t
}
