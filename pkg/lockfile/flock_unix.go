//go:build unix

package lockfile

import (
	"os"
	"syscall"
)

var errWouldBlock = syscall.EWOULDBLOCK

// flock takes f's exclusive lock without waiting.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
