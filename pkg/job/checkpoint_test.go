package job

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/mle"
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
		var sig os.Signal
		return Env{
			Step: func(mle.Step) {
				if n++; n == k && rank == 1 {
					sig = syscall.SIGTERM
				}
			},
			Interrupt: func() os.Signal { return sig },
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
	if !slices.Equal(got.Theta, ref.Theta) || got.LogLik != ref.LogLik || got.Evaluations != ref.Evaluations || got.Replayed != k {
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
	errs = onRanks(2, func(w comm.Comm) error {
		c := res
		if w.Rank() == 1 {
			c.Resume = copyCk
		}
		_, _, err := prepareCheckpoint(w, c, ck.Settings, ck.DataSHA256, func(string, ...any) {})
		return err
	})
	for r, err := range errs {
		if !IsInput(err) || !Agreed(err) || !strings.Contains(err.Error(), "rank 1 reads another file than rank 0") {
			t.Errorf("different checkpoint content, rank %d: %v", r, err)
		}
	}
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
