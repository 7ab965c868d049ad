//go:build !linux

package job

import goruntime "runtime"

// affinity returns the number of CPUs Go reports: no affinity mask is read
// outside Linux.
func affinity() (int, string) { return goruntime.NumCPU(), "" }
