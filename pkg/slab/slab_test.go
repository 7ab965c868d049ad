package slab

import (
	"math/rand/v2"
	"testing"
)

// TestSlabAgainstBitmap: a random sequence of allocations and frees of
// mixed sizes, checked against an independent byte map of the region:
// blocks never overlap, stay inside the region and aligned, a request
// fails only when no run of free bytes is long enough (first fit finds
// any run that exists, since freed blocks merge), and after every block
// is freed the region is one free block again.
func TestSlabAgainstBitmap(t *testing.T) {
	const size, align = 4096, 16
	s, err := New(size, align)
	if err != nil {
		t.Fatal(err)
	}
	owner := make([]int, size/align) // 0 free, else the block's id
	live := map[int]struct{ off, n int64 }{}
	rng := rand.New(rand.NewPCG(1, 2))
	id := 0
	longestRun := func() int64 {
		best, run := 0, 0
		for _, o := range owner {
			if o == 0 {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
		return int64(best * align)
	}
	for step := 0; step < 5000; step++ {
		if len(live) > 0 && rng.IntN(2) == 0 {
			for k, b := range live {
				s.Free(b.off)
				for i := b.off / align; i < (b.off+b.n)/align; i++ {
					owner[i] = 0
				}
				delete(live, k)
				break
			}
			continue
		}
		want := int64(1 + rng.IntN(600))
		n := (want + align - 1) / align * align
		off, ok := s.Alloc(want)
		if !ok {
			if longestRun() >= n {
				t.Fatalf("step %d: %d bytes refused with a free run of %d", step, want, longestRun())
			}
			continue
		}
		if off%align != 0 || off < 0 || off+n > size {
			t.Fatalf("step %d: block [%d, %d) outside the region or unaligned", step, off, off+n)
		}
		id++
		for i := off / align; i < (off+n)/align; i++ {
			if owner[i] != 0 {
				t.Fatalf("step %d: block %d at %d overlaps block %d", step, id, off, owner[i])
			}
			owner[i] = id
		}
		live[id] = struct{ off, n int64 }{off, n}
	}
	for k, b := range live {
		s.Free(b.off)
		delete(live, k)
	}
	if total, largest := s.Available(); total != size || largest != size {
		t.Fatalf("after freeing everything: %d free, largest %d; want one block of %d", total, largest, size)
	}
}

func TestSlabErrors(t *testing.T) {
	for _, c := range []struct{ size, align int64 }{{0, 8}, {100, 0}, {100, 12}} {
		if _, err := New(c.size, c.align); err == nil {
			t.Errorf("New(%d, %d) accepted", c.size, c.align)
		}
	}
	s, _ := New(64, 8)
	if _, ok := s.Alloc(65); ok {
		t.Error("a block larger than the slab was given")
	}
	defer func() {
		if recover() == nil {
			t.Error("freeing an unallocated offset did not panic")
		}
	}()
	s.Free(8)
}
