//go:build cgo && !purego

package mixed

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// OpenBLAS implements Impl with OpenBLAS' CBLAS sgemm and strsm.
type OpenBLAS struct{}

// Default returns the fastest implementation compiled in: OpenBLAS.
func Default() Impl { return OpenBLAS{} }

// All returns every implementation compiled in, the default first.
func All() []Impl { return []Impl{OpenBLAS{}, Gonum{}} }

func fp(x []float32) *C.float {
	if len(x) == 0 {
		return nil
	}
	return (*C.float)(unsafe.Pointer(&x[0]))
}

func tr(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

// Name implements Impl.
func (OpenBLAS) Name() string { return "openblas" }

// Sgemm implements Impl.
func (OpenBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int,
	beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	_ = c[(n-1)*ldc+m-1]
	C.cblas_sgemm(C.CblasColMajor, tr(tA), tr(tB), C.blasint(m), C.blasint(n), C.blasint(k), C.float(alpha),
		fp(a), C.blasint(lda), fp(b), C.blasint(ldb), C.float(beta), fp(c), C.blasint(ldc))
}

// Strsm implements Impl.
func (OpenBLAS) Strsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int, alpha float32,
	a []float32, lda int, b []float32, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	_ = b[(n-1)*ldb+m-1]
	s, u, d := C.enum_CBLAS_SIDE(C.CblasLeft), C.enum_CBLAS_UPLO(C.CblasLower), C.enum_CBLAS_DIAG(C.CblasNonUnit)
	if side == blas.Right {
		s = C.CblasRight
	}
	if uplo == blas.Upper {
		u = C.CblasUpper
	}
	if diag == blas.Unit {
		d = C.CblasUnit
	}
	C.cblas_strsm(C.CblasColMajor, s, u, tr(tA), d, C.blasint(m), C.blasint(n), C.float(alpha), fp(a), C.blasint(lda),
		fp(b), C.blasint(ldb))
}
