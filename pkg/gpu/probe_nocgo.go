//go:build !cgo

package gpu

// probe without cgo cannot load the driver: no device.
func probe() (n, code, stage int) { return 0, 0, stageLoad }

// cgoPointerCheck has no cgo to check against without cgo.
func cgoPointerCheck([]float64) {}
