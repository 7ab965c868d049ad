package job

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

// TestInputsRelease: a file read on two ranks and let go (Release) keeps
// its record on rank 0, the SHA-256 and size of the file's bytes
// (sha256sum's, computed here from the file), and none on rank 1; a second
// Read of it is an error, and a file not released is recorded as before.
func TestInputsRelease(t *testing.T) {
	dir := t.TempDir()
	data, other := filepath.Join(dir, "d.csv"), filepath.Join(dir, "e.csv")
	content := "x,y,z\n0.1,0.2,0.3\n0.4,0.5,0.6\n"
	for _, f := range []string{data, other} {
		if err := os.WriteFile(f, []byte(content+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var want []provenance.Input
	for k, f := range []string{data, other} {
		sum, size, err := provenance.FileSHA256(f)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, provenance.Input{Flag: []string{"data", "at"}[k], Path: f, SHA256: sum, Bytes: size})
	}
	recs := make([][]provenance.Input, 2)
	errs := ranksWithin(t, 20*time.Second, 2, func(w comm.Comm) error {
		in := NewInputs(w, nil, nil)
		if _, b, err := in.Read("data", data); err != nil || string(b) != content+data {
			return fmt.Errorf("read %q, %v", b, err)
		}
		if _, _, err := in.Read("at", other); err != nil {
			return err
		}
		in.Release(data)
		in.Release(data) // twice: no change
		if _, b, err := in.Read("data", data); err == nil || b != nil {
			return fmt.Errorf("a released file read again: %q, %v; want an error", b, err)
		}
		var r provenance.Run
		in.Record(&r)
		recs[w.Rank()] = r.Inputs
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	if len(recs[0]) != 2 || recs[0][0] != want[0] || recs[0][1] != want[1] {
		t.Errorf("rank 0's record %+v, want %+v", recs[0], want)
	}
	if len(recs[1]) != 1 || recs[1][0] != want[1] {
		t.Errorf("rank 1's record %+v, want only %+v", recs[1], want[1])
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

// TestInputsDecodedOnRank0: on three ranks, a file that a library opens
// by its path (readDecoded) is decoded by rank 0 alone, from rank 0's
// path (the others' paths do not exist), and every rank gets its value,
// side-file content included; a second read comes from memory; the
// record has the file's SHA-256 (provenance.FileSHA256 of rank 0's
// file). A decoder's error is rank 0's text on every rank.
func TestInputsDecodedOnRank0(t *testing.T) {
	type grid struct {
		Name   string
		Values []float64
		Side   string
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "g.grid")
	if err := os.WriteFile(path, []byte("g 1.5 -2 NaN"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".aux", []byte("side"), 0o644); err != nil {
		t.Fatal(err)
	}
	// decode parses "NAME v1 v2 ..." and reads the side file, as GDAL
	// would; it counts the ranks that call it.
	var calls atomic.Int32
	decode := func(p string) (grid, error) {
		calls.Add(1)
		b, err := os.ReadFile(p)
		if err != nil {
			return grid{}, fmt.Errorf("%s: not recognised as a grid", p)
		}
		side, err := os.ReadFile(p + ".aux")
		if err != nil {
			return grid{}, err
		}
		f := strings.Fields(string(b))
		g := grid{Name: f[0], Side: string(side)}
		for _, s := range f[1:] {
			v, _ := strconv.ParseFloat(s, 64)
			g.Values = append(g.Values, v)
		}
		return g, nil
	}
	got := make([]grid, 3)
	recs := make([][]provenance.Input, 3)
	errs := ranksWithin(t, 20*time.Second, 3, func(w comm.Comm) error {
		in := NewInputs(w, nil, nil)
		p, missing := path, filepath.Join(dir, "missing.grid")
		if w.Rank() > 0 {
			p, missing = filepath.Join(dir, "not-here.grid"), path // never opened
		}
		for range 2 {
			g, err := readDecoded(in, "at", p, decode)
			if err != nil {
				return err
			}
			got[w.Rank()] = g
		}
		var r provenance.Run
		in.Record(&r)
		recs[w.Rank()] = r.Inputs
		if _, err := readDecoded(in, "blocks", missing, decode); err == nil || err.Error() != filepath.Join(dir, "missing.grid")+": not recognised as a grid" {
			return fmt.Errorf("rank 0's decoder error: %v", err)
		}
		return nil
	})
	sum, size, err := provenance.FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	want := provenance.Input{Flag: "at", Path: path, SHA256: sum, Bytes: size}
	for r, err := range errs {
		g := got[r]
		if err != nil || g.Name != "g" || g.Side != "side" || len(g.Values) != 3 || g.Values[0] != 1.5 || g.Values[1] != -2 || !math.IsNaN(g.Values[2]) ||
			len(recs[r]) != 1 || recs[r][0] != want {
			t.Errorf("rank %d: %v, decoded %+v, record %+v (want %+v)", r, err, g, recs[r], want)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the decoder ran %d times, want 2 (rank 0: the file, then the missing one)", n)
	}
}
