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
