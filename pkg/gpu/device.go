package gpu

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/slab"
)

// regionAlign is the alignment of the tile blocks in the region (and of
// the region's size), as cuMemAlloc aligns allocations.
const regionAlign = 256

// Device is an accelerator as a memory node of the runtime
// (runtime.Device) whose worker runs its kernel set (Kernels): tiles are
// blocks of one region of device memory allocated when it is opened,
// sub-allocated by package slab (no device allocation inside a task), and
// its copies are the driver's. Over package cuda's driver it is a GPU
// (fit --gpus); over Emulator it is the same code in host memory, which
// make test runs.
type Device struct {
	drv      Driver
	capacity int64
	region   uintptr
	kern     *Kernels

	mu     sync.Mutex
	slab   *slab.Slab
	pinned map[unsafe.Pointer]bool // host buffers page-locked by PinHost
}

// Open makes drv a runtime device whose tiles get capacity bytes of
// device memory (rounded down to 256 bytes), one region allocated now,
// and whose kernels hold the potrf workspace for tiles of nb. On failure
// it closes drv.
func Open(drv Driver, nb int, capacity int64) (*Device, error) {
	capacity &^= regionAlign - 1
	if nb < 1 || capacity <= 0 {
		drv.Close()
		return nil, fmt.Errorf("gpu: %s: tile size %d and capacity %d bytes must be positive", drv.Name(), nb, capacity)
	}
	d := &Device{drv: drv, capacity: capacity, pinned: map[unsafe.Pointer]bool{}}
	err := drv.Do(func() error {
		var err error
		if d.region, err = drv.Alloc(capacity); err != nil {
			return fmt.Errorf("allocating the tile region (%d bytes): %v", capacity, err)
		}
		if d.slab, err = slab.New(capacity, regionAlign); err != nil {
			return err
		}
		scratch := uintptr(0)
		if int64(nb)*int64(nb)*8 <= capacity {
			scratch = d.region
		}
		d.kern, err = newKernels(drv, nb, scratch)
		return err
	})
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("gpu: %s: %v", drv.Name(), err)
	}
	return d, nil
}

// Name names the device ("cuda0").
func (d *Device) Name() string { return d.drv.Name() }

// Arch is the device's worker type ("cuda").
func (d *Device) Arch() string { return d.drv.Arch() }

// Capacity returns the bytes of tiles the device may hold.
func (d *Device) Capacity() int64 { return d.capacity }

// Alloc returns a block of words doubles of the tile region.
func (d *Device) Alloc(words int) (runtime.DevBuf, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	off, ok := d.slab.Alloc(int64(words) * 8)
	if !ok {
		total, largest := d.slab.Available()
		return runtime.DevBuf{}, fmt.Errorf("no block of %d bytes in the tile region (%d bytes free, the largest block %d)",
			words*8, total, largest)
	}
	return runtime.DevBuf{Ptr: d.region + uintptr(off), Words: words}, nil
}

// Free returns a block of Alloc to the region.
func (d *Device) Free(b runtime.DevBuf) {
	d.mu.Lock()
	d.slab.Free(int64(b.Ptr - d.region))
	d.mu.Unlock()
}

// ToDevice copies src to dst.
func (d *Device) ToDevice(dst runtime.DevBuf, src []float64) error {
	if len(src) == 0 {
		return nil
	}
	return d.drv.Do(func() error { return d.drv.CopyIn(dst.Ptr, src) })
}

// ToHost copies src into dst.
func (d *Device) ToHost(dst []float64, src runtime.DevBuf) error {
	if len(dst) == 0 {
		return nil
	}
	return d.drv.Do(func() error { return d.drv.CopyOut(dst, src.Ptr) })
}

// Kernels returns the device's kernel set (a kernels.Device), which the
// runtime hands to the tasks its worker runs (Context.DeviceKernels).
func (d *Device) Kernels() any { return d.kern }

// PinHost page-locks the host buffer b for the device's copies when the
// driver can (runtime.HostPinner): the runtime calls it for the buffers
// it reserves ahead, before the first graph.
func (d *Device) PinHost(b []float64) error {
	p, ok := d.drv.(Pinner)
	if !ok || len(b) == 0 {
		return nil
	}
	key := unsafe.Pointer(&b[:1][0])
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pinned[key] {
		return nil
	}
	if err := d.drv.Do(func() error { return p.Pin(b) }); err != nil {
		return err
	}
	d.pinned[key] = true
	return nil
}

// UnpinHost undoes PinHost before the runtime gives b back to the system.
func (d *Device) UnpinHost(b []float64) {
	p, ok := d.drv.(Pinner)
	if !ok || cap(b) == 0 {
		return
	}
	key := unsafe.Pointer(&b[:1][0])
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.pinned[key] {
		return
	}
	delete(d.pinned, key)
	_ = d.drv.Do(func() error { return p.Unpin(b) })
}

// Close releases the kernels' buffers, the region and the driver.
func (d *Device) Close() {
	_ = d.drv.Do(func() error {
		if d.kern != nil {
			d.kern.close()
		}
		if d.region != 0 {
			_ = d.drv.Free(d.region)
			d.region = 0
		}
		return nil
	})
	_ = d.drv.Close()
}

// The types of this package are what the runtime and the kernels take.
var (
	_ runtime.Device     = (*Device)(nil)
	_ runtime.HostPinner = (*Device)(nil)
	_ kernels.Device     = (*Kernels)(nil)
	_ kernels.Impl       = (*Staged)(nil)
	_ Driver             = (*Emulator)(nil)
)
