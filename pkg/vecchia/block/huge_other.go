//go:build !linux

package block

// hugeFloats returns n zeroed float64s (no huge-page hint here).
func hugeFloats(n int) []float64 { return make([]float64, n) }
