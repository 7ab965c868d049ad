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
// The runtime owns the data (StarPU's data management). A handle has a
// Format (a dense tile, a vector block, a scalar, a low-rank tile whose
// rank changes...) that knows its size and what a message of it carries. A
// task's code receives its buffers from the runtime through its Context,
// one per access (StarPU's descr[]), and never holds slices of its own. A
// rank allocates a handle's buffer from a pool that lives as long as the
// Runtime when a task there first writes it or a message brings a replica,
// and gives it back when the copy is no longer needed: replicas after
// their last local reader once another rank writes the handle or the
// program flushes it (Flush), any copy once the program invalidates the
// handle (Invalidate); an owner keeps its copy from one graph to the next.
//
// Each handle has an owner rank. With a communicator of several ranks
// (Options.Comm) the runtime is distributed in the StarPU-MPI model: every
// rank submits the whole graph in the same order, each task runs on the rank
// that owns the first handle it writes (or the rank it is pinned to), and the
// runtime posts the messages that carry handles between ranks (see
// distributed.go). With one rank there are no messages and no MPI at all.
package runtime

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/cputime"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/topology"
	"github.com/exageostat/exageostat/pkg/trace"
)

// Mode is how a task accesses a handle.
type Mode uint8

// Access modes.
const (
	R  Mode = 1 << iota // read only
	W                   // write only (previous contents are not read)
	RW      = R | W     // read and write
	// Scratch gives the task a buffer of the handle's format for its
	// duration only (StarPU's SCRATCH): no dependency, contents undefined.
	Scratch Mode = 4
)

func (m Mode) String() string {
	switch m {
	case R:
		return "R"
	case W:
		return "W"
	case RW:
		return "RW"
	case Scratch:
		return "Scratch"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Handle is a piece of data known to the runtime (StarPU's data handle): a
// name, the rank that owns it, and a Format. The runtime owns its buffers:
// a rank allocates one, from the runtime's pool, when a task there first
// writes the handle or a message brings a replica, and returns it when the
// copy is no longer needed (see Flush and Invalidate); the owner keeps its
// copy's buffer from one graph to the next. Tasks receive the buffers
// through their Context.
//
// The dependency state is updated only by the goroutine that submits tasks.
type Handle struct {
	name   string
	owner  int
	format Format // nil: a handle for ordering only, without data
	words  int

	// This rank's copy, set when a task (or a receive) allocates it and
	// read by the tasks the graph orders after that one.
	buf       []float64
	user      bool // buf is the caller's memory (RegisterData): never pooled
	transient bool // buf counts in the replica bytes (a rank other than the owner)

	deps     depState[*task] // the local graph's hazards
	copyHere bool            // submission view: this rank holds or will hold a copy
	dist     distState       // where the latest version lives (distributed runs)
	mn       *nodeState      // its copies on memory nodes (Options.Devices only)
}

// NewHandle registers data without a buffer, owned by rank owner: a handle
// for ordering tasks only. name is used in error messages and traces.
func NewHandle(name string, owner int) *Handle {
	return &Handle{name: name, owner: owner}
}

// Register registers data of format f owned by rank owner. No buffer is
// allocated until a task writes the handle.
func (r *Runtime) Register(name string, owner int, f Format) *Handle {
	h := &Handle{name: name, owner: owner, format: f, words: f.Words()}
	r.registered(h)
	return h
}

// RegisterData registers the caller's buffer data (a Vector format of its
// length), owned by rank owner, as the handle's valid copy on that rank:
// tasks there read and write it in place. Other ranks ignore data.
func (r *Runtime) RegisterData(name string, owner int, data []float64) *Handle {
	h := &Handle{name: name, owner: owner, format: Vector{N: len(data)}, words: len(data)}
	if r.rec == nil && (r.size == 1 || owner == r.rank) {
		h.buf, h.user, h.copyHere = data, true, true
	}
	r.registered(h)
	return h
}

// RegisterReplicated registers input data that every rank already holds,
// the same on all (e.g. normal variates drawn from a common seed): each
// rank's copy is its own data, valid at once, so no task reading it waits
// for a message. Rank owner is its home.
func (r *Runtime) RegisterReplicated(name string, owner int, data []float64) *Handle {
	h := &Handle{name: name, owner: owner, format: Vector{N: len(data)}, words: len(data)}
	if r.rec == nil {
		h.buf, h.user, h.copyHere = data, true, true
	}
	r.setupNodes(h)
	switch {
	case r.rec != nil:
		s := r.rec.get(h)
		for q := 0; q < r.size; q++ {
			s.dist.add(q)
		}
	case r.net != nil:
		h.dist.setup(owner, r.size)
		for q := 0; q < r.size; q++ {
			h.dist.add(q)
		}
	}
	r.growMax(h.words)
	return h
}

func (r *Runtime) registered(h *Handle) {
	r.setupNodes(h)
	switch {
	case r.rec != nil:
		r.rec.register(h)
	case r.size == 1 || h.owner == r.rank:
		r.owned.Add(bytesOf(h.words))
	}
	r.growMax(h.words)
}

// Name returns the handle's name.
func (h *Handle) Name() string { return h.name }

// Owner returns the rank that owns the handle's data.
func (h *Handle) Owner() int { return h.owner }

// Format returns the handle's format (nil for NewHandle).
func (h *Handle) Format() Format { return h.format }

// Access pairs a handle with the mode a task uses it in.
type Access struct {
	H    *Handle
	Mode Mode
}

// Context is what a running task learns from the runtime: where it runs,
// and one buffer per access of its Task.Access, in that order (StarPU's
// descr[]). A task must not keep a buffer after it returns.
type Context struct {
	Worker int // worker index in [0, Workers())
	Rank   int
	// Node is the memory node the buffers are on: 0 for host RAM, d for
	// the d-th device of Options.Devices (whose worker runs the task).
	Node int
	acc  []Access
	bufs [][]float64
	dev  []DevBuf
	rt   *Runtime
}

// DeviceKernels returns, on a device's worker, the kernels of its device
// (the Kernels method of a Device that has one, e.g. a GPU's
// kernels.Device), else nil: the task then runs its CPU code on the
// buffers (the host-test device).
func (c Context) DeviceKernels() any {
	if c.Node == 0 {
		return nil
	}
	if k, ok := c.rt.devs[c.Node-1].dev.(interface{ Kernels() any }); ok {
		return k.Kernels()
	}
	return nil
}

// DevBuf returns the device buffer of access i on a device's worker (a
// GPU kernel's device address is its Ptr).
func (c Context) DevBuf(i int) DevBuf {
	if c.Node == 0 {
		return DevBuf{Host: c.bufs[i], Words: len(c.bufs[i])}
	}
	return c.dev[i]
}

// Resize replaces the buffer of access i, a handle the task writes (W or
// RW) whose content varies in size (a low-rank tile of the current rank),
// by one of words values (1 <= words <= the format's Words()) from the
// pool, keeping the first values of the old one, and returns it: the
// handle's copy then takes only what its content needs, so that memory
// grows with the ranks rather than with the maximum rank. A later
// receive into a shorter buffer replaces it by a full one.
func (c Context) Resize(i, words int) []float64 {
	a := c.acc[i]
	h := a.H
	if a.Mode&W == 0 || a.Mode == Scratch || h.user || words < 1 || words > h.words || c.Node != 0 {
		panic(fmt.Sprintf("runtime: resize of access %d (%s, %v) to %d words", i, h.name, a.Mode, words))
	}
	old := c.bufs[i]
	if len(old) == words {
		return old
	}
	b := c.rt.pool.get(words)
	copy(b, old)
	c.rt.pool.put(old)
	h.buf = b
	c.bufs[i] = b
	c.rt.sample()
	return b
}

// Buffer returns the buffer of access i: the handle's Format().Words()
// words (nil for a handle without data).
func (c Context) Buffer(i int) []float64 { return c.bufs[i] }

// Dense returns the column-major M x N tile of access i (a Dense handle).
func (c Context) Dense(i int) []float64 {
	if _, ok := c.acc[i].H.format.(Dense); !ok {
		panic(fmt.Sprintf("runtime: access %d (%s) is %v, not a dense tile", i, c.acc[i].H.name, c.acc[i].H.format))
	}
	return c.bufs[i]
}

// Vector returns the values of access i (a Vector handle).
func (c Context) Vector(i int) []float64 {
	if _, ok := c.acc[i].H.format.(Vector); !ok {
		panic(fmt.Sprintf("runtime: access %d (%s) is %v, not a vector", i, c.acc[i].H.name, c.acc[i].H.format))
	}
	return c.bufs[i]
}

// Single returns the float32 M x N tile of access i (a Single handle).
func (c Context) Single(i int) []float32 {
	f, ok := c.acc[i].H.format.(Single)
	if !ok {
		panic(fmt.Sprintf("runtime: access %d (%s) is %v, not a float32 tile", i, c.acc[i].H.name, c.acc[i].H.format))
	}
	return f.Values(c.bufs[i])
}

// Scalar returns the value of access i (a Scalar handle).
func (c Context) Scalar(i int) *float64 {
	if _, ok := c.acc[i].H.format.(Scalar); !ok {
		panic(fmt.Sprintf("runtime: access %d (%s) is %v, not a scalar", i, c.acc[i].H.name, c.acc[i].H.format))
	}
	return &c.bufs[i][0]
}

// Task describes one unit of work.
type Task struct {
	Kind     string  // kernel name (package kind): dcmg, potrf, trmm, syrk, gemm, ...
	Tile     [3]int  // tile indices for traces and errors; -1 where unused
	Priority int     // higher runs first among ready tasks
	Flops    float64 // floating-point operations, for rates and traces
	Access   []Access
	// Run is the task's code; it gets its buffers from the Context.
	Run func(Context) error
	// Pin runs the task on rank Rank instead of on the owner of the first
	// handle it writes (e.g. the generation of a tile under a distribution
	// of its own).
	Pin  bool
	Rank int
	// Device says the task has an implementation for devices
	// (Options.Devices): a device's worker may run it. The host-test
	// device runs Run; a GPU its kernel for this kind.
	Device bool
	// Model is the key of the task's duration in the performance model
	// and the history (PerfModel, History); "" means Kind.
	Model string
}

// modelKey returns the task's performance-model key.
func (t *Task) modelKey() string {
	if t.Model == "" {
		return t.Kind
	}
	return t.Model
}

// Name returns "kind(m,n,k)" with the used tile indices.
func (t *Task) Name() string { return TaskName(t.Kind, t.Tile) }

// TaskName returns "kind(m,n,k)" with the tile indices that are not
// negative: the name of a task in traces and errors.
func TaskName(kind string, tile [3]int) string {
	s := kind + "("
	first := true
	for _, v := range tile {
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

	mu       sync.Mutex
	done     bool
	finished atomic.Bool // done, readable without the lock
	succ     []*task

	x    *xfer   // a message to send or receive, run by the progress goroutine
	free *Handle // a release of this rank's copy of the handle, run inline

	mask   uint8   // the classes of workers that may run it
	key    int64   // its place among ready tasks: higher first (order)
	size   int     // footprint, for performance models
	expDur float64 // DMDA: expected seconds on the worker it is queued on

	// With Options.Trace: when the task was submitted and when its last
	// dependency was satisfied (ns since the epoch).
	submitted, readyAt int64
}

// Options configure a Runtime.
type Options struct {
	Workers int  // number of CPU workers; <= 0 means one per core
	Trace   bool // record one trace.Event per task (and per message)
	// Sink, if not nil, also receives every trace event as it happens
	// (a trace.Stream writes them to a file as the run goes); it turns
	// Trace on.
	Sink trace.Sink
	// Comm connects the ranks of a distributed run; nil means a single
	// rank (comm.Self).
	Comm comm.Comm
	// Record makes Submit record the graph of Ranks ranks (Graph) instead
	// of running anything: the model pkg/sim replays.
	Record bool
	Ranks  int
	// ReplicaBudget bounds the bytes of replicas (copies held on a rank
	// other than the handle's owner) for which receives are posted ahead
	// of need: beyond it a rank posts only its earliest pending receive,
	// in submission order. 0 means an eighth of the bytes this rank owns
	// (at least four of the largest handles); < 0 means no bound.
	ReplicaBudget int64
	// FailTask makes the task of that name (Task.Name) fail on rank
	// FailRank: a forced failure to test error handling.
	FailTask string
	FailRank int
	// NoPool turns the buffer pool off (seed 000's memory optimisation
	// disabled): every copy's buffer is allocated from the system when a
	// task first writes it, freed when released, never reused, and
	// Reserve pre-allocates nothing.
	NoPool bool
	// Helpers adds that many workers (seed 000's oversubscription) that
	// never run a task whose kind is in HelperExclude: with generation
	// excluded, a helper keeps the critical path of the factorisation
	// moving while the other workers generate. Helpers count in Workers().
	Helpers       int
	HelperExclude []string
	// Devices are memory nodes besides host RAM, one worker each (a GPU,
	// or HostTest): tasks with Task.Device may run there, on copies the
	// runtime keeps coherent (memnode.go).
	Devices []Device
	// Scheduler is one of Schedulers() ("": Prio); DMDA and DMDAS need
	// PerfModel.
	Scheduler string
	// PerfModel gives expected durations (DMDA); History, if not nil,
	// receives every task's measured duration.
	PerfModel PerfModel
	History   History
	// TaskCPU measures the CPU time of each task a CPU worker runs (the
	// CPU clock of its OS thread before and after the kernel: the trace's
	// Event.CPU), with Trace; with History every task is measured
	// whatever TaskCPU says (the models learn CPU time). Off, Event.CPU is
	// 0 (not measured). It costs two clock system calls per task, and the
	// one after a long tile kernel often lasts long enough for Go's
	// scheduler to hand the thread's P to another thread, which the
	// worker then waits to get back: about 6 % of the CPU time of an
	// evaluation of n = 3600 in tiles of 320 on the 2-core VM (the
	// system time of an evaluation 0.031-0.050 s, 228d8a6's 0.008-0.029 s).
	TaskCPU bool
	// Pin, if not nil, pins CPU worker i (i < len(Pin)) to CPU Pin[i].ID
	// on its OS thread while the runtime runs (the thread's affinity is
	// restored when it stops); the other workers are not pinned. With
	// NUMA > 1 nodes, the buffers a pinned worker allocates are placed on
	// its CPU's node (Bind; nil: topology.Bind, for the buffers outside
	// the Go heap), and it reuses its node's buffers first.
	Pin  []topology.CPU
	NUMA int
	Bind func(b []float64, node int) error
}

// Runtime schedules submitted tasks over a pool of workers.
// Submit and Wait must be called from one goroutine (the program's
// sequential flow); tasks run concurrently on the workers.
type Runtime struct {
	opts  Options
	epoch time.Time
	seq   uint64
	iter  int
	preds []*task // scratch for dependency inference
	sub   *worker // the submitting goroutine's scratch for inline nodes

	mu          sync.Mutex
	work        *sync.Cond   // signalled when tasks become ready or on close
	idle        *sync.Cond   // signalled when outstanding reaches 0
	central     readyQueue   // ready tasks (Prio, Eager)
	pol         policy       // Options.Scheduler
	readySeq    atomic.Int64 // tasks made ready so far (Eager's order)
	turn        int          // the next worker a submitted ready task goes to (WS, LWS)
	outstanding int
	given       int64 // graph nodes inserted (tasks, messages, releases), for Progress
	completed   int64 // of which completed
	sleeping    int
	idleWorkers atomic.Int32 // sleeping, readable without the lock
	closed      bool

	failed    atomic.Bool
	cancelled atomic.Pointer[TaskError] // Cancel's error, returned by every Wait
	failHits  atomic.Int64              // tasks failed on purpose (Options.FailTask)
	errMu     sync.Mutex
	firstErr  error
	firstSeq  uint64

	workers []*worker
	wg      sync.WaitGroup

	pool                   *pool
	replicas, peakReplicas atomic.Int64
	memMu                  sync.Mutex
	memEvents              []trace.Event // memory samples (Options.Trace)
	owned                  atomic.Int64  // bytes of the handles this rank owns (read by the progress goroutine)
	maxWords               atomic.Int64  // words of the largest handle

	rank, size int
	net        *network  // distributed runs: messages and their progress
	rec        *recorder // Options.Record

	devs []*devNode // Options.Devices: memory node i+1
	swg  sync.WaitGroup

	pinned, pinFailed atomic.Int32 // workers pinned (Options.Pin), pins that failed
}

type worker struct {
	id     int
	helper bool         // runs no task of the kinds of Options.HelperExclude
	cpu    int          // the CPU it is pinned to (Options.Pin), -1: not pinned
	tid    atomic.Int32 // its OS thread (WorkerThreads)
	numa   int          // its CPU's NUMA node, -1: any
	class  uint8
	node   int    // memory node: 0 host RAM, d the d-th device
	arch   string // "cpu", or the device's Arch
	dbufs  []DevBuf
	// DMDA: its queue, the expected seconds of the tasks queued, and the
	// expected end of the one running (seconds since the epoch).
	queue          taskHeap
	ready          readyQueue // WS, LWS: its own ready tasks
	queued, runEnd float64
	events         []trace.Event
	buf            []*task
	stack          []*task
	bufs           [][]float64
	scratch        map[int][]float64 // Scratch buffers by size, kept by the worker
}

// New starts a runtime with its workers. Call Close when done. A
// distributed runtime (Options.Comm of several ranks) synchronises the
// ranks once so that their trace clocks start together. It panics on
// options that cannot work (an unknown scheduler, DMDA without a model):
// callers validate them first with CheckOptions.
func New(opts Options) *Runtime {
	if err := CheckOptions(opts); err != nil {
		panic(err.Error())
	}
	if opts.Workers <= 0 {
		opts.Workers = goruntime.NumCPU()
	}
	if opts.Comm == nil {
		opts.Comm = comm.Self{}
	}
	if opts.Sink != nil {
		opts.Trace = true
	}
	r := &Runtime{opts: opts, rank: opts.Comm.Rank(), size: opts.Comm.Size(), pool: newPool(), sub: &worker{id: -1}}
	r.pool.fresh = opts.NoPool
	if opts.NUMA > 1 && len(opts.Pin) > 0 {
		r.pool.nodes, r.pool.bind, r.pool.home = opts.NUMA, opts.Bind, map[*float64]int{}
		if r.pool.bind == nil {
			r.pool.bind = bindMapped
		}
	}
	if opts.Helpers < 0 {
		r.opts.Helpers = 0
	}
	if opts.Record {
		r.rank, r.size = 0, max(opts.Ranks, 1)
		r.rec = newRecorder(r.size)
		r.epoch = time.Now()
		return r
	}
	if r.size > 1 {
		r.opts.Comm.AllreduceMin(0) // a barrier: a common epoch for the traces
	}
	r.epoch = time.Now()
	r.work = sync.NewCond(&r.mu)
	r.idle = sync.NewCond(&r.mu)
	if r.size > 1 {
		r.net = newNetwork(r)
		r.wg.Add(1)
		go r.progress()
	}
	r.pol = policyOf(opts.Scheduler)
	var pinners []HostPinner
	for _, d := range opts.Devices {
		if p, ok := d.(HostPinner); ok {
			pinners = append(pinners, p)
		}
	}
	if len(pinners) > 0 {
		r.pool.release = func(b []float64) {
			for _, p := range pinners {
				p.UnpinHost(b)
			}
		}
	}
	nw := opts.Workers + r.opts.Helpers
	r.workers = make([]*worker, nw+len(opts.Devices))
	for i := range r.workers {
		w := &worker{id: i, helper: i >= opts.Workers, class: classCPU, arch: "cpu", cpu: -1, numa: -1}
		if i < len(opts.Pin) && i < opts.Workers {
			w.cpu, w.numa = opts.Pin[i].ID, opts.Pin[i].Node
		}
		switch {
		case i >= nw:
			n := newDevNode(opts.Devices[i-nw], i-nw+1)
			r.devs = append(r.devs, n)
			w.class, w.node, w.arch = classDevice, n.node, n.arch
			r.swg.Add(1)
			go n.run(&r.swg)
		case w.helper:
			w.class = classHelper
		}
		r.workers[i] = w
	}
	for _, w := range r.workers {
		r.wg.Add(1)
		go r.loop(w)
	}
	return r
}

// MaxWorkers is the most workers a runtime runs: each is locked to an OS
// thread, and a Go program dies past 10000 threads.
const MaxWorkers = 4096

// CheckOptions reports options New cannot start with.
func CheckOptions(o Options) error {
	if err := checkScheduler(o); err != nil {
		return err
	}
	if o.Workers+o.Helpers > MaxWorkers {
		return fmt.Errorf("runtime: %d workers, more than %d", o.Workers+o.Helpers, MaxWorkers)
	}
	for i, d := range o.Devices {
		if d == nil || d.Capacity() <= 0 {
			return fmt.Errorf("runtime: device %d has no memory", i)
		}
	}
	return nil
}

// Workers returns the number of workers, helpers (Options.Helpers)
// included.
func (r *Runtime) Workers() int { return r.opts.Workers + r.opts.Helpers + len(r.opts.Devices) }

// WorkerArch returns the architecture of worker i: "cpu", or its device's
// Arch (the device workers are the last Workers() indices).
func (r *Runtime) WorkerArch(i int) string {
	if i >= 0 && i < len(r.workers) {
		return r.workers[i].arch
	}
	return "cpu"
}

// Helpers returns the number of helper workers (Options.Helpers), the last
// ones of the Workers() indices.
func (r *Runtime) Helpers() int { return r.opts.Helpers }

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
			r.insert(r.newTask(t))
		}
		for _, a := range t.Access {
			if a.Mode&W != 0 && a.Mode != Scratch {
				a.H.copyHere = true
			}
		}
	}
}

func (r *Runtime) newTask(t Task) *task {
	tk := &task{Task: t, seq: r.seq, iter: r.iter}
	tk.mask = r.mask(tk)
	if r.opts.PerfModel != nil || r.opts.History != nil {
		tk.size = footprint(tk)
	}
	r.seq++
	if r.opts.Trace {
		tk.submitted = r.Now()
	}
	return tk
}

// insert adds tk to the local dependency graph and hands it on when it is
// ready at once.
func (r *Runtime) insert(tk *task) {
	tk.pending.Store(1) // submission guard
	if r.net != nil {
		r.net.track(tk)
	}
	preds := r.preds[:0]
	for _, a := range tk.Access {
		if a.Mode != Scratch {
			preds = a.H.deps.access(tk, a.Mode, preds)
		}
	}
	for _, p := range preds {
		addEdge(p, tk)
	}
	clear(preds)
	r.preds = preds[:0]
	r.mu.Lock()
	r.outstanding++
	r.given++
	r.mu.Unlock()
	if tk.pending.Add(-1) == 0 {
		if r.opts.Trace {
			tk.readyAt = r.Now()
		}
		switch {
		case tk.free != nil:
			r.release(tk.free)
			r.complete(r.sub, tk, false)
		case tk.x != nil:
			r.net.enqueue(tk)
		default:
			r.order(tk)
			r.ready(tk)
		}
	}
}

// ready queues tk, ready at submission, and wakes a worker for it. The
// lock is released however push returns: a Close deferred by the caller
// must not wait on it.
func (r *Runtime) ready(tk *task) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.push(tk, nil)
	if r.sleeping > 0 {
		r.wake()
	}
}

// submitFree inserts the release of this rank's copy of h after the local
// accesses submitted so far.
func (r *Runtime) submitFree(h *Handle) {
	tk := r.newTask(Task{Kind: kind.Free, Tile: [3]int{-1, -1, -1}, Access: []Access{{H: h, Mode: W}}})
	tk.free = h
	r.insert(tk)
	h.copyHere = false
}

// sample records, with Options.Trace, the tile bytes this rank holds now.
func (r *Runtime) sample() {
	if !r.opts.Trace {
		return
	}
	now := r.Now()
	r.memMu.Lock()
	r.record(&r.memEvents, trace.Event{Kind: trace.MemoryKind, Tile: [3]int{-1, -1, -1}, Rank: r.rank, Worker: -1,
		Start: now, End: now, Bytes: r.pool.inUse.Load()})
	r.memMu.Unlock()
}

// allocate gives h's copy on this rank a buffer from the pool.
func (r *Runtime) allocate(h *Handle) { r.allocateOn(h, -1) }

// allocateOn is allocate for a worker on NUMA node node (-1: any).
func (r *Runtime) allocateOn(h *Handle, node int) {
	defer r.sample()
	h.buf = r.pool.getOn(h.words, node)
	if r.size > 1 && h.owner != r.rank {
		h.transient = true
		v := r.replicas.Add(bytesOf(h.words))
		for {
			p := r.peakReplicas.Load()
			if v <= p || r.peakReplicas.CompareAndSwap(p, v) {
				break
			}
		}
	}
}

// release returns h's buffer on this rank to the pool.
func (r *Runtime) release(h *Handle) {
	r.hostWrote(h)
	if h.buf == nil {
		return
	}
	if !h.user {
		r.pool.put(h.buf)
		r.sample()
	}
	h.buf = nil
	if h.transient {
		h.transient = false
		r.replicas.Add(-bytesOf(h.words))
		if r.net != nil {
			r.net.poke()
		}
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

// Flush tells the runtime that the replicas of h made so far will not be
// read again (Chameleon's flush hint, placed where an algorithm reads a
// tile for the last time): the ranks other than the one holding the latest
// version return their copies' buffers to the pool once their local
// readers are done (an owner keeps its buffer), and a later reader there
// receives the handle anew. Every rank flushes at the same point of the
// submission, so they stay in step. On one rank it does nothing.
func (r *Runtime) Flush(h *Handle) {
	switch {
	case r.rec != nil:
		r.rec.flush(h, false)
	case r.net != nil:
		h.dist.setup(h.owner, r.size)
		if r.rank != h.dist.home && h.copyHere && h.owner != r.rank {
			r.submitFree(h)
		}
		h.dist.flush()
	}
}

// Invalidate tells the runtime that h's content is no longer needed
// anywhere (StarPU's data invalidation): every rank, the owner included,
// returns its copy's buffer once the local accesses submitted so far are
// done. The handle can be written again; reading it first is an error.
func (r *Runtime) Invalidate(h *Handle) {
	switch {
	case r.rec != nil:
		r.rec.flush(h, true)
		return
	case r.net != nil:
		h.dist.setup(h.owner, r.size)
		h.dist.invalidate()
	}
	if h.copyHere {
		r.submitFree(h)
	}
}

// Local returns this rank's buffer of h when it holds h's latest version
// (nil otherwise): for the program to read results after Wait, e.g. once
// Fetch has brought them.
func (r *Runtime) Local(h *Handle) []float64 {
	if r.rec != nil || (r.net != nil && h.dist.init && !h.dist.has(r.rank)) {
		return nil
	}
	if err := r.hostRead(h); err != nil {
		return nil
	}
	return h.buf
}

// Reserve pre-allocates count buffers of format f in the pool, so that the
// first graph does not allocate (seed 000's pre-allocation).
//
// With devices, each device's pool also gets up to count buffers of f,
// as many as its capacity holds: the device memory is allocated here, not
// when a task needs it.
func (r *Runtime) Reserve(f Format, count int) {
	if r.rec == nil && count > 0 {
		r.pool.reserve(f.Words(), count)
		for _, n := range r.devs {
			n.reserve(f.Words(), count)
			if p, ok := n.dev.(HostPinner); ok {
				r.pool.each(f.Words(), func(b []float64) {
					if err := p.PinHost(b); err != nil {
						r.deviceFailure(fmt.Errorf("%s: pinning host memory: %w", n.dev.Name(), err))
					}
				})
			}
		}
	}
}

// Trim gives the pool's free buffers back to the system: after a phase
// whose buffer sizes will not come back.
func (r *Runtime) Trim() { r.pool.trim() }

// Mem returns the tile data this rank holds (call it after Wait).
func (r *Runtime) Mem() MemStats {
	return MemStats{InUse: r.pool.inUse.Load(), Peak: r.pool.peak.Load(), Replicas: r.replicas.Load(),
		PeakReplicas: r.peakReplicas.Load(), Held: r.pool.held.Load(), Allocs: r.pool.allocs.Load()}
}

// ResetPeak starts the peaks of Mem afresh from the current values.
func (r *Runtime) ResetPeak() {
	r.pool.peak.Store(r.pool.inUse.Load())
	r.peakReplicas.Store(r.replicas.Load())
}

// OwnedBytes returns the bytes of the handles registered so far that this
// rank owns (with a buffer or not yet).
func (r *Runtime) OwnedBytes() int64 { return r.owned.Load() }

// growMax raises maxWords to words.
func (r *Runtime) growMax(words int) {
	for {
		m := r.maxWords.Load()
		if int64(words) <= m || r.maxWords.CompareAndSwap(m, int64(words)) {
			return
		}
	}
}

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
	if len(r.devs) > 0 {
		if err := r.writeBack(); err != nil {
			r.deviceFailure(err)
		}
	}
	r.errMu.Lock()
	err, seq := r.firstErr, r.firstSeq
	r.firstErr = nil
	r.errMu.Unlock()
	c := r.cancelErr() // given up (Cancel): now and at every Wait
	r.failed.Store(c != nil)
	if c != nil {
		err, seq = c, 0
	}
	if r.size > 1 {
		err = r.agree(err, seq)
		r.keepCancel(err) // another rank's cancellation holds here too
	}
	return err
}

// Barrier blocks until every task submitted so far has completed (or been
// skipped after a failure), then, on several ranks, until every rank has
// reached the same barrier (a collective: every rank calls it at the same
// point of the submission). Unlike Wait it keeps the first error for Wait
// to return: it is the synchronisation point between two phases of one
// graph (ExaGeoStat's synchronous mode). A recording runtime
// (Options.Record) records a node of kind Barrier that every later node
// depends on.
func (r *Runtime) Barrier() {
	if r.rec != nil {
		r.rec.barrier(r)
		return
	}
	r.mu.Lock()
	for r.outstanding > 0 {
		r.idle.Wait()
	}
	r.mu.Unlock()
	if r.size > 1 {
		r.opts.Comm.AllreduceMin(0)
	}
}

// Close waits for outstanding tasks, stops the workers, gives the pool's
// memory back and returns the pending error, if any. The runtime cannot be
// used afterwards.
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
	for _, n := range r.devs {
		n.mu.Lock()
		n.closed = true
		n.room.Broadcast()
		n.mu.Unlock()
		close(n.stream)
	}
	r.swg.Wait()
	for _, w := range r.workers {
		for _, b := range w.scratch {
			r.pool.put(b)
		}
		w.scratch = nil
	}
	r.pool.trim()
	for _, n := range r.devs {
		n.dev.Close()
	}
	return err
}

// Events returns the trace events recorded since the last call, sorted by
// start time, and forgets them: one per task and message, and the memory
// samples (trace.MemoryKind) of every allocation and release of tile data.
// Call it after Wait.
func (r *Runtime) Events() []trace.Event {
	r.memMu.Lock()
	ev := r.memEvents
	r.memEvents = nil
	r.memMu.Unlock()
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

// FailTaskHits returns the number of tasks this rank failed on purpose
// (Options.FailTask) so far: 0 on every rank means the setting named no
// task that ran, and injected nothing.
func (r *Runtime) FailTaskHits() int64 { return r.failHits.Load() }

// ErrForced is the error of the task named by Options.FailTask.
var ErrForced = errors.New("forced failure (Options.FailTask)")

// ErrUnwritten is the error of a task that reads a handle no task has
// written on its rank (or that was invalidated since).
var ErrUnwritten = errors.New("reads data that was never written")

func (r *Runtime) fail(t *task, err error) {
	r.errMu.Lock()
	if r.firstErr == nil || t.seq < r.firstSeq {
		r.firstErr = &TaskError{Task: t.Name(), Err: err, Rank: r.rank, Ranks: r.size}
		r.firstSeq = t.seq
	}
	r.errMu.Unlock()
	r.failed.Store(true)
}

// buffers resolves t's accesses to this rank's buffers, allocating those
// of handles the task writes and this rank does not hold yet.
func (r *Runtime) buffers(w *worker, t *task) ([][]float64, error) {
	bufs := w.bufs[:0]
	for _, a := range t.Access {
		h := a.H
		switch {
		case h.format == nil:
			bufs = append(bufs, nil)
		case a.Mode == Scratch:
			bufs = append(bufs, r.scratch(w, h.words))
		case h.mn != nil && !r.hostAccess(h, a.Mode):
			w.bufs = bufs
			return nil, fmt.Errorf("%s: copying back from its device failed", h.name)
		case h.buf != nil:
			bufs = append(bufs, h.buf)
		case a.Mode&R == 0:
			r.allocateOn(h, w.numa)
			bufs = append(bufs, h.buf)
		default:
			w.bufs = bufs
			return nil, fmt.Errorf("%s %w on rank %d", h.name, ErrUnwritten, r.rank)
		}
	}
	w.bufs = bufs
	return bufs, nil
}

// scratch returns worker w's Scratch buffer of words values, from the
// pool the first time.
func (r *Runtime) scratch(w *worker, words int) []float64 {
	b := w.scratch[words]
	if b == nil {
		if w.scratch == nil {
			w.scratch = map[int][]float64{}
		}
		b = r.pool.getOn(words, w.numa)
		w.scratch[words] = b
	}
	return b
}

func (r *Runtime) execute(w *worker, t *task) {
	if r.failed.Load() || t.Run == nil {
		return
	}
	var start int64
	if r.opts.Trace {
		start = r.Now()
		if r.opts.Sink != nil {
			r.opts.Sink.Begin(w.id, start)
		}
	}
	var m measured
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("%w: %v", ErrPanic, p)
			}
		}()
		if r.opts.FailTask != "" && r.rank == r.opts.FailRank && t.Name() == r.opts.FailTask {
			r.failHits.Add(1)
			return ErrForced
		}
		var bufs [][]float64
		if w.node > 0 {
			bufs, err = r.devBuffers(w, t)
			defer r.devRelease(w, t)
			r.devs[w.node-1].tasks.Add(1)
		} else {
			bufs, err = r.buffers(w, t)
		}
		if err != nil {
			return err
		}
		m.begin(r, w)
		err = t.Run(Context{Worker: w.id, Rank: r.rank, Node: w.node, acc: t.Access, bufs: bufs, dev: w.dbufs, rt: r})
		m.end(r)
		if err == nil && r.opts.History != nil {
			r.opts.History.Record(w.arch, t.modelKey(), t.size, m.seconds())
		}
		return err
	}()
	clear(w.bufs)
	if err != nil {
		r.fail(t, err)
	}
	if r.opts.Trace {
		r.record(&w.events, trace.Event{Kind: t.Kind, Tile: t.Tile, Rank: r.rank,
			Worker: w.id, Start: start, End: r.Now(), Flops: t.Flops, Iter: t.iter,
			Submit: t.submitted, Ready: t.readyAt, Priority: t.Priority, Resource: w.arch, Exec: m.exec, CPU: m.cpu})
	}
}

// record appends e to the events of its recorder (a worker's, or under
// memMu the memory samples') and hands it to Options.Sink.
func (r *Runtime) record(to *[]trace.Event, e trace.Event) {
	*to = append(*to, e)
	if r.opts.Sink != nil {
		r.opts.Sink.Add(e)
	}
}

// measured is the timing of one task's kernel: when it began (ns since the
// epoch), its wall time, and the CPU time of the worker's OS thread (0
// where not measured: without Options.TaskCPU or History, or on a GPU
// worker, whose thread waits on the device).
type measured struct {
	exec, wall, cpu, cpu0 int64
	cpuOK                 bool
}

func (m *measured) begin(r *Runtime, w *worker) {
	if !r.opts.Trace && r.opts.History == nil {
		return
	}
	m.exec = r.Now()
	if (r.opts.TaskCPU || r.opts.History != nil) && (w.node == 0 || w.arch == "host-test") {
		m.cpu0, m.cpuOK = cputime.Thread()
	}
}

func (m *measured) end(r *Runtime) {
	if !r.opts.Trace && r.opts.History == nil {
		return
	}
	m.wall = r.Now() - m.exec
	if m.cpuOK {
		c, ok := cputime.Thread()
		m.cpu, m.cpuOK = max(c-m.cpu0, 1), ok
	}
}

// seconds is the duration a performance model learns: the CPU time where
// measured, else the wall time.
func (m *measured) seconds() float64 {
	if m.cpuOK {
		return float64(m.cpu) * 1e-9
	}
	return float64(m.wall) * 1e-9
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
	w.tid.Store(int32(cputime.Gettid()))
	if w.cpu >= 0 {
		defer r.pin(w)()
	}
	var next *task
	for {
		if next == nil {
			if next = r.wait(w); next == nil {
				return
			}
		}
		t := next
		r.execute(w, t)
		next = r.complete(w, t, true)
		if r.net != nil {
			r.net.handOff()
		}
	}
}

// pin pins worker w's thread to its CPU and returns the function that
// restores the thread's affinity; a pin that fails leaves the worker
// unpinned, counted by Pinned.
func (r *Runtime) pin(w *worker) func() {
	old, err := topology.Affinity()
	if err == nil {
		err = topology.Pin(w.cpu)
	}
	if err != nil {
		r.pinFailed.Add(1)
		return func() {}
	}
	r.pinned.Add(1)
	return func() { topology.Pin(old...) }
}

// WorkerThreads returns the OS thread ids of the workers that have started
// (each runs on its own thread for the runtime's life): for readings of
// the OS's accounts of them (cputime.RunDelay).
func (r *Runtime) WorkerThreads() []int {
	var out []int
	for _, w := range r.workers {
		if t := w.tid.Load(); t > 0 {
			out = append(out, int(t))
		}
	}
	return out
}

// Progress returns the graph nodes (tasks, messages, releases) this rank
// has been given since the runtime started and how many have completed: a
// progress meter reads the graph under way as their growth since its
// start.
func (r *Runtime) Progress() (done, given int64) {
	if r.rec != nil {
		return 0, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.completed, r.given
}

// Pinned returns the workers pinned to their CPU (Options.Pin) and those
// whose pinning failed, once they have started.
func (r *Runtime) Pinned() (pinned, failed int) {
	return int(r.pinned.Load()), int(r.pinFailed.Load())
}

// wait returns the next task of worker w, sleeping until there is one; nil
// once the runtime is closed and nothing is left for w.
func (r *Runtime) wait(w *worker) *task {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if t := r.take(w); t != nil || r.closed {
			return t
		}
		r.sleeping++
		r.idleWorkers.Add(1)
		if r.net != nil {
			r.net.poke() // poll messages fast while a worker waits
		}
		r.work.Wait()
		r.idleWorkers.Add(-1)
		r.sleeping--
	}
}

// complete marks t done, makes its successors ready and returns the one this
// worker should run next (or nil; always nil without keep). Ready messages go
// to the progress goroutine; ready releases of copies run here at once.
func (r *Runtime) complete(w *worker, t *task, keep bool) *task {
	ready := w.buf[:0]
	stack := append(w.stack[:0], t)
	done := 0
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c.mu.Lock()
		c.done = true
		succ := c.succ
		c.succ = nil
		c.mu.Unlock()
		c.finished.Store(true)
		done++
		for _, s := range succ {
			if s.pending.Add(-1) != 0 {
				continue
			}
			switch {
			case s.free != nil:
				r.release(s.free)
				stack = append(stack, s)
			case s.x != nil:
				if r.opts.Trace {
					s.readyAt = r.Now()
				}
				r.net.enqueue(s)
			default:
				ready = append(ready, s)
			}
		}
	}
	w.stack = stack[:0]
	if r.opts.Trace && len(ready) > 0 {
		now := r.Now()
		for _, s := range ready {
			s.readyAt = now
		}
	}
	var local *task
	bi := -1
	for i, s := range ready {
		r.order(s)
		if s.mask&w.class == 0 || r.pol.modelled() {
			continue
		}
		if bi < 0 || before(s, ready[bi]) {
			bi = i
		}
	}
	r.mu.Lock()
	if r.pol.modelled() {
		w.runEnd = 0
	}
	r.outstanding -= done
	r.completed += int64(done)
	if len(ready) > 0 {
		if bi >= 0 && keep {
			if q := r.peek(w); q == nil || !before(q, ready[bi]) {
				local = ready[bi]
			}
		}
		for _, s := range ready {
			if s != local {
				r.push(s, w)
			}
		}
		n := len(ready)
		if local != nil {
			n--
		}
		for ; n > 0 && r.sleeping > 0; n-- {
			r.wake()
		}
	}
	if r.outstanding == 0 {
		r.idle.Broadcast()
	}
	r.mu.Unlock()
	if r.net != nil && r.net.waiting.Load() > 0 {
		r.net.poke()
	}
	clear(ready)
	w.buf = ready[:0]
	return local
}

// excluded reports whether t is of a kind helper workers do not run.
func (r *Runtime) excluded(t *task) bool {
	if r.opts.Helpers == 0 {
		return false
	}
	for _, k := range r.opts.HelperExclude {
		if t.Kind == k {
			return true
		}
	}
	return false
}

// wake wakes a sleeping worker for a new ready task (r.mu held): with
// helpers, all of them, since the one a signal would wake may be a helper
// that cannot run the task.
func (r *Runtime) wake() {
	if r.opts.Helpers > 0 || len(r.devs) > 0 || r.pol.modelled() {
		r.work.Broadcast()
		return
	}
	r.work.Signal()
}

// before reports whether a should run before b: the higher key (priority,
// or with Eager the earlier ready) first, then submission order.
func before(a, b *task) bool {
	if a.key != b.key {
		return a.key > b.key
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
