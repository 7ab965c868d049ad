//go:build amd64 && !purego

package block

//go:generate go run ./internal/asmgen -o chol_amd64.s
//go:generate go run ./internal/asmgen -kind cholz -o chol512_amd64.s
//go:generate go run ./internal/asmgen -kind prodz -o prodz_amd64.s

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useVec reports whether chol can use the AVX2 code (with fused
// multiply-adds).
var useVec = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasCholZ reports whether chol can use the AVX-512 code (cholZ).
var hasCholZ = cpu.X86.HasAVX512F

// cholZ is chol by panels of 4 columns (cholPanelZ), each over chunks of
// at most 40 rows: row j0..n-1 of columns j0..j0+3 summed over k < j0 for
// the four columns together (20 accumulators of 8 rows in registers),
// then over the panel's own columns; the same sums in the same order as
// cholGo, so the same values bitwise. a holds exactly (n-1) ld + n
// values (the code reads and writes no row past n). With q > 0 (at most
// cholRHS) it overwrites the n x q matrix y (leading dimension ldy) with
// L^-1 y as solveLowerGo does (the same values bitwise), each panel's
// rows of it beside the panel's pivots.
func cholZ(n int, a []float64, ld int, y []float64, ldy, q int) int {
	_ = a[(n-1)*ld+n-1]
	yp := (*float64)(nil)
	if q > 0 {
		_ = y[(q-1)*ldy+n-1]
		yp = &y[0]
	}
	for j0 := 0; j0 < n; j0 += 4 {
		nb := min(4, n-j0)
		if info := cholPanelZ(&a[0], ld, j0, j0, min(40, n-j0), nb, yp, ldy, q); info != 0 {
			return info
		}
		for r0 := j0 + 40; r0 < n; r0 += 40 {
			cholPanelZ(&a[0], ld, j0, r0, min(40, n-r0), nb, nil, 0, 0)
		}
	}
	return 0
}

// cholRHS is the most right-hand sides cholZ solves beside the factor.
const cholRHS = 4

// cholPanelZ computes columns j0..j0+nb-1 of chol's factor on rows
// r0..r0+rows-1 (rows <= 40; nb < 4 only where rows < 4), reading L's
// columns k < j0 on those rows and, below the pivots (r0 > j0), the
// panel's rows j0..j0+nb-1 as written by the chunk at r0 = j0; returns 0
// or j+1 at a pivot t_jj that is not positive. On the pivots' chunk it
// also solves rows j0..j0+nb-1 of L y = b for q right-hand sides (y,
// leading dimension ldy; rows 0..j0-1 solved by the panels before).
//
//go:noescape
func cholPanelZ(a *float64, ld, j0, r0, rows, nb int, y *float64, ldy, q int) int

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

// gemv2Vec is gemv2 with AVX-512 (kn1 <= kn2, kn2 > 0, m > 0): chunks of
// 48 rows (gemv2Z), no value read or written past row m.
func gemv2Vec(m, kn1, kn2 int, a, l []float64, ld int, x1, x2, t1, t2 []float64) {
	_, _, _ = a[m-1], t1[m-1], t2[m-1]
	_, _ = l[(kn2-1)*ld+m-1], x2[kn2-1]
	if kn1 > 0 {
		_ = x1[kn1-1]
	}
	for r0 := 0; r0 < m; r0 += 48 {
		gemv2Z(min(48, m-r0), kn1, kn2, &a[r0], &l[r0], ld, unsafe.SliceData(x1), &x2[0], &t1[r0], &t2[r0])
	}
}

// gemv2Z is gemv2 on rows (at most 48) rows: t1[i] = a[i] - sum_{k<kn1}
// l[i+k*ld] x1[k], t2[i] likewise over k < kn2, kn1 <= kn2.
//
//go:noescape
func gemv2Z(rows, kn1, kn2 int, a, l *float64, ld int, x1, x2, t1, t2 *float64)

// prodVec sets t[i + c ldt] = sum_{k < kn[c]} l[i + k ld] x[k + c ldx]
// for i < m and c < q (1 to 4), kn non-decreasing, with AVX-512 (prodZ,
// chunks of 48 rows): each sum from +0 in order of k with fused
// multiply-adds, so t = 0 - l (-x) as colUpdateGo computes it, bitwise.
func prodVec(m, q int, kn *[4]int, l []float64, ld int, x []float64, ldx int, t []float64, ldt int) {
	if m == 0 {
		return
	}
	for c := range q {
		_ = t[c*ldt+m-1]
		if c > 0 && kn[c] < kn[c-1] {
			panic("block: prodVec's kn decreasing")
		}
	}
	if k := kn[q-1]; k > 0 {
		_ = l[(k-1)*ld+m-1]
		for c := range q {
			if kn[c] > 0 {
				_ = x[c*ldx+kn[c]-1]
			}
		}
	}
	xp := unsafe.SliceData(x)
	for r0 := 0; r0 < m; r0 += 48 {
		prodZ(min(48, m-r0), q, kn, &l[r0], ld, xp, ldx, &t[r0], ldt)
	}
}

// prodZ is prodVec on rows (at most 48) rows.
//
//go:noescape
func prodZ(rows, q int, kn *[4]int, l *float64, ld int, x *float64, ldx int, t *float64, ldt int)
