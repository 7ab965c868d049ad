// Package perfmodel holds history-based performance models in the manner of
// StarPU's: for each worker architecture (arch: "cpu", "cuda", "host-test",
// or a transfer such as "host>host-test"), task kind and data footprint, the
// number of recorded durations, their mean and their standard deviation.
// A scheduler asks Expected for the duration of a task on a worker; the
// runtime Records what it measures; calibrate writes a model; the cluster
// model takes a group's per-kind durations from one (ResolveCluster).
//
// The footprint (size) of a task is the number of float64 words of the
// largest data handle it accesses: nb*nb for a task on a full tile, nb for
// one that only touches vector tiles (Footprint).
//
// Statistics are accumulated with Welford's update: after the n-th sample x,
//
//	mean_n = mean_{n-1} + (x - mean_{n-1}) / n
//	M2_n   = M2_{n-1} + (x - mean_{n-1}) (x - mean_n)
//
// and the standard deviation is sqrt(M2_n / (n - 1)) (0 for one sample).
// Two histories (n_a, mean_a, M2_a) and (n_b, mean_b, M2_b) merge exactly
// (Chan et al.): n = n_a + n_b, d = mean_b - mean_a,
// mean = mean_a + d n_b / n, M2 = M2_a + M2_b + d^2 n_a n_b / n.
//
// Outliers: once a history holds MinSamples samples, a sample x with
// |x - mean| > OutlierWidth max(stddev, OutlierFloor mean) is counted and
// left out (a task the OS preempted, a page-fault storm), unless it is the
// third such sample in a row on the same side: the duration has changed,
// and the model follows it.
//
// Sizes without a history take a regression over the sizes that have one
// (regression.go): StarPU's "regression" t = a n^b, and its
// "nl-regression" t = a n^b + c once three sizes are known.
package perfmodel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// MaxSeconds bounds a duration in a model: a file whose mean or standard
// deviation exceeds it (a day: no tile task lasts that long) is refused,
// and Record ignores such a sample.
const MaxSeconds = runtime.MaxExpected

// Outlier filtering (see the package comment).
const (
	MinSamples   = 5
	OutlierWidth = 3.0
	OutlierFloor = 0.1
	outlierRun   = 3
)

// Format is the version tag of the file format written by Save.
const Format = "exageostat-perfmodel/1"

// Worker architectures of the models written by this project.
const (
	CPU      = "cpu"       // one CPU core running the BLAS kernels single-threaded
	CUDA     = "cuda"      // one CUDA GPU
	HostTest = "host-test" // the runtime's host-memory test device
)

type key struct {
	arch, kind string
	size       int
}

// stat is a Welford accumulator with the outlier filter's state.
type stat struct {
	n        int
	mean, m2 float64
	outliers int       // samples left out
	run      []float64 // the outliers in a row, all on one side of the mean
}

// offer adds x unless it is an outlier (see the package comment); the
// third outlier in a row on one side adds the run's samples.
func (s *stat) offer(x float64) {
	if s.n < MinSamples {
		s.add(x)
		return
	}
	width := OutlierWidth * max(s.stddev(), OutlierFloor*s.mean)
	if math.Abs(x-s.mean) <= width {
		s.run = s.run[:0]
		s.add(x)
		return
	}
	if len(s.run) > 0 && (s.run[0] > s.mean) != (x > s.mean) {
		s.run = s.run[:0]
	}
	s.run = append(s.run, x)
	s.outliers++
	if len(s.run) < outlierRun {
		return
	}
	for _, v := range s.run {
		s.add(v)
	}
	s.outliers -= len(s.run)
	s.run = s.run[:0]
}

func (s *stat) add(x float64) {
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
}

// merge adds the history o to s (Chan et al.'s pairwise update).
func (s *stat) merge(o stat) {
	if o.n == 0 {
		return
	}
	if s.n == 0 {
		*s = o
		return
	}
	s.outliers += o.outliers
	n := s.n + o.n
	d := o.mean - s.mean
	s.mean += d * float64(o.n) / float64(n)
	s.m2 += o.m2 + d*d*float64(s.n)*float64(o.n)/float64(n)
	s.n = n
}

func (s stat) stddev() float64 {
	if s.n < 2 {
		return 0
	}
	return math.Sqrt(max(s.m2, 0) / float64(s.n-1))
}

// Model is a set of duration histories keyed by (arch, kind, size). It is
// safe for concurrent use.
type Model struct {
	mu      sync.Mutex
	host    string
	entries map[key]*stat
	fits    map[[2]string]*Fit // regressions by (arch, kind), made when asked, dropped when a sample arrives
}

// New returns an empty model.
func New() *Model { return &Model{entries: map[key]*stat{}, fits: map[[2]string]*Fit{}} }

// SetHost records the machine the model was measured on (saved in the file).
func (m *Model) SetHost(host string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.host = host
}

// Host returns the machine the model was measured on ("" if unknown).
func (m *Model) Host() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.host
}

// Record adds one measured duration (seconds) of a task of kind kind on a
// worker of architecture arch with footprint size (float64 words of the
// largest handle the task accesses), unless it is an outlier (see the
// package comment). Durations that are not in [0, MaxSeconds], and sizes
// < 1, are ignored: a model never holds them.
func (m *Model) Record(arch, kind string, size int, seconds float64) {
	if size < 1 || !(seconds >= 0 && seconds <= MaxSeconds) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key{arch, kind, size}
	s := m.entries[k]
	if s == nil {
		s = &stat{}
		m.entries[k] = s
	}
	n := s.n
	s.offer(seconds)
	if s.n != n {
		delete(m.fits, [2]string{arch, kind})
	}
}

// Expected returns the mean recorded duration of a task of kind kind on a
// worker of architecture arch at footprint size; at a size without a
// history, the regression over the sizes that have one (Fit); ok = false
// when there is neither.
func (m *Model) Expected(arch, kind string, size int) (seconds float64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.entries[key{arch, kind, size}]; s != nil && s.n > 0 {
		return s.mean, true
	}
	f := m.fitLocked(arch, kind)
	if f == nil || size < 1 {
		return 0, false
	}
	v := f.At(size)
	return v, v >= 0 && v <= MaxSeconds
}

// Entry is the summary of one history: Samples durations with mean Mean
// and sample standard deviation Stddev, in seconds, and Outliers samples
// left out. NB is the tile size at which a task of the kind on full tiles
// has footprint Size (Footprint; 0 when there is none), written for the
// reader.
type Entry struct {
	Arch     string  `json:"arch"`
	Kind     string  `json:"kind"`
	Size     int     `json:"size"`
	NB       int     `json:"nb,omitempty"`
	Samples  int     `json:"samples"`
	Mean     float64 `json:"mean_s"`
	Stddev   float64 `json:"stddev_s"`
	Outliers int     `json:"outliers,omitempty"`
}

// Entries returns the model's histories sorted by arch, kind, then size.
func (m *Model) Entries() []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Entry, 0, len(m.entries))
	for k, s := range m.entries {
		out = append(out, Entry{Arch: k.arch, Kind: k.kind, Size: k.size, NB: tileSize(k.kind, k.size),
			Samples: s.n, Mean: s.mean, Stddev: s.stddev(), Outliers: s.outliers})
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := strings.Compare(a.Arch, b.Arch); c != 0 {
			return c
		}
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return a.Size - b.Size
	})
	return out
}

// Add merges the summarised history e into the model, as if its samples
// had been recorded one by one (same count, mean and standard deviation).
func (m *Model) Add(e Entry) error {
	if err := e.check(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key{e.Arch, e.Kind, e.Size}
	s := m.entries[k]
	if s == nil {
		s = &stat{}
		m.entries[k] = s
	}
	s.merge(stat{n: e.Samples, mean: e.Mean, m2: e.Stddev * e.Stddev * float64(e.Samples-1), outliers: e.Outliers})
	delete(m.fits, [2]string{e.Arch, e.Kind})
	return nil
}

// Merge adds every history of o to m (o is left unchanged).
func (m *Model) Merge(o *Model) {
	if o == m {
		return
	}
	for _, e := range o.Entries() {
		_ = m.Add(e) // entries of a model are always valid
	}
}

// check reports what is wrong with e, naming the field.
func (e Entry) check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case strings.TrimSpace(e.Arch) == "":
		return fmt.Errorf("arch: missing")
	case strings.TrimSpace(e.Kind) == "":
		return fmt.Errorf("kind: missing")
	case e.Size < 1:
		return fmt.Errorf("size: must be >= 1 (float64 words of the largest handle), got %d", e.Size)
	case e.NB != 0 && Footprint(e.Kind, e.NB) != e.Size:
		return fmt.Errorf("nb: %d, but a %s task on full %d x %d tiles has size %d, not %d", e.NB, e.Kind, e.NB, e.NB, Footprint(e.Kind, e.NB), e.Size)
	case e.Samples < 1:
		return fmt.Errorf("samples: must be >= 1, got %d", e.Samples)
	case !(e.Mean >= 0) || !finite(e.Mean):
		return fmt.Errorf("mean_s: must be a non-negative number of seconds, got %g", e.Mean)
	case e.Mean > MaxSeconds:
		return fmt.Errorf("mean_s: %g s is not the duration of a task (at most %d s, a day)", e.Mean, MaxSeconds)
	case !(e.Stddev >= 0) || !finite(e.Stddev):
		return fmt.Errorf("stddev_s: must be a non-negative number of seconds, got %g", e.Stddev)
	case e.Stddev > MaxSeconds:
		return fmt.Errorf("stddev_s: %g s is not the spread of a task's duration (at most %d s, a day)", e.Stddev, MaxSeconds)
	case e.Outliers < 0:
		return fmt.Errorf("outliers: must be >= 0, got %d", e.Outliers)
	case e.Samples == 1 && e.Stddev != 0:
		return fmt.Errorf("stddev_s: %g with one sample (must be 0)", e.Stddev)
	}
	return nil
}

// tileSize returns the nb with Footprint(k, nb) = size: size for the
// vector kinds, its square root for the others (0 when size is not a
// perfect square: not a full tile).
func tileSize(k string, size int) int {
	if Footprint(k, 1) == 1 && Footprint(k, 2) == 2 {
		return size
	}
	r := int(math.Round(math.Sqrt(float64(size))))
	if r*r == size {
		return r
	}
	return 0
}

// Footprint returns the size a task of kind k on full nb x nb tiles has:
// nb for the kinds that access vector tiles only (zcpy, geadd, dot), nb*nb
// for the others (they access a tile).
func Footprint(k string, nb int) int {
	switch k {
	case kind.Zcpy, kind.Geadd, kind.Dot:
		return nb
	}
	return nb * nb
}

// Durations returns, for each duration kind of a cluster file
// (config.TaskKinds) with a history for arch at footprint Footprint(kind,
// nb), its mean seconds: a [group.cpu] or [group.gpu] table at tile size nb.
// Measured values only: a cluster file is not filled by regression.
func (m *Model) Durations(arch string, nb int) config.Durations {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := config.Durations{}
	for _, k := range config.TaskKinds() {
		if s := m.entries[key{arch, k, Footprint(k, nb)}]; s != nil && s.n > 0 {
			d[k] = s.mean
		}
	}
	return d
}

// TileSizes returns the tile sizes nb (ascending) at which arch has a
// history of some duration kind that accesses a tile (footprint nb*nb).
func (m *Model) TileSizes(arch string) []int {
	var out []int
	for _, e := range m.Entries() {
		if e.Arch == arch && e.NB > 0 && slices.Contains(config.TaskKinds(), e.Kind) && e.NB*e.NB == e.Size &&
			!slices.Contains(out, e.NB) {
			out = append(out, e.NB)
		}
	}
	slices.Sort(out)
	return out
}

// file is the JSON document of a model file.
type file struct {
	Format  string  `json:"format"`
	Host    string  `json:"host,omitempty"`
	Entries []Entry `json:"entries"`
}

// Write writes m as a model file (JSON, entries in Entries order, one per
// line).
func (m *Model) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	head, err := marshal(file{Format: Format, Host: m.Host(), Entries: []Entry{}})
	if err != nil {
		return err
	}
	// {"format":...,"host":...,"entries":[]} with the entries one per line.
	head = head[:len(head)-len("[]}")]
	bw.Write(head)
	bw.WriteString("[")
	for i, e := range m.Entries() {
		line, err := marshal(e)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		bw.Write(line)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// Save writes m to path atomically (pkg/atomicfile): a reader sees the old
// file or the new one, never half of it.
func (m *Model) Save(path string) error {
	return atomicfile.Write(path, m.Write)
}

// Read parses a model file from r; name labels the errors, which are one
// line each and name the entry (entries[i], from 0) and field at fault.
// An (arch, kind, size) given twice is an error.
func Read(r io.Reader, name string) (*Model, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not a performance-model file: %s", name, oneLine(err.Error()))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the model's JSON object", name)
	}
	if f.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q", name, f.Format, Format)
	}
	m := New()
	m.host = f.Host
	for i, e := range f.Entries {
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%s: entries[%d] (%s %s): %v", name, i, e.Arch, e.Kind, err)
		}
		if _, dup := m.entries[key{e.Arch, e.Kind, e.Size}]; dup {
			return nil, fmt.Errorf("%s: entries[%d]: arch %q kind %q size %d is given twice", name, i, e.Arch, e.Kind, e.Size)
		}
		if err := m.Add(e); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Load reads the model file path (see Read).
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError names the file
	}
	defer f.Close()
	return Read(f, path)
}

// marshal is json.Marshal without HTML escaping (arch "host>host-test"
// stays readable) and without the trailing newline.
func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
