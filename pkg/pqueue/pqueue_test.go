package pqueue

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// item is a time and a sequence number, ordered by time, then sequence.
type item struct {
	t   float64
	seq int
}

func byTimeThenSeq(a, b item) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.seq < b.seq
}

// byTime orders items by time alone (a stable sort keeps ties in push
// order).
func byTime(a, b item) int { return cmp.Compare(a.t, b.t) }

// TestQueueOrder pushes random times with many ties, interleaved with
// pops, and checks that the pops come out as a stable sort of what was
// pushed (computed independently with slices.SortStableFunc) would give
// them: by time, ties first in first out.
func TestQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		q := New(byTimeThenSeq)
		var held, popped, want []item
		for i := 0; i < n; i++ {
			it := item{t: float64(rng.IntN(10)), seq: i}
			q.Push(it)
			held = append(held, it)
			if rng.IntN(3) == 0 {
				// The first of what is held: the least time, then the
				// earliest pushed.
				slices.SortStableFunc(held, byTime)
				if q.Peek() != held[0] {
					t.Fatalf("n=%d: Peek = %v, want %v", n, q.Peek(), held[0])
				}
				popped = append(popped, q.Pop())
				want = append(want, held[0])
				held = held[1:]
			}
		}
		if q.Len() != len(held) {
			t.Fatalf("n=%d: Len = %d, want %d", n, q.Len(), len(held))
		}
		slices.SortStableFunc(held, byTime)
		for q.Len() > 0 {
			popped = append(popped, q.Pop())
		}
		want = append(want, held...)
		if !slices.Equal(popped, want) {
			t.Fatalf("n=%d: popped %v, want %v", n, popped, want)
		}
	}
	q := New(byTimeThenSeq)
	q.Push(item{1, 1})
	q.Reset()
	if q.Len() != 0 {
		t.Fatalf("Len after Reset = %d, want 0", q.Len())
	}
}
