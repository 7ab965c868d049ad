package kernels

import (
	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
	glapack "gonum.org/v1/gonum/lapack/gonum"
)

// Gonum implements Impl with gonum's pure-Go BLAS and LAPACK. gonum is
// row-major, so each call works on the transposed view: a column-major m x n
// matrix with leading dimension lda is the row-major n x m matrix A^T with
// the same stride.
type Gonum struct{}

var (
	gb gblas.Implementation
	gl glapack.Implementation
)

func flipUplo(u blas.Uplo) blas.Uplo {
	if u == blas.Lower {
		return blas.Upper
	}
	return blas.Lower
}

func flipTrans(t blas.Transpose) blas.Transpose {
	if t == blas.NoTrans {
		return blas.Trans
	}
	return blas.NoTrans
}

func flipSide(s blas.Side) blas.Side {
	if s == blas.Left {
		return blas.Right
	}
	return blas.Left
}

// Name implements Impl.
func (Gonum) Name() string { return "gonum" }

// Dpotrf implements Impl. The lower factor of a column-major matrix is the
// upper factor (A = U^T U) of its row-major view.
func (Gonum) Dpotrf(n int, a []float64, lda int) int {
	if n == 0 {
		return 0
	}
	// Keep the lower triangle so that a failure can be located exactly.
	saved := make([]float64, n*n)
	for j := 0; j < n; j++ {
		copy(saved[j*n+j:j*n+n], a[j*lda+j:j*lda+n])
	}
	if gl.Dpotrf(blas.Upper, n, a, lda) {
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
		d = sqrt(d)
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

// Dtrsm implements Impl: op(A) X = B in column-major is X^T op(A)^T = B^T in
// the row-major view, so the side and the triangle flip.
func (Gonum) Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	gb.Dtrsm(flipSide(side), flipUplo(uplo), tA, diag, n, m, alpha, a, lda, b, ldb)
}

// Dtrmm implements Impl, with the same transposition as Dtrsm.
func (Gonum) Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	gb.Dtrmm(flipSide(side), flipUplo(uplo), tA, diag, n, m, alpha, a, lda, b, ldb)
}

// Dtrtri implements Impl: the inverse of the row-major view is the view of
// the inverse, with the triangle flipped.
func (Gonum) Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) int {
	if n == 0 {
		return 0
	}
	if diag == blas.NonUnit {
		for j := 0; j < n; j++ {
			if a[j+j*lda] == 0 {
				return j + 1
			}
		}
	}
	gl.Dtrtri(flipUplo(uplo), diag, n, a, lda)
	return 0
}

// Dsyrk implements Impl.
func (Gonum) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
	beta float64, c []float64, ldc int) {
	if n == 0 {
		return
	}
	if beta == 0 {
		// gonum v0.17.0's Dsyrk(Lower, Trans) scales C by beta = 0 instead of
		// zeroing it, so a NaN in C would survive; BLAS must not read C here.
		for j := 0; j < n; j++ {
			lo, hi := j, n
			if uplo == blas.Upper {
				lo, hi = 0, j+1
			}
			clear(c[j*ldc+lo : j*ldc+hi])
		}
	}
	gb.Dsyrk(flipUplo(uplo), flipTrans(tA), n, k, alpha, a, lda, beta, c, ldc)
}

// Dgemm implements Impl: C = op(A) op(B) is C^T = op(B)^T op(A)^T.
func (Gonum) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	gb.Dgemm(tB, tA, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
}

// Dgemv implements Impl.
func (Gonum) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
	x []float64, incX int, beta float64, y []float64, incY int) {
	if m == 0 || n == 0 {
		return
	}
	gb.Dgemv(flipTrans(tA), n, m, alpha, a, lda, x, incX, beta, y, incY)
}

// Dtrsv implements Impl.
func (Gonum) Dtrsv(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n int, a []float64, lda int,
	x []float64, incX int) {
	if n == 0 {
		return
	}
	gb.Dtrsv(flipUplo(uplo), flipTrans(tA), diag, n, a, lda, x, incX)
}

// Dgeadd implements Impl.
func (Gonum) Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int) {
	geadd(m, n, alpha, a, lda, beta, b, ldb)
}

func geadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	for j := 0; j < n; j++ {
		aj := a[j*lda : j*lda+m]
		bj := b[j*ldb : j*ldb+m]
		for i, v := range aj {
			bj[i] = alpha*v + beta*bj[i]
		}
	}
}

// Ddot implements Impl.
func (Gonum) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	if n == 0 {
		return 0
	}
	return gb.Ddot(n, x, incX, y, incY)
}
