package gpu

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/linalg"
)

// Emulator is a Driver in host memory, the GPU's stand-in where there is
// none: device addresses are addresses in an address space of its own,
// each allocation a block of host memory, and every routine maps its
// operands' addresses back to host slices and runs a host library
// (package linalg) on them. A Device, Kernels or Staged over it runs the
// code they run over a GPU, minus the CUDA calls: the argument checks, the
// tile region and its blocks, the copies, the staging of host tiles, the
// potrf workspace and its 32-bit info word. An address outside the blocks
// or an operand running past the end of its block panics, where a GPU
// would fault or silently corrupt memory; a potrf workspace smaller than
// the driver asked for is an error, as cuSOLVER's invalid value.
type Emulator struct {
	name string
	cpu  linalg.Backend

	mu     sync.Mutex
	blocks []emuBlock // sorted by address
	next   uintptr
	calls  atomic.Int64
}

// emuBlock is one allocation: its address and its memory.
type emuBlock struct {
	addr uintptr
	mem  []float64
}

// emuBase is the first address the emulator hands out; emuGap separates
// its blocks, so that an operand running past one block's end lands
// outside every block.
const (
	emuBase = 1 << 32
	emuGap  = 4096
)

// NewEmulator returns an emulated device named "emu<id>" whose routines
// run on the default host library.
func NewEmulator(id int) *Emulator {
	return &Emulator{name: fmt.Sprintf("emu%d", id), cpu: linalg.Default(), next: emuBase}
}

// Name implements Driver.
func (e *Emulator) Name() string { return e.name }

// Arch implements Driver: the worker type of a device in host RAM, as
// runtime.HostTest's.
func (e *Emulator) Arch() string { return "host-test" }

// Calls returns the number of BLAS and solver routines the emulator has
// run, for tests that a path reached the device.
func (e *Emulator) Calls() int64 { return e.calls.Load() }

// Do implements Driver: the routines run on the calling goroutine.
func (e *Emulator) Do(f func() error) error { return f() }

// Alloc implements Driver.
func (e *Emulator) Alloc(bytes int64) (uintptr, error) {
	if bytes <= 0 {
		return 0, fmt.Errorf("%s: allocation of %d bytes", e.name, bytes)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	words := (bytes + 7) / 8
	b := emuBlock{addr: e.next, mem: make([]float64, words)}
	e.blocks = append(e.blocks, b)
	e.next += uintptr((words*8+regionAlign-1)&^(regionAlign-1)) + emuGap
	return b.addr, nil
}

// Free implements Driver.
func (e *Emulator) Free(p uintptr) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	i := sort.Search(len(e.blocks), func(i int) bool { return e.blocks[i].addr >= p })
	if i == len(e.blocks) || e.blocks[i].addr != p {
		return fmt.Errorf("%s: free of %#x, not an allocation", e.name, p)
	}
	e.blocks = append(e.blocks[:i], e.blocks[i+1:]...)
	return nil
}

// mem returns the n doubles at device address p (nil when n is 0), or
// panics when they do not lie in one block.
func (e *Emulator) mem(p uintptr, n int) []float64 {
	if n == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	i := sort.Search(len(e.blocks), func(i int) bool { return e.blocks[i].addr > p }) - 1
	if i < 0 || (p-e.blocks[i].addr)%8 != 0 {
		panic(fmt.Sprintf("%s: address %#x is not in a block, or not aligned", e.name, p))
	}
	b := e.blocks[i]
	off := int(p-b.addr) / 8
	if off+n > len(b.mem) {
		panic(fmt.Sprintf("%s: %d doubles at %#x run past the end of their block (%d doubles at %#x)",
			e.name, n, p, len(b.mem), b.addr))
	}
	return b.mem[off : off+n]
}

// CopyIn implements Driver.
func (e *Emulator) CopyIn(dst uintptr, src []float64) error {
	cgoPointerCheck(src)
	copy(e.mem(dst, len(src)), src)
	return nil
}

// CopyOut implements Driver.
func (e *Emulator) CopyOut(dst []float64, src uintptr) error {
	cgoPointerCheck(dst)
	copy(dst, e.mem(src, len(dst)))
	return nil
}

// Sync implements Driver: the routines have run when they return.
func (e *Emulator) Sync() error { return nil }

// Close implements Driver.
func (e *Emulator) Close() error { return nil }

// Dgemm implements BLAS.
func (e *Emulator) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a uintptr, lda int, b uintptr, ldb int,
	beta float64, c uintptr, ldc int) error {
	e.calls.Add(1)
	la, lb, lc := linalg.CheckGemm(tA, tB, m, n, k, lda, ldb, ldc)
	e.cpu.Dgemm(tA, tB, m, n, k, alpha, e.mem(a, la), lda, e.mem(b, lb), ldb, beta, e.mem(c, lc), ldc)
	return nil
}

// Dsyrk implements BLAS.
func (e *Emulator) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a uintptr, lda int,
	beta float64, c uintptr, ldc int) error {
	e.calls.Add(1)
	la, lc := linalg.CheckSyrk(uplo, tA, n, k, lda, ldc)
	e.cpu.Dsyrk(uplo, tA, n, k, alpha, e.mem(a, la), lda, beta, e.mem(c, lc), ldc)
	return nil
}

// Dtrsm implements BLAS.
func (e *Emulator) Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a uintptr, lda int, b uintptr, ldb int) error {
	return e.triangular("trsm", e.cpu.Dtrsm, side, uplo, tA, diag, m, n, alpha, a, lda, b, ldb)
}

// Dtrmm implements BLAS, in place on b.
func (e *Emulator) Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a uintptr, lda int, b uintptr, ldb int) error {
	return e.triangular("trmm", e.cpu.Dtrmm, side, uplo, tA, diag, m, n, alpha, a, lda, b, ldb)
}

// triangular maps the operands of the triangular routine op and runs
// host, its host library's.
func (e *Emulator) triangular(op string, host func(blas.Side, blas.Uplo, blas.Transpose, blas.Diag, int, int,
	float64, []float64, int, []float64, int), side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag,
	m, n int, alpha float64, a uintptr, lda int, b uintptr, ldb int) error {
	e.calls.Add(1)
	la, lb := linalg.CheckTriangular(op, side, uplo, tA, diag, m, n, lda, ldb)
	host(side, uplo, tA, diag, m, n, alpha, e.mem(a, la), lda, e.mem(b, lb), ldb)
	return nil
}

// Dgemv implements BLAS.
func (e *Emulator) Dgemv(tA blas.Transpose, m, n int, alpha float64, a uintptr, lda int, x uintptr, incX int,
	beta float64, y uintptr, incY int) error {
	e.calls.Add(1)
	la, lx, ly := linalg.CheckGemv(tA, m, n, lda, incX, incY)
	e.cpu.Dgemv(tA, m, n, alpha, e.mem(a, la), lda, e.mem(x, lx), incX, beta, e.mem(y, ly), incY)
	return nil
}

// Dcopy implements BLAS (positive strides, as the kernels use it).
func (e *Emulator) Dcopy(n int, x uintptr, incX int, y uintptr, incY int) error {
	e.calls.Add(1)
	if n <= 0 {
		return nil
	}
	if incX < 1 || incY < 1 {
		panic(fmt.Sprintf("%s: dcopy strides %d, %d: want positive", e.name, incX, incY))
	}
	xs, ys := e.mem(x, (n-1)*incX+1), e.mem(y, (n-1)*incY+1)
	for i := range n {
		ys[i*incY] = xs[i*incX]
	}
	return nil
}

// DpotrfBufferSize implements Solver: the emulator asks for n doubles, so
// that the workspace is sized, allocated and passed as on a GPU.
func (e *Emulator) DpotrfBufferSize(n int, a uintptr, lda int) (int, error) { return n, nil }

// Dpotrf implements Solver: it checks the workspace, factors on the host
// and writes info into the low 32 bits of the word at info, as cuSOLVER
// writes an int there.
func (e *Emulator) Dpotrf(n int, a uintptr, lda int, work uintptr, lwork int, info uintptr) error {
	e.calls.Add(1)
	if lwork < n {
		return fmt.Errorf("%s: potrf workspace of %d doubles, %d asked for", e.name, lwork, n)
	}
	e.mem(work, lwork)
	r := e.cpu.Dpotrf(n, e.mem(a, linalg.CheckPotrf(n, lda)), lda)
	w := e.mem(info, 1)
	w[0] = math.Float64frombits(math.Float64bits(w[0])&^0xffffffff | uint64(uint32(int32(r))))
	return nil
}
