package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fitJSON is what the checkpoint tests read from a fit's JSON result.
type fitJSON struct {
	Theta       []float64 `json:"theta"`
	LogLik      float64   `json:"loglik"`
	Evaluations int       `json:"evaluations"`
	Replayed    int       `json:"replayed_evaluations"`
	Status      string    `json:"status"`
	Checkpoint  string    `json:"checkpoint"`
}

// readJSON decodes the JSON file at path into a T (a test's view of a
// command's output), failing the test when it cannot.
func readJSON[T any](t *testing.T, path string) T {
	t.Helper()
	var r T
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func readFitJSON(t *testing.T, path string) fitJSON { t.Helper(); return readJSON[fitJSON](t, path) }

// checkpointEvals returns the number of evaluations in a checkpoint and
// its status (0, "" while it is not there).
func checkpointEvals(path string) (int, string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, ""
	}
	var c struct {
		Status      string            `json:"status"`
		Evaluations []json.RawMessage `json:"evaluations"`
	}
	if json.Unmarshal(b, &c) != nil {
		return 0, ""
	}
	return len(c.Evaluations), c.Status
}

// startFit starts `fit` and returns once its checkpoint holds at least
// evals evaluations (the process still running).
func startFit(t *testing.T, bin, ckpt string, evals int, args ...string) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		// Only to notice an early exit; Wait is the caller's.
		for {
			if p, err := os.FindProcess(cmd.Process.Pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
				close(exited)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if n, _ := checkpointEvals(ckpt); n >= evals {
			return cmd, &o, &e
		}
		select {
		case <-exited:
			t.Fatalf("fit ended before %d evaluations:\n%s", evals, e.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no %d evaluations in %s after 60 s", evals, ckpt)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitSearchEnd waits until the checkpoint ckpt of the fit cmd (its
// stderr in e) records a status other than "running": the search is over
// and what follows it (the intervals, the approximation check) runs.
func waitSearchEnd(t *testing.T, cmd *exec.Cmd, ckpt string, e *strings.Builder) {
	t.Helper()
	for deadline := time.Now().Add(300 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if _, st := checkpointEvals(ckpt); st != "" && st != "running" {
			return
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the search did not end:\n%s", e.String())
		}
	}
}

// resumeData writes the small problem of the checkpoint tests.
func resumeData(t *testing.T, bin, dir string) string {
	t.Helper()
	data := filepath.Join(dir, "d.csv")
	if _, e, code := run(t, bin, "simulate", "--n", "400", "--seed", "3", "--out", data); code != 0 {
		t.Fatalf("simulate: %s", e)
	}
	return data
}

// TestResumeAfterKill: a fit killed with SIGKILL after about half its
// evaluations, resumed from its checkpoint, ends with the theta and l of
// the uninterrupted fit, having paid at most 10 % more evaluations in all.
func TestResumeAfterKill(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := resumeData(t, bin, dir)
	full := filepath.Join(dir, "full.json")
	if _, e, code := run(t, bin, "fit", "--data", data, "--workers", "2", "--json", full); code != 0 {
		t.Fatalf("uninterrupted fit: exit %d\n%s", code, e)
	}
	ref := readFitJSON(t, full)
	if n, st := checkpointEvals(filepath.Join(dir, "full.ckpt")); n != ref.Evaluations || st != ref.Status {
		t.Fatalf("full.ckpt: %d evaluations, status %q; the fit made %d, %q", n, st, ref.Evaluations, ref.Status)
	}

	res := filepath.Join(dir, "r.json")
	ckpt := filepath.Join(dir, "r.ckpt")
	cmd, _, _ := startFit(t, bin, ckpt, ref.Evaluations/2, "fit", "--data", data, "--workers", "2", "--json", res)
	if err := cmd.Process.Kill(); err != nil { // kill -9
		t.Fatal(err)
	}
	cmd.Wait()
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the fit was not killed: %v", cmd.ProcessState)
	}
	killedAt, st := checkpointEvals(ckpt)
	if st != "running" || killedAt < ref.Evaluations/2 || killedAt >= ref.Evaluations {
		t.Fatalf("checkpoint after kill -9: %d evaluations, status %q (of %d)", killedAt, st, ref.Evaluations)
	}
	if _, err := os.Stat(res); err == nil {
		t.Fatal("the killed fit wrote its JSON result")
	}

	out, e, code := run(t, bin, "fit", "--data", data, "--workers", "2", "--json", res, "--resume", ckpt, "-v")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, e)
	}
	got := readFitJSON(t, res)
	for i := range ref.Theta {
		if math.Abs(got.Theta[i]-ref.Theta[i]) > 1e-9*math.Abs(ref.Theta[i]) {
			t.Errorf("theta %v, uninterrupted %v", got.Theta, ref.Theta)
		}
	}
	if math.Abs(got.LogLik-ref.LogLik) > 1e-9*math.Abs(ref.LogLik) {
		t.Errorf("l %.15g, uninterrupted %.15g", got.LogLik, ref.LogLik)
	}
	// One checkpointed evaluation, the best, is recomputed to verify it.
	computed := got.Evaluations - got.Replayed
	if got.Replayed < killedAt-1 || killedAt+computed-1 > ref.Evaluations+ref.Evaluations/10 {
		t.Errorf("killed after %d, resumed: %d replayed, %d computed; uninterrupted %d", killedAt, got.Replayed, computed, ref.Evaluations)
	}
	if !strings.Contains(out, "replayed from "+ckpt) || !strings.Contains(e, "replayed from the checkpoint") ||
		!strings.Contains(e, "resuming from "+ckpt) {
		t.Errorf("resume output does not say what was replayed:\n%s\n%s", out, e)
	}
	if n, st := checkpointEvals(ckpt); n != killedAt+computed-1 || st != ref.Status {
		t.Errorf("checkpoint after resume: %d evaluations, status %q; want %d, %q", n, st, killedAt+computed-1, ref.Status)
	}
	t.Logf("uninterrupted %d evaluations; killed after %d, resumed with %d replayed and %d computed", ref.Evaluations, killedAt, got.Replayed, computed)
}

// TestFitSignals: SIGINT and SIGTERM stop the search after the evaluation
// under way; the best so far is printed and written with status
// "interrupted", the exit status is 128 + the signal, and the checkpoint
// resumes.
func TestFitSignals(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := resumeData(t, bin, dir)
	for _, c := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		t.Run(c.name, func(t *testing.T) {
			res := filepath.Join(dir, c.name+".json")
			ckpt := filepath.Join(dir, c.name+".ckpt")
			// Signalled after 8 evaluations, well before the fit converges
			// (after 20 it finished first once on a loaded box).
			cmd, o, e := startFit(t, bin, ckpt, 8, "fit", "--data", data, "--workers", "2", "--json", res)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, e)
			}
			r := readFitJSON(t, res)
			n, st := checkpointEvals(ckpt)
			if r.Status != "interrupted" || st != "interrupted" || r.Evaluations < 8 || n != r.Evaluations || len(r.Theta) != 3 {
				t.Fatalf("JSON status %q after %d evaluations, checkpoint %q with %d", r.Status, r.Evaluations, st, n)
			}
			if !strings.Contains(o.String(), "status interrupted") || !strings.Contains(o.String(), "sigma2") {
				t.Errorf("no table of the best so far:\n%s", o)
			}
			want := "exageostat: fit: interrupted by " + c.name + " after "
			if !strings.Contains(e.String(), want) || !strings.Contains(e.String(), "--resume "+ckpt) {
				t.Errorf("stderr lacks %q and the resume hint:\n%s", want, e)
			}
			if _, e, code := run(t, bin, "fit", "--data", data, "--workers", "2", "--resume", ckpt, "--max-evals", strconv.Itoa(r.Evaluations)); code != 0 ||
				!strings.Contains(e, "evaluations replayed from") {
				t.Errorf("resume of the interrupted fit: exit %d\n%s", code, e)
			}
		})
	}
}

// TestResumeRefused: a checkpoint of other data or settings, or a file
// that is no checkpoint, is refused with exit status 2 and one line.
func TestResumeRefused(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := resumeData(t, bin, dir)
	other := filepath.Join(dir, "e.csv")
	if _, e, code := run(t, bin, "simulate", "--n", "400", "--seed", "4", "--out", other); code != 0 {
		t.Fatal(e)
	}
	ckpt := filepath.Join(dir, "c.ckpt")
	if _, e, code := run(t, bin, "fit", "--data", data, "--max-evals", "5", "--checkpoint", ckpt); code != 0 {
		t.Fatalf("fit: %s", e)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"other data", []string{"--data", other}, "c.ckpt: made from other data (" + data + ", sha256 "},
		{"simulated", nil, "made from other data"},
		{"other ub", []string{"--data", data, "--ub", "4,5,5"}, `c.ckpt: setting "ub" differs (checkpoint 5,5,5, this run 4,5,5)`},
		{"other kernel", []string{"--data", data, "--kernel", "powexp", "--ub", "5,5,2"}, `setting "kernel" differs (checkpoint matern, this run powexp)`},
		{"other nugget", []string{"--data", data, "--nugget", "0.01"}, `setting "nugget" differs`},
		{"other start", []string{"--data", data, "--start", "lower"}, `setting "start" differs (checkpoint data, this run lower)`},
		{"no checkpoint", []string{"--data", data, "--resume", other}, "--resume " + other + ": not an exageostat fit checkpoint"},
		{"resume onto data", []string{"--data", data, "--resume", data}, "--resume " + data + ": is the --data file"},
		{"missing", []string{"--data", data, "--resume", filepath.Join(dir, "nope.ckpt")}, "nope.ckpt: cannot read: no such file"},
		{"checkpoint onto json", []string{"--data", data, "--json", filepath.Join(dir, "j.json"), "--checkpoint", filepath.Join(dir, "j.json")}, "is also the --json output"},
		{"checkpoint unwritable", []string{"--data", data, "--checkpoint", filepath.Join(dir, "no", "c.ckpt")}, "c.ckpt: cannot be written: directory"},
		{"checkpoint onto data", []string{"--data", data, "--checkpoint", data}, "--checkpoint " + data + ": is the --data file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"fit", "--resume", ckpt}, c.args...)
			_, e, code := run(t, bin, args...)
			if code != 2 || !strings.Contains(e, c.want) || strings.Count(strings.TrimSpace(e), "\n") != 0 {
				t.Errorf("exit %d, want 2 and one line with %q:\n%s", code, c.want, e)
			}
		})
	}
}
