//go:build cuda

package cuda

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/cudalib"
)

func dev(p interface{ Uintptr() uintptr }) cudalib.DevPtr { return cudalib.DevPtr(p.Uintptr()) }

// Name implements kernels.Impl.
func (w *Worker) Name() string { return "cuda" }

// Dpotrf implements kernels.Impl with cusolverDnDpotrf (lower): a = L L^T,
// returning LAPACK's info.
func (w *Worker) Dpotrf(n int, a []float64, lda int) int {
	if n == 0 {
		return 0
	}
	var info int
	w.must(w.do(func() error {
		if err := w.reservePotrf(n); err != nil {
			return err
		}
		if err := upload(w.buf[0], a, n, n, lda); err != nil {
			return err
		}
		var err error
		if info, err = w.potrfResident(n, dev(w.buf[0]), n); err != nil {
			return err
		}
		return download(a, lda, w.buf[0], n, n)
	}))
	return info
}

// potrfResident factorises the n x n matrix already on the device at a
// (leading dimension lda) in place, with the worker's workspace (which
// must hold cusolverDnDpotrf_bufferSize doubles for it), and returns
// LAPACK's info. Called with the context current.
func (w *Worker) potrfResident(n int, a cudalib.DevPtr, lda int) (int, error) {
	if err := w.solver.Dpotrf(n, a, lda, dev(w.work), w.lwork, dev(w.info)); err != nil {
		return 0, err
	}
	if err := w.sync(); err != nil {
		return 0, err
	}
	var info int32
	if err := cuMemcpyDtoH(unsafe.Pointer(&info), w.info, 4); err != nil {
		return 0, err
	}
	return int(info), nil
}

// Dtrsm implements kernels.Impl with cublasDtrsm_v2.
func (w *Worker) Dtrsm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	k := m
	if s == blas.Right {
		k = n
	}
	w.must(w.do(func() error {
		if err := w.reserve(max(k*k, m*n)); err != nil {
			return err
		}
		if err := upload(w.buf[0], a, k, k, lda); err != nil {
			return err
		}
		if err := upload(w.buf[1], b, m, n, ldb); err != nil {
			return err
		}
		if err := w.blas.Dtrsm(s, uplo, tA, d, m, n, alpha, dev(w.buf[0]), k, dev(w.buf[1]), m); err != nil {
			return err
		}
		if err := w.sync(); err != nil {
			return err
		}
		return download(b, ldb, w.buf[1], m, n)
	}))
}

// Dtrmm implements kernels.Impl with cublasDtrmm_v2 (in place).
func (w *Worker) Dtrmm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	k := m
	if s == blas.Right {
		k = n
	}
	w.must(w.do(func() error {
		if err := w.reserve(max(k*k, m*n)); err != nil {
			return err
		}
		if err := upload(w.buf[0], a, k, k, lda); err != nil {
			return err
		}
		if err := upload(w.buf[1], b, m, n, ldb); err != nil {
			return err
		}
		if err := w.blas.Dtrmm(s, uplo, tA, d, m, n, alpha, dev(w.buf[0]), k, dev(w.buf[1]), m); err != nil {
			return err
		}
		if err := w.sync(); err != nil {
			return err
		}
		return download(b, ldb, w.buf[1], m, n)
	}))
}

// Dtrtri implements kernels.Impl on the CPU (not a GPU task kind).
func (w *Worker) Dtrtri(uplo blas.Uplo, d blas.Diag, n int, a []float64, lda int) int {
	return w.cpu.Dtrtri(uplo, d, n, a, lda)
}

// Dsyrk implements kernels.Impl with cublasDsyrk_v2; only the uplo
// triangle of c changes (the whole tile travels both ways).
func (w *Worker) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
	beta float64, c []float64, ldc int) {
	if n == 0 {
		return
	}
	ar, ac := n, k
	if tA != blas.NoTrans {
		ar, ac = k, n
	}
	w.must(w.do(func() error {
		if err := w.reserve(max(ar*ac, n*n)); err != nil {
			return err
		}
		if err := upload(w.buf[0], a, ar, ac, lda); err != nil {
			return err
		}
		if err := upload(w.buf[2], c, n, n, ldc); err != nil {
			return err
		}
		if err := w.blas.Dsyrk(uplo, tA, n, k, alpha, dev(w.buf[0]), max(ar, 1), beta, dev(w.buf[2]), n); err != nil {
			return err
		}
		if err := w.sync(); err != nil {
			return err
		}
		return download(c, ldc, w.buf[2], n, n)
	}))
}

// Dgemm implements kernels.Impl with cublasDgemm_v2.
func (w *Worker) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ar, ac := m, k
	if tA != blas.NoTrans {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB != blas.NoTrans {
		br, bc = n, k
	}
	w.must(w.do(func() error {
		if err := w.reserve(max(ar*ac, br*bc, m*n)); err != nil {
			return err
		}
		if err := upload(w.buf[0], a, ar, ac, lda); err != nil {
			return err
		}
		if err := upload(w.buf[1], b, br, bc, ldb); err != nil {
			return err
		}
		if err := upload(w.buf[2], c, m, n, ldc); err != nil {
			return err
		}
		if err := w.blas.Dgemm(tA, tB, m, n, k, alpha, dev(w.buf[0]), max(ar, 1), dev(w.buf[1]), max(br, 1),
			beta, dev(w.buf[2]), m); err != nil {
			return err
		}
		if err := w.sync(); err != nil {
			return err
		}
		return download(c, ldc, w.buf[2], m, n)
	}))
}

// Dgemv implements kernels.Impl with cublasDgemv_v2.
func (w *Worker) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
	x []float64, incX int, beta float64, y []float64, incY int) {
	if m == 0 || n == 0 {
		return
	}
	if incX <= 0 || incY <= 0 {
		w.cpu.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	lx, ly := n, m
	if tA != blas.NoTrans {
		lx, ly = m, n
	}
	w.must(w.do(func() error {
		if err := w.reserve(max(m*n, lx, ly)); err != nil {
			return err
		}
		if err := upload(w.buf[0], a, m, n, lda); err != nil {
			return err
		}
		if err := w.uploadVec(w.buf[1], x, lx, incX); err != nil {
			return err
		}
		if err := w.uploadVec(w.buf[2], y, ly, incY); err != nil {
			return err
		}
		if err := w.blas.Dgemv(tA, m, n, alpha, dev(w.buf[0]), m, dev(w.buf[1]), 1, beta, dev(w.buf[2]), 1); err != nil {
			return err
		}
		if err := w.sync(); err != nil {
			return err
		}
		return w.downloadVec(y, ly, incY, w.buf[2])
	}))
}

// Dtrsv implements kernels.Impl on the CPU (not a GPU task kind).
func (w *Worker) Dtrsv(uplo blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int,
	x []float64, incX int) {
	w.cpu.Dtrsv(uplo, tA, d, n, a, lda, x, incX)
}

// Dgeadd implements kernels.Impl on the CPU (memory-bound).
func (w *Worker) Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int) {
	w.cpu.Dgeadd(m, n, alpha, a, lda, beta, b, ldb)
}

// Ddot implements kernels.Impl on the CPU.
func (w *Worker) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	return w.cpu.Ddot(n, x, incX, y, incY)
}
