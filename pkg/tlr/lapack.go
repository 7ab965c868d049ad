package tlr

import (
	"gonum.org/v1/gonum/lapack"
	glapack "gonum.org/v1/gonum/lapack/gonum"
)

// LAPACK is the small set of dense factorisations the compression and the
// recompression need, on column-major matrices with leading dimension equal
// to their number of rows. Two implementations exist: OpenBLAS' LAPACK
// through cgo (the default unless the purego tag is set or cgo is off) and
// gonum's pure-Go LAPACK (always built).
type LAPACK interface {
	// Name identifies the implementation.
	Name() string
	// SVD computes the thin singular value decomposition a = U diag(s) VT
	// of the m x n matrix a (destroyed), r = min(m, n): s holds r values in
	// decreasing order, u is m x r, vt is r x n. It reports false when the
	// iteration did not converge.
	SVD(m, n int, a, s, u, vt []float64) bool
	// QR computes a = Q R for the m x n matrix a, m >= n: a is overwritten
	// by Q (m x n, orthonormal columns) and r (n x n) receives R (upper
	// triangular; its strictly lower part is zeroed).
	QR(m, n int, a, r []float64)
	// QRCP computes the column-pivoted QR a P = Q R of the m x n matrix a
	// (LAPACK's dgeqp3): a's upper triangle receives R, below it the
	// Householder vectors with scalars tau (min(m, n)); jpvt (n) receives
	// the 0-based permutation, column j of a P being column jpvt[j] of a.
	QRCP(m, n int, a []float64, jpvt []int, tau []float64)
	// FormQ overwrites the m x k matrix a (a QR's or QRCP's output, with
	// its first k reflectors tau) with the first k columns of Q.
	FormQ(m, k int, a, tau []float64)
}

// Gonum implements LAPACK with gonum's pure-Go LAPACK. gonum is row-major:
// each call copies its operand into a row-major buffer and back.
type Gonum struct{}

// Name implements LAPACK.
func (Gonum) Name() string { return "gonum" }

// toRow returns the row-major copy of the column-major m x n matrix a.
func toRow(m, n int, a []float64) []float64 {
	r := make([]float64, m*n)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			r[i*n+j] = a[i+j*m]
		}
	}
	return r
}

// fromRow writes the row-major m x n matrix r (stride ld) into the
// column-major a.
func fromRow(m, n int, r []float64, ld int, a []float64) {
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			a[i+j*m] = r[i*ld+j]
		}
	}
}

// SVD implements LAPACK.
func (Gonum) SVD(m, n int, a, s, u, vt []float64) bool {
	var gl glapack.Implementation
	r := min(m, n)
	if r == 0 {
		return true
	}
	ra := toRow(m, n, a)
	ru := make([]float64, m*r)
	rvt := make([]float64, r*n)
	work := make([]float64, 1)
	gl.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, ra, n, s, ru, r, rvt, n, work, -1)
	work = make([]float64, int(work[0]))
	ok := gl.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, ra, n, s, ru, r, rvt, n, work, len(work))
	fromRow(m, r, ru, r, u)
	fromRow(r, n, rvt, n, vt)
	return ok
}

// QR implements LAPACK.
func (g Gonum) QR(m, n int, a, r []float64) {
	var gl glapack.Implementation
	if n == 0 {
		return
	}
	ra := toRow(m, n, a)
	tau := make([]float64, n)
	work := make([]float64, 1)
	gl.Dgeqrf(m, n, ra, n, tau, work, -1)
	work = make([]float64, max(int(work[0]), n))
	gl.Dgeqrf(m, n, ra, n, tau, work, len(work))
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			v := 0.0
			if i <= j {
				v = ra[i*n+j]
			}
			r[i+j*n] = v
		}
	}
	gl.Dorgqr(m, n, n, ra, n, tau, work, len(work))
	fromRow(m, n, ra, n, a)
}

// QRCP implements LAPACK.
func (Gonum) QRCP(m, n int, a []float64, jpvt []int, tau []float64) {
	var gl glapack.Implementation
	if n == 0 || m == 0 {
		return
	}
	ra := toRow(m, n, a)
	for j := range jpvt[:n] {
		jpvt[j] = -1
	}
	work := make([]float64, 1)
	gl.Dgeqp3(m, n, ra, n, jpvt, tau, work, -1)
	work = make([]float64, max(int(work[0]), 3*n+1))
	gl.Dgeqp3(m, n, ra, n, jpvt, tau, work, len(work))
	fromRow(m, n, ra, n, a)
}

// FormQ implements LAPACK.
func (Gonum) FormQ(m, k int, a, tau []float64) {
	var gl glapack.Implementation
	if k == 0 {
		return
	}
	ra := toRow(m, k, a)
	work := make([]float64, 1)
	gl.Dorgqr(m, k, k, ra, k, tau, work, -1)
	work = make([]float64, max(int(work[0]), k))
	gl.Dorgqr(m, k, k, ra, k, tau, work, len(work))
	fromRow(m, k, ra, k, a)
}
