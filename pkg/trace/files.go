package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/exageostat/exageostat/pkg/atomicfile"
)

// The trace files of a run given --trace PATH: each rank writes its own
// Paje file as it goes, RankPath(PATH, rank); at the end rank 0 merges
// them into PATH (Chrome JSON for Perfetto, or CSV or Paje by the
// extension) and, beside a Chrome or CSV file, PajePath(PATH) (ViTE,
// pj_dump). `exageostat trace merge` does the same from the rank files of
// a run that did not end (killed).

// stem is path without its extension.
func stem(path string) string { return strings.TrimSuffix(path, filepath.Ext(path)) }

// RankPath is the file rank writes while a run traced to path goes:
// t.json gives t.rank0.paje.
func RankPath(path string, rank int) string { return fmt.Sprintf("%s.rank%d.paje", stem(path), rank) }

// PajePath is the merged Paje file written beside path: t.json gives
// t.paje (path itself when it is a .paje file).
func PajePath(path string) string { return stem(path) + ".paje" }

// isPaje reports whether path names a Paje file.
func isPaje(path string) bool { return strings.EqualFold(filepath.Ext(path), ".paje") }

// Read reads a trace in any format this package writes, by its content:
// Paje (a '%' header), Chrome JSON ('{'); CSV is not read back.
func Read(r io.Reader) ([]Event, error) {
	br := bufio.NewReader(r)
	b, err := br.Peek(1)
	for err == nil && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
		br.ReadByte()
		b, err = br.Peek(1)
	}
	if err != nil {
		return nil, fmt.Errorf("trace: empty file")
	}
	switch b[0] {
	case '%':
		return ReadPaje(br)
	case '{':
		return ReadChrome(br)
	}
	return nil, fmt.Errorf("trace: neither a Paje trace nor a Chrome trace-event JSON file")
}

// ReadFile reads the trace file path (Read), errors naming it.
func ReadFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ev, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ev, nil
}

// WriteFile writes ev to path atomically (see package atomicfile: a failed
// run never leaves a half-written trace). The format follows the extension:
// ".csv" for CSV, ".paje" for Paje, anything else Chrome JSON.
func WriteFile(path string, ev []Event) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		switch ext := strings.ToLower(filepath.Ext(path)); ext {
		case ".csv":
			return WriteCSV(w, ev)
		case ".paje":
			return WritePaje(w, ev)
		}
		return WriteChrome(w, ev)
	})
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// WriteOutputs writes ev to path (WriteFile) and, when path is not a Paje
// file, to PajePath(path) beside it; it returns the files written.
func WriteOutputs(path string, ev []Event) ([]string, error) {
	if err := WriteFile(path, ev); err != nil {
		return nil, err
	}
	if isPaje(path) {
		return []string{path}, nil
	}
	p := PajePath(path)
	if err := WriteFile(p, ev); err != nil {
		return nil, err
	}
	return []string{path, p}, nil
}

// Merge reads the Paje files of the ranks of a run (each rank's own,
// RankPath; complete or cut short) held in files, in rank order, into one
// list of events sorted by Sort.
func Merge(files [][]byte) ([]Event, error) {
	var all []Event
	for i, b := range files {
		ev, err := ReadPaje(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("rank %d: %w", i, err)
		}
		all = append(all, ev...)
	}
	Sort(all)
	return all, nil
}
