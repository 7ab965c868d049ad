//go:build linux && !race

package runtime

import (
	"syscall"
	"unsafe"

	"github.com/exageostat/exageostat/pkg/topology"
)

// mmapMin is the smallest buffer, in bytes, taken from the system with mmap;
// smaller ones come from the Go heap.
const mmapMin = 64 << 10

// sysAlloc returns a zeroed buffer of words values: anonymous memory
// outside the Go heap for large buffers, the Go heap for small ones. (The
// race detector sees only Go heap memory: race builds use alloc_heap.go.)
func sysAlloc(words int) []float64 {
	if words*8 < mmapMin {
		return make([]float64, words)
	}
	b, err := syscall.Mmap(-1, 0, words*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		panic("runtime: cannot allocate " + err.Error())
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), words)
}

// sysFree releases a buffer from sysAlloc.
func sysFree(b []float64) {
	words := cap(b)
	if words*8 < mmapMin {
		return
	}
	syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(&b[:1][0])), words*8))
}

// bindMapped places b's pages on NUMA node node when b is outside the Go
// heap (topology.Bind); a small buffer from the heap stays where it is.
func bindMapped(b []float64, node int) error {
	if cap(b)*8 < mmapMin {
		return nil
	}
	return topology.Bind(b, node)
}
