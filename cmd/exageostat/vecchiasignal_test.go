package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestVecchiaCheckSignal: SIGTERM while the approximation check runs (after
// the search) gives the check up at once: exit status 143, the JSON written
// with the estimate of the search (bitwise that of the same fit with
// --vecchia-check=false), the check skipped as "interrupted" and a warning
// that names what was not computed. The check is made long (m2 = 300 at N
// = 4000: seconds, against a search of a tenth of a second) so that the
// signal, sent once the checkpoint says the search is over, lands in it.
func TestVecchiaCheckSignal(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	simulateNugget(t, bin, data, "4000", "1,0.1,0.5", "5")
	args := []string{"fit", "--data", data, "--computation", "vecchia", "--vecchia-m", "10", "--lb", "0.01,0.001,0.1,0.001", "--ub", "10,5,3,2", "--workers", "2"}
	ref := filepath.Join(dir, "ref.json")
	if _, e, code := run(t, bin, append(args, "--vecchia-check=false", "--json", ref)...); code != 0 {
		t.Fatalf("fit without the check: exit %d: %s", code, e)
	}
	want := readFitJSON(t, ref)

	res, ckpt := filepath.Join(dir, "sig.json"), filepath.Join(dir, "sig.ckpt")
	cmd := exec.Command(bin, append(args, "--vecchia-check-m", "300", "--json", res)...)
	var e strings.Builder
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitSearchEnd(t, cmd, ckpt, &e) // the search is over: the check runs
	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	took := time.Since(t0)
	if code := cmd.ProcessState.ExitCode(); code != 143 || took > 5*time.Second {
		t.Fatalf("SIGTERM during the check: exit %d after %v, want 143 at once\n%s", code, took, e.String())
	}
	got := readFitJSON(t, res)
	for i := range want.Theta {
		if got.Theta[i] != want.Theta[i] {
			t.Errorf("theta %v, the fit without the check %v", got.Theta, want.Theta)
		}
	}
	if got.LogLik != want.LogLik {
		t.Errorf("l %.17g, the fit without the check %.17g", got.LogLik, want.LogLik)
	}
	c := readJSON[checkResult](t, res)
	if c.Check == nil || c.Check.Skipped != "interrupted" || c.Check.StepSE != nil {
		t.Errorf("vecchia_check %+v, want skipped \"interrupted\" and no step", c.Check)
	}
	if w := strings.Join(c.Warnings, ";"); !strings.Contains(w, "SIGTERM after the search: not computed: the vecchia check") {
		t.Errorf("warnings %q lack the check given up", w)
	}
	if !strings.Contains(e.String(), "vecchia check: the blocks at m = 300") {
		t.Errorf("stderr does not say the check started:\n%s", e.String())
	}
}
