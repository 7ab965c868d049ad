//go:build !linux || race

package runtime

// sysAlloc returns a zeroed buffer of words values from the Go heap (race
// builds, so that the race detector sees tile data, and non-Linux systems).
func sysAlloc(words int) []float64 { return make([]float64, words) }

// sysFree drops b for the garbage collector.
func sysFree([]float64) {}

// bindMapped does nothing: the buffers are on the Go heap.
func bindMapped([]float64, int) error { return nil }
