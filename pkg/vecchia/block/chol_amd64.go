//go:build amd64 && !purego

package block

//go:generate go run ./internal/asmgen -o chol_amd64.s

import "golang.org/x/sys/cpu"

// useVec reports whether chol can use the AVX2 code (with fused
// multiply-adds).
var useVec = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// colUpdate is colUpdateGo, four rows at a time with AVX2 (the same
// values, bitwise): it computes ceil(m/4)*4 rows, reading up to 3 values
// past the m rows of a and of l's columns (chol checks the capacity), t
// at least that long.
func colUpdate(m, kn int, a, l []float64, ld int, x []float64, xs int, t []float64) {
	m4 := (m + 3) &^ 3
	_ = t[m4-1]
	if kn > 0 {
		_ = x[(kn-1)*xs]
		_ = l[(kn-1)*ld+m4-1]
	}
	_ = a[m4-1]
	colUpdateAVX(m4/4, kn, &a[0], &l[0], ld, &x[0], xs, &t[0])
}

// cholVec is chol's loop in one call (cholAVX), a's capacity and t's
// length checked by chol.
func cholVec(n int, a []float64, ld int, t []float64) int {
	return cholAVX(n, &a[0], ld, &t[0])
}

//go:noescape
func cholAVX(n int, a *float64, ld int, t *float64) int

// colUpdateAVX is colUpdateGo on nv vectors of 4 rows.
//
//go:noescape
func colUpdateAVX(nv, kn int, a, l *float64, ld int, x *float64, xs int, t *float64)
