//go:build linux

package topology

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Affinity returns the CPU ids of the calling thread's affinity mask (the
// process's, for a thread that has not changed it).
func Affinity() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("topology: sched_getaffinity: %w", err)
	}
	var out []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Pin restricts the calling OS thread to the CPUs cpus (lock the
// goroutine to its thread first).
func Pin(cpus ...int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("topology: sched_setaffinity %v: %w", cpus, err)
	}
	return nil
}

// mpolPreferred is mbind's MPOL_PREFERRED mode: allocate on the node, or
// elsewhere when it is full.
const mpolPreferred = 1

// Bind asks the system to place the pages of b, not touched yet, on NUMA
// node (mbind(MPOL_PREFERRED)). Only page-aligned memory outside the Go
// heap (the runtime's large buffers) can be bound.
func Bind(b []float64, node int) error {
	if len(b) == 0 || node < 0 || node >= 64 {
		return fmt.Errorf("topology: cannot bind %d words to node %d", len(b), node)
	}
	mask := uint64(1) << node
	_, _, errno := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)*8),
		mpolPreferred, uintptr(unsafe.Pointer(&mask)), 64, 0)
	if errno != 0 {
		return fmt.Errorf("topology: mbind to node %d: %w", node, errno)
	}
	return nil
}
