//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/exageostat/exageostat/pkg/cudalib"
	"github.com/exageostat/exageostat/pkg/kernels"
)

// Device is one GPU: its primary context and the loaded cuBLAS/cuSOLVER.
type Device struct {
	ordinal int
	name    string
	ctx     cu.CUContext
	lib     *cudalib.Lib
}

// Describe checks that at least gpus devices answer and that cuBLAS and
// cuSOLVER load, and returns one phrase naming them (device names, memory,
// library files), for messages.
func Describe(gpus int) (string, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return "", fmt.Errorf("no CUDA device: cuDeviceGetCount: %v", err)
	}
	if n < gpus {
		return "", fmt.Errorf("no CUDA device: %d asked for, the driver counts %d", gpus, n)
	}
	lib, err := cudalib.OpenDefault()
	if err != nil {
		return "", err
	}
	var names []string
	for i := 0; i < gpus; i++ {
		d := cu.Device(i)
		name, err := d.Name()
		if err != nil {
			return "", fmt.Errorf("device %d: %v", i, err)
		}
		mem, err := d.TotalMem()
		if err != nil {
			return "", fmt.Errorf("device %d: %v", i, err)
		}
		names = append(names, fmt.Sprintf("%s with %.0f GiB", name, float64(mem)/(1<<30)))
	}
	return fmt.Sprintf("%d device(s): %s; %s and %s", gpus, strings.Join(names, ", "), lib.CublasPath, lib.CusolverPath), nil
}

// OpenDevice retains the primary context of device ordinal and loads
// cuBLAS and cuSOLVER (cudalib.OpenDefault: EXAGEOSTAT_CUDA_LIBS, then the
// loader's search path).
func OpenDevice(ordinal int) (*Device, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("cuda: cuDeviceGetCount: %v", err)
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cuda: device %d asked for, the driver counts %d", ordinal, n)
	}
	lib, err := cudalib.OpenDefault()
	if err != nil {
		return nil, err
	}
	d := cu.Device(ordinal)
	name, err := d.Name()
	if err != nil {
		return nil, fmt.Errorf("cuda: device %d: %v", ordinal, err)
	}
	ctx, err := d.RetainPrimaryCtx()
	if err != nil {
		return nil, fmt.Errorf("cuda: device %d: retaining its primary context: %v", ordinal, err)
	}
	return &Device{ordinal: ordinal, name: name, ctx: ctx, lib: lib}, nil
}

// Name is the device's name as the driver reports it.
func (d *Device) Name() string { return d.name }

// Lib is the loaded cuBLAS/cuSOLVER.
func (d *Device) Lib() *cudalib.Lib { return d.lib }

// Worker runs tile kernels on one device for one runtime worker: its own
// stream, cuBLAS and cuSOLVER handles, the dpotrf workspace and the info
// word, and three device tile buffers of nb*nb doubles (grown, outside the
// timed path, when a bigger tile comes). It implements kernels.Impl;
// dtrtri, dtrsv, dgeadd and ddot, which the factorisation does not put on
// the GPU, run on the CPU implementation. Not safe for concurrent use.
//
// kernels.Impl has no error results: a CUDA failure inside a kernel call
// panics with the library's status (a device fault, not bad input).
type Worker struct {
	dev    *Device
	stream cu.Stream
	blas   *cudalib.Blas
	solver *cudalib.Solver
	buf    [3]cu.DevicePtr
	bufLen int // doubles in each buf
	work   cu.DevicePtr
	lwork  int // doubles in work
	info   cu.DevicePtr
	host   []float64 // scratch for strided vectors
	cpu    kernels.Impl
}

// NewWorker creates a worker on d with tile buffers for nb x nb tiles and
// the dpotrf workspace for order nb.
func (d *Device) NewWorker(nb int) (*Worker, error) {
	if nb < 1 {
		return nil, fmt.Errorf("cuda: tile size %d must be >= 1", nb)
	}
	w := &Worker{dev: d, cpu: kernels.Default()}
	err := w.do(func() error {
		var err error
		if w.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("cuStreamCreate: %v", err)
		}
		if w.blas, err = d.lib.NewBlas(); err != nil {
			return err
		}
		if w.solver, err = d.lib.NewSolver(); err != nil {
			return err
		}
		if err = w.blas.SetStream(streamPtr(w.stream)); err != nil {
			return err
		}
		if err = w.solver.SetStream(streamPtr(w.stream)); err != nil {
			return err
		}
		if w.info, err = cu.MemAlloc(8); err != nil {
			return fmt.Errorf("cuMemAlloc: %v", err)
		}
		if err = w.reserve(nb * nb); err != nil {
			return err
		}
		return w.reservePotrf(nb)
	})
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("cuda: device %d: %v", d.ordinal, err)
	}
	return w, nil
}

func streamPtr(s cu.Stream) cudalib.Stream { return cudalib.Stream(uintptr(unsafe.Pointer(s.C()))) }

// do runs f on a locked OS thread with the device's context current
// (cuBLAS and the driver API use the calling thread's context).
func (w *Worker) do(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(w.dev.ctx); err != nil {
		return fmt.Errorf("cuCtxSetCurrent: %v", err)
	}
	return f()
}

// reserve makes each tile buffer hold at least n doubles.
func (w *Worker) reserve(n int) error {
	if n <= w.bufLen {
		return nil
	}
	for i := range w.buf {
		if w.buf[i] != 0 {
			if err := cu.MemFree(w.buf[i]); err != nil {
				return fmt.Errorf("cuMemFree: %v", err)
			}
			w.buf[i] = 0
		}
	}
	w.bufLen = 0
	for i := range w.buf {
		p, err := cu.MemAlloc(int64(n) * 8)
		if err != nil {
			return fmt.Errorf("cuMemAlloc of %d doubles: %v", n, err)
		}
		w.buf[i] = p
	}
	w.bufLen = n
	return nil
}

// reservePotrf makes the workspace hold what cusolverDnDpotrf needs for
// order n (with leading dimension n, in buf[0]).
func (w *Worker) reservePotrf(n int) error {
	if err := w.reserve(n * n); err != nil {
		return err
	}
	lw, err := w.solver.DpotrfBufferSize(n, cudalib.DevPtr(w.buf[0]), n)
	if err != nil {
		return err
	}
	if lw <= w.lwork {
		return nil
	}
	if w.work != 0 {
		if err := cu.MemFree(w.work); err != nil {
			return fmt.Errorf("cuMemFree: %v", err)
		}
		w.work, w.lwork = 0, 0
	}
	p, err := cu.MemAlloc(int64(lw) * 8)
	if err != nil {
		return fmt.Errorf("cuMemAlloc of the dpotrf workspace (%d doubles): %v", lw, err)
	}
	w.work, w.lwork = p, lw
	return nil
}

// Close releases the worker's buffers, handles and stream.
func (w *Worker) Close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	_ = w.do(func() error {
		for i := range w.buf {
			if w.buf[i] != 0 {
				keep(cu.MemFree(w.buf[i]))
				w.buf[i] = 0
			}
		}
		for _, p := range []*cu.DevicePtr{&w.work, &w.info} {
			if *p != 0 {
				keep(cu.MemFree(*p))
				*p = 0
			}
		}
		if w.blas != nil {
			keep(w.blas.Close())
		}
		if w.solver != nil {
			keep(w.solver.Close())
		}
		if w.stream != (cu.Stream{}) {
			keep(w.stream.Destroy())
		}
		return nil
	})
	return first
}

func (w *Worker) must(err error) {
	if err != nil {
		panic(fmt.Sprintf("cuda worker on device %d (%s): %v", w.dev.ordinal, w.dev.name, err))
	}
}

// upload copies the rows x cols matrix at host (leading dimension ld) into
// dst packed (leading dimension rows).
func upload(dst cu.DevicePtr, host []float64, rows, cols, ld int) error {
	if rows == 0 || cols == 0 {
		return nil
	}
	_ = host[(cols-1)*ld+rows-1]
	if ld == rows {
		return cu.MemcpyHtoD(dst, unsafe.Pointer(&host[0]), int64(rows*cols)*8)
	}
	for j := 0; j < cols; j++ {
		if err := cu.MemcpyHtoD(dst+cu.DevicePtr(j*rows*8), unsafe.Pointer(&host[j*ld]), int64(rows)*8); err != nil {
			return err
		}
	}
	return nil
}

// download copies the packed rows x cols matrix at src into host
// (leading dimension ld), column by column when ld > rows so that the
// host elements between columns are not touched.
func download(host []float64, ld int, src cu.DevicePtr, rows, cols int) error {
	if rows == 0 || cols == 0 {
		return nil
	}
	_ = host[(cols-1)*ld+rows-1]
	if ld == rows {
		return cu.MemcpyDtoH(unsafe.Pointer(&host[0]), src, int64(rows*cols)*8)
	}
	for j := 0; j < cols; j++ {
		if err := cu.MemcpyDtoH(unsafe.Pointer(&host[j*ld]), src+cu.DevicePtr(j*rows*8), int64(rows)*8); err != nil {
			return err
		}
	}
	return nil
}

// uploadVec copies the n-vector x (stride inc > 0) into dst contiguously.
func (w *Worker) uploadVec(dst cu.DevicePtr, x []float64, n, inc int) error {
	if inc == 1 {
		return upload(dst, x, n, 1, n)
	}
	w.host = append(w.host[:0], make([]float64, n)...)
	for i := 0; i < n; i++ {
		w.host[i] = x[i*inc]
	}
	return upload(dst, w.host, n, 1, n)
}

// downloadVec copies n contiguous doubles at src into y (stride inc > 0).
func (w *Worker) downloadVec(y []float64, n, inc int, src cu.DevicePtr) error {
	if inc == 1 {
		return download(y, n, src, n, 1)
	}
	w.host = append(w.host[:0], make([]float64, n)...)
	if err := download(w.host, n, src, n, 1); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		y[i*inc] = w.host[i]
	}
	return nil
}

func (w *Worker) sync() error {
	if err := w.stream.Synchronize(); err != nil {
		return fmt.Errorf("cuStreamSynchronize: %v", err)
	}
	return nil
}

func cuMemcpyDtoH(dst unsafe.Pointer, src cu.DevicePtr, bytes int64) error {
	if err := cu.MemcpyDtoH(dst, src, bytes); err != nil {
		return fmt.Errorf("cuMemcpyDtoH: %v", err)
	}
	return nil
}

// PotrfWhole factorises the n x n matrix a (leading dimension n) with one
// cusolverDnDpotrf call on the device, as the reference the tiled
// factorisation is compared with. It returns LAPACK's info and the seconds
// spent in the factorisation alone (transfers excluded).
func (w *Worker) PotrfWhole(n int, a []float64) (info int, seconds float64, err error) {
	err = w.do(func() error {
		if err := w.reservePotrf(n); err != nil {
			return err
		}
		if err := upload(w.buf[0], a, n, n, n); err != nil {
			return err
		}
		t0 := time.Now()
		var err error
		if info, err = w.potrfResident(n, dev(w.buf[0]), n); err != nil {
			return err
		}
		seconds = time.Since(t0).Seconds()
		return download(a, n, w.buf[0], n, n)
	})
	return info, seconds, err
}
