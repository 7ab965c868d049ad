package job

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/provenance"
)

// Inputs reads the input files of a run (configuration, data, new
// locations, a checkpoint to resume, a fit result) once, on rank 0, and
// gives every rank the same bytes by broadcast:
//
//   - no other rank opens them, so a multi-node run needs its inputs on
//     rank 0's file system only, and every rank parses the same content;
//   - a file is read once, so a FIFO, /dev/stdin or a process
//     substitution (<(cat f)) works, and the provenance digest
//     (provenance.Run.Inputs) is of the very bytes parsed;
//   - a read that blocks (a FIFO nobody writes) is given up when the
//     run's stop request comes (Env.Stop): every rank returns an
//     *Interrupted.
//
// Read is a collective: every rank calls it, in the same order; rank 0's
// path is the one read. Errors are rank 0's, on every rank alike (the
// file system's *fs.PathError, its errno included, so errors.Is works on
// every rank).
type Inputs struct {
	w     comm.Comm
	stop  <-chan struct{}
	sig   func() syscall.Signal
	files []inputFile
}

type inputFile struct {
	flag, path string
	name       string // rank 0's path
	b          []byte
}

// NewInputs returns the reader of the inputs of a run on the ranks of w
// (nil: one rank); a read blocked on rank 0 is given up when stop is
// closed, with the signal sig returns.
func NewInputs(w comm.Comm, stop <-chan struct{}, sig func() syscall.Signal) *Inputs {
	if w == nil {
		w = comm.Self{}
	}
	return &Inputs{w: w, stop: stop, sig: sig}
}

// The frames of Read's broadcast: the content, an error, or the signal
// that gave up the read.
const (
	frameData byte = iota
	frameError
	frameStopped
)

// wirePathError is an *fs.PathError as it travels.
type wirePathError struct {
	Op, Path, Msg string
	Errno         int // 0: not an errno
}

// Read returns the content of the file at path (flag names it in the run's
// record), read on rank 0 (a path read before comes from memory), and
// name, rank 0's path, for messages: every rank names the file alike.
func (in *Inputs) Read(flag, path string) (name string, b []byte, err error) {
	for _, f := range in.files {
		if f.path == path {
			return f.name, f.b, nil
		}
	}
	var frame []byte
	if in.w.Rank() == 0 {
		frame = in.readFrame(path)
	}
	if frame, err = in.w.Bcast(0, frame); err != nil {
		return "", nil, err
	}
	// A frame: its kind, rank 0's path, a zero byte, then the payload.
	if len(frame) == 0 {
		return "", nil, errors.New("inputs: empty broadcast frame")
	}
	kind := frame[0]
	cut := bytes.IndexByte(frame[1:], 0)
	if cut < 0 {
		return "", nil, errors.New("inputs: malformed broadcast frame")
	}
	name = string(frame[1 : 1+cut])
	payload := frame[2+cut:]
	switch kind {
	case frameError:
		var we wirePathError
		if err := json.Unmarshal(payload, &we); err != nil {
			return "", nil, err
		}
		var cause error = errors.New(we.Msg)
		if we.Errno != 0 {
			cause = syscall.Errno(we.Errno)
		}
		return name, nil, &fs.PathError{Op: we.Op, Path: name, Err: cause}
	case frameStopped:
		n, _ := strconv.Atoi(string(payload))
		return name, nil, &Interrupted{Signal: syscall.Signal(n), Reading: name}
	}
	b = payload
	in.files = append(in.files, inputFile{flag: flag, path: path, name: name, b: b})
	return name, b, nil
}

// readFrame reads path (rank 0) into a frame; a stop request gives the
// read up (the goroutine blocked in it is left behind: the run ends).
func (in *Inputs) readFrame(path string) []byte {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := os.ReadFile(path)
		done <- result{b, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-in.stop:
		sig := syscall.SIGTERM
		if in.sig != nil && in.sig() != 0 {
			sig = in.sig()
		}
		return frameOf(frameStopped, path, []byte(strconv.Itoa(int(sig))))
	}
	if r.err != nil {
		we := wirePathError{Op: "open", Path: path, Msg: r.err.Error()}
		var pe *fs.PathError
		if errors.As(r.err, &pe) {
			we.Op, we.Msg = pe.Op, pe.Err.Error()
		}
		var en syscall.Errno
		if errors.As(r.err, &en) {
			we.Errno = int(en)
		}
		b, _ := json.Marshal(we)
		return frameOf(frameError, path, b)
	}
	return frameOf(frameData, path, r.b)
}

// frameOf makes a frame of kind for path with payload b.
func frameOf(kind byte, path string, b []byte) []byte {
	f := make([]byte, 0, 2+len(path)+len(b))
	f = append(append(append(f, kind), path...), 0)
	return append(f, b...)
}

// Record adds the files read so far to r, with the digests of the bytes
// read.
func (in *Inputs) Record(r *provenance.Run) {
	for _, f := range in.files {
		r.AddInputBytes(f.flag, f.name, f.b)
	}
}

// Has reports whether path was read already.
func (in *Inputs) Has(path string) bool {
	for _, f := range in.files {
		if f.path == path {
			return true
		}
	}
	return false
}
