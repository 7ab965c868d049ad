package gpu

import "gonum.org/v1/gonum/blas"

// Driver is one accelerator's own calls, all that the kernel set
// (Kernels), the runtime device (Device) and the staging of host tiles
// (Staged) need of it: device memory and copies (the CUDA driver API), and
// the BLAS and the Cholesky on device addresses, enqueued on the device's
// kernel stream (cuBLAS, cuSOLVER). Package cuda implements it for a GPU,
// Emulator in host memory. Every call but Name, Arch and Close is made
// inside Do.
type Driver interface {
	// Name names the device in traces and errors ("cuda0"); Arch is its
	// worker type in performance models ("cuda").
	Name() string
	Arch() string
	// Do runs f with the device current on the calling thread (CUDA: a
	// locked OS thread with the device's context current).
	Do(f func() error) error
	// Alloc returns the address of bytes bytes of device memory (aligned
	// to 256 bytes); Free gives them back.
	Alloc(bytes int64) (uintptr, error)
	Free(p uintptr) error
	// CopyIn copies src to the device at dst, CopyOut the device at src
	// into dst; each has finished when it returns. They run on a stream of
	// their own, beside the kernels'.
	CopyIn(dst uintptr, src []float64) error
	CopyOut(dst []float64, src uintptr) error
	// Sync waits for the routines enqueued on the kernel stream.
	Sync() error
	// Close releases the driver's streams and handles.
	Close() error
	BLAS
	Solver
}

// BLAS is the double-precision BLAS on device addresses, enqueued on the
// kernel stream (cuBLAS' _v2 routines, column-major): each routine is its
// reference BLAS namesake, with the arguments of linalg.BLAS's method of
// the same name (checked by the caller), and Dtrmm works in place on b.
type BLAS interface {
	Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a uintptr, lda int, b uintptr, ldb int,
		beta float64, c uintptr, ldc int) error
	Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a uintptr, lda int,
		beta float64, c uintptr, ldc int) error
	Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
		alpha float64, a uintptr, lda int, b uintptr, ldb int) error
	Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
		alpha float64, a uintptr, lda int, b uintptr, ldb int) error
	Dgemv(tA blas.Transpose, m, n int, alpha float64, a uintptr, lda int, x uintptr, incX int,
		beta float64, y uintptr, incY int) error
	Dcopy(n int, x uintptr, incX int, y uintptr, incY int) error
}

// Solver is the Cholesky factorisation on device addresses (cuSOLVER's
// dense potrf, lower triangle).
type Solver interface {
	// DpotrfBufferSize returns the workspace, in doubles, that Dpotrf needs
	// for the n x n matrix at a with leading dimension lda.
	DpotrfBufferSize(n int, a uintptr, lda int) (int, error)
	// Dpotrf overwrites the lower triangle of the n x n matrix at a with
	// L, A = L L^T, using the workspace work of lwork doubles, and writes
	// LAPACK's info (0, or the order of the first leading minor that is
	// not positive) as a 32-bit integer to the device at info.
	Dpotrf(n int, a uintptr, lda int, work uintptr, lwork int, info uintptr) error
}

// Pinner is a Driver that page-locks host memory for its copies
// (cuMemHostRegister), so that they run at the link's full rate.
type Pinner interface {
	Pin(b []float64) error
	Unpin(b []float64) error
}
