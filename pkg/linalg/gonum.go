package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	glapack "gonum.org/v1/gonum/lapack/gonum"
)

// gonumRaw is gonum's pure-Go BLAS and LAPACK. gonum is row-major, so each
// BLAS call works on the transposed view: a column-major m x n matrix with
// leading dimension lda is the row-major n x m matrix A^T with the same
// stride. The LAPACK factorisations copy their operand into a row-major
// buffer and back.
type gonumRaw struct {
	b gblas.Implementation
	l glapack.Implementation
}

// flip returns whichever of a and b x is not (x is one of them, or else
// taken for b): the row-major view swaps Lower and Upper, Left and Right,
// NoTrans and Trans.
func flip[T comparable](x, a, b T) T {
	if x == a {
		return b
	}
	return a
}

func flipUplo(u blas.Uplo) blas.Uplo            { return flip(u, blas.Lower, blas.Upper) }
func flipTrans(t blas.Transpose) blas.Transpose { return flip(t, blas.NoTrans, blas.Trans) }

func (gonumRaw) name() string     { return "gonum" }
func (gonumRaw) setThreads(int)   {}
func (gonumRaw) coreName() string { return "gonum (pure Go)" }

// Dpotrf: the lower factor of a column-major matrix is the upper factor
// (A = U^T U) of its row-major view. gonum reports a failure without its
// place, so the lower triangle is saved first and, on failure, factored
// again by columns to find the order of the first minor that is not
// positive.
func (g gonumRaw) Dpotrf(n int, a []float64, lda int) int {
	saved := make([]float64, n*n)
	for j := 0; j < n; j++ {
		copy(saved[j*n+j:j*n+n], a[j*lda+j:j*lda+n])
	}
	if g.l.Dpotrf(blas.Upper, n, a, lda) {
		return 0
	}
	for j := 0; j < n; j++ {
		copy(a[j*lda+j:j*lda+n], saved[j*n+j:j*n+n])
	}
	return unblockedPotrf(n, a, lda)
}

// unblockedPotrf is the left-looking column Cholesky; it returns LAPACK's
// info.
func unblockedPotrf(n int, a []float64, lda int) int {
	for j := 0; j < n; j++ {
		d := a[j+j*lda]
		for k := 0; k < j; k++ {
			d -= a[j+k*lda] * a[j+k*lda]
		}
		if !(d > 0) {
			a[j+j*lda] = d
			return j + 1
		}
		d = math.Sqrt(d)
		a[j+j*lda] = d
		for i := j + 1; i < n; i++ {
			s := a[i+j*lda]
			for k := 0; k < j; k++ {
				s -= a[i+k*lda] * a[j+k*lda]
			}
			a[i+j*lda] = s / d
		}
	}
	return 0
}

// Dtrtri: the inverse of the row-major view is the view of the inverse,
// with the triangle flipped. gonum does not report a zero pivot: it is
// looked for first.
func (g gonumRaw) Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) int {
	if diag == blas.NonUnit {
		for j := 0; j < n; j++ {
			if a[j+j*lda] == 0 {
				return j + 1
			}
		}
	}
	g.l.Dtrtri(flipUplo(uplo), diag, n, a, lda)
	return 0
}

// Dtrsm: op(A) X = B in column-major is X^T op(A)^T = B^T in the row-major
// view, so the side and the triangle flip.
func (g gonumRaw) Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	g.b.Dtrsm(flip(side, blas.Left, blas.Right), flipUplo(uplo), tA, diag, n, m, alpha, a, lda, b, ldb)
}

// Dtrmm flips as Dtrsm.
func (g gonumRaw) Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	g.b.Dtrmm(flip(side, blas.Left, blas.Right), flipUplo(uplo), tA, diag, n, m, alpha, a, lda, b, ldb)
}

// Dsyrk: gonum v0.17.0's Dsyrk(Lower, Trans) scales C by beta = 0 instead
// of zeroing it, so a NaN in C would survive where BLAS must not read C:
// the triangle is cleared first (the kernel suite's syrk-beta0 case
// fails without this).
func (g gonumRaw) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
	beta float64, c []float64, ldc int) {
	if beta == 0 {
		for j := 0; j < n; j++ {
			lo, hi := j, n
			if uplo == blas.Upper {
				lo, hi = 0, j+1
			}
			clear(c[j*ldc+lo : j*ldc+hi])
		}
	}
	g.b.Dsyrk(flipUplo(uplo), flipTrans(tA), n, k, alpha, a, lda, beta, c, ldc)
}

// Dgemm: C = op(A) op(B) is C^T = op(B)^T op(A)^T.
func (g gonumRaw) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	g.b.Dgemm(tB, tA, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
}

func (g gonumRaw) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
	x []float64, incX int, beta float64, y []float64, incY int) {
	g.b.Dgemv(flipTrans(tA), n, m, alpha, a, lda, x, incX, beta, y, incY)
}

func (g gonumRaw) Dtrsv(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n int, a []float64, lda int,
	x []float64, incX int) {
	g.b.Dtrsv(flipUplo(uplo), flipTrans(tA), diag, n, a, lda, x, incX)
}

// Dgeadd is the one loop of geadd.
func (gonumRaw) Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int) {
	geadd(m, n, alpha, a, lda, beta, b, ldb)
}

// geadd computes B = alpha A + beta B, column by column: both libraries'
// Dgeadd (memory-bound; a cgo call would cost more than it saves).
func geadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int) {
	for j := 0; j < n; j++ {
		aj := a[j*lda : j*lda+m]
		bj := b[j*ldb : j*ldb+m]
		for i, v := range aj {
			bj[i] = alpha*v + beta*bj[i]
		}
	}
}

func (g gonumRaw) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	return g.b.Ddot(n, x, incX, y, incY)
}

// Sgemm transposes as Dgemm.
func (g gonumRaw) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int,
	b []float32, ldb int, beta float32, c []float32, ldc int) {
	g.b.Sgemm(tB, tA, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
}

// Strsm flips as Dtrsm.
func (g gonumRaw) Strsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float32, a []float32, lda int, b []float32, ldb int) {
	g.b.Strsm(flip(side, blas.Left, blas.Right), flipUplo(uplo), tA, diag, n, m, alpha, a, lda, b, ldb)
}

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

// workspace returns a work slice of at least the length a workspace query
// (query(work, -1)) asked for and at least least.
func workspace(least int, query func(work []float64, lwork int)) []float64 {
	w := make([]float64, 1)
	query(w, -1)
	return make([]float64, max(int(w[0]), least))
}

// SVD runs gonum's dgesvd (gonum has no dgesdd).
func (g gonumRaw) SVD(m, n int, a, s, u, vt []float64) bool {
	r := min(m, n)
	ra := toRow(m, n, a)
	ru := make([]float64, m*r)
	rvt := make([]float64, r*n)
	svd := func(work []float64, lwork int) bool {
		return g.l.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, ra, n, s, ru, r, rvt, n, work, lwork)
	}
	work := workspace(1, func(w []float64, lw int) { svd(w, lw) })
	ok := svd(work, len(work))
	fromRow(m, r, ru, r, u)
	fromRow(r, n, rvt, n, vt)
	return ok
}

func (g gonumRaw) QR(m, n int, a, r []float64) {
	ra := toRow(m, n, a)
	tau := make([]float64, n)
	work := workspace(n, func(w []float64, lw int) { g.l.Dgeqrf(m, n, ra, n, tau, w, lw) })
	g.l.Dgeqrf(m, n, ra, n, tau, work, len(work))
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			v := 0.0
			if i <= j {
				v = ra[i*n+j]
			}
			r[i+j*n] = v
		}
	}
	g.l.Dorgqr(m, n, n, ra, n, tau, work, len(work))
	fromRow(m, n, ra, n, a)
}

func (g gonumRaw) QRCP(m, n int, a []float64, jpvt []int, tau []float64) {
	ra := toRow(m, n, a)
	for j := range jpvt[:n] {
		jpvt[j] = -1
	}
	work := workspace(3*n+1, func(w []float64, lw int) { g.l.Dgeqp3(m, n, ra, n, jpvt, tau, w, lw) })
	g.l.Dgeqp3(m, n, ra, n, jpvt, tau, work, len(work))
	fromRow(m, n, ra, n, a)
}

func (g gonumRaw) FormQ(m, k int, a, tau []float64) {
	ra := toRow(m, k, a)
	work := workspace(k, func(w []float64, lw int) { g.l.Dorgqr(m, k, k, ra, k, tau, w, lw) })
	g.l.Dorgqr(m, k, k, ra, k, tau, work, len(work))
	fromRow(m, k, ra, k, a)
}
