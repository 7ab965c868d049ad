package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

// TestFitDevicesCLI: fit with a host-test device of 1 MiB (fewer tiles
// than the matrix: eviction) under dmda gives the CPU-only fit's l and
// theta bitwise; the JSON reports the device's counters; --perfmodel
// writes a model, and a planted model that makes gemm far faster on the
// device puts gemm there (same l). Over 2 MPI ranks (block-cyclic and 1D-1D) the l is the
// same as on one rank without a device.
func TestFitDevicesCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	base := []string{"fit", "--n", "900", "--nb", "100", "--workers", "1", "--max-evals", "4", "--checkpoint", "none"}
	type res struct {
		Theta     []float64 `json:"theta"`
		LogLik    float64   `json:"loglik"`
		Scheduler string    `json:"scheduler"`
		Devices   []struct {
			Name      string `json:"name"`
			Tasks     int    `json:"tasks"`
			Loads     int    `json:"loads"`
			Evictions int    `json:"evictions"`
			Peak      int64  `json:"peak_bytes"`
		} `json:"devices"`
	}
	fit := func(name string, extra ...string) res {
		out := filepath.Join(dir, name+".json")
		_, stderr, code := run(t, bin, append(append(append([]string{}, base...), extra...), "--json", out)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if len(extra) > 0 && !strings.Contains(stderr, "device host-test0:") {
			t.Errorf("%s: no device line in the log:\n%s", name, stderr)
		}
		var r res
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	cpu := fit("cpu")
	pm := filepath.Join(dir, "model.json")
	same := func(run string, dev res) {
		t.Helper()
		if dev.LogLik != cpu.LogLik {
			t.Errorf("%s: l = %v with the device, %v without", run, dev.LogLik, cpu.LogLik)
		}
		for i := range cpu.Theta {
			if dev.Theta[i] != cpu.Theta[i] {
				t.Errorf("%s: theta[%d] = %v with the device, %v without", run, i, dev.Theta[i], cpu.Theta[i])
			}
		}
		if dev.Scheduler != "dmda" || len(dev.Devices) != 1 || dev.Devices[0].Peak > 1<<20 {
			t.Errorf("%s: scheduler %q, devices %+v", run, dev.Scheduler, dev.Devices)
		}
	}
	// Learn: no model yet; where dmda places tasks then follows durations
	// measured on this machine (on a loaded shared box the device can stay
	// idle), so this run checks the numbers and that the model is written.
	same("learn", fit("learn", "--devices", "host-test:1:1MiB", "--scheduler", "dmda", "--perfmodel", pm))
	if b, err := os.ReadFile(pm); err != nil || !strings.Contains(string(b), `"arch":"cpu","kind":"dcmg","size":10000`) {
		t.Errorf("learn: the model file lacks the cpu dcmg entry (%v):\n%s", err, b)
	}
	// Planted: a model in which gemm is ten thousand times faster on the
	// device; dmda must then run gemm there, evicting (45 tiles of 80 kB
	// do not fit in 1 MiB), and the numbers stay bitwise the same.
	planted := perfmodel.New()
	size := perfmodel.Footprint(kind.Gemm, 100)
	for range 3 {
		planted.Record("host-test", kind.Gemm, size, 1e-6)
		planted.Record("cpu", kind.Gemm, size, 1e-2)
	}
	ppm := filepath.Join(dir, "planted-model.json")
	if err := planted.Save(ppm); err != nil {
		t.Fatal(err)
	}
	dev := fit("planted", "--devices", "host-test:1:1MiB", "--scheduler", "dmda", "--perfmodel", ppm)
	same("planted", dev)
	if len(dev.Devices) == 1 && (dev.Devices[0].Tasks == 0 || dev.Devices[0].Loads == 0 || dev.Devices[0].Evictions == 0) {
		t.Errorf("planted: gemm is 10^4 times faster on the device, yet devices %+v", dev.Devices)
	}

	mpi := mpiBinary(t)
	for _, dist := range [][]string{{"--distribution", "bc"}, {"--distribution", "1d1d", "--powers", "1,3"}} {
		out := filepath.Join(dir, "mpi.json")
		args := append(append(append([]string{}, base...), dist...), "--devices", "host-test:1:1MiB", "--scheduler", "dmda", "--json", out)
		_, e, code, _ := mpirun(t, 2, nil, mpi, args...)
		if code != 0 {
			t.Fatalf("2 ranks %v: exit %d: %s", dist, code, e)
		}
		if r := readResult(t, out); r.LogLik != cpu.LogLik {
			t.Errorf("2 ranks %v with devices: l = %.17g, one rank CPU only %.17g", dist, r.LogLik, cpu.LogLik)
		}
	}
}
