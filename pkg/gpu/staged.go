package gpu

import (
	"fmt"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/linalg"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// Staged runs a device's kernel set on host tiles, as a kernels.Impl:
// each call of a device kernel (potrf, trsm, trmm, syrk, gemm, gemv)
// copies its operands into blocks of the device's region, packed (leading
// dimension the rows, vectors contiguous), runs the kernel on them and
// copies its output back; the other kernels (trtri, trsv, geadd, dot, and
// a gemv with a negative increment) run on the host library it embeds.
// It measures (calibrate --gpus) and checks (the kernel suite) the kernels
// the runtime runs on resident tiles. Its blocks grow when a larger call
// comes. Not safe for concurrent use; a device failure panics
// (kernels.Impl has no error results: it is a fault, not bad input).
type Staged struct {
	kernels.Impl // the host library for the kernels a device does not run
	d            *Device
	buf          [3]runtime.DevBuf
	host         []float64 // scratch for padded and strided operands
	kernelTime   time.Duration
}

// DeviceSeconds returns the seconds the device kernels of s's calls have
// taken so far, each from its launch to its completion (the copies before
// and after it excluded): what the same calls cost a worker whose tiles
// stay on the device (bench.DeviceClock).
func (s *Staged) DeviceSeconds() float64 { return s.kernelTime.Seconds() }

// NewStaged returns the staging of d's kernels, with host for the rest.
func NewStaged(d *Device, host kernels.Impl) *Staged { return &Staged{Impl: host, d: d} }

// Name returns the device's worker type ("cuda").
func (s *Staged) Name() string { return s.d.kern.Name() }

// Close gives the blocks back to the device's region.
func (s *Staged) Close() {
	for i := range s.buf {
		if s.buf[i].Words > 0 {
			s.d.Free(s.buf[i])
			s.buf[i] = runtime.DevBuf{}
		}
	}
}

// operand is a host matrix of rows x cols with leading dimension ld (a
// vector: 1 x n with ld its increment), copied to the device before the
// kernel and, if out, back after it.
type operand struct {
	x          []float64
	rows, cols int
	ld         int
	out        bool
}

func (o operand) words() int   { return o.rows * o.cols }
func (o operand) packed() bool { return o.ld == o.rows || o.cols <= 1 }

// at returns the index in o.x of the k-th element in packed order.
func (o operand) at(k int) int { return k%o.rows + k/o.rows*o.ld }

// call stages ops into blocks 0, 1, ..., runs kernel with their device
// addresses and copies the outputs back; a failure panics.
func (s *Staged) call(kernel func(p [3]uintptr) error, ops ...operand) {
	err := func() error {
		var p [3]uintptr
		for i, o := range ops {
			if err := s.reserve(i, max(1, o.words())); err != nil {
				return err
			}
			p[i] = s.buf[i].Ptr
			if err := s.d.ToDevice(s.buf[i], s.gather(o)); err != nil {
				return err
			}
		}
		t0 := time.Now()
		err := kernel(p)
		s.kernelTime += time.Since(t0)
		if err != nil {
			return err
		}
		for i, o := range ops {
			if o.out {
				if err := s.scatter(o, s.buf[i]); err != nil {
					return err
				}
			}
		}
		return nil
	}()
	if err != nil {
		panic(fmt.Sprintf("gpu: %s: staged kernel: %v", s.d.Name(), err))
	}
}

// reserve makes block i hold at least words doubles.
func (s *Staged) reserve(i, words int) error {
	if s.buf[i].Words >= words {
		return nil
	}
	if s.buf[i].Words > 0 {
		s.d.Free(s.buf[i])
		s.buf[i] = runtime.DevBuf{}
	}
	b, err := s.d.Alloc(words)
	if err != nil {
		return err
	}
	s.buf[i] = b
	return nil
}

// gather returns o's elements in packed order: o.x itself when it is
// packed, else a copy in the scratch buffer.
func (s *Staged) gather(o operand) []float64 {
	n := o.words()
	if o.packed() {
		return o.x[:n]
	}
	s.host = append(s.host[:0], make([]float64, n)...)
	for k := range n {
		s.host[k] = o.x[o.at(k)]
	}
	return s.host
}

// scatter copies the packed block b back into o's elements, leaving what
// lies between them (padding, the gaps of a strided vector) untouched.
func (s *Staged) scatter(o operand, b runtime.DevBuf) error {
	n := o.words()
	if o.packed() {
		return s.d.ToHost(o.x[:n], b)
	}
	s.host = append(s.host[:0], make([]float64, n)...)
	if err := s.d.ToHost(s.host, b); err != nil {
		return err
	}
	for k, v := range s.host {
		o.x[o.at(k)] = v
	}
	return nil
}

// opShape returns the shape of the matrix X whose op(X) is rows x cols.
func opShape(t blas.Transpose, rows, cols int) (int, int) {
	if t == blas.NoTrans {
		return rows, cols
	}
	return cols, rows
}

// Dpotrf implements kernels.Impl on the device.
func (s *Staged) Dpotrf(n int, a []float64, lda int) int {
	if linalg.CheckPotrf(n, lda) == 0 {
		return 0
	}
	var info int
	s.call(func(p [3]uintptr) (err error) {
		info, err = s.d.kern.Dpotrf(n, p[0], n)
		return err
	}, operand{a, n, n, lda, true})
	return info
}

// Dtrsm implements kernels.Impl on the device.
func (s *Staged) Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	s.triangular(s.d.kern.Dtrsm, "trsm", side, uplo, tA, diag, m, n, alpha, a, lda, b, ldb)
}

// Dtrmm implements kernels.Impl on the device.
func (s *Staged) Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	s.triangular(s.d.kern.Dtrmm, "trmm", side, uplo, tA, diag, m, n, alpha, a, lda, b, ldb)
}

// triangular stages a Dtrsm or a Dtrmm: the p x p triangular a (p the
// order on its side) and the m x n b, in place.
func (s *Staged) triangular(kernel func(blas.Side, blas.Uplo, blas.Transpose, blas.Diag, int, int, float64,
	uintptr, int, uintptr, int) error, op string, side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag,
	m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if _, lb := linalg.CheckTriangular(op, side, uplo, tA, diag, m, n, lda, ldb); lb == 0 {
		return
	}
	p := m
	if side == blas.Right {
		p = n
	}
	s.call(func(ptr [3]uintptr) error {
		return kernel(side, uplo, tA, diag, m, n, alpha, ptr[0], p, ptr[1], m)
	}, operand{a, p, p, lda, false}, operand{b, m, n, ldb, true})
}

// Dsyrk implements kernels.Impl on the device; the whole n x n tile
// travels both ways, and the triangle the device does not touch comes
// back as it went.
func (s *Staged) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
	beta float64, c []float64, ldc int) {
	if _, lc := linalg.CheckSyrk(uplo, tA, n, k, lda, ldc); lc == 0 {
		return
	}
	ar, ac := opShape(tA, n, k)
	s.call(func(p [3]uintptr) error {
		return s.d.kern.Dsyrk(uplo, tA, n, k, alpha, p[0], max(1, ar), beta, p[1], n)
	}, operand{a, ar, ac, lda, false}, operand{c, n, n, ldc, true})
}

// Dgemm implements kernels.Impl on the device.
func (s *Staged) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	if _, _, lc := linalg.CheckGemm(tA, tB, m, n, k, lda, ldb, ldc); lc == 0 {
		return
	}
	ar, ac := opShape(tA, m, k)
	br, bc := opShape(tB, k, n)
	s.call(func(p [3]uintptr) error {
		return s.d.kern.Dgemm(tA, tB, m, n, k, alpha, p[0], max(1, ar), p[1], max(1, br), beta, p[2], m)
	}, operand{a, ar, ac, lda, false}, operand{b, br, bc, ldb, false}, operand{c, m, n, ldc, true})
}

// Dgemv implements kernels.Impl on the device (the device kernel has unit
// strides: the vectors travel packed).
func (s *Staged) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
	x []float64, incX int, beta float64, y []float64, incY int) {
	la, _, _ := linalg.CheckGemv(tA, m, n, lda, incX, incY)
	if la == 0 {
		return
	}
	if incX < 0 || incY < 0 {
		s.Impl.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	ly, lx := opShape(tA, m, n)
	s.call(func(p [3]uintptr) error {
		return s.d.kern.Dgemv(tA, m, n, alpha, p[0], m, p[1], beta, p[2])
	}, operand{a, m, n, lda, false}, operand{x, 1, lx, incX, false}, operand{y, 1, ly, incY, true})
}
