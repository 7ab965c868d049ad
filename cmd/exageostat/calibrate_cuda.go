//go:build cuda

package main

import (
	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/cuda"
	"github.com/exageostat/exageostat/pkg/gpu"
	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

// prepareGPUCalibration checks, in the CUDA build, that gpus devices
// answer and cuBLAS/cuSOLVER load.
func prepareGPUCalibration(gpus int) error {
	if _, err := cuda.Describe(gpus); err != nil {
		return badInput("calibrate: --gpus %d: %v", gpus, err)
	}
	return nil
}

// calibrateGPU measures the kinds whose codelets have a device
// implementation (insert.DeviceKinds: seed 000's dpotrf, the panel
// update, dsyrk, dgemm, and dgemv) at o.NB on device 0 and records them in
// m as arch cuda: the device's one kernel set (the kernels fit --gpus runs
// on resident tiles), staged (gpu.Staged: each call moves its tiles to the
// device and back), timed by the device kernels' own time (gpu.Staged is a
// bench.DeviceClock), as on tiles the runtime keeps on the GPU.
func calibrateGPU(o bench.CalibrateOptions, m *perfmodel.Model) error {
	d, err := cuda.NewRuntimeDevice(0, o.NB, gpuShare)
	if err != nil {
		return err
	}
	defer d.Close()
	s := gpu.NewStaged(d, kernels.Default())
	defer s.Close()
	o.Kernels, o.Kinds, o.Cold = s, insert.DeviceKinds(), false
	cal, err := bench.Calibrate(o)
	if err != nil {
		return err
	}
	cal.AddTo(m, perfmodel.CUDA)
	return nil
}
