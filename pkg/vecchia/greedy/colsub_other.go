//go:build !amd64 || purego

package greedy

// colSub is colSubGo (no vector code on this platform or build).
func colSub(g []float64, stride, t, b int, gt []float64) { colSubGo(g, stride, t, b, gt) }
