//go:build cgo

package gpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_count_fn)(int *);

// exa_cuda_probe loads the driver library named lib, calls cuInit(0) and
// cuDeviceGetCount, and reports the stage it stopped at (0: all done),
// the CUDA error code and the device count. The library stays loaded: the
// driver does not support being unloaded after cuInit.
static int exa_cuda_probe(const char *lib, int *code, int *count) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) return 1;
	cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
	cu_count_fn cnt = (cu_count_fn)dlsym(h, "cuDeviceGetCount");
	if (!init || !cnt) return 2;
	*code = init(0);
	if (*code != 0) return 3;
	*code = cnt(count);
	if (*code != 0) return 4;
	return 0;
}

// exa_host_pointer does nothing with p: Emulator's copies call it with
// their host buffer as the CUDA driver's copies are called, so that cgo's
// pointer check (a Go pointer to memory holding Go pointers panics) runs
// in make test, which has no GPU.
static void exa_host_pointer(void *p) { (void)p; }
*/
import "C"

import (
	"os"
	"unsafe"
)

// driverLibEnv names another driver library to load instead of
// libcuda.so.1 (tests point it at a file that does not exist).
const driverLibEnv = "EXAGEOSTAT_LIBCUDA"

func probe() (n, code, stage int) {
	lib := "libcuda.so.1"
	if v := os.Getenv(driverLibEnv); v != "" {
		lib = v
	}
	cs := C.CString(lib)
	defer C.free(unsafe.Pointer(cs))
	var ccode, ccount C.int
	st := C.exa_cuda_probe(cs, &ccode, &ccount)
	return int(ccount), int(ccode), int(st)
}

// cgoPointerCheck passes the host buffer b to C as a CUDA copy does, so
// that cgo's pointer check runs on it (Emulator).
func cgoPointerCheck(b []float64) {
	if len(b) > 0 {
		// A variable, as gorgonia.org/cu passes it: cgo then checks the
		// whole allocation b lies in, not only the slice.
		p := unsafe.Pointer(&b[0])
		C.exa_host_pointer(p)
	}
}
