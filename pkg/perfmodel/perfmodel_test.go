package perfmodel

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

// twoPass returns the mean and sample standard deviation of xs by the
// textbook two-pass formulas (independent of Welford's update).
func twoPass(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestRecordExpected(t *testing.T) {
	for _, c := range []struct {
		name    string
		samples []float64
	}{
		{"one", []float64{0.25}},
		{"two", []float64{1, 3}},
		{"spread", []float64{0.021, 0.019, 0.0205, 0.022, 0.018, 0.0215}},
		{"large offset", []float64{1e4 + 1e-3, 1e4 - 1e-3, 1e4 + 2e-3, 1e4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New()
			for _, x := range c.samples {
				m.Record("cpu", "gemm", 960*960, x)
			}
			m.Record("cpu", "gemm", 960*960, math.NaN()) // ignored
			m.Record("cpu", "gemm", 960*960, -1)         // ignored
			m.Record("cpu", "gemm", 960*960, 1e308)      // ignored: more than MaxSeconds
			want, sd := twoPass(c.samples)
			got, ok := m.Expected("cpu", "gemm", 960*960)
			if !ok || !close(got, want) {
				t.Fatalf("Expected = %v, %v; want %v", got, ok, want)
			}
			es := m.Entries()
			if len(es) != 1 || es[0].Samples != len(c.samples) || es[0].NB != 960 || math.Abs(es[0].Stddev-sd) > 1e-6*sd {
				t.Fatalf("entries %+v, want %d samples, nb 960, stddev %v", es, len(c.samples), sd)
			}
			for _, miss := range []struct {
				arch, kind string
				size       int
			}{{"cuda", "gemm", 960 * 960}, {"cpu", "syrk", 960 * 960}, {"cpu", "gemm", 480 * 480}} {
				if v, ok := m.Expected(miss.arch, miss.kind, miss.size); ok {
					t.Errorf("Expected(%v) = %v, ok; want no sample", miss, v)
				}
			}
		})
	}
}

func TestMergeEqualsRecordingAll(t *testing.T) {
	a := []float64{0.5, 0.7, 0.65, 0.52}
	b := []float64{0.9, 0.88, 0.93}
	ma, mb := New(), New()
	for _, x := range a {
		ma.Record("cuda", "potrf", 4096, x)
	}
	for _, x := range b {
		mb.Record("cuda", "potrf", 4096, x)
		mb.Record("cpu", "potrf", 4096, 2*x)
	}
	ma.Merge(mb)
	mean, sd := twoPass(append(append([]float64{}, a...), b...))
	es := ma.Entries()
	if len(es) != 2 || es[0].Arch != "cpu" || es[1].Arch != "cuda" {
		t.Fatalf("entries %+v: want cpu then cuda", es)
	}
	if e := es[1]; e.Samples != 7 || !close(e.Mean, mean) || math.Abs(e.Stddev-sd) > 1e-12 || e.NB != 64 {
		t.Fatalf("merged %+v, want 7 samples, mean %v, sd %v, nb 64", e, mean, sd)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	m := New()
	m.SetHost("test-box")
	for i, x := range []float64{0.02, 0.021, 0.019} {
		m.Record("cpu", "gemm", 960*960, x)
		m.Record("cpu", "dot", 960, 1e-6*float64(i+1))
		m.Record("host>host-test", "xfer", 960*960, 0.002)
	}
	m.Record("cuda", "gemm", 960*960, 0.003)
	path := filepath.Join(t.TempDir(), "pm.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	// Deterministic, human-readable: the header, then one entry per line in
	// arch, kind, size order.
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], `{"format":"exageostat-perfmodel/1","host":"test-box","entries":[`) ||
		!strings.Contains(lines[1], `"arch":"cpu","kind":"dot","size":960,"nb":960,`) ||
		!strings.Contains(lines[2], `"arch":"cpu","kind":"gemm","size":921600,"nb":960,"samples":3,`) ||
		!strings.Contains(lines[3], `"arch":"cuda"`) || !strings.Contains(lines[4], `"arch":"host>host-test","kind":"xfer"`) {
		t.Fatalf("file:\n%s", text)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Host() != "test-box" {
		t.Errorf("host %q", l.Host())
	}
	ge, le := m.Entries(), l.Entries()
	if len(ge) != len(le) {
		t.Fatalf("loaded %d entries, saved %d", len(le), len(ge))
	}
	for i := range ge {
		if ge[i].Arch != le[i].Arch || ge[i].Kind != le[i].Kind || ge[i].Size != le[i].Size || ge[i].Samples != le[i].Samples ||
			ge[i].Mean != le[i].Mean || math.Abs(ge[i].Stddev-le[i].Stddev) > 1e-15 {
			t.Errorf("entry %d: saved %+v, loaded %+v", i, ge[i], le[i])
		}
	}
	// Saving the loaded model gives the same bytes.
	path2 := filepath.Join(t.TempDir(), "pm2.json")
	if err := l.Save(path2); err != nil {
		t.Fatal(err)
	}
	if raw2, _ := os.ReadFile(path2); string(raw2) != text {
		t.Errorf("re-saved file differs:\n%s\nvs\n%s", raw2, text)
	}
}

func TestDurations(t *testing.T) {
	m := New()
	m.Record("cpu", "gemm", 960*960, 0.02)
	m.Record("cpu", "dot", 960, 3e-6)        // vector kind: footprint nb
	m.Record("cpu", "dot", 960*960, 1)       // not a dot on 960-vectors
	m.Record("cpu", "potrf", 480*480, 0.004) // another nb
	m.Record("cuda", "gemm", 960*960, 0.002)
	m.Record("cpu", "lr-gemm", 960*960, 0.1) // not a duration kind
	got := m.Durations("cpu", 960)
	want := config.Durations{"gemm": 0.02, "dot": 3e-6}
	if len(got) != len(want) || got["gemm"] != want["gemm"] || got["dot"] != want["dot"] {
		t.Errorf("Durations(cpu, 960) = %v, want %v", got, want)
	}
	if got := m.Durations("cuda", 960); len(got) != 1 || got["gemm"] != 0.002 {
		t.Errorf("Durations(cuda, 960) = %v", got)
	}
	if got := m.TileSizes("cpu"); len(got) != 2 || got[0] != 480 || got[1] != 960 {
		t.Errorf("TileSizes(cpu) = %v, want [480 960]", got)
	}
}

func TestLoadErrors(t *testing.T) {
	const head = `{"format":"exageostat-perfmodel/1","entries":[`
	for _, c := range []struct {
		name, text, want string
	}{
		{"not json", "hello", "pm.json: not a performance-model file"},
		{"unknown field", `{"format":"exageostat-perfmodel/1","entries":[],"x":1}`, `unknown field "x"`},
		{"format", `{"format":"other/2","entries":[]}`, `pm.json: format "other/2", want "exageostat-perfmodel/1"`},
		{"trailing", `{"format":"exageostat-perfmodel/1","entries":[]} {}`, "data after"},
		{"no arch", head + `{"kind":"gemm","size":4,"samples":1,"mean_s":1,"stddev_s":0}]}`, "pm.json: entries[0] ( gemm): arch: missing"},
		{"size", head + `{"arch":"cpu","kind":"gemm","size":0,"samples":1,"mean_s":1,"stddev_s":0}]}`, "entries[0] (cpu gemm): size: must be >= 1"},
		{"nb", head + `{"arch":"cpu","kind":"gemm","size":10,"nb":3,"samples":1,"mean_s":1,"stddev_s":0}]}`, "nb: 3, but a gemm task on full 3 x 3 tiles has size 9, not 10"},
		{"samples", head + `{"arch":"cpu","kind":"gemm","size":4,"samples":0,"mean_s":1,"stddev_s":0}]}`, "samples: must be >= 1"},
		{"mean", head + `{"arch":"cpu","kind":"gemm","size":4,"samples":2,"mean_s":-1,"stddev_s":0}]}`, "mean_s: must be a non-negative"},
		{"huge mean", head + `{"arch":"cpu","kind":"gemm","size":4,"samples":2,"mean_s":1e308,"stddev_s":0}]}`, "entries[0] (cpu gemm): mean_s: 1e+308 s is not the duration of a task"},
		{"huge stddev", head + `{"arch":"cpu","kind":"gemm","size":4,"samples":2,"mean_s":1,"stddev_s":1e300}]}`, "stddev_s: 1e+300 s is not the spread"},
		{"outliers", head + `{"arch":"cpu","kind":"gemm","size":4,"samples":2,"mean_s":1,"stddev_s":0,"outliers":-1}]}`, "outliers: must be >= 0"},
		{"stddev one", head + `{"arch":"cpu","kind":"gemm","size":4,"samples":1,"mean_s":1,"stddev_s":0.5}]}`, "stddev_s: 0.5 with one sample"},
		{"duplicate", head + `{"arch":"cpu","kind":"gemm","size":4,"samples":1,"mean_s":1,"stddev_s":0},
{"arch":"cpu","kind":"gemm","size":4,"samples":1,"mean_s":2,"stddev_s":0}]}`, `entries[1]: arch "cpu" kind "gemm" size 4 is given twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pm.json")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") ||
				!strings.Contains(err.Error(), path) {
				t.Fatalf("Load: %v; want one line naming %s and containing %q", err, path, c.want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

// TestConcurrentRecord: workers recording at once lose no sample (run
// under -race as well): 8 goroutines x 500 samples alternating 1 and 3 s
// give 4000 samples of mean 2.
func TestConcurrentRecord(t *testing.T) {
	m := New()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				m.Record("cpu", "gemm", 4, float64(1+2*((g+i)%2)))
				m.Expected("cpu", "gemm", 4)
			}
		}()
	}
	wg.Wait()
	es := m.Entries()
	if len(es) != 1 || es[0].Samples != 4000 || !close(es[0].Mean, 2) {
		t.Fatalf("entries %+v, want 4000 samples of mean 2", es)
	}
}
