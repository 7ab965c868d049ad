//go:build cgo && !purego

package kernels

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>

// LAPACK's Fortran symbol, as OpenBLAS exports it (32-bit integers).
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);

extern void dtrtri_(const char *uplo, const char *diag, const int *n, double *a, const int *lda, int *info);

static int trtri(char uplo, char diag, int n, double *a, int lda) {
	int info = 0;
	dtrtri_(&uplo, &diag, &n, a, &lda, &info);
	return info;
}

static int potrf_lower(int n, double *a, int lda) {
	int info = 0;
	char uplo = 'L';
	dpotrf_(&uplo, &n, a, &lda, &info);
	return info;
}
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// OpenBLAS implements Impl with OpenBLAS' CBLAS (column-major) and its LAPACK
// dpotrf_, called directly on the caller's memory without copies.
type OpenBLAS struct{}

func defaultImpl() Impl { return OpenBLAS{} }
func allImpls() []Impl  { return []Impl{OpenBLAS{}, Gonum{}} }

// DefaultThreads returns the threading control of the default
// implementation.
func DefaultThreads() Threads { return OpenBLAS{} }

func ptr(x []float64) *C.double {
	if len(x) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&x[0]))
}

func cUplo(u blas.Uplo) C.enum_CBLAS_UPLO {
	if u == blas.Lower {
		return C.CblasLower
	}
	return C.CblasUpper
}

func cTrans(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

func cSide(s blas.Side) C.enum_CBLAS_SIDE {
	if s == blas.Left {
		return C.CblasLeft
	}
	return C.CblasRight
}

func cDiag(d blas.Diag) C.enum_CBLAS_DIAG {
	if d == blas.Unit {
		return C.CblasUnit
	}
	return C.CblasNonUnit
}

// Name implements Impl.
func (OpenBLAS) Name() string { return "openblas" }

// Dpotrf implements Impl.
func (OpenBLAS) Dpotrf(n int, a []float64, lda int) int {
	if n == 0 {
		return 0
	}
	_ = a[(n-1)*lda+n-1]
	return int(C.potrf_lower(C.int(n), ptr(a), C.int(lda)))
}

// Dtrsm implements Impl.
func (OpenBLAS) Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	_ = b[(n-1)*ldb+m-1]
	C.cblas_dtrsm(C.CblasColMajor, cSide(side), cUplo(uplo), cTrans(tA), cDiag(diag),
		C.blasint(m), C.blasint(n), C.double(alpha), ptr(a), C.blasint(lda), ptr(b), C.blasint(ldb))
}

// Dtrmm implements Impl.
func (OpenBLAS) Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	k := m
	if side == blas.Right {
		k = n
	}
	_, _ = a[(k-1)*lda+k-1], b[(n-1)*ldb+m-1]
	C.cblas_dtrmm(C.CblasColMajor, cSide(side), cUplo(uplo), cTrans(tA), cDiag(diag),
		C.blasint(m), C.blasint(n), C.double(alpha), ptr(a), C.blasint(lda), ptr(b), C.blasint(ldb))
}

// Dtrtri implements Impl with LAPACK's dtrtri_.
func (OpenBLAS) Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) int {
	if n == 0 {
		return 0
	}
	_ = a[(n-1)*lda+n-1]
	u, d := C.char('L'), C.char('N')
	if uplo == blas.Upper {
		u = 'U'
	}
	if diag == blas.Unit {
		d = 'U'
	}
	return int(C.trtri(u, d, C.int(n), ptr(a), C.int(lda)))
}

// Dsyrk implements Impl.
func (OpenBLAS) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
	beta float64, c []float64, ldc int) {
	if n == 0 {
		return
	}
	_ = c[(n-1)*ldc+n-1]
	C.cblas_dsyrk(C.CblasColMajor, cUplo(uplo), cTrans(tA), C.blasint(n), C.blasint(k),
		C.double(alpha), ptr(a), C.blasint(lda), C.double(beta), ptr(c), C.blasint(ldc))
}

// Dgemm implements Impl.
func (OpenBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	_ = c[(n-1)*ldc+m-1]
	C.cblas_dgemm(C.CblasColMajor, cTrans(tA), cTrans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.double(alpha), ptr(a), C.blasint(lda), ptr(b), C.blasint(ldb), C.double(beta), ptr(c), C.blasint(ldc))
}

// Dgemv implements Impl.
func (OpenBLAS) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
	x []float64, incX int, beta float64, y []float64, incY int) {
	if m == 0 || n == 0 {
		return
	}
	if tA == blas.NoTrans {
		_, _ = x[(n-1)*incX], y[(m-1)*incY]
	} else {
		_, _ = x[(m-1)*incX], y[(n-1)*incY]
	}
	_ = a[(n-1)*lda+m-1]
	C.cblas_dgemv(C.CblasColMajor, cTrans(tA), C.blasint(m), C.blasint(n), C.double(alpha),
		ptr(a), C.blasint(lda), ptr(x), C.blasint(incX), C.double(beta), ptr(y), C.blasint(incY))
}

// Dtrsv implements Impl.
func (OpenBLAS) Dtrsv(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n int, a []float64, lda int,
	x []float64, incX int) {
	if n == 0 {
		return
	}
	_, _ = a[(n-1)*lda+n-1], x[(n-1)*incX]
	C.cblas_dtrsv(C.CblasColMajor, cUplo(uplo), cTrans(tA), cDiag(diag), C.blasint(n),
		ptr(a), C.blasint(lda), ptr(x), C.blasint(incX))
}

// Dgeadd implements Impl. A plain loop: the operation is memory-bound and a
// cgo call would cost more than it saves on small tiles.
func (OpenBLAS) Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int) {
	geadd(m, n, alpha, a, lda, beta, b, ldb)
}

// Ddot implements Impl.
func (OpenBLAS) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	if n == 0 {
		return 0
	}
	_, _ = x[(n-1)*incX], y[(n-1)*incY]
	return float64(C.cblas_ddot(C.blasint(n), ptr(x), C.blasint(incX), ptr(y), C.blasint(incY)))
}

// SetThreads implements Threads.
func (OpenBLAS) SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// CoreName implements Threads.
func (OpenBLAS) CoreName() string { return C.GoString(C.openblas_get_corename()) }
