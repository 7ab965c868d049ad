//go:build cuda

package main

import "github.com/exageostat/exageostat/pkg/cuda"

// handOverToCUDA serves --gpus N (N > 0) in the CUDA build: it never hands
// over again. It checks that N devices answer and that cuBLAS and cuSOLVER
// load (package cuda), then ends with exit 2 and one line saying that the
// runtime has no GPU workers yet (memory nodes and GPU scheduling are
// separate work), naming what it found.
func handOverToCUDA(cmd string, gpus int) error {
	found, err := cuda.Describe(gpus)
	if err != nil {
		return badInput("%s: --gpus %d: %v", cmd, gpus, err)
	}
	return badInput("%s: --gpus %d: the runtime's GPU workers are not wired in yet (this CUDA build found %s); run without --gpus", cmd, gpus, found)
}
