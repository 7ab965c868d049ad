//go:build cuda

package main

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/cuda"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// handOverToCUDA serves --gpus N (N > 0) in the CUDA build: it never hands
// over again. It checks that N devices answer and that cuBLAS and cuSOLVER
// load (package cuda); the fit then opens them as runtime devices
// (openGPUs).
func handOverToCUDA(cmd string, gpus int) error {
	if _, err := cuda.Describe(gpus); err != nil {
		return badInput("%s: --gpus %d: %v", cmd, gpus, err)
	}
	return nil
}

// gpuShare is the share of a GPU's free memory given to tiles: the rest
// is cuBLAS's and cuSOLVER's workspace and the CUDA context's.
const gpuShare = 0.85

// gpuOpener returns openGPUs: the CUDA build's GPU workers.
func gpuOpener() func(count, nb int) ([]runtime.Device, error) { return openGPUs }

// openGPUs opens GPUs 0 ... count-1 as the runtime's devices (memory nodes
// with a worker each) for tiles of nb.
func openGPUs(count, nb int) ([]runtime.Device, error) {
	var out []runtime.Device
	for i := 0; i < count; i++ {
		d, err := cuda.NewRuntimeDevice(i, nb, gpuShare)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, fmt.Errorf("opening GPU %d: %v", i, err)
		}
		out = append(out, d)
	}
	return out, nil
}
