package kernels

import "gonum.org/v1/gonum/blas"

// Device is a set of tile kernels on a device's memory (a GPU's cuBLAS and
// cuSOLVER): the same operations as the Impl kernels of the device kinds,
// on buffers given by their device addresses (column-major, leading
// dimensions as in BLAS), with the same argument checks. A runtime device
// that offers one (its Kernels method) runs the device kinds with it; one
// that does not (runtime.HostTest) runs the CPU kernels on its copies.
// Package gpu's Kernels is the one implementation, over CUDA or its host
// emulation.
type Device interface {
	Name() string
	// Dpotrf factors the lower triangle of a = L L^T in place and returns
	// LAPACK's info (0, or the order of the first non-positive minor).
	Dpotrf(n int, a uintptr, lda int) (int, error)
	// Dtrsm solves op(a) X = alpha b (side Left) or X op(a) = alpha b
	// (side Right) for X, overwriting b.
	Dtrsm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a uintptr, lda int, b uintptr, ldb int) error
	// Dtrmm computes b = alpha op(a) b (side Left) or alpha b op(a).
	Dtrmm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a uintptr, lda int, b uintptr, ldb int) error
	// Dsyrk computes c = alpha a a^T + beta c on the uplo triangle (tA NoTrans).
	Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a uintptr, lda int, beta float64, c uintptr, ldc int) error
	// Dgemm computes c = alpha op(a) op(b) + beta c.
	Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a uintptr, lda int, b uintptr, ldb int, beta float64, c uintptr, ldc int) error
	// Dgemv computes y = alpha op(a) x + beta y (unit strides).
	Dgemv(tA blas.Transpose, m, n int, alpha float64, a uintptr, lda int, x uintptr, beta float64, y uintptr) error
}
