//go:build linux

package block

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeFloats returns n zeroed float64s whose memory the kernel is asked
// to back with huge pages (madvise MADV_HUGEPAGE, where the system's
// transparent huge pages are on "madvise"): the blocks' gather reads
// their points' rows at random across tens of megabytes at N = 10^6, a
// TLB miss a point with 4 KB pages. Only a hint: the values are the same
// either way, and an error is ignored.
func hugeFloats(n int) []float64 {
	const huge = 2 << 20
	if 8*n < 2*huge {
		return make([]float64, n)
	}
	// Aligned to a huge page inside a slightly larger allocation, so that
	// its pages can be huge ones; madvise before the first touch (fresh
	// large allocations are the kernel's zero pages, untouched by Go).
	buf := make([]float64, n+huge/8)
	off := 0
	if a := uintptr(unsafe.Pointer(&buf[0])) % huge; a != 0 {
		off = int(huge-a) / 8
	}
	v := buf[off : off+n : off+n]
	b := unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*n)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return v
}
