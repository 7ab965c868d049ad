// Package kernels holds the sequential tile kernels: BLAS and LAPACK
// operations on one column-major tile, run by one runtime worker.
//
// All matrices are column-major: element (i, j) of an m x n matrix a with
// leading dimension lda (lda >= max(1, m)) is a[i+j*lda]. The operations
// follow the reference BLAS/LAPACK definitions; op(X) is X or X^T.
//
// Two implementations satisfy Impl: OpenBLAS through cgo (the default, built
// unless the purego tag is set or cgo is off) and gonum's pure-Go BLAS and
// LAPACK (always built). Default returns the fastest one compiled in; the
// shared test suite checks every one.
package kernels

import "gonum.org/v1/gonum/blas"

// Impl is one implementation of the tile kernels.
type Impl interface {
	// Name identifies the implementation ("openblas", "gonum").
	Name() string

	// Dpotrf overwrites the lower triangle of the n x n symmetric matrix a
	// with its Cholesky factor L, a = L L^T. It returns 0 on success, or
	// j > 0 when the leading minor of order j is not positive (a is then
	// partly overwritten), as LAPACK's info.
	Dpotrf(n int, a []float64, lda int) int

	// Dtrsm solves op(A) X = alpha B (side Left) or X op(A) = alpha B
	// (side Right) for X, overwriting the m x n matrix b. A is triangular
	// (uplo), unit-diagonal or not (diag).
	Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
		alpha float64, a []float64, lda int, b []float64, ldb int)

	// Dtrmm computes B = alpha op(A) B (side Left) or B = alpha B op(A)
	// (side Right), overwriting the m x n matrix b, with A triangular.
	Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
		alpha float64, a []float64, lda int, b []float64, ldb int)

	// Dtrtri overwrites the uplo triangle of the n x n triangular matrix a
	// with its inverse. It returns 0, or j > 0 when A(j-1, j-1) is exactly
	// zero (A is singular), as LAPACK's info.
	Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) int

	// Dsyrk computes C = alpha A A^T + beta C (tA NoTrans, A n x k) or
	// C = alpha A^T A + beta C (tA Trans, A k x n), touching only the
	// uplo triangle of the n x n matrix c.
	Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
		beta float64, c []float64, ldc int)

	// Dgemm computes C = alpha op(A) op(B) + beta C with C m x n and
	// op(A) m x k.
	Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
		b []float64, ldb int, beta float64, c []float64, ldc int)

	// Dgemv computes y = alpha op(A) x + beta y for the m x n matrix a.
	Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
		x []float64, incX int, beta float64, y []float64, incY int)

	// Dtrsv solves op(A) x = b for x, overwriting x, with A n x n triangular.
	Dtrsv(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n int, a []float64, lda int,
		x []float64, incX int)

	// Dgeadd computes B = alpha A + beta B for m x n matrices.
	Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int)

	// Ddot returns sum_i x_i y_i.
	Ddot(n int, x []float64, incX int, y []float64, incY int) float64
}

// Threads controls and reports the threading of the BLAS library behind an
// implementation. Tile kernels must run single-threaded (one task per
// worker); reference computations (whole-matrix LAPACK) may use several.
type Threads interface {
	// SetThreads sets the number of threads the library uses inside one call.
	SetThreads(n int)
	// CoreName names the CPU kernels the library selected (OpenBLAS'
	// openblas_get_corename, e.g. "Cooperlake", "Haswell").
	CoreName() string
}

// Default returns the fastest implementation compiled into this binary.
func Default() Impl { return defaultImpl() }

// All returns every implementation compiled into this binary, the default
// first. The shared kernel tests run over all of them.
func All() []Impl { return allImpls() }
