//go:build cuda

package main

import (
	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/cuda"
	"github.com/exageostat/exageostat/pkg/insert"
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
// update, dsyrk, dgemm, and dgemv) at o.NB on device 0 with a pkg/cuda
// worker and records them in m as arch cuda. Each call moves its tiles to
// the device and back (pkg/cuda keeps no tile resident), so the durations
// bound from above those of a runtime that keeps tiles on the GPU.
func calibrateGPU(o bench.CalibrateOptions, m *perfmodel.Model) error {
	d, err := cuda.OpenDevice(0)
	if err != nil {
		return err
	}
	w, err := d.NewWorker(o.NB)
	if err != nil {
		return err
	}
	defer w.Close()
	o.Kernels, o.Kinds, o.Cold = w, insert.DeviceKinds(), false
	cal, err := bench.Calibrate(o)
	if err != nil {
		return err
	}
	cal.AddTo(m, perfmodel.CUDA)
	return nil
}
