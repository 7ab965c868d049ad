package job

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/provenance"
	"github.com/exageostat/exageostat/pkg/stop"
)

// TestInputsReadOnce: on three ranks, rank 0 reads a FIFO (a file that
// can be read once) and every rank gets its bytes, named by rank 0's path;
// a second Read of the path comes from memory; the record's digest is of
// those bytes. A missing file is rank 0's error on every rank, with its
// errno (errors.Is works) and rank 0's path.
func TestInputsReadOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const content = "x,y,z\n0.1,0.2,1\n"
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(content)
			f.Close()
		}
	}()
	got := make([]string, 3)
	recs := make([][]provenance.Input, 3)
	errs := ranksWithin(t, 20*time.Second, 3, func(w comm.Comm) error {
		in := NewInputs(w, nil, nil)
		path := fifo
		if w.Rank() > 0 {
			path = filepath.Join(dir, "not-here.csv") // never opened
		}
		for range 2 {
			name, b, err := in.Read("data", path)
			if err != nil {
				return err
			}
			if name != fifo {
				return errors.New("named " + name)
			}
			got[w.Rank()] = string(b)
		}
		var r provenance.Run
		in.Record(&r)
		recs[w.Rank()] = r.Inputs
		_, _, err := in.Read("at", filepath.Join(dir, "missing.csv"))
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "missing.csv")) {
			return errors.New("missing file: " + err.Error())
		}
		return nil
	})
	want := provenance.Run{}
	want.AddInputBytes("data", fifo, []byte(content))
	for r, err := range errs {
		if err != nil || got[r] != content || len(recs[r]) != 1 || recs[r][0] != want.Inputs[0] {
			t.Errorf("rank %d: %v, read %q, record %+v (want %+v)", r, err, got[r], recs[r], want.Inputs)
		}
	}
}

// TestInputsStopBlockedRead: a read that blocks on rank 0 (a FIFO nobody
// writes) is given up when the stop request comes: every rank returns the
// same *Interrupted naming the file.
func TestInputsStopBlockedRead(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "never.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	req := stop.New()
	time.AfterFunc(200*time.Millisecond, func() { req.Ask(syscall.SIGTERM, time.Now()) })
	errs := ranksWithin(t, 20*time.Second, 2, func(w comm.Comm) error {
		_, _, err := NewInputs(w, req.Asked(), req.Number).Read("data", fifo)
		return err
	})
	for r, err := range errs {
		var ir *Interrupted
		if !errors.As(err, &ir) || ir.Reading != fifo || ir.ExitCode() != 143 || !strings.Contains(err.Error(), "SIGTERM while reading "+fifo) {
			t.Errorf("rank %d: %v, want the SIGTERM that gave up reading %s", r, err, fifo)
		}
	}
}
