//go:build !amd64 || purego

package block

// mirror is mirrorGo (no vector code on this platform or build).
func mirror(n int, a []float64) { mirrorGo(n, a) }
