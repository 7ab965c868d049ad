//go:build !unix

package lockfile

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("would block")

// flock does nothing where flock(2) is not available: the lock file only
// names the last holder.
func flock(*os.File) error { return nil }
