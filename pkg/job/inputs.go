package job

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// decoded is what readDecoded's decoder made of the file (b is nil),
	// with the file's digest and size from rank 0 (sum "": not known).
	decoded any
	sum     string
	size    int64
	// released: the content was let go (Release); sum and size stay.
	released bool
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
	frameDecodeError // a decoder's message (readDecoded)
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
		if f.path == path && f.decoded == nil {
			if f.released {
				return f.name, nil, fmt.Errorf("inputs: %s was read and let go (Release): it cannot be read again", f.name)
			}
			return f.name, f.b, nil
		}
	}
	if name, b, err = in.exchange(path, func() []byte { return in.readFrame(path) }); err != nil {
		return name, nil, err
	}
	in.files = append(in.files, inputFile{flag: flag, path: path, name: name, b: b})
	return name, b, nil
}

// exchange broadcasts rank 0's frame, which frame makes (only rank 0
// calls it), and returns its path and payload on every rank, or the
// error it carries.
func (in *Inputs) exchange(path string, frame func() []byte) (name string, payload []byte, err error) {
	var f []byte
	if in.w.Rank() == 0 {
		f = frame()
	}
	if f, err = in.w.Bcast(0, f); err != nil {
		return path, nil, err
	}
	// A frame: its kind, rank 0's path, a zero byte, then the payload.
	if len(f) == 0 {
		return path, nil, errors.New("inputs: empty broadcast frame")
	}
	kind := f[0]
	cut := bytes.IndexByte(f[1:], 0)
	if cut < 0 {
		return path, nil, errors.New("inputs: malformed broadcast frame")
	}
	name, payload = string(f[1:1+cut]), f[2+cut:]
	switch kind {
	case frameError:
		var we wirePathError
		if err := json.Unmarshal(payload, &we); err != nil {
			return name, nil, err
		}
		var cause error = errors.New(we.Msg)
		if we.Errno != 0 {
			cause = syscall.Errno(we.Errno)
		}
		return name, nil, &fs.PathError{Op: we.Op, Path: name, Err: cause}
	case frameDecodeError:
		return name, nil, decodeError(payload)
	case frameStopped:
		n, _ := strconv.Atoi(string(payload))
		return name, nil, &Interrupted{Signal: syscall.Signal(n), Reading: name}
	}
	return name, payload, nil
}

// decodedFile is what readDecoded sends: the file's digest and size
// (rank 0's, for the record) and the decoded value.
type decodedFile[T any] struct {
	Sum   string
	Size  int64
	Value T
}

// readDecoded returns what decode makes of the file at path (flag names
// it in the run's record), decoded on rank 0 alone and sent to every rank
// (gob: T's exported fields are what travels). It is Read for the files a
// library opens by their path (GDAL's rasters and vector files, which may
// come with side files; a cluster file with the performance models its
// groups name): the other ranks never open them, and every rank has rank
// 0's value, or rank 0's error as text. A path decoded before comes from
// memory; the record has the file's SHA-256, computed on rank 0. A
// collective, like Read.
func readDecoded[T any](in *Inputs, flag, path string, decode func(path string) (T, error)) (T, error) {
	var v T
	for _, f := range in.files {
		if d, ok := f.decoded.(T); ok && f.path == path {
			return d, nil
		}
	}
	name, payload, err := in.exchange(path, func() []byte {
		return in.onRoot(path, func() []byte {
			d, err := decode(path)
			if err != nil {
				return frameOf(frameDecodeError, path, []byte(err.Error()))
			}
			df := decodedFile[T]{Value: d}
			df.Sum, df.Size, _ = provenance.FileSHA256(path)
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(df); err != nil {
				return frameOf(frameDecodeError, path, []byte(fmt.Sprintf("%s: %v", path, err)))
			}
			return frameOf(frameData, path, buf.Bytes())
		})
	})
	if err != nil {
		return v, err
	}
	var df decodedFile[T]
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&df); err != nil {
		return v, fmt.Errorf("inputs: %s: %v", name, err)
	}
	in.files = append(in.files, inputFile{flag: flag, path: path, name: name, decoded: df.Value, sum: df.Sum, size: df.Size})
	return df.Value, nil
}

// readStream returns what parse makes of the file at path (flag names it
// in the run's record), parsed on rank 0 as its bytes are read (the text
// is never held whole: parse reads it from r) and sent to every rank by
// share, a collective that returns rank 0's value (v, which the other
// ranks pass as T's zero value) on every rank. It is Read then Release
// without the text in memory: the record has the SHA-256 and size of the
// bytes parse read (rank 0), and a later Read of path is an error. A
// FIFO works, and a blocked read is given up on a stop request, as with
// Read. Errors are rank 0's on every rank: the file system's as Read's,
// parse's own on rank 0 and an *InputError with its text on the others.
func readStream[T any](in *Inputs, flag, path string, parse func(name string, r io.Reader) (T, error),
	share func(c comm.Comm, v T) (T, error)) (string, T, error) {
	var v T
	var perr error
	name, payload, err := in.exchange(path, func() []byte {
		return in.onRoot(path, func() []byte {
			f, err := os.Open(path)
			if err != nil {
				return errorFrame(path, err)
			}
			defer f.Close()
			h := sha256.New()
			cr := &countReader{r: io.TeeReader(f, h)}
			if v, perr = parse(path, cr); perr != nil {
				return frameOf(frameDecodeError, path, []byte(perr.Error()))
			}
			return frameOf(frameData, path, fmt.Appendf(nil, "%x %d", h.Sum(nil), cr.n))
		})
	})
	switch {
	case err != nil && isDecodeError(err) && in.w.Rank() == 0:
		return name, v, perr // rank 0's own error, its type kept (parse has returned)
	case err != nil && isDecodeError(err):
		return name, v, &InputError{Err: err}
	case err != nil:
		return name, v, err
	}
	if v, err = share(in.w, v); err != nil {
		return name, v, err
	}
	f := inputFile{flag: flag, path: path, name: name, released: true}
	if in.w.Rank() == 0 {
		_, err = fmt.Sscanf(string(payload), "%s %d", &f.sum, &f.size)
	}
	in.files = append(in.files, f)
	return name, v, err
}

// decodeError is a decoder's message from rank 0 (frameDecodeError).
type decodeError string

func (e decodeError) Error() string { return string(e) }

// isDecodeError reports whether err is a decoder's message from rank 0.
func isDecodeError(err error) bool {
	var de decodeError
	return errors.As(err, &de)
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// readFrame reads path (rank 0) into a frame; a stop request gives the
// read up (onRoot).
func (in *Inputs) readFrame(path string) []byte {
	return in.onRoot(path, func() []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			return errorFrame(path, err)
		}
		return frameOf(frameData, path, b)
	})
}

// onRoot returns the frame read makes of path (rank 0), unless the stop
// request comes first: then the frame says which signal gave the read up
// (the goroutine blocked in read is left behind: the run ends).
func (in *Inputs) onRoot(path string, read func() []byte) []byte {
	done := make(chan []byte, 1)
	go func() { done <- read() }()
	select {
	case f := <-done:
		return f
	case <-in.stop:
		sig := syscall.SIGTERM
		if in.sig != nil && in.sig() != 0 {
			sig = in.sig()
		}
		return frameOf(frameStopped, path, []byte(strconv.Itoa(int(sig))))
	}
}

// errorFrame is the frame of the file system's error err reading path.
func errorFrame(path string, err error) []byte {
	we := wirePathError{Op: "open", Path: path, Msg: err.Error()}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		we.Op, we.Msg = pe.Op, pe.Err.Error()
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		we.Errno = int(en)
	}
	b, _ := json.Marshal(we)
	return frameOf(frameError, path, b)
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
		switch {
		case f.decoded == nil && !f.released:
			r.AddInputBytes(f.flag, f.name, f.b)
		case f.sum != "":
			r.Inputs = append(r.Inputs, provenance.Input{Flag: f.flag, Path: f.name, SHA256: f.sum, Bytes: f.size})
		}
	}
}

// Release lets the content read from path (this rank's path, or rank
// 0's that Read returned) go once it is parsed: a large data file need
// not stay in memory for the whole run, on every rank. Record keeps its
// SHA-256 and size, computed here on rank 0 (the rank that records; the
// others record nothing of it). A later Read of path is an error. Not a
// collective; a path not read, or decoded (readDecoded), is left alone.
func (in *Inputs) Release(path string) {
	for k := range in.files {
		f := &in.files[k]
		if (f.path != path && f.name != path) || f.decoded != nil || f.released {
			continue
		}
		if in.w.Rank() == 0 {
			sum := sha256.Sum256(f.b)
			f.sum, f.size = hex.EncodeToString(sum[:]), int64(len(f.b))
		}
		f.b, f.released = nil, true
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
