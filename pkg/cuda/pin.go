//go:build cuda

package cuda

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>

static int pin(void *p, size_t n) { return (int)cuMemHostRegister(p, n, 0); }
static int unpin(void *p) { return (int)cuMemHostUnregister(p); }
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// PinHost page-locks the host buffer b for the device's copies
// (cuMemHostRegister; runtime.HostPinner): the runtime calls it for the
// buffers it reserves ahead, before the first graph.
func (r *RuntimeDevice) PinHost(b []float64) error {
	if len(b) == 0 {
		return nil
	}
	p := unsafe.Pointer(&b[:1][0])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pinned[p] {
		return nil
	}
	return r.w.do(func() error {
		if rc := C.pin(p, C.size_t(8*cap(b))); rc != 0 {
			return fmt.Errorf("cuMemHostRegister of %d bytes: CUDA error %d", 8*cap(b), int(rc))
		}
		r.pinned[p] = true
		return nil
	})
}

// UnpinHost undoes PinHost before the runtime gives b back to the system.
func (r *RuntimeDevice) UnpinHost(b []float64) {
	if cap(b) == 0 {
		return
	}
	p := unsafe.Pointer(&b[:1][0])
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.pinned[p] {
		return
	}
	delete(r.pinned, p)
	_ = r.w.do(func() error { C.unpin(p); return nil })
}
