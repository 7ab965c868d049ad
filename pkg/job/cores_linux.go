package job

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// affinity returns the number of CPUs in the process's affinity mask and
// the mask as a CPU list (sched_getaffinity); 0 and "" when unreadable.
func affinity() (int, string) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0, ""
	}
	return set.Count(), cpuList(int(unsafe.Sizeof(set))*8, set.IsSet)
}
