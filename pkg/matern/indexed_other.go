//go:build !amd64 || purego

package matern

// closedIndexed reports false: no vector code on this platform or build.
func closedIndexed(k Kernel, x, y []float64, xi, yi float64, js []int32, out []float64) bool {
	return false
}

// hasIndexedZ is false: no vector code on this platform or build.
const hasIndexedZ = false
