//go:build !cuda

package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/exageostat/exageostat/pkg/gpu"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// handOverEnv marks a process started by handOverToCUDA, so that a CUDA
// build that cannot serve --gpus never hands over again.
const handOverEnv = "EXAGEOSTAT_GPU_HANDOVER"

// handOverToCUDA serves --gpus N (N > 0) in the plain binary: it checks
// for N CUDA devices without linking CUDA (pkg/gpu) and replaces this
// process by the CUDA build beside it, with the same arguments; anything
// missing (the driver, a device, the CUDA build) is bad input in one line.
func handOverToCUDA(cmd string, gpus int) error {
	if os.Getenv(handOverEnv) != "" {
		return badInput("%s: --gpus %d: this binary was started for GPU workers but has none; run the CUDA build", cmd, gpus)
	}
	self, err := os.Executable()
	if err != nil {
		return badInput("%s: --gpus %d: cannot locate this binary: %v", cmd, gpus, err)
	}
	cuda, err := gpu.Check(gpus, self)
	if err != nil {
		return badInput("%s: --gpus %d: %v", cmd, gpus, err)
	}
	env := append(os.Environ(), handOverEnv+"=1")
	if err := syscall.Exec(cuda, append([]string{cuda}, os.Args[1:]...), env); err != nil {
		return fmt.Errorf("%s: --gpus %d: starting %s: %v", cmd, gpus, cuda, err)
	}
	return nil
}

// gpuOpener returns nil in the plain build: it has no GPU workers (--gpus
// hands over to the CUDA build first).
func gpuOpener() func(count, nb int) ([]runtime.Device, error) { return nil }
