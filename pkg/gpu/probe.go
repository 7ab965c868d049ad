// Package gpu finds out, without linking CUDA, whether this machine can run
// exageostat's CUDA workers: it loads the driver's user-space library
// (libcuda.so.1) at run time and asks it for devices. gorgonia.org/cu, which
// the CUDA build (tag cuda, bin/exageostat-cuda) uses, exits the process in
// its package init when there is no device; the plain binary calls Probe
// first and either hands over to the CUDA binary or ends with a message of
// its own.
//
// It also holds an accelerator as exageostat uses it, above the CUDA
// calls: Device, a memory node of the runtime (one region of device memory
// sub-allocated for tiles, copies); Kernels, the one set of tile kernels
// on device addresses (kernels.Device) that the device's worker runs;
// Staged, that kernel set on host tiles (calibration, the kernel suite);
// all over a Driver, the device's own calls. Package cuda (tag cuda)
// implements Driver for a GPU; Emulator implements it in host memory, so
// that make test runs the GPU's code path minus the CUDA calls.
package gpu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoDriver, ErrNoDevice and ErrNoCUDABinary are the reasons --gpus can
// not be met (wrapped with details by Probe and CUDABinary).
var (
	ErrNoDriver     = errors.New("no CUDA driver")
	ErrNoDevice     = errors.New("no CUDA device")
	ErrNoCUDABinary = errors.New("no CUDA build")
)

// Devices returns the number of CUDA devices the driver reports (cuInit,
// then cuDeviceGetCount), or an error wrapping ErrNoDriver (libcuda.so.1
// cannot be loaded or lacks the entry points) or ErrNoDevice (cuInit fails,
// e.g. CUDA_ERROR_NO_DEVICE, or no device is counted). The file
// /dev/nvidiactl is not taken as a sign of a GPU: cuInit creates it as
// root on machines without one.
func Devices() (int, error) {
	n, code, stage := probe()
	switch stage {
	case stageLoad:
		return 0, fmt.Errorf("%w: libcuda.so.1 (the NVIDIA driver's library) cannot be loaded", ErrNoDriver)
	case stageSymbol:
		return 0, fmt.Errorf("%w: libcuda.so.1 has no cuInit/cuDeviceGetCount", ErrNoDriver)
	case stageInit:
		return 0, fmt.Errorf("%w: cuInit failed with CUDA error %d (%s)", ErrNoDevice, code, errorName(code))
	case stageCount:
		return 0, fmt.Errorf("%w: cuDeviceGetCount failed with CUDA error %d (%s)", ErrNoDevice, code, errorName(code))
	}
	if n < 1 {
		return 0, fmt.Errorf("%w: the driver counts 0 devices", ErrNoDevice)
	}
	return n, nil
}

// Stages of probe at which it stopped.
const (
	stageOK = iota
	stageLoad
	stageSymbol
	stageInit
	stageCount
)

// errorName names the CUDA driver error codes a probe meets.
func errorName(code int) string {
	switch code {
	case 100:
		return "CUDA_ERROR_NO_DEVICE"
	case 999:
		return "CUDA_ERROR_UNKNOWN"
	case 35:
		return "CUDA_ERROR_INSUFFICIENT_DRIVER"
	case 3:
		return "CUDA_ERROR_NOT_INITIALIZED"
	case 101:
		return "CUDA_ERROR_INVALID_DEVICE"
	case 304:
		return "CUDA_ERROR_OPERATING_SYSTEM"
	}
	return "see cuda.h"
}

// CUDABinaryName is the file name of the CUDA build, installed beside the
// plain binary by make cuda.
const CUDABinaryName = "exageostat-cuda"

// CUDABinary returns the path of the CUDA build beside the executable self
// (os.Executable), or an error wrapping ErrNoCUDABinary.
func CUDABinary(self string) (string, error) {
	p := filepath.Join(filepath.Dir(self), CUDABinaryName)
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%w: GPU workers run in the CUDA build, %s, which this version does not provide yet", ErrNoCUDABinary, p)
	}
	return p, nil
}

// Check is what a command asking for gpus GPU workers runs first: nil
// when gpus is 0; otherwise the devices must exist and number at least
// gpus, and the CUDA build must sit beside self. It returns the CUDA
// binary to hand over to.
func Check(gpus int, self string) (string, error) {
	if gpus <= 0 {
		return "", nil
	}
	n, err := Devices()
	if err != nil {
		return "", err
	}
	if n < gpus {
		return "", fmt.Errorf("%w: %d asked for, the driver counts %d", ErrNoDevice, gpus, n)
	}
	return CUDABinary(self)
}
