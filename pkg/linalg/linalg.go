// Package linalg is the project's one binding of BLAS and LAPACK: the
// dense linear algebra the tile kernels (package kernels), the float32
// kernels of the mixed-precision Cholesky (package mixed) and the
// low-rank compression (package tlr) call, on column-major memory.
//
// Element (i, j) of an m x n matrix a with leading dimension lda
// (lda >= max(1, m)) is a[i+j*lda]; an n-vector x with increment inc
// (inc != 0) has x_i at x[i*|inc|]. op(X) is X or X^T. Every routine
// follows the reference BLAS/LAPACK definition of its namesake.
//
// Two libraries sit behind Backend: OpenBLAS through cgo (its Fortran
// symbols, called in place on the caller's memory; built unless the
// purego tag is set or cgo is off) and gonum's pure-Go BLAS and LAPACK
// (always built, about ten times slower). Backend checks every call's
// arguments in Go before the library sees them and panics on one a caller
// must never pass (a negative order, a leading dimension below the rows,
// a slice shorter than the matrix it holds, an unknown uplo/trans/side/diag
// value), naming the routine and the argument, as gonum's own BLAS does:
// such a call is a programmer error, and C would otherwise read or write
// past the slice. The Check functions are those checks, for callers that
// run the same operations on memory of their own (a GPU's kernels).
//
// Default returns the fastest library compiled in, All every one; the
// kernel suite (package kernels/kerneltest) and this package's tests run
// over All.
package linalg

import "gonum.org/v1/gonum/blas"

// BLAS is the double-precision BLAS of the tile kernels, and geadd.
type BLAS interface {
	// Dtrsm solves op(A) X = alpha B (side Left) or X op(A) = alpha B
	// (side Right) for X, overwriting the m x n matrix b; A is triangular
	// (uplo), with a unit diagonal (not read) or not (diag).
	Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
		alpha float64, a []float64, lda int, b []float64, ldb int)
	// Dtrmm computes B = alpha op(A) B (side Left) or B = alpha B op(A)
	// (side Right), overwriting the m x n matrix b, with A triangular as in
	// Dtrsm.
	Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
		alpha float64, a []float64, lda int, b []float64, ldb int)
	// Dsyrk computes C = alpha A A^T + beta C (tA NoTrans, A n x k) or
	// C = alpha A^T A + beta C (tA Trans, A k x n) on the uplo triangle of
	// the n x n matrix c; the other triangle is neither read nor written,
	// and with beta = 0 C is not read.
	Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
		beta float64, c []float64, ldc int)
	// Dgemm computes C = alpha op(A) op(B) + beta C with C m x n and op(A)
	// m x k; with beta = 0 C is not read.
	Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
		b []float64, ldb int, beta float64, c []float64, ldc int)
	// Dgemv computes y = alpha op(A) x + beta y for the m x n matrix a;
	// with beta = 0 y is not read. Nothing happens when m or n is zero.
	Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
		x []float64, incX int, beta float64, y []float64, incY int)
	// Dtrsv solves op(A) x = b for x, overwriting x (which holds b), with
	// A n x n triangular as in Dtrsm.
	Dtrsv(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n int, a []float64, lda int,
		x []float64, incX int)
	// Ddot returns sum_i x_i y_i over n elements.
	Ddot(n int, x []float64, incX int, y []float64, incY int) float64
	// Dgeadd computes B = alpha A + beta B for m x n matrices (a BLAS-like
	// extension, as Chameleon's geadd: one loop in Go, memory-bound,
	// where a cgo call would cost more than it saves on small tiles). B
	// is read even when beta is zero.
	Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int)
}

// Cholesky is the LAPACK of the Cholesky factorisation and the inverse of
// its factor.
type Cholesky interface {
	// Dpotrf overwrites the lower triangle of the n x n symmetric matrix a
	// with its Cholesky factor L, a = L L^T, leaving the strict upper
	// triangle alone. It returns 0 on success, or j > 0 when the leading
	// minor of order j is not positive (a is then partly overwritten), as
	// LAPACK's info.
	Dpotrf(n int, a []float64, lda int) int
	// Dtrtri overwrites the uplo triangle of the n x n triangular matrix a
	// with its inverse. It returns 0, or j > 0 when A(j-1, j-1) is exactly
	// zero (A is singular), as LAPACK's info.
	Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) int
}

// Single is the float32 BLAS of the mixed-precision kernels.
type Single interface {
	// Sgemm is Dgemm in float32.
	Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int,
		b []float32, ldb int, beta float32, c []float32, ldc int)
	// Strsm is Dtrsm in float32.
	Strsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
		alpha float32, a []float32, lda int, b []float32, ldb int)
}

// Orthogonal is the orthogonal factorisations of the low-rank compression,
// on matrices whose leading dimension is their number of rows.
type Orthogonal interface {
	// SVD computes the thin singular value decomposition a = U diag(s) VT
	// of the m x n matrix a (destroyed), r = min(m, n): s receives r
	// values in decreasing order, u is m x r and vt r x n. It reports
	// false when the iteration did not converge. OpenBLAS runs LAPACK's
	// divide and conquer dgesdd, gonum its dgesvd.
	SVD(m, n int, a, s, u, vt []float64) bool
	// QR computes a = Q R for the m x n matrix a, m >= n: a is overwritten
	// by Q (m x n, orthonormal columns) and r (n x n) receives R (upper
	// triangular; its strict lower part is zeroed).
	QR(m, n int, a, r []float64)
	// QRCP computes the column-pivoted QR a P = Q R of the m x n matrix a
	// (LAPACK's dgeqp3): a's upper triangle receives R, whose diagonal
	// decreases in magnitude, below it the Householder vectors with
	// scalars tau (min(m, n) of them); jpvt (n) receives the 0-based
	// permutation, column j of a P being column jpvt[j] of a.
	QRCP(m, n int, a []float64, jpvt []int, tau []float64)
	// FormQ overwrites the m x k matrix a (m >= k; the output of QR's or
	// QRCP's factorisation with its first k reflectors tau) with the first
	// k columns of Q.
	FormQ(m, k int, a, tau []float64)
}

// raw is one library's unchecked routines: Backend calls them once it has
// checked the arguments and found the operation not empty.
type raw interface {
	name() string
	setThreads(n int)
	coreName() string
	BLAS
	Cholesky
	Single
	Orthogonal
}

// Backend is one BLAS/LAPACK library behind the argument checks: it
// implements BLAS, Cholesky, Single and Orthogonal, and its methods are
// safe for concurrent use on disjoint memory.
type Backend struct{ r raw }

// Default returns the fastest library compiled into this binary: OpenBLAS
// unless the purego tag is set or cgo is off, gonum otherwise.
func Default() Backend { return Backend{defaultRaw()} }

// All returns every library compiled into this binary, the default first.
func All() []Backend {
	rs := allRaw()
	out := make([]Backend, len(rs))
	for i, r := range rs {
		out[i] = Backend{r}
	}
	return out
}

// Gonum returns gonum's pure-Go library, compiled into every binary.
func Gonum() Backend { return Backend{gonumRaw{}} }

// Name identifies the library ("openblas", "gonum").
func (b Backend) Name() string { return b.r.name() }

// SetThreads sets the number of threads the library may use inside one
// call. Tile kernels run single-threaded (one task per worker); a
// whole-matrix reference may use several. gonum's routines are
// single-threaded whatever n is.
func (b Backend) SetThreads(n int) { b.r.setThreads(n) }

// CoreName names the CPU kernels the library selected (OpenBLAS'
// openblas_get_corename, e.g. "Cooperlake", "Haswell").
func (b Backend) CoreName() string { return b.r.coreName() }

// Dpotrf implements Cholesky.
func (b Backend) Dpotrf(n int, a []float64, lda int) int {
	need("potrf", "A", a, CheckPotrf(n, lda))
	if n == 0 {
		return 0
	}
	return b.r.Dpotrf(n, a, lda)
}

// Dtrtri implements Cholesky.
func (b Backend) Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) int {
	checkUplo("trtri", uplo)
	checkDiag("trtri", diag)
	need("trtri", "A", a, square("trtri", n, lda))
	if n == 0 {
		return 0
	}
	return b.r.Dtrtri(uplo, diag, n, a, lda)
}

// triangularArgs checks the arguments of op on host memory and reports
// whether the operation is not empty.
func triangularArgs[T any](op string, side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	a []T, lda int, b []T, ldb int) bool {
	la, lb := CheckTriangular(op, side, uplo, tA, diag, m, n, lda, ldb)
	need(op, "A", a, la)
	need(op, "B", b, lb)
	return lb > 0
}

// gemmArgs checks the arguments of a gemm on host memory and reports
// whether the operation is not empty.
func gemmArgs[T any](op string, tA, tB blas.Transpose, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) bool {
	la, lb, lc := CheckGemm(tA, tB, m, n, k, lda, ldb, ldc)
	need(op, "A", a, la)
	need(op, "B", b, lb)
	need(op, "C", c, lc)
	return lc > 0
}

// Dtrsm implements BLAS.
func (b Backend) Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, bb []float64, ldb int) {
	if triangularArgs("trsm", side, uplo, tA, diag, m, n, a, lda, bb, ldb) {
		b.r.Dtrsm(side, uplo, tA, diag, m, n, alpha, a, lda, bb, ldb)
	}
}

// Dtrmm implements BLAS.
func (b Backend) Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, bb []float64, ldb int) {
	if triangularArgs("trmm", side, uplo, tA, diag, m, n, a, lda, bb, ldb) {
		b.r.Dtrmm(side, uplo, tA, diag, m, n, alpha, a, lda, bb, ldb)
	}
}

// Dsyrk implements BLAS.
func (b Backend) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
	beta float64, c []float64, ldc int) {
	la, lc := CheckSyrk(uplo, tA, n, k, lda, ldc)
	need("syrk", "A", a, la)
	need("syrk", "C", c, lc)
	if n > 0 {
		b.r.Dsyrk(uplo, tA, n, k, alpha, a, lda, beta, c, ldc)
	}
}

// Dgemm implements BLAS.
func (b Backend) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	bb []float64, ldb int, beta float64, c []float64, ldc int) {
	if gemmArgs("gemm", tA, tB, m, n, k, a, lda, bb, ldb, c, ldc) {
		b.r.Dgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
	}
}

// Dgemv implements BLAS.
func (b Backend) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
	x []float64, incX int, beta float64, y []float64, incY int) {
	la, lx, ly := CheckGemv(tA, m, n, lda, incX, incY)
	need("gemv", "A", a, la)
	need("gemv", "x", x, lx)
	need("gemv", "y", y, ly)
	if la > 0 {
		b.r.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
	}
}

// Dtrsv implements BLAS.
func (b Backend) Dtrsv(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n int, a []float64, lda int,
	x []float64, incX int) {
	const op = "trsv"
	checkUplo(op, uplo)
	checkTrans(op, "tA", tA)
	checkDiag(op, diag)
	checkInc(op, "incX", incX)
	need(op, "A", a, square(op, n, lda))
	need(op, "x", x, vspan(n, incX))
	if n > 0 {
		b.r.Dtrsv(uplo, tA, diag, n, a, lda, x, incX)
	}
}

// Dgeadd implements BLAS.
func (b Backend) Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, bb []float64, ldb int) {
	const op = "geadd"
	checkDim(op, "m", m)
	checkDim(op, "n", n)
	checkLd(op, "lda", lda, m)
	checkLd(op, "ldb", ldb, m)
	need(op, "A", a, span(m, n, lda))
	need(op, "B", bb, span(m, n, ldb))
	if m > 0 && n > 0 {
		b.r.Dgeadd(m, n, alpha, a, lda, beta, bb, ldb)
	}
}

// Ddot implements BLAS.
func (b Backend) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	const op = "dot"
	checkDim(op, "n", n)
	checkInc(op, "incX", incX)
	checkInc(op, "incY", incY)
	need(op, "x", x, vspan(n, incX))
	need(op, "y", y, vspan(n, incY))
	if n == 0 {
		return 0
	}
	return b.r.Ddot(n, x, incX, y, incY)
}

// Sgemm implements Single.
func (b Backend) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int,
	bb []float32, ldb int, beta float32, c []float32, ldc int) {
	if gemmArgs("sgemm", tA, tB, m, n, k, a, lda, bb, ldb, c, ldc) {
		b.r.Sgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
	}
}

// Strsm implements Single.
func (b Backend) Strsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float32, a []float32, lda int, bb []float32, ldb int) {
	if triangularArgs("strsm", side, uplo, tA, diag, m, n, a, lda, bb, ldb) {
		b.r.Strsm(side, uplo, tA, diag, m, n, alpha, a, lda, bb, ldb)
	}
}

// SVD implements Orthogonal.
func (b Backend) SVD(m, n int, a, s, u, vt []float64) bool {
	const op = "svd"
	checkDim(op, "m", m)
	checkDim(op, "n", n)
	r := min(m, n)
	need(op, "A", a, m*n)
	need(op, "s", s, r)
	need(op, "U", u, m*r)
	need(op, "VT", vt, r*n)
	if r == 0 {
		return true
	}
	return b.r.SVD(m, n, a, s, u, vt)
}

// QR implements Orthogonal.
func (b Backend) QR(m, n int, a, r []float64) {
	const op = "qr"
	checkDim(op, "n", n)
	checkOrder(op, "m", m, "n", n)
	need(op, "A", a, m*n)
	need(op, "R", r, n*n)
	if n > 0 {
		b.r.QR(m, n, a, r)
	}
}

// QRCP implements Orthogonal.
func (b Backend) QRCP(m, n int, a []float64, jpvt []int, tau []float64) {
	const op = "qrcp"
	checkDim(op, "m", m)
	checkDim(op, "n", n)
	need(op, "A", a, m*n)
	need(op, "tau", tau, min(m, n))
	need(op, "jpvt", jpvt, n)
	if m > 0 && n > 0 {
		b.r.QRCP(m, n, a, jpvt, tau)
	}
}

// FormQ implements Orthogonal.
func (b Backend) FormQ(m, k int, a, tau []float64) {
	const op = "formq"
	checkDim(op, "k", k)
	checkOrder(op, "m", m, "k", k)
	need(op, "A", a, m*k)
	need(op, "tau", tau, k)
	if k > 0 {
		b.r.FormQ(m, k, a, tau)
	}
}
