//go:build !amd64 || purego

package greedy

// colSub is colSubGo (no vector code on this platform or build).
func colSub(g []float64, stride, t, b int, gt []float64) { colSubGo(g, stride, t, b, gt) }

// tail is tailGo (no vector code on this platform or build).
func (r *row) tail(gt []float64, sq, gi float64) int { return r.tailGo(gt, sq, gi) }
