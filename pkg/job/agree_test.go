package job

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/tile"
)

// ranksWithin runs f on size in-process ranks (onRanks) and fails the test
// instead of hanging when some rank has not returned within d.
func ranksWithin(t *testing.T, d time.Duration, size int, f func(w comm.Comm) error) []error {
	t.Helper()
	done := make(chan []error, 1)
	go func() { done <- onRanks(size, f) }()
	select {
	case errs := <-done:
		return errs
	case <-time.After(d):
		t.Fatalf("%d ranks: not all returned within %v (a collective that does not pair up)", size, d)
		return nil
	}
}

// writeRows writes a CSV x,y,z of rows random points (seeded), with z of
// row bump changed when bump >= 0.
func writeRows(t *testing.T, path string, rows, bump int) {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	var b bytes.Buffer
	b.WriteString("x,y,z\n")
	for i := 0; i < rows; i++ {
		x, y, z := rng.Float64(), rng.Float64(), rng.NormFloat64()
		if i == bump {
			z += 0.5
		}
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g\n", x, y, z)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantAgreed checks that every rank returned the error want, agreed, and
// an input error (exit status 2), or nil on every rank when want is "".
func wantAgreed(t *testing.T, name string, errs []error, want string) {
	t.Helper()
	for r, err := range errs {
		if want == "" {
			if err != nil {
				t.Errorf("%s, rank %d: %v", name, r, err)
			}
			continue
		}
		if err == nil || err.Error() != want || !IsInput(err) || !Agreed(err) {
			t.Errorf("%s, rank %d: %v (input %t, agreed %t)\nwant the agreed input error %q", name, r, err, IsInput(err), Agreed(err), want)
		}
	}
}

// TestFitAgreement: three ranks of a fit whose settings differ all return
// one input error naming the ranks that differ and how; paths and per-rank
// keys may differ; the data is rank 0's, read by rank 0 alone (the other
// ranks' paths are never opened), and rank 0's read error is every
// rank's.
func TestFitAgreement(t *testing.T) {
	dir := t.TempDir()
	d0 := filepath.Join(dir, "d.csv")
	copyPath := filepath.Join(dir, "copy.csv")
	other := filepath.Join(dir, "other.csv")
	short := filepath.Join(dir, "short.csv")
	missing := filepath.Join(dir, "missing.csv")
	writeRows(t, d0, 20, -1)
	writeRows(t, copyPath, 20, -1)
	writeRows(t, other, 20, 13)
	writeRows(t, short, 19, -1)
	_, readErr := dataset.ReadCSV(missing)
	if readErr == nil {
		t.Fatal("reading a missing file did not fail")
	}
	base := config.DefaultFit()
	base.Data, base.NB, base.Workers, base.MaxEvals = d0, 10, 1, 2
	const tail = "; every rank must read the same input with the same settings"
	for _, c := range []struct {
		name string
		set  func(rank int, c *config.Fit)
		want string
	}{
		{"same", func(int, *config.Fit) {}, ""},
		{"same content at other paths, other per-rank keys", func(r int, c *config.Fit) {
			if r > 0 {
				c.Data, c.Workers, c.MemoryLimit = copyPath, r+1, "64GB"
			}
		}, ""},
		// Rank 0 alone reads the data (Inputs): the paths the others are
		// given are never opened, and they fit rank 0's data.
		{"other values at another path", func(r int, c *config.Fit) {
			if r == 2 {
				c.Data = other
			}
		}, ""},
		{"other length at another path", func(r int, c *config.Fit) {
			if r == 1 {
				c.Data = short
			}
		}, ""},
		{"other settings", func(r int, c *config.Fit) {
			switch r {
			case 1:
				c.NB = 5
			case 2:
				c.MaxEvals = 3
			}
		}, "fit: ranks 1, 2 have other settings than rank 0 (max_evals: 2 on rank 0, 3 on rank 2; nb: 10 on rank 0, 5 on rank 1)" + tail},
		{"a missing file on rank 1 only", func(r int, c *config.Fit) {
			if r == 1 {
				c.Data = missing
			}
		}, ""},
		{"rank 0 cannot read its file", func(r int, c *config.Fit) {
			if r == 0 {
				c.Data = missing
			}
		}, readErr.Error()},
		{"no rank can read its file", func(r int, c *config.Fit) { c.Data = missing }, readErr.Error()},
	} {
		errs := ranksWithin(t, 30*time.Second, 3, func(w comm.Comm) error {
			cfg := base
			c.set(w.Rank(), &cfg)
			_, err := Fit(cfg, Env{Comm: w})
			return err
		})
		wantAgreed(t, c.name, errs, c.want)
	}
}

// TestSimulatePredictAgreement: simulate and predict compare their
// settings; predict's inputs (--data, --at) are rank 0's, read by rank 0
// alone.
func TestSimulatePredictAgreement(t *testing.T) {
	dir := t.TempDir()
	const tail = "; every rank must read the same input with the same settings"
	errs := ranksWithin(t, 30*time.Second, 2, func(w comm.Comm) error {
		s := config.DefaultSimulate()
		s.N, s.NB, s.Workers, s.Seed = 20, 10, 1, 3
		s.Out = filepath.Join(dir, fmt.Sprintf("sim%d.csv", w.Rank()))
		if w.Rank() == 1 {
			s.Seed = 4
		}
		_, err := Simulate(s, Env{Comm: w})
		return err
	})
	wantAgreed(t, "simulate, other seed", errs, "simulate: rank 1 has other settings than rank 0 (seed: 3 on rank 0, 4 on rank 1)"+tail)

	data := filepath.Join(dir, "d.csv")
	writeRows(t, data, 20, -1)
	at, at1 := filepath.Join(dir, "at.csv"), filepath.Join(dir, "at1.csv")
	for p, s := range map[string]string{at: "x,y\n0.5,0.5\n0.1,0.9\n", at1: "x,y\n0.5,0.5\n0.1,0.8\n"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		at1  string
		want string
	}{
		{"predict, same", at, ""},
		{"predict, rank 1 given another --at: rank 0's is read for all", at1, ""},
	} {
		errs := ranksWithin(t, 30*time.Second, 2, func(w comm.Comm) error {
			p := config.DefaultPredict()
			p.Data, p.At, p.Theta, p.NB, p.Workers = data, at, []float64{1, 0.1, 0.5}, 10, 1
			p.Out = filepath.Join(dir, fmt.Sprintf("pred%d.csv", w.Rank()))
			if w.Rank() == 1 {
				p.At = c.at1
			}
			_, err := Predict(p, Env{Comm: w})
			return err
		})
		wantAgreed(t, c.name, errs, c.want)
	}
}

// TestAgreementCheck: the exchange itself, on in-process ranks: one
// verdict on every rank, nil when the reports match.
func TestAgreementCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		of   func(rank int) shared
		want string
	}{
		{"same", func(int) shared {
			return shared{settings: map[string]string{"nb": "8"}}
		}, ""},
		{"a key only some ranks have", func(r int) shared {
			s := map[string]string{"nb": "8"}
			if r == 2 {
				s["extra"] = ""
			}
			if r == 1 {
				s["nb"] = ""
			}
			return shared{settings: s}
		}, `job: ranks 1, 2 have other settings than rank 0 (extra: (no such key) on rank 0, "" on rank 2; nb: 8 on rank 0, "" on rank 1); every rank must read the same input with the same settings`},
		{"more than three keys", func(r int) shared {
			s := map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "e": "1"}
			if r == 1 {
				for k := range s {
					s[k] = "2"
				}
			}
			return shared{settings: s}
		}, "job: rank 1 has other settings than rank 0 (a: 1 on rank 0, 2 on rank 1; b: 1 on rank 0, 2 on rank 1; c: 1 on rank 0, 2 on rank 1; and 2 more); every rank must read the same input with the same settings"},
	} {
		errs := ranksWithin(t, 10*time.Second, 3, func(w comm.Comm) error {
			return newAgreement(Env{Comm: w}, "job").check(c.of(w.Rank()), 1)
		})
		wantAgreed(t, c.name, errs, c.want)
	}
}

// TestAgreementFail: errors met before the check: the ranks that passed
// wait in check and return the failed rank's error; a rank keeps its own
// error in the chain; an error that is not about input stays so.
func TestAgreementFail(t *testing.T) {
	ok := shared{settings: map[string]string{"nb": "8"}}
	boom := fmt.Errorf("boom")
	for _, c := range []struct {
		name  string
		fails map[int]error
		want  string
		input bool
	}{
		{"one rank", map[int]error{2: badInput("fit: no such file x.csv")}, "rank 2: fit: no such file x.csv", true},
		{"two ranks, other errors", map[int]error{1: boom, 2: badInput("fit: bad")}, "rank 1: boom (ranks 1, 2 of 3 stopped before the work)", false},
		{"every rank, one error", map[int]error{0: badInput("fit: bad"), 1: badInput("fit: bad"), 2: badInput("fit: bad")}, "fit: bad", true},
		{"every rank, other errors", map[int]error{0: badInput("a"), 1: badInput("b"), 2: badInput("a")}, "rank 0: a (ranks 0, 1, 2 of 3 stopped before the work)", true},
	} {
		errs := ranksWithin(t, 10*time.Second, 3, func(w comm.Comm) (err error) {
			ag := newAgreement(Env{Comm: w}, "fit")
			defer ag.finish(&err)
			if e := c.fails[w.Rank()]; e != nil {
				return e
			}
			return ag.check(ok, 1)
		})
		for r, err := range errs {
			if err == nil || err.Error() != c.want || IsInput(err) != c.input || !Agreed(err) {
				t.Errorf("%s, rank %d: %v (input %t, agreed %t), want %q (input %t)", c.name, r, err, IsInput(err), Agreed(err), c.want, c.input)
				continue
			}
			if own := c.fails[r]; own != nil && own.Error() == c.want && !errors.Is(err, own) {
				t.Errorf("%s, rank %d: its own error is not in the chain of %v", c.name, r, err)
			}
		}
	}
	// On one rank the error is returned as it is.
	ag := newAgreement(Env{}, "fit")
	if err := ag.fail(boom); err != boom {
		t.Errorf("one rank: %v", err)
	}
}

// TestSettingsOf: the keys compared are the configuration's TOML names,
// embedded tables flattened and nested ones prefixed, less the per-rank
// keys, plus the fault-injection setting.
func TestSettingsOf(t *testing.T) {
	t.Setenv(FailTaskEnv, "1:potrf(0,0,0)")
	cfg := config.DefaultFit()
	cfg.NB, cfg.MaxEvals, cfg.Data, cfg.Workers, cfg.File = 8, 12, "d.csv", 4, "f.toml"
	cfg.Generation.Distribution = "1d1d"
	s := settingsOf(&cfg) // a pointer is followed
	for k, want := range map[string]string{
		"nb": "8", "max_evals": "12", "lb": "[0.001 0.001 0.001]", "kernel": "matern",
		"distribution": "bc", "generation.distribution": "1d1d", "generation.p": "0",
		"resume": "", "env " + FailTaskEnv: "1:potrf(0,0,0)",
	} {
		if got, ok := s[k]; !ok || got != want {
			t.Errorf("settingsOf[%q] = %q (%t), want %q", k, got, ok, want)
		}
	}
	for _, k := range []string{"data", "locations", "observations", "workers", "memory_limit", "json", "trace", "plot", "checkpoint",
		"file", "filekeys", "FileKeys", "phase", "generation"} {
		if v, ok := s[k]; ok {
			t.Errorf("settingsOf has %q = %q", k, v)
		}
	}
	if !maps.Equal(s, settingsOf(cfg)) {
		t.Error("a value and a pointer give other settings")
	}
}

// TestAgreeOwners: ranks whose owner tables differ get one error naming
// them; the same tables agree.
func TestAgreeOwners(t *testing.T) {
	bc := func(m, c int) int { return (m + c) % 3 }
	other := func(m, c int) int {
		if m == 3 && c == 1 {
			return 0
		}
		return bc(m, c)
	}
	for _, c := range []struct {
		name string
		of   func(rank int) []tile.OwnerFunc
		want string
	}{
		{"same", func(int) []tile.OwnerFunc { return []tile.OwnerFunc{bc, nil} }, ""},
		{"one tile on rank 2", func(r int) []tile.OwnerFunc {
			if r == 2 {
				return []tile.OwnerFunc{other, nil}
			}
			return []tile.OwnerFunc{bc, nil}
		}, "rank 2 computed other tile distributions than rank 0 (the owner tables' sha256 differs): the nodes disagree on the plan"},
		{"a generation table on ranks 1 and 2", func(r int) []tile.OwnerFunc {
			if r > 0 {
				return []tile.OwnerFunc{bc, bc}
			}
			return []tile.OwnerFunc{bc, nil}
		}, "ranks 1, 2 computed other tile distributions than rank 0 (the owner tables' sha256 differs): the nodes disagree on the plan"},
	} {
		errs := ranksWithin(t, 10*time.Second, 3, func(w comm.Comm) error {
			return agreeOwners(w, 5, c.of(w.Rank())...)
		})
		for r, err := range errs {
			if (c.want == "" && err != nil) || (c.want != "" && (err == nil || err.Error() != c.want || !Agreed(err))) {
				t.Errorf("%s, rank %d: %v, want %q", c.name, r, err, c.want)
			}
		}
	}
}
