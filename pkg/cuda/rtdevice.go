//go:build cuda

package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gorgonia.org/cu"

	"github.com/exageostat/exageostat/pkg/cudalib"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/slab"
)

// RuntimeDevice is a GPU as a memory node of the runtime (runtime.Device):
// its buffers are blocks of one region of device memory allocated when it
// is opened (package slab sub-allocates it: no cuMemAlloc inside a task), its copies are cuMemcpy calls made by the runtime's
// transfer goroutine for this device, and its worker runs the device kinds
// with Kernels (cuBLAS and cuSOLVER on resident tiles, on the worker's own
// stream and handles). Capacity is the share of the device's free memory
// given to tiles.
type RuntimeDevice struct {
	d        *Device
	w        *Worker
	ordinal  int
	capacity int64
	copies   cu.Stream // the transfer goroutine's stream (non-blocking: overlaps the worker's)

	// Tiles live in one region of device memory allocated when the device
	// is opened: no cuMemAlloc afterwards (none inside a task).
	mu     sync.Mutex
	region cu.DevicePtr
	slab   *slab.Slab
	pinned map[unsafe.Pointer]bool // host buffers page-locked by PinHost
}

// NewRuntimeDevice opens device ordinal for the runtime with tiles of nb
// (the kernels' workspace) and gives tiles share (0 < share <= 1) of its
// free memory.
func NewRuntimeDevice(ordinal, nb int, share float64) (*RuntimeDevice, error) {
	d, err := OpenDevice(ordinal)
	if err != nil {
		return nil, err
	}
	w, err := d.NewWorker(nb)
	if err != nil {
		return nil, err
	}
	rd := &RuntimeDevice{d: d, w: w, ordinal: ordinal, pinned: map[unsafe.Pointer]bool{}}
	err = w.do(func() error {
		free, _, err := cu.MemInfo()
		if err != nil {
			return fmt.Errorf("cuMemGetInfo: %v", err)
		}
		rd.capacity = int64(float64(free)*share) &^ 255
		if rd.region, err = cu.MemAlloc(rd.capacity); err != nil {
			return fmt.Errorf("cuMemAlloc of the tile region (%d bytes): %v", rd.capacity, err)
		}
		if rd.slab, err = slab.New(rd.capacity, 256); err != nil {
			return err
		}
		if rd.copies, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("cuStreamCreate: %v", err)
		}
		return nil
	})
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("cuda: device %d: %v", ordinal, err)
	}
	return rd, nil
}

// Name returns "cuda<ordinal>".
func (r *RuntimeDevice) Name() string { return fmt.Sprintf("cuda%d", r.ordinal) }

// Arch returns "cuda".
func (r *RuntimeDevice) Arch() string { return "cuda" }

// Capacity returns the bytes of tiles the device may hold.
func (r *RuntimeDevice) Capacity() int64 { return r.capacity }

// Alloc returns a block of words doubles of the tile region.
func (r *RuntimeDevice) Alloc(words int) (runtime.DevBuf, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	off, ok := r.slab.Alloc(int64(words) * 8)
	if !ok {
		total, largest := r.slab.Available()
		return runtime.DevBuf{}, fmt.Errorf("no block of %d bytes in the tile region (%d bytes free, the largest block %d)", words*8, total, largest)
	}
	return runtime.DevBuf{Ptr: uintptr(r.region) + uintptr(off), Words: words}, nil
}

// Free returns a block of Alloc to the region.
func (r *RuntimeDevice) Free(b runtime.DevBuf) {
	r.mu.Lock()
	r.slab.Free(int64(b.Ptr - uintptr(r.region)))
	r.mu.Unlock()
}

// ToDevice copies src to dst.
func (r *RuntimeDevice) ToDevice(dst runtime.DevBuf, src []float64) error {
	if len(src) == 0 {
		return nil
	}
	return r.w.do(func() error {
		if err := cu.MemcpyHtoDAsync(cu.DevicePtr(dst.Ptr), unsafe.Pointer(&src[0]), int64(len(src))*8, r.copies); err != nil {
			return err
		}
		return r.copies.Synchronize()
	})
}

// ToHost copies src into dst.
func (r *RuntimeDevice) ToHost(dst []float64, src runtime.DevBuf) error {
	if len(dst) == 0 {
		return nil
	}
	return r.w.do(func() error {
		if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), cu.DevicePtr(src.Ptr), int64(len(dst))*8, r.copies); err != nil {
			return err
		}
		return r.copies.Synchronize()
	})
}

// Kernels returns the device's kernels.Device.
func (r *RuntimeDevice) Kernels() any { return Resident{r.w} }

// Close releases the copy stream and the worker's handles and buffers.
func (r *RuntimeDevice) Close() {
	_ = r.w.do(func() error {
		if r.region != 0 {
			_ = cu.MemFree(r.region)
		}
		return r.copies.Destroy()
	})
	r.w.Close()
}

// Resident is a Worker's kernels on tiles resident in device memory
// (kernels.Device): no copies, the result waited for on the worker's
// stream.
type Resident struct{ w *Worker }

// Name returns "cuda".
func (k Resident) Name() string { return "cuda" }

func (k Resident) run(f func() error) error {
	return k.w.do(func() error {
		if err := f(); err != nil {
			return err
		}
		return k.w.sync()
	})
}

// Dpotrf is cusolverDnDpotrf (lower) on a.
func (k Resident) Dpotrf(n int, a uintptr, lda int) (int, error) {
	var info int
	err := k.w.do(func() error {
		if err := k.w.reservePotrf(n); err != nil {
			return err
		}
		var err error
		info, err = k.w.potrfResident(n, cudalib.DevPtr(a), lda)
		return err
	})
	return info, err
}

// Dtrmm is cublasDtrmm_v2 in place on b.
func (k Resident) Dtrmm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a uintptr, lda int, b uintptr, ldb int) error {
	return k.run(func() error {
		return k.w.blas.Dtrmm(s, uplo, tA, d, m, n, alpha, cudalib.DevPtr(a), lda, cudalib.DevPtr(b), ldb)
	})
}

// Dsyrk is cublasDsyrk_v2.
func (k Resident) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, kk int, alpha float64, a uintptr, lda int, beta float64, c uintptr, ldc int) error {
	return k.run(func() error {
		return k.w.blas.Dsyrk(uplo, tA, n, kk, alpha, cudalib.DevPtr(a), lda, beta, cudalib.DevPtr(c), ldc)
	})
}

// Dgemm is cublasDgemm_v2.
func (k Resident) Dgemm(tA, tB blas.Transpose, m, n, kk int, alpha float64, a uintptr, lda int, b uintptr, ldb int, beta float64, c uintptr, ldc int) error {
	return k.run(func() error {
		return k.w.blas.Dgemm(tA, tB, m, n, kk, alpha, cudalib.DevPtr(a), lda, cudalib.DevPtr(b), ldb, beta, cudalib.DevPtr(c), ldc)
	})
}

// Dgemv is cublasDgemv_v2 with unit strides.
func (k Resident) Dgemv(tA blas.Transpose, m, n int, alpha float64, a uintptr, lda int, x uintptr, beta float64, y uintptr) error {
	return k.run(func() error {
		return k.w.blas.Dgemv(tA, m, n, alpha, cudalib.DevPtr(a), lda, cudalib.DevPtr(x), 1, beta, cudalib.DevPtr(y), 1)
	})
}
