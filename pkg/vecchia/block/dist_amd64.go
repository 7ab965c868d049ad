//go:build amd64 && !purego

package block

import "golang.org/x/sys/cpu"

// hasAVX reports whether dist2 can use the AVX code.
var hasAVX = cpu.X86.HasAVX

// dist2 is dist2Go, four distances at a time with AVX where the CPU has
// it (the same values, bitwise: the same operations, correctly rounded).
func dist2(x, y []float64, x0, y0 float64, out []float64) {
	if !hasAVX {
		dist2Go(x, y, x0, y0, out)
		return
	}
	_, _ = x[:len(out)], y[:len(out)]
	dist2AVX(x, y, x0, y0, out)
}

// dist2AVX is dist2Go for len(out) entries (x and y at least as long).
//
//go:noescape
func dist2AVX(x, y []float64, x0, y0 float64, out []float64)

// mirrorTiles copies the full 4 x 4 tiles of a's lower triangle off its
// diagonal into the upper triangle (those of the column blocks j0..j0+3
// < n), four columns at a time with AVX where the CPU has it, and
// reports whether it did (mirror does the rest, or all without).
func mirrorTiles(n int, a []float64) bool {
	if !hasAVX {
		return false
	}
	if n >= 8 {
		_ = a[n*n-1]
		mirrorAVX(n, &a[0])
	}
	return true
}

// mirrorAVX is mirrorTiles's vector code (a holds n x n values).
//
//go:noescape
func mirrorAVX(n int, a *float64)
