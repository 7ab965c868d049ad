package gpu_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/gpu"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kernels/kerneltest"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// tileSize is the tile size the device suite checks Dpotrf at, as the GPU
// checks do (a GPU's tiles are this size).
const tileSize = 960

// openEmulated opens an emulated device with a region of bytes.
func openEmulated(t *testing.T, nb int, bytes int64) (*gpu.Device, *gpu.Emulator) {
	t.Helper()
	emu := gpu.NewEmulator(0)
	d, err := gpu.Open(emu, nb, bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d, emu
}

// TestSuiteEmulated runs the shared kernel suite over the one kernel set
// of a device, on the host emulation of a GPU: each call's tiles go into
// the device's region, the kernel set checks the arguments and calls the
// driver by address, and the result comes back, the code path of a GPU
// minus the CUDA calls. The tolerances are the GPU checks'.
func TestSuiteEmulated(t *testing.T) {
	d, emu := openEmulated(t, tileSize, 64<<20)
	s := gpu.NewStaged(d, kernels.Default())
	defer s.Close()
	kerneltest.Run(t, s, kerneltest.Options{Only: kerneltest.Device(), Large: tileSize})
	if emu.Calls() < 1000 {
		t.Errorf("the emulated device ran %d routines: the suite did not reach it", emu.Calls())
	}
	if got := s.Name(); got != "host-test" {
		t.Errorf("Staged.Name() = %q, want the device's worker type", got)
	}
}

// panicMessage returns what f panics with, or "no panic".
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return "no panic"
}

// TestKernelsCheckFirst: a call a caller must never make panics in the
// kernel set, with linalg's message, before the device sees it.
func TestKernelsCheckFirst(t *testing.T) {
	d, emu := openEmulated(t, 8, 1<<16)
	k := d.Kernels().(kernels.Device)
	buf, err := d.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	p := buf.Ptr
	const N = blas.NoTrans
	cases := []struct {
		want string
		call func()
	}{
		{"linalg: gemm: ldc = 2 < max(1, 3)", func() { _ = k.Dgemm(N, N, 3, 3, 3, 1, p, 3, p, 3, 0, p, 2) }},
		{"linalg: syrk: uplo = 'A'", func() { _ = k.Dsyrk(blas.All, N, 3, 3, 1, p, 3, 0, p, 3) }},
		{"linalg: trsm: side = 'X'", func() { _ = k.Dtrsm('X', blas.Lower, N, blas.NonUnit, 2, 2, 1, p, 2, p, 2) }},
		{"linalg: trmm: lda = 1 < max(1, 2)", func() { _ = k.Dtrmm(blas.Left, blas.Lower, N, blas.Unit, 2, 2, 1, p, 1, p, 2) }},
		{"linalg: gemv: m = -1 < 0", func() { _ = k.Dgemv(N, -1, 2, 1, p, 1, p, 0, p) }},
		{"linalg: potrf: lda = 3 < max(1, 4)", func() { _, _ = k.Dpotrf(4, p, 3) }},
	}
	for _, c := range cases {
		if msg := panicMessage(c.call); !strings.HasPrefix(msg, c.want) {
			t.Errorf("panic %q, want %q", msg, c.want)
		}
	}
	if emu.Calls() != 0 {
		t.Errorf("the device ran %d routines for calls that must not reach it", emu.Calls())
	}
	// Empty calls return at once, without the device either.
	if err := k.Dgemm(N, N, 0, 3, 3, 1, 0, 1, p, 3, 0, 0, 1); err != nil || emu.Calls() != 0 {
		t.Errorf("empty gemm: %v, %d routines", err, emu.Calls())
	}
}

// TestEmulatorBounds: the emulator refuses what a GPU would fault on: an
// operand running past its block, an address outside every block, a free
// of something not allocated, a potrf workspace below its size.
func TestEmulatorBounds(t *testing.T) {
	emu := gpu.NewEmulator(3)
	var a, b uintptr
	err := emu.Do(func() (err error) {
		if a, err = emu.Alloc(8 * 16); err != nil {
			return err
		}
		b, err = emu.Alloc(8 * 16)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if a%256 != 0 || b%256 != 0 || b <= a+8*16 {
		t.Errorf("blocks at %#x and %#x: want 256-aligned and apart", a, b)
	}
	N := blas.NoTrans
	if msg := panicMessage(func() { _ = emu.Dgemm(N, N, 4, 4, 4, 1, a, 4, a, 4, 0, a+8, 4) }); !strings.Contains(msg, "run past the end of their block") {
		t.Errorf("C past its block: %q", msg)
	}
	if msg := panicMessage(func() { _ = emu.CopyIn(a+8*16+8, []float64{1}) }); !strings.Contains(msg, "past the end of their block") {
		t.Errorf("copy between blocks: %q", msg)
	}
	if err := emu.Free(a + 8); err == nil {
		t.Error("free of an address inside a block: no error")
	}
	if err := emu.Dpotrf(4, a, 4, b, 3, b+8*8); err == nil || !strings.Contains(err.Error(), "workspace of 3 doubles, 4 asked for") {
		t.Errorf("small potrf workspace: %v", err)
	}
	if err := emu.Free(a); err != nil {
		t.Error(err)
	}
	if msg := panicMessage(func() { _ = emu.CopyOut(make([]float64, 1), a) }); !strings.Contains(msg, "not in a block") {
		t.Errorf("copy from a freed block: %q", msg)
	}
	if got := emu.Name(); got != "emu3" {
		t.Errorf("Name() = %q", got)
	}
}

// TestDeviceMemory: the runtime's view of a device: blocks of the region
// until it is full (then an error naming what is free), copies both ways
// bit for bit, and the blocks reused once freed.
func TestDeviceMemory(t *testing.T) {
	const words = 100
	d, _ := openEmulated(t, 4, 4*1024)
	if d.Capacity() != 4*1024 || d.Name() != "emu0" || d.Arch() != "host-test" {
		t.Fatalf("capacity %d, name %q, arch %q", d.Capacity(), d.Name(), d.Arch())
	}
	var bufs []runtime.DevBuf
	for i := 0; i < 4; i++ { // 800 bytes take a 1024-byte block of 256-byte units
		b, err := d.Alloc(words)
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		bufs = append(bufs, b)
	}
	if _, err := d.Alloc(words); err == nil || !strings.Contains(err.Error(), "0 bytes free") {
		t.Errorf("alloc in a full region: %v", err)
	}
	src := make([]float64, words)
	for i := range src {
		src[i] = float64(i) / 7
	}
	if err := d.ToDevice(bufs[2], src); err != nil {
		t.Fatal(err)
	}
	back := make([]float64, words)
	if err := d.ToHost(back, bufs[2]); err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if back[i] != src[i] {
			t.Fatalf("word %d came back as %v, went as %v", i, back[i], src[i])
		}
	}
	d.Free(bufs[1])
	if b, err := d.Alloc(words); err != nil || b.Ptr != bufs[1].Ptr {
		t.Errorf("alloc after a free: %#x, %v; want the freed block %#x", b.Ptr, err, bufs[1].Ptr)
	}
	if err := d.PinHost(src); err != nil { // the emulator pins nothing
		t.Error(err)
	}
	d.UnpinHost(src)
}

// TestOpenErrors: a device needs a positive tile size and region.
func TestOpenErrors(t *testing.T) {
	for _, c := range []struct {
		nb    int
		bytes int64
	}{{0, 1 << 20}, {8, 255}} {
		if _, err := gpu.Open(gpu.NewEmulator(0), c.nb, c.bytes); err == nil || !strings.Contains(err.Error(), "must be positive") {
			t.Errorf("Open(nb %d, %d bytes): %v", c.nb, c.bytes, err)
		}
	}
}

// cusolverInfo is the emulated driver with cuSOLVER's info as an H100 gave
// it: 0 for a matrix whose last leading minor is not positive (here: 0
// whatever the matrix), the pivot left as it was.
type cusolverInfo struct{ *gpu.Emulator }

func (c cusolverInfo) Dpotrf(n int, a uintptr, lda int, work uintptr, lwork int, info uintptr) error {
	if err := c.Emulator.Dpotrf(n, a, lda, work, lwork, info); err != nil {
		return err
	}
	return c.Emulator.CopyIn(info, []float64{0})
}

// TestDpotrfInfoFromDiagonal: the device kernel set reports LAPACK's info
// from the factor's diagonal when the driver's info says 0 (cuSOLVER's on
// an H100 at n = 64 with the minor of order 64 not positive), checked on
// 64 x 64 identities with one diagonal entry set to -1, 0 and NaN at
// order 64, 1 and 30; a positive definite matrix still gives 0.
func TestDpotrfInfoFromDiagonal(t *testing.T) {
	const n = 64
	d, err := gpu.Open(cusolverInfo{gpu.NewEmulator(0)}, n, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s := gpu.NewStaged(d, kernels.Default())
	defer s.Close()
	for _, c := range []struct {
		order int // 0: positive definite
		value float64
	}{{0, 0}, {64, -1}, {64, 0}, {1, -1}, {30, math.NaN()}} {
		a := make([]float64, n*n)
		for i := range n {
			a[i+i*n] = 4
		}
		if c.order > 0 {
			a[(c.order-1)*(n+1)] = c.value
		}
		if got := s.Dpotrf(n, a, n); got != c.order {
			t.Errorf("pivot %g at order %d: info %d, want %d", c.value, c.order, got, c.order)
		}
	}
}
