//go:build !amd64 || purego

package block

// prefetchIdx does nothing (no prefetch instruction on this platform or
// build).
func prefetchIdx(idx []int32, a *float64, stride int) {}
