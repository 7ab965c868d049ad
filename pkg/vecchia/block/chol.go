package block

import "math"

// cholPad is how many values past the n x n matrix (leading dimension ld)
// the vector code of chol may read: its capacity must hold
// (n-1)*ld + n + cholPad values, or chol runs the scalar code.
const cholPad = 3

// chol overwrites the lower triangle of the n x n column-major matrix a
// (leading dimension ld) with its Cholesky factor L (a = L L^T), reading
// the lower triangle only, and returns 0, or j+1 when the leading
// (j+1) x (j+1) minor is not numerically positive definite (its pivot not
// positive, or NaN): dpotrf's info, for the blocks' matrices, whose
// sizes (tens of points) leave OpenBLAS's per-call costs and small-matrix
// paths slower than this left-looking loop. t is scratch of n + 4
// values.
//
// Column j: t = a[j:n, j] - L[j:n, 0:j] L[j, 0:j]^T, each entry's sum
// accumulated over k = 0..j-1 in order with fused multiply-adds (the
// vector code and the scalar code give the same values bitwise), then
// L[j,j] = sqrt(t_0) and L[j+1:n, j] = t[1:] * (1/L[j,j]); the vector
// code runs the whole loop in one call (cholAVX).
//
// Where the CPU has AVX-512, cholZ computes the same entries by panels of
// four columns (the same sums in the same order: the same values,
// bitwise).
func chol(n int, a []float64, ld int, t []float64) int {
	if hasCholZ && n > 0 {
		return cholZ(n, a[:(n-1)*ld+n], ld, nil, 0, 0)
	}
	if useVec && n > 0 && cap(a) >= (n-1)*ld+n+cholPad {
		_ = t[n+3]
		return cholVec(n, a[:cap(a)], ld, t)
	}
	return cholGo(n, a, ld, t)
}

// cholSolve is chol, then (the factor found) solveLower(n, q, a, ld, y,
// ldy): y = L^-1 y. Where the CPU has AVX-512 and q <= cholRHS, in the
// factor's own pass (each panel's rows of y beside its pivots, whose
// latency they hide): the same values, bitwise.
func cholSolve(n int, a []float64, ld int, t []float64, y []float64, ldy, q int) int {
	if hasCholZ && n > 0 && q <= cholRHS {
		return cholZ(n, a[:(n-1)*ld+n], ld, y, ldy, q)
	}
	if info := chol(n, a, ld, t); info != 0 {
		return info
	}
	solveLower(n, q, a, ld, y, ldy)
	return 0
}

// cholGo is chol's scalar code.
func cholGo(n int, a []float64, ld int, t []float64) int {
	for j := 0; j < n; j++ {
		m := n - j
		col := a[j+j*ld:]
		// L[j, 0:j] is row j of a: the x of the update, stride ld.
		colUpdateGo(m, j, col, a[j:], ld, a[j:], ld, t)
		d := t[0]
		if !(d > 0) {
			return j + 1
		}
		d = math.Sqrt(d)
		col[0] = d
		inv := 1 / d
		dst, src := col[1:m], t[1:m]
		for i := range dst {
			dst[i] = src[i] * inv
		}
	}
	return 0
}

// Chol is the Cholesky factor the blocks use (chol), for measuring it:
// it overwrites the lower triangle of the n x n matrix a (leading
// dimension ld) with L, a = L L^T, and returns 0 or dpotrf's info. work
// holds at least n + 4 values; a's capacity (n-1) ld + n + 3 lets it run
// the vector code.
func Chol(n int, a []float64, ld int, work []float64) int {
	return chol(n, a, ld, work[:n+4])
}

// colUpdateGo sets t[i] = a[i] - sum_{k<kn} l[i+k*ld] x[k*xs] for i < m,
// the sum accumulated in order of k with fused multiply-adds.
func colUpdateGo(m, kn int, a, l []float64, ld int, x []float64, xs int, t []float64) {
	for i := 0; i < m; i++ {
		s := a[i]
		for k := 0; k < kn; k++ {
			s = math.FMA(-x[k*xs], l[i+k*ld], s)
		}
		t[i] = s
	}
}

// gemv sets t[i] = a[i] - sum_{k<kn} l[i+k*ld] x[k] for i < m
// (colUpdateGo's sums), with the vector code where the capacities of a,
// l and t allow its reads up to 3 rows past m (t then needs as many).
func gemv(m, kn int, a, l []float64, ld int, x, t []float64) {
	m4 := (m + 3) &^ 3
	if useVec && m > 0 && kn > 0 && len(a) >= m4 && len(t) >= m4 && len(l) >= (kn-1)*ld+m4 {
		colUpdate(m, kn, a, l, ld, x, 1, t)
		return
	}
	colUpdateGo(m, kn, a, l, ld, x, 1, t)
}

// gemv2 is gemv for two right-hand sides over the same l: t1 = a - l x1
// over kn1 columns and t2 = a - l x2 over kn2 (t1 and t2 of length m, or
// as gemv asks for its vector code). With AVX-512 both in one pass,
// sharing each load of l's rows (gemv2Vec: the same values bitwise).
func gemv2(m, kn1, kn2 int, a, l []float64, ld int, x1, x2, t1, t2 []float64) {
	if kn1 > kn2 {
		kn1, kn2, x1, x2, t1, t2 = kn2, kn1, x2, x1, t2, t1
	}
	if !hasCholZ || m == 0 || kn2 == 0 {
		gemv(m, kn1, a, l, ld, x1, t1)
		gemv(m, kn2, a, l, ld, x2, t2)
		return
	}
	gemv2Vec(m, kn1, kn2, a, l, ld, x1, x2, t1, t2)
}
