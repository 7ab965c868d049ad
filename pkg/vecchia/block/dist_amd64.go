//go:build amd64 && !purego

package block

import "golang.org/x/sys/cpu"

// hasAVX reports whether dist2 can use the AVX code.
var hasAVX = cpu.X86.HasAVX

// hasAVX512 reports whether distTri and unpack can use the AVX-512 code.
var hasAVX512 = cpu.X86.HasAVX512F

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

// mirrorFull copies a's whole lower triangle into its upper one with
// AVX-512 (mirrorZ) where z is set and the CPU has it, and reports
// whether it did.
func mirrorFull(n int, a []float64, z bool) bool {
	if !z || !hasAVX512 {
		return false
	}
	if n >= 2 {
		_ = a[n*n-1]
		mirrorZ(n, &a[0])
	}
	return true
}

// mirrorZ copies a's lower triangle into its upper one (all of mirror's
// copies) with AVX-512, 8 x 8 tiles transposed in registers, the edges
// and the diagonal's tiles under masks (a holds n x n values).
//
//go:noescape
func mirrorZ(n int, a *float64)

// mirrorAVX is mirrorTiles's vector code (a holds n x n values).
//
//go:noescape
func mirrorAVX(n int, a *float64)

// distTri writes the distances between the n = len(x) planar points
// below the diagonal, packed (column 0's n-1 rows, then column 1's n-2,
// ...), into out: dist2 column by column, or one call of AVX-512 code
// where the CPU has it (eight at a time, the same values bitwise).
func distTri(x, y []float64, out []float64) {
	n := len(x)
	_, _ = y[:n], out[:n*(n-1)/2]
	if !hasAVX512 || n < 2 {
		distTriGo(x, y, out)
		return
	}
	distTriAVX512(x, y, &out[0], 0)
}

// distTriSq is distTri's squared distances, (x_i - x_j)^2 + (y_i -
// y_j)^2 with the squares added as they are rounded: their square roots
// (math.Sqrt, correctly rounded) are distTri's values bitwise. One call
// of AVX-512 code where the CPU has it.
func distTriSq(x, y []float64, out []float64) {
	n := len(x)
	_, _ = y[:n], out[:n*(n-1)/2]
	if !hasAVX512 || n < 2 {
		distTriSqGo(x, y, out)
		return
	}
	distTriAVX512(x, y, &out[0], 1)
}

// distTriAVX512 is distTri's vector code (out holds n(n-1)/2 values);
// sq not 0: the squared distances (distTriSq).
//
//go:noescape
func distTriAVX512(x, y []float64, out *float64, sq int)

// unpack moves the n(n-1)/2 values packed at the start of the n x n
// matrix a (column 0's n-1 below the diagonal, then column 1's n-2, ...)
// to a's lower triangle below the diagonal and sets the diagonal to diag
// (unpackGo; the moves in one call of AVX-512 code where the CPU has it).
func unpack(n int, a []float64, diag float64) {
	if !hasAVX512 || n < 2 {
		unpackGo(n, a, diag)
		return
	}
	_ = a[n*n-1]
	unpackAVX512(n, &a[0])
	for j := range n {
		a[j*n+j] = diag
	}
}

// unpackAVX512 is unpack's moves (a holds n x n values).
//
//go:noescape
func unpackAVX512(n int, a *float64)
