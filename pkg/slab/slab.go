// Package slab sub-allocates one region of memory allocated once (a GPU's
// device memory for tiles): Alloc returns the offset of a free block of the
// asked size, first fit in address order, and Free returns a block and
// merges it with its free neighbours, so that blocks of any sizes reuse
// the region without another allocation from the system.
package slab

import (
	"fmt"
	"sort"
)

// Slab manages Size bytes from offset 0; blocks are multiples of Align
// bytes. It is not safe for concurrent use.
type Slab struct {
	size, align int64
	free        []block // free blocks, sorted by offset, none adjacent
	used        map[int64]int64
}

type block struct{ off, size int64 }

// New returns a slab of size bytes whose blocks are aligned to align
// bytes (a power of two).
func New(size, align int64) (*Slab, error) {
	if size <= 0 || align <= 0 || align&(align-1) != 0 {
		return nil, fmt.Errorf("slab: size %d and alignment %d must be positive, the alignment a power of two", size, align)
	}
	size &^= align - 1
	return &Slab{size: size, align: align, free: []block{{0, size}}, used: map[int64]int64{}}, nil
}

// Alloc returns the offset of a free block of at least bytes bytes, the
// lowest that fits, and false when no free block is large enough.
func (s *Slab) Alloc(bytes int64) (int64, bool) {
	if bytes <= 0 {
		bytes = 1
	}
	n := (bytes + s.align - 1) &^ (s.align - 1)
	for i, b := range s.free {
		if b.size < n {
			continue
		}
		if b.size == n {
			s.free = append(s.free[:i], s.free[i+1:]...)
		} else {
			s.free[i] = block{b.off + n, b.size - n}
		}
		s.used[b.off] = n
		return b.off, true
	}
	return 0, false
}

// Free returns the block at offset off (from Alloc), merging it with the
// free blocks on either side. It panics on an offset Alloc did not return.
func (s *Slab) Free(off int64) {
	n, ok := s.used[off]
	if !ok {
		panic(fmt.Sprintf("slab: free of offset %d, not allocated", off))
	}
	delete(s.used, off)
	i := sort.Search(len(s.free), func(i int) bool { return s.free[i].off > off })
	nb := block{off, n}
	if i > 0 && s.free[i-1].off+s.free[i-1].size == off {
		i--
		nb = block{s.free[i].off, s.free[i].size + n}
		s.free = append(s.free[:i], s.free[i+1:]...)
	}
	if i < len(s.free) && nb.off+nb.size == s.free[i].off {
		nb.size += s.free[i].size
		s.free = append(s.free[:i], s.free[i+1:]...)
	}
	s.free = append(s.free, block{})
	copy(s.free[i+1:], s.free[i:])
	s.free[i] = nb
}

// Available returns the free bytes and the size of the largest free block.
func (s *Slab) Available() (total, largest int64) {
	for _, b := range s.free {
		total += b.size
		largest = max(largest, b.size)
	}
	return
}

// Size returns the bytes the slab manages.
func (s *Slab) Size() int64 { return s.size }
