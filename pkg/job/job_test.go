package job

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/predict"
)

// onRanks runs f on every rank of an in-process group of size ranks
// (goroutines) and returns their errors.
func onRanks(size int, f func(w comm.Comm) error) []error {
	g := comm.NewGroup(size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			errs[r] = f(g.Endpoint(r))
		}(r)
	}
	wg.Wait()
	return errs
}

func TestParamNamesMatchLikelihood(t *testing.T) {
	for _, k := range []likelihood.Model{likelihood.Matern, likelihood.PowExp} {
		names, err := config.ParamNames(string(k))
		if err != nil || !slices.Equal(names, k.ParamNames()) {
			t.Errorf("%s: config %v (%v), likelihood %v", k, names, err, k.ParamNames())
		}
	}
}

// TestCheckMemoryAgreed: every rank returns the same agreed input error,
// naming the first rank whose need is above the limit, or nil on all.
func TestCheckMemoryAgreed(t *testing.T) {
	need := []int64{100 << 20, 300 << 20, 500 << 20}
	for _, c := range []struct {
		limit int64
		want  string
	}{
		{200 << 20, "fit: rank 1 needs 315 MB (N=9, 3 ranks); 210 MB available (--memory-limit)"},
		{400 << 20, "fit: rank 2 needs 524 MB (N=9, 3 ranks); 419 MB available (--memory-limit)"},
		{600 << 20, ""},
	} {
		errs := onRanks(3, func(w comm.Comm) error {
			_, err := checkMemory(w, "fit", need, c.limit, "N=9, 3 ranks")
			return err
		})
		for r, err := range errs {
			if c.want == "" {
				if err != nil {
					t.Errorf("limit %d, rank %d: %v", c.limit, r, err)
				}
				continue
			}
			if err == nil || err.Error() != c.want || !Agreed(err) || !IsInput(err) {
				t.Errorf("limit %s, rank %d: %v, want the agreed input error %q", memory.Format(c.limit), r, err, c.want)
			}
		}
	}
}

// TestFitNeed: the need of a fit is the likelihood's plus the largest
// assessment phase, which the description names.
func TestFitNeed(t *testing.T) {
	o := likelihood.Options{NB: 100}
	base := likelihood.MemoryNeed(1000, o, 1)
	need, what := fitNeed(1000, o, 1, fitExtras{})
	if need[0] != base[0] || what != "N=1000, nb=100, 1 rank" {
		t.Errorf("likelihood only: %d (%q), want %d", need[0], what, base[0])
	}
	f := predict.FisherNeed(1000, o, 3, 1)
	need, what = fitNeed(1000, o, 1, fitExtras{stderr: true, free: 3, holdout: 10})
	if need[0] != base[0]+f[0] || !strings.HasSuffix(what, "with the Fisher information") {
		t.Errorf("with standard errors: %d (%q), want %d", need[0], what, base[0]+f[0])
	}
	// fit --plot --grid 100x100 --draws 5 at N = 155 (meuse): the draws on
	// the 4900-point grid (drawGrid) need V (155 x 4900 words), half of
	// V^T V, the conditional covariance and its factor (4900^2 words each)
	// and the draws (5 x 4900 words): 486 MB beyond kriging them, more
	// than kriging the 10^4-point grid.
	base = likelihood.MemoryNeed(155, o, 1)
	k := predict.KrigeNeed(155, 4900, o, 1)
	need, what = fitNeed(155, o, 1, fitExtras{grid: 10000, draws: 5, drawPts: 4900})
	draws := int64(8*155*4900 + 4900*4900*(4+8+8) + 8*4900*5)
	if need[0] != base[0]+k[0]+draws || !strings.HasSuffix(what, "with 5 conditional draws on a 4900-point grid") {
		t.Errorf("with draws: %d (%q), want %d", need[0], what, base[0]+k[0]+draws)
	}
}

// TestJobsOverRanks: simulate and predict on two in-process ranks write
// the one-rank files; a fit on two ranks gives the one-rank estimate and
// a memory report per rank on rank 0, and its JSON result reads back.
func TestJobsOverRanks(t *testing.T) {
	dir := t.TempDir()
	sim := config.DefaultSimulate()
	sim.N, sim.NB, sim.Workers, sim.Seed = 300, 60, 1, 3
	run := func(size int, out string, f func(w comm.Comm) error) {
		t.Helper()
		for r, err := range onRanks(size, f) {
			if err != nil {
				t.Fatalf("%s, %d ranks, rank %d: %v", filepath.Base(out), size, r, err)
			}
		}
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, size := range []int{1, 2} {
		s := sim
		s.Out = filepath.Join(dir, "sim"+string(rune('0'+size))+".csv")
		run(size, s.Out, func(w comm.Comm) error { _, err := Simulate(s, Env{Comm: w}); return err })
	}
	data := filepath.Join(dir, "sim1.csv")
	if read(data) != read(filepath.Join(dir, "sim2.csv")) {
		t.Fatal("simulate: two ranks wrote another file than one rank")
	}
	at := filepath.Join(dir, "at.csv")
	if err := os.WriteFile(at, []byte("x,y\n0.5,0.5\n0.1,0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 2} {
		p := config.DefaultPredict()
		p.Data, p.At, p.Theta, p.NB, p.Workers = data, at, []float64{1, 0.1, 0.5}, 60, 1
		p.Out = filepath.Join(dir, "pred"+string(rune('0'+size))+".csv")
		run(size, p.Out, func(w comm.Comm) error { _, err := Predict(p, Env{Comm: w}); return err })
	}
	if a, b := read(filepath.Join(dir, "pred1.csv")), read(filepath.Join(dir, "pred2.csv")); a != b || strings.Count(a, "\n") != 3 {
		t.Fatalf("predict: one rank\n%s\ntwo ranks\n%s", a, b)
	}
	var res [3]*FitResult
	for _, size := range []int{1, 2} {
		f := config.DefaultFit()
		f.Data, f.NB, f.Workers, f.MaxEvals, f.Holdout, f.Seed = data, 60, 1, 8, 30, 2
		f.JSON = filepath.Join(dir, "fit"+string(rune('0'+size))+".json")
		var mu sync.Mutex
		run(size, f.JSON, func(w comm.Comm) error {
			r, err := Fit(f, Env{Comm: w})
			if w.Rank() == 0 {
				mu.Lock()
				res[size] = r
				mu.Unlock()
			}
			return err
		})
	}
	a, b := res[1], res[2]
	if !slices.Equal(a.Theta, b.Theta) || a.LogLik != b.LogLik || *a.MSPE != *b.MSPE || !slices.Equal(a.StdErr, b.StdErr) {
		t.Errorf("fit: one rank theta %v l %v mspe %v se %v; two ranks %v %v %v %v", a.Theta, a.LogLik, *a.MSPE, a.StdErr, b.Theta, b.LogLik, *b.MSPE, b.StdErr)
	}
	// The lower tiles of N = 270 in tiles of 60 (rows 60, 60, 60, 60, 30):
	// 8 (N^2 + sum of rows^2) / 2 bytes.
	lower := int64(8 * (270*270 + 4*60*60 + 30*30) / 2)
	if len(a.Memory) != 1 || a.Memory[0].OwnedTileBytes != lower || len(b.Memory) != 2 ||
		b.Memory[0].OwnedTileBytes+b.Memory[1].OwnedTileBytes != lower || b.Memory[1].Rank != 1 || b.Memory[1].PeakTileBytes <= 0 {
		t.Errorf("memory: one rank %+v, two ranks %+v (lower tiles %d bytes)", a.Memory, b.Memory, lower)
	}
	// Each rank's busy seconds per evaluation: rank 0's are the result's
	// PerEval, and every rank worked in the Cholesky.
	if !maps.Equal(b.Memory[0].Busy, b.PerEval) {
		t.Errorf("rank 0 busy %v, want the result's per evaluation %v", b.Memory[0].Busy, b.PerEval)
	}
	for _, m := range b.Memory {
		if !(m.Busy["chol"] > 0 && m.Busy["wall"] > 0 && m.Busy["gen"] > 0) {
			t.Errorf("rank %d busy %v: want positive wall, gen and chol", m.Rank, m.Busy)
		}
	}
	back, err := ReadFitResult(filepath.Join(dir, "fit2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Theta, b.Theta) || back.LogLik != b.LogLik || *back.MSPE != *b.MSPE || len(back.Memory) != 2 || !reflect.DeepEqual(back.Memory[1], b.Memory[1]) {
		t.Errorf("read back %+v, want %+v", back, b)
	}
	// predict --theta-from: theta and the nugget from the fit, a kernel
	// the user gave must be the fit's.
	p := config.DefaultPredict()
	p.Nugget = 0.5
	if err := back.ApplyTo(&p, "fit2.json", func(string) bool { return false }); err != nil || !slices.Equal(p.Theta, b.Theta) || p.Nugget != 0 {
		t.Errorf("ApplyTo: %v, %+v", err, p)
	}
	p.Kernel = "powexp"
	err = back.ApplyTo(&p, "fit2.json", func(k string) bool { return k == "kernel" })
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "disagrees with fit2.json, which holds a matern fit") {
		t.Errorf("kernel mismatch: %v", err)
	}
	if _, err := ReadFitResult(at); err == nil || !IsInput(err) {
		t.Errorf("a CSV read as a fit result: %v", err)
	}
}
