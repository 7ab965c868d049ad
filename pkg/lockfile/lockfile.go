// Package lockfile keeps two processes from writing the same output at
// once: Acquire takes an advisory lock (flock) on a lock file beside the
// output, PATH.lock, and writes who holds it there (process, host, start,
// command); a second Acquire fails at once with a *HeldError that names
// the holder. The kernel releases the lock when the holder dies, even by
// kill -9: a lock file left behind is taken over by the next Acquire.
package lockfile

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Suffix is what Acquire appends to the path it locks.
const Suffix = ".lock"

// Lock is a held lock.
type Lock struct {
	f    *os.File
	path string // the lock file
}

// HeldError says that another process holds the lock.
type HeldError struct {
	Path   string // the lock file
	Holder string // what the holder wrote: "pid 1234 on host n1 since 2026-11-26T10:22:33Z: exageostat fit ..."
}

func (e *HeldError) Error() string {
	h := e.Holder
	if h == "" {
		h = "another process (it has not written its name yet)"
	}
	return "in use by " + h + " (lock " + e.Path + ")"
}

// Acquire locks path (through path + Suffix) for this process and records
// it there as the holder, with what (e.g. the command line). It fails
// with a *HeldError when another process holds it, or with the error of
// the file system (a directory that cannot be written).
func Acquire(path, what string) (*Lock, error) {
	lp := path + Suffix
	for range 5 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := flock(f); err != nil {
			b := make([]byte, 4096)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			if errors.Is(err, errWouldBlock) {
				return nil, &HeldError{Path: lp, Holder: strings.TrimSpace(string(b[:n]))}
			}
			return nil, err
		}
		// A holder that released in between removed the file we opened:
		// lock the one now at the path.
		if !samePath(f, lp) {
			f.Close()
			continue
		}
		host, _ := os.Hostname()
		msg := fmt.Sprintf("pid %d on host %s since %s: %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), what)
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(msg), 0)
		}
		return &Lock{f: f, path: lp}, nil
	}
	return nil, fmt.Errorf("%s: the lock file keeps being replaced", lp)
}

// Release removes the lock file and unlocks it. A nil *Lock is fine.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// samePath reports whether the open file f is the file now at path.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
