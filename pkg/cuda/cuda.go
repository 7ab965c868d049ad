//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/exageostat/exageostat/pkg/cudalib"
	"github.com/exageostat/exageostat/pkg/gpu"
)

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

// NewRuntimeDevice opens GPU ordinal as a runtime device (gpu.Device over
// this package's driver) with the potrf workspace for tiles of nb, and
// gives its tiles share (0 < share <= 1) of the device's free memory.
func NewRuntimeDevice(ordinal, nb int, share float64) (*gpu.Device, error) {
	drv, err := NewDriver(ordinal)
	if err != nil {
		return nil, err
	}
	var free int64
	err = drv.Do(func() error {
		f, _, err := cu.MemInfo()
		free = f
		if err != nil {
			return fmt.Errorf("cuMemGetInfo: %v", err)
		}
		return nil
	})
	if err != nil {
		drv.Close()
		return nil, fmt.Errorf("cuda: device %d: %v", ordinal, err)
	}
	return gpu.Open(drv, nb, int64(float64(free)*share))
}

// Driver is one GPU's gpu.Driver: its primary context; a stream for the
// kernels, with a cuBLAS and a cuSOLVER handle bound to it; and a
// non-blocking stream for the copies, which overlap the kernels.
type Driver struct {
	*cudalib.Blas
	*cudalib.Solver
	ordinal int
	name    string
	ctx     cu.CUContext
	kernels cu.Stream
	copies  cu.Stream
}

// NewDriver retains the primary context of device ordinal, loads cuBLAS and
// cuSOLVER (cudalib.OpenDefault: EXAGEOSTAT_CUDA_LIBS, then the loader's
// search path) and makes the streams and handles.
func NewDriver(ordinal int) (*Driver, error) {
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
	ctx, err := cu.Device(ordinal).RetainPrimaryCtx()
	if err != nil {
		return nil, fmt.Errorf("cuda: device %d: retaining its primary context: %v", ordinal, err)
	}
	d := &Driver{ordinal: ordinal, name: fmt.Sprintf("cuda%d", ordinal), ctx: ctx}
	err = d.Do(func() error {
		var err error
		if d.kernels, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("cuStreamCreate: %v", err)
		}
		if d.copies, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("cuStreamCreate: %v", err)
		}
		if d.Blas, err = lib.NewBlas(); err != nil {
			return err
		}
		if d.Solver, err = lib.NewSolver(); err != nil {
			return err
		}
		if err = d.Blas.SetStream(streamPtr(d.kernels)); err != nil {
			return err
		}
		return d.Solver.SetStream(streamPtr(d.kernels))
	})
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("cuda: device %d: %v", ordinal, err)
	}
	return d, nil
}

func streamPtr(s cu.Stream) cudalib.Stream { return cudalib.Stream(uintptr(unsafe.Pointer(s.C()))) }

// Name implements gpu.Driver: "cuda<ordinal>".
func (d *Driver) Name() string { return d.name }

// Arch implements gpu.Driver: "cuda".
func (d *Driver) Arch() string { return "cuda" }

// Do implements gpu.Driver: f runs on a locked OS thread with the device's
// context current (cuBLAS and the driver API use the calling thread's).
func (d *Driver) Do(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		return fmt.Errorf("cuCtxSetCurrent: %v", err)
	}
	return f()
}

// Alloc implements gpu.Driver with cuMemAlloc.
func (d *Driver) Alloc(bytes int64) (uintptr, error) {
	p, err := cu.MemAlloc(bytes)
	if err != nil {
		return 0, fmt.Errorf("cuMemAlloc of %d bytes: %v", bytes, err)
	}
	return uintptr(p), nil
}

// Free implements gpu.Driver with cuMemFree.
func (d *Driver) Free(p uintptr) error {
	if err := cu.MemFree(cu.DevicePtr(p)); err != nil {
		return fmt.Errorf("cuMemFree: %v", err)
	}
	return nil
}

// CopyIn implements gpu.Driver: cuMemcpyHtoDAsync on the copy stream, then
// its synchronisation.
func (d *Driver) CopyIn(dst uintptr, src []float64) error {
	if len(src) == 0 {
		return nil
	}
	if err := cu.MemcpyHtoDAsync(cu.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src))*8, d.copies); err != nil {
		return fmt.Errorf("cuMemcpyHtoDAsync: %v", err)
	}
	return d.syncCopies()
}

// CopyOut implements gpu.Driver: cuMemcpyDtoHAsync on the copy stream,
// then its synchronisation.
func (d *Driver) CopyOut(dst []float64, src uintptr) error {
	if len(dst) == 0 {
		return nil
	}
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), cu.DevicePtr(src), int64(len(dst))*8, d.copies); err != nil {
		return fmt.Errorf("cuMemcpyDtoHAsync: %v", err)
	}
	return d.syncCopies()
}

func (d *Driver) syncCopies() error {
	if err := d.copies.Synchronize(); err != nil {
		return fmt.Errorf("cuStreamSynchronize (copies): %v", err)
	}
	return nil
}

// Sync implements gpu.Driver: the kernel stream's synchronisation.
func (d *Driver) Sync() error {
	if err := d.kernels.Synchronize(); err != nil {
		return fmt.Errorf("cuStreamSynchronize (kernels): %v", err)
	}
	return nil
}

// Close implements gpu.Driver: the handles, then the streams.
func (d *Driver) Close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	_ = d.Do(func() error {
		if d.Blas != nil {
			keep(d.Blas.Close())
		}
		if d.Solver != nil {
			keep(d.Solver.Close())
		}
		for _, s := range []*cu.Stream{&d.kernels, &d.copies} {
			if *s != (cu.Stream{}) {
				keep(s.Destroy())
				*s = cu.Stream{}
			}
		}
		return nil
	})
	return first
}
