//go:build !amd64 || purego

package block

// dist2 is dist2Go (no vector code on this platform or build).
func dist2(x, y []float64, x0, y0 float64, out []float64) { dist2Go(x, y, x0, y0, out) }

// mirrorTiles: no vector code on this platform or build (mirror copies
// every tile).
func mirrorTiles(n int, a []float64) bool { return false }

// mirrorFull: no vector code on this platform or build.
func mirrorFull(n int, a []float64, z bool) bool { return false }

// distTri is distTriGo (no vector code on this platform or build).
func distTri(x, y []float64, out []float64) { distTriGo(x, y, out) }

// distTriSq is distTriSqGo (no vector code on this platform or build).
func distTriSq(x, y []float64, out []float64) { distTriSqGo(x, y, out) }

// unpack is unpackGo (no vector code on this platform or build).
func unpack(n int, a []float64, diag float64) { unpackGo(n, a, diag) }
