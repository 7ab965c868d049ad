package runtime

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"
)

// PerfModel gives the expected duration of a task (StarPU's history-based
// performance models): seconds for a task of kind on a worker of
// architecture arch ("cpu", "host-test", "cuda") whose largest handle has
// size float64 words; ok false when there is no measurement. Copies from
// host RAM to a device of architecture a are kind "xfer" on architecture
// TransferArch(a). pkg/perfmodel implements it.
type PerfModel interface {
	Expected(arch, kind string, size int) (seconds float64, ok bool)
}

// History receives the measured duration of every task (and device copy)
// the runtime runs, under the same keys as PerfModel: the runtime's own
// history, from which a model learns. A CPU worker's task is measured in
// the CPU time of its OS thread (the OS taking the core away from it on a
// loaded machine does not count), a GPU worker's in wall time.
type History interface {
	Record(arch, kind string, size int, seconds float64)
}

// Schedulers (StarPU's names). Whatever the scheduler, every handle's
// updates happen in submission order, so results are bitwise the same.
const (
	// Eager: one central queue per class of workers, first ready first
	// served; priorities are ignored (StarPU's eager).
	Eager = "eager"
	// Prio: one central queue per class of workers; a free worker takes
	// the highest-priority ready task it can run, ties in submission
	// order (StarPU's prio). The default.
	Prio = "prio"
	// WS (work stealing): each worker has its own priority queue; a task
	// that becomes ready goes to the queue of the worker that completed
	// its last predecessor (its data are warm there), one ready at
	// submission to the workers in turn; a worker with an empty queue
	// steals the best task of the worker with the most queued.
	WS = "ws"
	// LWS (locality work stealing): WS, stealing from the nearest worker
	// first (the next index, then the previous, and so on: neighbouring
	// cores when workers are pinned).
	LWS = "lws"
	// DMDA (StarPU's dmda): a task that becomes ready goes to the queue of
	// the worker that would complete it first, by the performance model:
	// the expected end of the work queued there, plus the copies of the
	// data it lacks on that worker's memory node, plus the task's expected
	// duration on that worker's architecture. Each worker's queue is in
	// priority order; the copies start when the task is queued (prefetch).
	DMDA = "dmda"
	// DMDAS (StarPU's dmdas, sorted dmda): DMDA where the expected start
	// of a task on a worker counts only the queued work it cannot
	// overtake, the tasks of its priority or higher: a high-priority task
	// (the Cholesky's critical path) is placed by when it would really
	// start.
	DMDAS = "dmdas"
)

// Schedulers returns the scheduler names Options.Scheduler takes.
func Schedulers() []string { return []string{Eager, Prio, WS, LWS, DMDA, DMDAS} }

// MaxExpected bounds an expected duration, in seconds (a day: no tile
// task lasts that long): a model value above it, or not a number, is not
// used (the task's flops decide), and pkg/perfmodel refuses a file that
// holds one.
const MaxExpected = 86400

// policy is a scheduler as the runtime dispatches on it.
type policy uint8

const (
	polPrio policy = iota
	polEager
	polWS
	polLWS
	polDMDA
	polDMDAS
)

// central reports whether ready tasks wait in the runtime's central queues.
func (p policy) central() bool { return p == polPrio || p == polEager }

// stealing reports whether ready tasks wait in the workers' own queues,
// from which idle workers steal.
func (p policy) stealing() bool { return p == polWS || p == polLWS }

// modelled reports whether tasks are placed by the performance model.
func (p policy) modelled() bool { return p == polDMDA || p == polDMDAS }

func policyOf(name string) policy {
	switch name {
	case Eager:
		return polEager
	case WS:
		return polWS
	case LWS:
		return polLWS
	case DMDA:
		return polDMDA
	case DMDAS:
		return polDMDAS
	}
	return polPrio
}

// Worker classes: which queues a worker takes tasks from.
const (
	classCPU    uint8 = 1 // a CPU worker
	classHelper uint8 = 2 // a helper (Options.Helpers)
	classDevice uint8 = 4 // a device's worker
)

// mask returns the classes of workers that may run t.
func (r *Runtime) mask(t *task) uint8 {
	m := classCPU
	if !r.excluded(t) {
		m |= classHelper
	}
	if t.Device && len(r.devs) > 0 {
		m |= classDevice
	}
	return m
}

// footprint is the size in words of the largest handle t accesses: the
// key of its duration in a performance model (for a tile, nb^2).
func footprint(t *task) int {
	s := 0
	for _, a := range t.Access {
		if a.H.format != nil && a.H.words > s {
			s = a.H.words
		}
	}
	return s
}

// checkScheduler validates Options.Scheduler.
func checkScheduler(o Options) error {
	switch {
	case o.Scheduler == "":
	case !slices.Contains(Schedulers(), o.Scheduler):
		return fmt.Errorf("runtime: unknown scheduler %q (want %s)", o.Scheduler, strings.Join(Schedulers(), ", "))
	case policyOf(o.Scheduler).modelled() && o.PerfModel == nil:
		return fmt.Errorf("runtime: scheduler %q needs a performance model", o.Scheduler)
	}
	return nil
}

// readyQueue holds ready tasks by the classes of workers that may run them,
// each class set a heap in the order of before.
type readyQueue struct {
	heaps [8]taskHeap
	n     int
}

func (q *readyQueue) push(t *task) {
	heap.Push(&q.heaps[t.mask], t)
	q.n++
}

// top returns the first task a worker of class c may run, or nil.
func (q *readyQueue) top(c uint8) *task {
	var best *task
	for m := range q.heaps {
		if uint8(m)&c == 0 || q.heaps[m].Len() == 0 {
			continue
		}
		if t := q.heaps[m][0]; best == nil || before(t, best) {
			best = t
		}
	}
	return best
}

// take removes and returns top(c), or nil.
func (q *readyQueue) take(c uint8) *task {
	t := q.top(c)
	if t != nil {
		heap.Pop(&q.heaps[t.mask])
		q.n--
	}
	return t
}

// order sets t's place among the ready tasks when it becomes ready (r.mu
// not needed): its priority, or with Eager how early it became ready.
func (r *Runtime) order(t *task) {
	if r.pol == polEager {
		t.key = -r.readySeq.Add(1)
		return
	}
	t.key = int64(t.Priority)
}

// push queues a ready task (r.mu held); from is the worker that completed
// its last predecessor (nil at submission).
func (r *Runtime) push(t *task, from *worker) {
	switch {
	case r.pol.modelled():
		r.assign(t)
	case r.pol.stealing():
		w := from
		if w == nil || t.mask&w.class == 0 {
			w = r.nextEligible(t)
		}
		w.ready.push(t)
	default:
		r.central.push(t)
	}
}

// nextEligible returns the next worker in turn that may run t (r.mu held).
func (r *Runtime) nextEligible(t *task) *worker {
	for range r.workers {
		w := r.workers[r.turn%len(r.workers)]
		r.turn++
		if t.mask&w.class != 0 {
			return w
		}
	}
	return r.workers[0] // a CPU worker: every task may run there
}

// peek returns the task worker w would take next from its own queue (or
// the central one), or nil (r.mu held). A just-released successor that
// beats it runs next on w without a trip through the queue.
func (r *Runtime) peek(w *worker) *task {
	switch {
	case r.pol.modelled():
		if w.queue.Len() > 0 {
			return w.queue[0]
		}
		return nil
	case r.pol.stealing():
		return w.ready.top(w.class)
	}
	return r.central.top(w.class)
}

// take removes and returns the task worker w runs next, or nil when there
// is none it may run (r.mu held).
func (r *Runtime) take(w *worker) *task {
	switch {
	case r.pol.modelled():
		if w.queue.Len() == 0 {
			return nil
		}
		t := heap.Pop(&w.queue).(*task)
		w.queued -= t.expDur
		w.runEnd = float64(r.Now())/1e9 + t.expDur
		return t
	case r.pol.stealing():
		if t := w.ready.take(w.class); t != nil {
			return t
		}
		if v := r.victim(w); v != nil {
			return v.ready.take(w.class)
		}
		return nil
	}
	return r.central.take(w.class)
}

// victim returns the worker w steals from (r.mu held), nil when no queue
// holds a task w may run: with WS the one with the most queued tasks, with
// LWS the nearest one (indices w+1, w-1, w+2, ...).
func (r *Runtime) victim(w *worker) *worker {
	n := len(r.workers)
	if r.pol == polLWS {
		for d := 1; d < n; d++ {
			for _, i := range [2]int{w.id + d, w.id - d} {
				v := r.workers[(i%n+n)%n]
				if v != w && v.ready.top(w.class) != nil {
					return v
				}
			}
		}
		return nil
	}
	var best *worker
	for _, v := range r.workers {
		if v != w && v.ready.top(w.class) != nil && (best == nil || v.ready.n > best.ready.n) {
			best = v
		}
	}
	return best
}

// expected returns t's expected duration on a worker of architecture arch:
// the model's, else (not measured yet, or a value that is not a
// non-negative number of at most MaxExpected seconds) its flops at
// 10 GFLOP/s, so that unmeasured tasks still spread over the workers.
func (r *Runtime) expected(arch string, t *task) float64 {
	if d, ok := r.opts.PerfModel.Expected(arch, t.modelKey(), t.size); ok && d >= 0 && d <= MaxExpected {
		return d
	}
	return t.Flops * 1e-10
}

// transferEstimate is the expected time of the copies t needs on w's node.
func (r *Runtime) transferEstimate(w *worker, t *task) float64 {
	if w.node == 0 {
		return 0
	}
	bit := uint64(1) << w.node
	s := 0.0
	for _, a := range t.Access {
		h := a.H
		if h.mn == nil || a.Mode&R == 0 || a.Mode == Scratch || h.mn.valid.Load()&bit != 0 {
			continue
		}
		if d, ok := r.opts.PerfModel.Expected(TransferArch(w.arch), "xfer", h.words); ok && d >= 0 && d <= MaxExpected {
			s += d
		} else {
			s += float64(bytesOf(h.words)) / 10e9
		}
	}
	return s
}

// ahead returns the expected seconds of the work queued on w that t would
// wait for: all of it (DMDA), or that of priority t's or higher (DMDAS).
func (r *Runtime) ahead(w *worker, t *task) float64 {
	if r.pol != polDMDAS {
		return w.queued
	}
	s := 0.0
	for _, q := range w.queue {
		if q.Priority >= t.Priority {
			s += q.expDur
		}
	}
	return s
}

// assign queues ready task t on the worker that would complete it first
// (DMDA, DMDAS; r.mu held) and starts the copies it needs there. The
// first worker that may run t is the choice when no estimate is a number
// (every estimate is bounded, so this is a safety net, not a policy).
func (r *Runtime) assign(t *task) {
	now := float64(r.Now()) / 1e9
	var best *worker
	bestFin, bestDur := math.Inf(1), 0.0
	for _, w := range r.workers {
		if t.mask&w.class == 0 {
			continue
		}
		d := r.expected(w.arch, t)
		fin := now + max(0, w.runEnd-now) + r.ahead(w, t) + r.transferEstimate(w, t) + d
		if best == nil || fin < bestFin {
			best, bestFin, bestDur = w, fin, d
		}
	}
	t.expDur = bestDur
	best.queued += bestDur
	heap.Push(&best.queue, t)
	if best.node > 0 {
		r.prefetch(best, t)
	}
}
