//go:build amd64 && !purego

package block

// prefetchIdx asks the processor to bring into its caches, ahead of use,
// the values a[g*stride] of the points g that idx lists (a response
// stored as ^g): the next block's gather then reads from the caches, not
// from memory (at N = 10^6 the points' arrays exceed them). It reads and
// writes nothing.
//
//go:noescape
func prefetchIdx(idx []int32, a *float64, stride int)
