//go:build !linux

package topology

import "errors"

var errUnsupported = errors.New("topology: not supported on this system")

// Affinity returns nil: this system does not tell.
func Affinity() ([]int, error) { return nil, errUnsupported }

// Pin does nothing here and says so.
func Pin(cpus ...int) error { return errUnsupported }

// Bind does nothing here and says so.
func Bind(b []float64, node int) error { return errUnsupported }
