package job

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/stop"
)

// fitOnRanks runs Fit on size in-process ranks, cfgOf(rank) each, and
// returns rank 0's result and every rank's error.
func fitOnRanks(size int, cfgOf func(rank int) config.Fit, envOf func(rank int) Env) (*FitResult, []error) {
	var res *FitResult
	var mu sync.Mutex
	errs := onRanks(size, func(w comm.Comm) error {
		env := Env{}
		if envOf != nil {
			env = envOf(w.Rank())
		}
		env.Comm = w
		r, err := Fit(cfgOf(w.Rank()), env)
		if w.Rank() == 0 {
			mu.Lock()
			res = r
			mu.Unlock()
		}
		return err
	})
	return res, errs
}

// TestResumeOverRanks: on two ranks, a signal that reaches rank 1 alone
// stops both after the same evaluation (agreed, status interrupted, the
// checkpoint written by rank 0); --resume then replays the evaluations
// and ends bitwise where the uninterrupted fit ends. A checkpoint of
// other settings, or ranks that read different checkpoints, are refused
// on every rank.
func TestResumeOverRanks(t *testing.T) {
	dir := t.TempDir()
	sim := config.DefaultSimulate()
	sim.N, sim.NB, sim.Workers, sim.Seed = 300, 60, 1, 5
	sim.Out = filepath.Join(dir, "d.csv")
	if _, err := Simulate(sim, Env{}); err != nil {
		t.Fatal(err)
	}
	base := config.DefaultFit()
	base.Data, base.NB, base.Workers = sim.Out, 60, 1
	same := func(c config.Fit) func(int) config.Fit { return func(int) config.Fit { return c } }
	ok := func(what string, errs []error) {
		t.Helper()
		for r, err := range errs {
			if err != nil {
				t.Fatalf("%s: rank %d: %v", what, r, err)
			}
		}
	}

	full := base
	full.JSON = filepath.Join(dir, "full.json")
	ref, errs := fitOnRanks(2, same(full), nil)
	ok("uninterrupted", errs)

	// SIGTERM on rank 1 after k evaluations.
	k := ref.Evaluations / 2
	part := base
	part.JSON = filepath.Join(dir, "part.json")
	ckpt := filepath.Join(dir, "part.ckpt")
	got, errs := fitOnRanks(2, same(part), func(rank int) Env {
		n := 0
		req := stop.New()
		return Env{
			Step: func(mle.Step) {
				if n++; n == k && rank == 1 {
					req.Ask(syscall.SIGTERM, time.Now())
				}
			},
			Stop: req,
		}
	})
	for r, err := range errs {
		var in *Interrupted
		if !errors.As(err, &in) || in.Signal != syscall.SIGTERM || in.Evaluations != k || !Agreed(err) || in.ExitCode() != 143 {
			t.Fatalf("rank %d: %v, want the agreed SIGTERM after %d evaluations", r, err, k)
		}
	}
	if got == nil || got.Status != mle.StatusInterrupted || got.Evaluations != k {
		t.Fatalf("interrupted result %+v", got)
	}
	ck, _, err := ReadCheckpoint(ckpt)
	if err != nil || len(ck.Evaluations) != k || ck.Status != mle.StatusInterrupted || *ck.Best.LogLik != got.LogLik {
		t.Fatalf("checkpoint %v: %+v", err, ck)
	}

	// Resume: the same theta and l, bitwise, with k evaluations replayed.
	res := base
	res.Resume = ckpt
	got, errs = fitOnRanks(2, same(res), nil)
	ok("resume", errs)
	if !slices.Equal(got.Theta, ref.Theta) || got.LogLik != ref.LogLik || got.Evaluations != ref.Evaluations || got.Replayed != k-1 { // the best recomputed (VerifyBest)
		t.Fatalf("resumed theta %v l %v after %d (%d replayed); uninterrupted %v l %v after %d",
			got.Theta, got.LogLik, got.Evaluations, got.Replayed, ref.Theta, ref.LogLik, ref.Evaluations)
	}
	if ck, _, err = ReadCheckpoint(ckpt); err != nil || len(ck.Evaluations) != ref.Evaluations || ck.Status != ref.Status {
		t.Fatalf("checkpoint after resume %v: %d evaluations, status %s", err, len(ck.Evaluations), ck.Status)
	}

	// Refusals, agreed on both ranks.
	other := res
	other.Nugget = 1e-3
	_, errs = fitOnRanks(2, same(other), nil)
	for r, err := range errs {
		if !IsInput(err) || !Agreed(err) || !strings.Contains(err.Error(), `setting "nugget" differs (checkpoint 0, this run 0.001)`) {
			t.Errorf("other nugget, rank %d: %v", r, err)
		}
	}
	copyCk := filepath.Join(dir, "copy.ckpt")
	b, _ := os.ReadFile(filepath.Join(dir, "full.ckpt"))
	if err := os.WriteFile(copyCk, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Ranks that read different checkpoints: the fit's agreement on the
	// settings sees other paths; the same path with other content (other
	// file systems) is seen by the checkpoint's own hash.
	_, errs = fitOnRanks(2, func(rank int) config.Fit {
		c := res
		if rank == 1 {
			c.Resume = copyCk
		}
		return c
	}, nil)
	for r, err := range errs {
		if !IsInput(err) || !Agreed(err) || !strings.Contains(err.Error(), "rank 1") {
			t.Errorf("different checkpoints, rank %d: %v", r, err)
		}
	}
	// Rank 0 alone reads the resume file: rank 1's path is never opened
	// (here: one that does not exist), both replay rank 0's.
	errs = onRanks(2, func(w comm.Comm) error {
		c := res
		if w.Rank() == 1 {
			c.Resume = filepath.Join(dir, "nowhere.ckpt")
		}
		ckw, rs, err := prepareCheckpoint(w, NewInputs(w, nil, nil), c, ck.Settings, ck.DataSHA256, Env{})
		ckw.release()
		if err == nil && (rs == nil || len(rs.ck.Evaluations) != len(ck.Evaluations)) {
			err = errors.New("rank 1 did not get rank 0's checkpoint")
		}
		return err
	})
	ok("resume file read by rank 0", errs)
}

// TestCheckpointPath: --checkpoint, else the resume file, else beside
// --json; none disables it.
func TestCheckpointPath(t *testing.T) {
	for _, c := range []struct {
		ckpt, resume, json, want string
	}{
		{"", "", "", ""},
		{"", "", "out/r.json", "out/r.ckpt"},
		{"", "", "r", "r.ckpt"},
		{"", "a.ckpt", "r.json", "a.ckpt"},
		{"c.ckpt", "a.ckpt", "r.json", "c.ckpt"},
		{"none", "a.ckpt", "r.json", ""},
	} {
		cfg := config.Fit{Checkpoint: c.ckpt, Resume: c.resume, JSON: c.json}
		if got := CheckpointPath(cfg); got != c.want {
			t.Errorf("%+v: %q, want %q", c, got, c.want)
		}
	}
}

// TestParseCheckpoint: a checkpoint written by a checkpointer reads back;
// every defect is refused with the field it is in, never a panic: null,
// missing or mistyped values, a wrong length, an edited value (the
// digests), a best that is not the best, another version, not JSON.
func TestParseCheckpoint(t *testing.T) {
	cfg := config.DefaultFit()
	set := checkpointSettings(cfg, "euclidean", nil, true, 100)
	dir := t.TempDir()
	c := &checkpointer{path: filepath.Join(dir, "c.ckpt"), ck: newCheckpoint(cfg, set, strings.Repeat("ab", 32), nil), log: t.Logf}
	for i, l := range []float64{-10, -5, -7} {
		c.add(mle.Eval{Theta: []float64{1, 0.1 * float64(i+1), 0.5}, LogLik: l})
	}
	c.add(mle.Eval{Theta: []float64{2, 0.2, 3}, Failed: errors.New("not positive definite")})
	good, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := ParseCheckpoint(good)
	if err != nil || len(ck.Evaluations) != 4 || *ck.Best.LogLik != -5 {
		t.Fatalf("the checkpointer's file: %v %+v", err, ck)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	ev := func(m map[string]any, i int) map[string]any { return m["evaluations"].([]any)[i].(map[string]any) }
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "empty file: not an exageostat fit checkpoint"},
		{"truncated", good[:bytes.LastIndexByte(good[:len(good)/2], ',')+1], "not an exageostat fit checkpoint (not valid JSON (unexpected end at byte"},
		{"other JSON", []byte(`{"theta":[1]}`), "not an exageostat fit checkpoint"},
		{"version 1", edit(func(m map[string]any) { m["version"] = 1 }), "checkpoint format version 1; this exageostat reads version 2"},
		{"best null loglik", edit(func(m map[string]any) { m["best"].(map[string]any)["loglik"] = nil }), `field "best.loglik": null without an error`},
		{"loglik a string", edit(func(m map[string]any) { ev(m, 1)["loglik"] = "x" }), `"evaluations.loglik" is a JSON string, want float64`},
		{"loglik out of range", []byte(strings.Replace(string(good), `"loglik": -7`, `"loglik": -7e999`, 1)), `"evaluations.loglik" is a JSON number -7e999, want float64`},
		{"theta short", edit(func(m map[string]any) { ev(m, 2)["theta"] = []any{1, 2} }), `field "evaluations[2].theta": 2 values, want 3`},
		{"theta negative", edit(func(m map[string]any) { ev(m, 0)["theta"] = []any{1, -2, 3} }), `field "evaluations[0].theta": must be positive`},
		{"loglik and error", edit(func(m map[string]any) { ev(m, 0)["error"] = "x" }), `field "evaluations[0].error": an error beside a log-likelihood`},
		{"no evaluations", edit(func(m map[string]any) { delete(m, "evaluations") }), `field "evaluations": missing`},
		{"edited loglik", edit(func(m map[string]any) { ev(m, 0)["loglik"] = 1e6 }), `field "evaluations_sha256": is not the digest of the evaluations: the file was edited`},
		{"edited settings", edit(func(m map[string]any) { m["settings"].(map[string]any)["computation"] = "tlr" }), `field "settings_sha256": is not the digest of the settings: the file was edited`},
		{"bad digest", edit(func(m map[string]any) { m["data_sha256"] = "zz" }), `field "data_sha256": want 64 hexadecimal digits`},
		{"best not the best", edit(func(m map[string]any) {
			m["best"] = ev(m, 2)
			var e []CheckpointEval
			b, _ := json.Marshal(m["evaluations"])
			json.Unmarshal(b, &e)
			var bst CheckpointEval
			b, _ = json.Marshal(m["best"])
			json.Unmarshal(b, &bst)
			cc := Checkpoint{DataSHA256: m["data_sha256"].(string), SettingsSHA256: m["settings_sha256"].(string), Evaluations: e, Best: &bst}
			m["evaluations_sha256"] = cc.evaluationsSHA256()
		}), `field "best": is not the best of the evaluations`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCheckpoint(c.b)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
		})
	}
}
