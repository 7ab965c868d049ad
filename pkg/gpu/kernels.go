package gpu

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/linalg"
)

// Kernels is the one set of tile kernels of an accelerator, on device
// addresses (kernels.Device): what a runtime device's worker runs on the
// tiles resident there (Device.Kernels), and what Staged runs for host
// tiles (calibration, the kernel suite). Each call checks its arguments as
// package linalg does (a programmer error panics, before the device sees
// it), returns at once when the operation is empty, enqueues the driver's
// routine and waits for it; Dpotrf also reads LAPACK's info back. Not
// safe for concurrent use: one worker per device.
type Kernels struct {
	drv   Driver
	work  uintptr   // the potrf workspace
	lwork int       // its doubles
	info  uintptr   // one device word for potrf's info
	word  []float64 // its host copy: an allocation of its own, which holds no Go pointer (cgo's check)
	diag  uintptr   // the factor's diagonal, copied out of it on the device
	ndiag int       // diag's doubles
	dhost []float64 // its host copy (an allocation of its own too)
}

// newKernels makes the kernel set of drv (called inside Do): the info
// word, and the potrf workspace for order nb when scratch, an n x n
// matrix on the device (nb x nb at least, or 0), lets the driver size it.
func newKernels(drv Driver, nb int, scratch uintptr) (*Kernels, error) {
	k := &Kernels{drv: drv, word: make([]float64, 1)}
	var err error
	if k.info, err = drv.Alloc(8); err != nil {
		return nil, fmt.Errorf("allocating the potrf info word: %v", err)
	}
	if scratch != 0 {
		if err := k.reserve(nb, scratch, nb); err != nil {
			k.close()
			return nil, err
		}
	}
	return k, nil
}

// reserve makes the potrf workspace hold what the driver asks for the
// n x n matrix at a (inside Do).
func (k *Kernels) reserve(n int, a uintptr, lda int) error {
	lw, err := k.drv.DpotrfBufferSize(n, a, lda)
	if err != nil {
		return err
	}
	return k.grow(&k.work, &k.lwork, lw, "the potrf workspace")
}

// reserveDiag makes the diagonal buffers hold n doubles (inside Do).
func (k *Kernels) reserveDiag(n int) error {
	if n > k.ndiag {
		k.dhost = make([]float64, n)
	}
	return k.grow(&k.diag, &k.ndiag, n, "the potrf diagonal")
}

// grow makes the device buffer *p of *have doubles hold at least words,
// freeing it and allocating anew when it is smaller (inside Do).
func (k *Kernels) grow(p *uintptr, have *int, words int, what string) error {
	if words <= *have {
		return nil
	}
	if *p != 0 {
		if err := k.drv.Free(*p); err != nil {
			return err
		}
		*p, *have = 0, 0
	}
	q, err := k.drv.Alloc(int64(words) * 8)
	if err != nil {
		return fmt.Errorf("allocating %s (%d doubles): %v", what, words, err)
	}
	*p, *have = q, words
	return nil
}

// close frees the workspace, the info word and the diagonal (inside Do).
func (k *Kernels) close() {
	for _, p := range []*uintptr{&k.work, &k.info, &k.diag} {
		if *p != 0 {
			_ = k.drv.Free(*p)
			*p = 0
		}
	}
}

// run enqueues f's routine and waits for it, with the device current.
func (k *Kernels) run(f func() error) error {
	return k.drv.Do(func() error {
		if err := f(); err != nil {
			return err
		}
		return k.drv.Sync()
	})
}

// Name returns the device's worker type ("cuda").
func (k *Kernels) Name() string { return k.drv.Arch() }

// Dpotrf factors the lower triangle of the n x n matrix at a = L L^T in
// place and returns LAPACK's info (0, or the order of the first leading
// minor that is not positive). cuSOLVER's own info is not LAPACK's: on an
// H100 (CUDA 13) a matrix whose minor of order 64 is not positive read
// info 0 at n = 64 (the square root of a negative pivot left as NaN) and
// 65 at n = 65, and one failing at order 320 of 960 read 321. So the
// factor's diagonal is also read back (one cublasDcopy and a copy of n
// doubles): the first L_jj that is not > 0 (a NaN, 0 or a negative pivot
// left in place) gives info = j + 1, as LAPACK's, whichever comes first.
func (k *Kernels) Dpotrf(n int, a uintptr, lda int) (int, error) {
	linalg.CheckPotrf(n, lda)
	if n == 0 {
		return 0, nil
	}
	var info int
	err := k.drv.Do(func() error {
		if err := k.reserve(n, a, lda); err != nil {
			return err
		}
		if err := k.drv.Dpotrf(n, a, lda, k.work, k.lwork, k.info); err != nil {
			return err
		}
		if err := k.drv.Sync(); err != nil {
			return err
		}
		// The driver wrote a 32-bit integer: the low half of the word.
		if err := k.drv.CopyOut(k.word, k.info); err != nil {
			return err
		}
		info = int(int32(uint32(math.Float64bits(k.word[0]))))
		if err := k.reserveDiag(n); err != nil {
			return err
		}
		if err := k.drv.Dcopy(n, a, lda+1, k.diag, 1); err != nil {
			return err
		}
		if err := k.drv.Sync(); err != nil {
			return err
		}
		if err := k.drv.CopyOut(k.dhost[:n], k.diag); err != nil {
			return err
		}
		for j, d := range k.dhost[:n] {
			if !(d > 0) {
				if info <= 0 || j+1 < info {
					info = j + 1
				}
				break
			}
		}
		return nil
	})
	return info, err
}

// Dtrsm solves op(a) X = alpha b (side Left) or X op(a) = alpha b (side
// Right) for X, overwriting the m x n matrix at b; a is triangular.
func (k *Kernels) Dtrsm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int,
	alpha float64, a uintptr, lda int, b uintptr, ldb int) error {
	if _, lb := linalg.CheckTriangular("trsm", s, uplo, tA, d, m, n, lda, ldb); lb == 0 {
		return nil
	}
	return k.run(func() error { return k.drv.Dtrsm(s, uplo, tA, d, m, n, alpha, a, lda, b, ldb) })
}

// Dtrmm computes b = alpha op(a) b (side Left) or alpha b op(a) (side
// Right) in place, a triangular.
func (k *Kernels) Dtrmm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int,
	alpha float64, a uintptr, lda int, b uintptr, ldb int) error {
	if _, lb := linalg.CheckTriangular("trmm", s, uplo, tA, d, m, n, lda, ldb); lb == 0 {
		return nil
	}
	return k.run(func() error { return k.drv.Dtrmm(s, uplo, tA, d, m, n, alpha, a, lda, b, ldb) })
}

// Dsyrk computes c = alpha op(a) op(a)^T + beta c on the uplo triangle
// of the n x n matrix at c.
func (k *Kernels) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, kk int, alpha float64, a uintptr, lda int,
	beta float64, c uintptr, ldc int) error {
	if _, lc := linalg.CheckSyrk(uplo, tA, n, kk, lda, ldc); lc == 0 {
		return nil
	}
	return k.run(func() error { return k.drv.Dsyrk(uplo, tA, n, kk, alpha, a, lda, beta, c, ldc) })
}

// Dgemm computes c = alpha op(a) op(b) + beta c, c m x n.
func (k *Kernels) Dgemm(tA, tB blas.Transpose, m, n, kk int, alpha float64, a uintptr, lda int,
	b uintptr, ldb int, beta float64, c uintptr, ldc int) error {
	if _, _, lc := linalg.CheckGemm(tA, tB, m, n, kk, lda, ldb, ldc); lc == 0 {
		return nil
	}
	return k.run(func() error { return k.drv.Dgemm(tA, tB, m, n, kk, alpha, a, lda, b, ldb, beta, c, ldc) })
}

// Dgemv computes y = alpha op(a) x + beta y for the m x n matrix at a,
// with unit strides.
func (k *Kernels) Dgemv(tA blas.Transpose, m, n int, alpha float64, a uintptr, lda int, x uintptr,
	beta float64, y uintptr) error {
	if la, _, _ := linalg.CheckGemv(tA, m, n, lda, 1, 1); la == 0 {
		return nil
	}
	return k.run(func() error { return k.drv.Dgemv(tA, m, n, alpha, a, lda, x, 1, beta, y, 1) })
}
