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

// Pin implements gpu.Pinner: it page-locks the host buffer b, all of its
// capacity, for the device's copies (cuMemHostRegister).
func (d *Driver) Pin(b []float64) error {
	if rc := C.pin(unsafe.Pointer(&b[:1][0]), C.size_t(8*cap(b))); rc != 0 {
		return fmt.Errorf("cuMemHostRegister of %d bytes: CUDA error %d", 8*cap(b), int(rc))
	}
	return nil
}

// Unpin implements gpu.Pinner (cuMemHostUnregister).
func (d *Driver) Unpin(b []float64) error {
	if rc := C.unpin(unsafe.Pointer(&b[:1][0])); rc != 0 {
		return fmt.Errorf("cuMemHostUnregister: CUDA error %d", int(rc))
	}
	return nil
}
