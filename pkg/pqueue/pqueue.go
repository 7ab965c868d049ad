// Package pqueue is a priority queue: a binary heap (container/heap) of
// elements ordered by a function of the queue's, popped first-first. The
// simulator's event and transfer queues and the trace stream's pending
// points are such queues.
package pqueue

import "container/heap"

// Queue holds elements of E in a binary heap ordered by less: Pop returns
// an element e such that less(x, e) is false for every x held. Ties pop
// in no set order; a caller that needs one breaks them in less (by a
// sequence number, for first in first out).
type Queue[E any] struct {
	less func(a, b E) bool
	s    []E
}

// New returns an empty queue ordered by less, a strict weak order.
func New[E any](less func(a, b E) bool) *Queue[E] { return &Queue[E]{less: less} }

// Len is the number of elements held.
func (q *Queue[E]) Len() int { return len(q.s) }

// Push adds e.
func (q *Queue[E]) Push(e E) { heap.Push((*elems[E])(q), e) }

// Pop removes and returns the first element; the queue must not be empty.
func (q *Queue[E]) Pop() E { return heap.Pop((*elems[E])(q)).(E) }

// Peek returns the first element without removing it; the queue must not
// be empty.
func (q *Queue[E]) Peek() E { return q.s[0] }

// Reset empties the queue, keeping its storage.
func (q *Queue[E]) Reset() { q.s = q.s[:0] }

// elems is a Queue seen as container/heap's heap.Interface.
type elems[E any] Queue[E]

func (h *elems[E]) Len() int           { return len(h.s) }
func (h *elems[E]) Less(i, j int) bool { return h.less(h.s[i], h.s[j]) }
func (h *elems[E]) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *elems[E]) Push(x any)         { h.s = append(h.s, x.(E)) }
func (h *elems[E]) Pop() any {
	n := len(h.s) - 1
	e := h.s[n]
	var zero E
	h.s[n] = zero // no reference kept to what was popped
	h.s = h.s[:n]
	return e
}
