//go:build !cuda

package main

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

// prepareGPUCalibration serves calibrate --gpus N in the plain binary: it
// hands over to the CUDA build (or ends with one line saying what is
// missing: the driver, a device, the CUDA build).
func prepareGPUCalibration(gpus int) error { return handOverToCUDA("calibrate", gpus) }

// calibrateGPU is not reached in the plain binary (prepareGPUCalibration
// never returns nil there).
func calibrateGPU(o bench.CalibrateOptions, m *perfmodel.Model) error {
	return fmt.Errorf("calibrate: --gpus needs the CUDA build")
}
