package runtime

import (
	"container/heap"
	"fmt"
	"math"
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
// history, from which a model learns.
type History interface {
	Record(arch, kind string, size int, seconds float64)
}

// Schedulers.
const (
	// Eager: one queue per class of workers; a free worker takes the
	// highest-priority ready task it can run.
	Eager = "eager"
	// DMDA (StarPU's dmda): a task that becomes ready goes to the queue of
	// the worker that would complete it first, by the performance model:
	// the expected end of the work queued there, plus the copies of the
	// data it lacks on that worker's memory node, plus the task's expected
	// duration on that worker's architecture. Each worker's queue is in
	// priority order; the copies start when the task is queued (prefetch).
	DMDA = "dmda"
)

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
	switch o.Scheduler {
	case "", Eager:
	case DMDA:
		if o.PerfModel == nil {
			return fmt.Errorf("runtime: scheduler %q needs a performance model", DMDA)
		}
	default:
		return fmt.Errorf("runtime: unknown scheduler %q (want %s or %s)", o.Scheduler, Eager, DMDA)
	}
	return nil
}

// expected returns t's expected duration on a worker of architecture arch:
// the model's, else (not measured yet) its flops at 10 GFLOP/s, so that
// unmeasured tasks still spread over the workers.
func (r *Runtime) expected(arch string, t *task) float64 {
	if d, ok := r.opts.PerfModel.Expected(arch, t.modelKey(), t.size); ok {
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
		if d, ok := r.opts.PerfModel.Expected(TransferArch(w.arch), "xfer", h.words); ok {
			s += d
		} else {
			s += float64(bytesOf(h.words)) / 10e9
		}
	}
	return s
}

// assign queues ready task t on the worker that would complete it first
// (DMDA; r.mu held) and starts the copies it needs there.
func (r *Runtime) assign(t *task) {
	now := float64(r.Now()) / 1e9
	var best *worker
	bestFin, bestDur := math.Inf(1), 0.0
	for _, w := range r.workers {
		if t.mask&w.class == 0 {
			continue
		}
		d := r.expected(w.arch, t)
		fin := now + max(0, w.runEnd-now) + w.queued + r.transferEstimate(w, t) + d
		if fin < bestFin {
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

// push queues a ready task (r.mu held).
func (r *Runtime) push(t *task) {
	if r.dmda {
		r.assign(t)
		return
	}
	heap.Push(&r.heaps[t.mask], t)
}

// top returns the ready task worker w would run next, or nil (r.mu held).
func (r *Runtime) top(w *worker) *task {
	if r.dmda {
		if w.queue.Len() > 0 {
			return w.queue[0]
		}
		return nil
	}
	var best *task
	for m := range r.heaps {
		if uint8(m)&w.class == 0 || r.heaps[m].Len() == 0 {
			continue
		}
		if t := r.heaps[m][0]; best == nil || before(t, best) {
			best = t
		}
	}
	return best
}

// pop removes and returns top(w), which must not be nil (r.mu held).
func (r *Runtime) pop(w *worker) *task {
	if r.dmda {
		t := heap.Pop(&w.queue).(*task)
		w.queued -= t.expDur
		now := float64(r.Now()) / 1e9
		w.runEnd = now + t.expDur
		return t
	}
	t := r.top(w)
	return heap.Pop(&r.heaps[t.mask]).(*task)
}
