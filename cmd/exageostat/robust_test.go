package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/lockfile"
	"github.com/exageostat/exageostat/pkg/provenance"
)

// checkpointOf runs fit on the table's d.csv with args and returns the
// checkpoint it wrote (c.ckpt).
func checkpointOf(t *testing.T, bin string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range cliFixtures() {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args = append([]string{"fit", "--data", "d.csv", "--nb", "30", "--workers", "1", "--checkpoint", "c.ckpt"}, args...)
	if _, e, code := runIn(t, dir, nil, bin, args...); code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, e)
	}
	b, err := os.ReadFile(filepath.Join(dir, "c.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// editCheckpoint returns ck with f applied to its JSON; with redigest,
// the evaluations' digest is made again (an editor who knows the format:
// only recomputing the best evaluation can tell).
func editCheckpoint(t *testing.T, ck string, redigest bool, f func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(ck), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	if redigest {
		var c job.Checkpoint
		b, _ := json.Marshal(m)
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		d, _ := json.Marshal(struct {
			Data, Settings string
			Evaluations    []job.CheckpointEval
			Best           *job.CheckpointEval
		}{c.DataSHA256, c.SettingsSHA256, c.Evaluations, c.Best})
		h := sha256.Sum256(d)
		m["evaluations_sha256"] = hex.EncodeToString(h[:])
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResumeRefusals: a resume that cannot continue its checkpoint exits
// with status 2 and one line naming the setting or the field (never a
// panic, never a changed file): another computation or any of its
// settings, edited values (digests; a forged best is caught by
// recomputing it), malformed fields; and a run that fails at its first
// evaluation leaves a valid checkpoint and JSON as they were.
func TestResumeRefusals(t *testing.T) {
	bin := binary(t)
	exact := checkpointOf(t, bin, "--max-evals", "8")
	tlr := checkpointOf(t, bin, "--max-evals", "4", "--computation", "tlr")
	best := func(m map[string]any) map[string]any { return m["best"].(map[string]any) }
	forged := editCheckpoint(t, exact, true, func(m map[string]any) {
		// The best evaluation's l raised, in the list and as the best.
		for _, e := range m["evaluations"].([]any) {
			e := e.(map[string]any)
			if fmt.Sprint(e["theta"]) == fmt.Sprint(best(m)["theta"]) {
				e["loglik"] = 1e6
			}
		}
		best(m)["loglik"] = 1e6
	})
	ck := func(s string) map[string]string { return map[string]string{"c.ckpt": s} }
	resume := func(extra ...string) []string {
		return append([]string{"fit", "--data", "@d.csv", "--nb", "30", "--resume", "@c.ckpt"}, extra...)
	}
	cases := []cliCase{
		{name: "resume exact as tlr", lines: true, args: resume("--computation", "tlr"), files: ck(exact),
			want: `fit: --resume c.ckpt: setting "computation" differs (checkpoint exact, this run tlr accuracy=1e-09 max-rank=15 band=-1)`},
		{name: "resume tlr as exact", lines: true, args: resume(), files: ck(tlr), want: `setting "computation" differs (checkpoint tlr accuracy=1e-09 max-rank=15 band=-1, this run exact)`},
		{name: "resume tlr accuracy", lines: true, args: resume("--computation", "tlr", "--tlr-accuracy", "1e-6"), files: ck(tlr), want: `this run tlr accuracy=1e-06 max-rank=15`},
		{name: "resume tlr max rank", lines: true, args: resume("--computation", "tlr", "--max-rank", "12"), files: ck(tlr), want: `this run tlr accuracy=1e-09 max-rank=12 band=-1)`},
		{name: "resume tlr hpotrf", lines: true, args: resume("--computation", "tlr", "--hpotrf", "8"), files: ck(tlr), want: `max-rank=15 band=-1 hpotrf=8)`},
		{name: "resume tlr nb", lines: true, args: []string{"fit", "--data", "@d.csv", "--nb", "20", "--resume", "@c.ckpt", "--computation", "tlr", "--max-rank", "15"}, files: ck(tlr),
			want: `setting "nb" differs (checkpoint 30, this run 20)`},
		{name: "resume profile off", args: resume("--profile", "off"), files: ck(exact), want: `setting "profile" differs (checkpoint on, this run off)`},
		{name: "resume mean", args: resume("--mean", "constant"), files: ck(exact), want: `setting "mean" differs (checkpoint zero, this run constant)`},
		{name: "resume best null", args: resume(), files: ck(editCheckpoint(t, exact, false, func(m map[string]any) { best(m)["loglik"] = nil })),
			want: `fit: --resume c.ckpt: field "best.loglik": null without an error`},
		{name: "resume loglik edited", args: resume(), files: ck(editCheckpoint(t, exact, false, func(m map[string]any) {
			m["evaluations"].([]any)[2].(map[string]any)["loglik"] = 1e6
		})), want: `field "evaluations_sha256": is not the digest of the evaluations: the file was edited`},
		{name: "resume forged best", args: resume(), files: ck(forged), lines: true,
			want: `fit: --resume c.ckpt: the best recorded evaluation, l = 1000000, recomputes to l = -`},
		{name: "resume settings edited", args: resume(), files: ck(editCheckpoint(t, exact, false, func(m map[string]any) {
			m["settings"].(map[string]any)["tolerance"] = 1
		})), want: `field "settings_sha256": is not the digest of the settings: the file was edited`},
		{name: "resume loglik text", args: resume(), files: ck(editCheckpoint(t, exact, false, func(m map[string]any) {
			m["evaluations"].([]any)[0].(map[string]any)["loglik"] = "high"
		})), want: `"evaluations.loglik" is a JSON string, want float64`},
		{name: "resume theta short", args: resume(), files: ck(editCheckpoint(t, exact, true, func(m map[string]any) {
			m["evaluations"].([]any)[1].(map[string]any)["theta"] = []any{1.0}
		})), want: `field "evaluations[1].theta": 1 values, want 3`},
		{name: "resume truncated", args: resume(), files: ck(exact[:len(exact)/3]), want: "not an exageostat fit checkpoint (not valid JSON (unexpected end at byte"},
		{name: "resume version 1", args: resume(), files: ck(editCheckpoint(t, exact, false, func(m map[string]any) { m["version"] = 1 })),
			want: "checkpoint format version 1; this exageostat reads version 2"},
		{name: "resume empty", args: resume(), files: ck(""), want: "fit: --resume c.ckpt: empty file"},
		// A failure at the first evaluation computed replaces nothing.
		{name: "resume failing at its first evaluation", args: resume("--json", "@c.json"), code: 1, lines: true,
			files: map[string]string{"c.ckpt": exact, "c.json": "{\"valid\": true}\n"}, env: []string{"EXAGEOSTAT_FAIL_TASK=0:potrf(0,0,0)"}, want: "forced failure"},
		{name: "fit failing at its first evaluation", args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--json", "@c.json"}, code: 1, lines: true,
			files: map[string]string{"c.ckpt": exact, "c.json": "{\"valid\": true}\n"}, env: []string{"EXAGEOSTAT_FAIL_TASK=0:potrf(0,0,0)"}, want: "forced failure"},
	}
	runCLICases(t, bin, cases)
}

// TestCheckpointLock: while a fit holds a checkpoint's lock (here: the
// test, then a running fit), a second fit of that checkpoint stops at once
// (exit status 2), naming the holder;
// a resume removes the temporary files a killed run left beside its
// checkpoint, and leaves no lock file behind.
func TestCheckpointLock(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(cliFixtures()["d.csv"]), 0o644); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "c.ckpt")
	if _, e, code := run(t, bin, "fit", "--data", data, "--nb", "30", "--max-evals", "4", "--checkpoint", ckpt); code != 0 {
		t.Fatal(e)
	}
	l, err := lockfile.Acquire(ckpt, "exageostat fit --resume c.ckpt (the first)")
	if err != nil {
		t.Fatal(err)
	}
	_, e, code := run(t, bin, "fit", "--data", data, "--nb", "30", "--resume", ckpt)
	want := fmt.Sprintf("exageostat: fit: --resume %s: in use by pid %d on host ", ckpt, os.Getpid())
	if code != 2 || !strings.HasPrefix(e, want) || !strings.Contains(e, "(the first)") || strings.Count(e, "\n") != 1 {
		t.Errorf("second resume: exit %d, want 2 and one line %q...:\n%s", code, want, e)
	}
	l.Release()

	// Two fits at once: the second resume of a checkpoint another fit is
	// writing stops at once, naming it; the first goes on (until stopped).
	sub := filepath.Join(dir, "two")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	big := resumeData(t, bin, sub)
	first := filepath.Join(sub, "first.ckpt")
	cmd, _, fe := startFit(t, bin, first, 3, "fit", "--data", big, "--workers", "1", "--checkpoint", first)
	_, e, code = run(t, bin, "fit", "--data", big, "--workers", "1", "--resume", first)
	want = fmt.Sprintf("exageostat: fit: --resume %s: in use by pid %d on host ", first, cmd.Process.Pid)
	if code != 2 || !strings.HasPrefix(e, want) {
		t.Errorf("a resume while the fit runs: exit %d, want 2 and %q...:\n%s", code, want, e)
	}
	cmd.Process.Signal(syscall.SIGTERM) // enough: it ends with its best so far
	if cmd.Wait(); cmd.ProcessState.ExitCode() != 143 {
		t.Errorf("the first fit: %v\n%s", cmd.ProcessState, fe)
	}
	stale := filepath.Join(dir, ".c.ckpt.tmp4242")
	if err := os.WriteFile(stale, []byte("{half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := run(t, bin, "fit", "--data", data, "--nb", "30", "--resume", ckpt, "--max-evals", "6"); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, e)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".c.ckpt*"))
	if _, err := os.Stat(ckpt + lockfile.Suffix); err == nil || len(left) != 0 {
		t.Errorf("after the resume: lock file %v, temporary files %v", err, left)
	}
}

// TestFitReadsInputsOnce: --data /dev/stdin and a FIFO fit exactly as the
// file does (the data is read once: the provenance digest is of the bytes
// parsed), and --config through a FIFO too.
func TestFitReadsInputsOnce(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	content := cliFixtures()["d.csv"]
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(content))
	args := []string{"--nb", "30", "--workers", "1", "--max-evals", "12", "--checkpoint", "none"}
	fit := func(name string, stdin string, extra ...string) fitJSON {
		t.Helper()
		out := filepath.Join(dir, name+".json")
		cmd := exec.Command(bin, append(append([]string{"fit", "--json", out}, args...), extra...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var e strings.Builder
		cmd.Stderr = &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, e.String())
		}
		var r struct {
			Run struct {
				Inputs []struct{ Flag, Path, SHA256 string }
			}
		}
		b, _ := os.ReadFile(out)
		json.Unmarshal(b, &r)
		if n := len(r.Run.Inputs); n == 0 || r.Run.Inputs[n-1].SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: inputs recorded %+v, want the data's sha256 %x", name, r.Run.Inputs, sum)
		}
		return readFitJSON(t, out)
	}
	ref := fit("file", "", "--data", data)
	fifo := func(name, content string) string { return fifoWith(t, filepath.Join(dir, name), content) }
	for name, got := range map[string]fitJSON{
		"stdin":  fit("stdin", content, "--data", "/dev/stdin"),
		"fifo":   fit("fifo", "", "--data", fifo("d.fifo", content)),
		"config": fit("config", "", "--config", fifo("c.fifo", fmt.Sprintf("data = %q\n", data))),
	} {
		if got.LogLik != ref.LogLik || fmt.Sprint(got.Theta) != fmt.Sprint(ref.Theta) || got.Evaluations != ref.Evaluations {
			t.Errorf("%s: theta %v l %v after %d; the file gives %v %v after %d", name, got.Theta, got.LogLik, got.Evaluations, ref.Theta, ref.LogLik, ref.Evaluations)
		}
	}
}

// fifoWith makes a FIFO at path and writes content into it once a
// reader opens it (a file that can be read once), in the background.
func fifoWith(t *testing.T, path, content string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.WriteString(content)
			f.Close()
		}
	}()
	return path
}

// TestPredictReadsInputsOnce: predict --json with its data from a FIFO
// and its new locations from standard input writes the predictions of
// the files, and the JSON's run records the digests of the bytes read
// (a second read of a FIFO would block: the run would hang).
func TestPredictReadsInputsOnce(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	fx := cliFixtures()
	data, at := writeFile(t, dir, "d.csv", fx["d.csv"]), writeFile(t, dir, "at.csv", fx["at.csv"])
	args := []string{"predict", "--theta", "1,0.1,0.5", "--workers", "1", "-q"}
	if _, e, code := run(t, bin, append(args, "--data", data, "--at", at, "--out", filepath.Join(dir, "one.csv"))...); code != 0 {
		t.Fatalf("from the files: exit %d: %s", code, e)
	}
	fifo := fifoWith(t, filepath.Join(dir, "d.fifo"), fx["d.csv"])
	res := filepath.Join(dir, "p.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--data", fifo, "--at", "/dev/stdin", "--out", filepath.Join(dir, "two.csv"), "--json", res)...)
	cmd.Stdin = strings.NewReader(fx["at.csv"])
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("from a FIFO and standard input: %v (ctx %v)\n%s", err, ctx.Err(), out)
	}
	one, _ := os.ReadFile(filepath.Join(dir, "one.csv"))
	two, _ := os.ReadFile(filepath.Join(dir, "two.csv"))
	if len(one) == 0 || string(one) != string(two) {
		t.Errorf("from a FIFO and standard input:\n%s\nfrom the files:\n%s", two, one)
	}
	var r struct {
		Run struct {
			Inputs []struct{ Flag, Path, SHA256 string }
		}
	}
	b, _ := os.ReadFile(res)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	digest := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	want := fmt.Sprintf("[{data %s %s} {at /dev/stdin %s}]", fifo, digest(fx["d.csv"]), digest(fx["at.csv"]))
	if got := fmt.Sprint(r.Run.Inputs); got != want {
		t.Errorf("the JSON records %s, want %s", got, want)
	}
}

// TestFitStops: SIGTERM twice within milliseconds (Slurm at a time limit)
// is one orderly stop: JSON, checkpoint, exit status 143. SIGTERM while
// fit waits on its data (a FIFO no one writes) ends it at once with 143,
// and SIGTERM during --ci profile after the search gives the intervals up
// at once: the estimate is written, exit status 143.
func TestFitStops(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := resumeData(t, bin, dir)

	res, ckpt := filepath.Join(dir, "twice.json"), filepath.Join(dir, "twice.ckpt")
	cmd, _, e := startFit(t, bin, ckpt, 4, "fit", "--data", data, "--workers", "2", "--json", res)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("SIGTERM twice: exit %d, want 143\n%s", code, e)
	} else if r := readFitJSON(t, res); r.Status != "interrupted" {
		t.Errorf("SIGTERM twice: status %q", r.Status)
	}

	fifo := filepath.Join(dir, "never.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	blocked := exec.Command(bin, "fit", "--data", fifo, "--json", filepath.Join(dir, "b.json"))
	var be strings.Builder
	blocked.Stderr = &be
	if err := blocked.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until fit has the FIFO open (a writer can then open it too),
	// and hold it open without writing: fit blocks in its read.
	var w *os.File
	for deadline := time.Now().Add(60 * time.Second); w == nil; time.Sleep(10 * time.Millisecond) {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w = f
		} else if time.Now().After(deadline) {
			blocked.Process.Kill()
			t.Fatalf("fit never opened %s: %v", fifo, err)
		}
	}
	defer w.Close()
	t0 := time.Now()
	blocked.Process.Signal(syscall.SIGTERM)
	blocked.Wait()
	if code, took := blocked.ProcessState.ExitCode(), time.Since(t0); code != 143 || took > 5*time.Second || !strings.Contains(be.String(), "SIGTERM while reading "+fifo) {
		t.Errorf("SIGTERM on a blocked read: exit %d after %v\n%s", code, took, be.String())
	}

	res, ckpt = filepath.Join(dir, "ci.json"), filepath.Join(dir, "ci.ckpt")
	// N = 1600: the profile intervals take seconds, so the signal sent
	// when the checkpoint says the search has ended lands during them (at
	// N = 400 they ended first, within 17 ms, on a calm box).
	big := filepath.Join(dir, "big.csv")
	if _, e, code := run(t, bin, "simulate", "--n", "1600", "--seed", "3", "--out", big); code != 0 {
		t.Fatalf("simulate: %s", e)
	}
	ci := exec.Command(bin, "fit", "--data", big, "--workers", "2", "--json", res, "--ci", "profile")
	var ce strings.Builder
	ci.Stderr = &ce
	if err := ci.Start(); err != nil {
		t.Fatal(err)
	}
	waitSearchEnd(t, ci, ckpt, &ce) // the search is over: the profile intervals run
	t0 = time.Now()
	ci.Process.Signal(syscall.SIGTERM)
	ci.Wait()
	took := time.Since(t0)
	var r struct {
		Status    string          `json:"status"`
		Intervals json.RawMessage `json:"profile_intervals"`
		Warnings  []string        `json:"warnings"`
	}
	b, _ := os.ReadFile(res)
	json.Unmarshal(b, &r)
	if code := ci.ProcessState.ExitCode(); code != 143 || took > 5*time.Second || r.Intervals != nil || !strings.Contains(strings.Join(r.Warnings, ";"), "SIGTERM after the search: not computed: the profile intervals") {
		t.Errorf("SIGTERM during --ci profile: exit %d after %v, JSON status %q intervals %s warnings %v\n%s", code, took, r.Status, r.Intervals, r.Warnings, ce.String())
	}
}

// TestFitDeadline: with --deadline the fit starts no evaluation it cannot
// end in time (the longest so far, a quarter more, and 2 s to write): it
// ends before the deadline with its best so far (status "deadline", exit
// status 143, the checkpoint), and --resume ends bitwise where the
// uninterrupted fit does. The deadline of a Slurm job (squeue's end time;
// here a squeue on PATH that answers for job 42) stops it the same way.
//
// The deadline is a share of the uninterrupted search's time, which the
// load changes between two runs: a run that ends its search in time (the
// load dropped) or that could start no evaluation (it rose) is checked
// for what it must then do, and the run is made again with a deadline
// that moves toward the middle of the search (deadlineStop), so that the
// stop itself is always checked.
func TestFitDeadline(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if _, e, code := run(t, bin, "simulate", "--n", "1600", "--seed", "3", "--out", data); code != 0 {
		t.Fatal(e)
	}
	args := []string{"fit", "--data", data, "--workers", "2"}
	ref := filepath.Join(dir, "ref.json")
	if _, e, code := run(t, bin, append(args, "--json", ref)...); code != 0 {
		t.Fatal(e)
	}
	var want struct {
		fitJSON
		Seconds float64 `json:"seconds"`
	}
	b, _ := os.ReadFile(ref)
	json.Unmarshal(b, &want)
	// A quarter of the search's time after the reserve: the search stops
	// about a quarter of the way, whatever the machine's speed.
	stopped := deadlineStop(t, want.Seconds, want.Evaluations, func(try int, limit time.Duration) deadlineRun {
		res := filepath.Join(dir, fmt.Sprintf("r%d.json", try))
		_, e, code := run(t, bin, append(args, "--json", res, "--deadline", limit.String())...)
		return deadlineRun{res: res, stderr: e, code: code}
	})
	got, e, res, ckpt := readFitJSON(t, stopped.res), stopped.stderr, stopped.res, strings.TrimSuffix(stopped.res, ".json")+".ckpt"
	if got.Evaluations >= want.Evaluations || !strings.Contains(e, "continue with --resume "+ckpt) {
		t.Fatalf("--deadline %v: exit %d after %v, status %q after %d evaluations (uninterrupted %d)\n%s",
			stopped.limit, stopped.code, stopped.took, got.Status, got.Evaluations, want.Evaluations, e)
	}
	if n, st := checkpointEvals(ckpt); n != got.Evaluations || st != "deadline" {
		t.Fatalf("checkpoint: %d evaluations, status %q", n, st)
	}
	if _, e, code := run(t, bin, append(args, "--json", res, "--resume", ckpt)...); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, e)
	}
	if r := readFitJSON(t, res); r.LogLik != want.LogLik || fmt.Sprint(r.Theta) != fmt.Sprint(want.Theta) || r.Evaluations != want.Evaluations {
		t.Fatalf("resumed: theta %v l %v after %d; uninterrupted %v %v after %d", r.Theta, r.LogLik, r.Evaluations, want.Theta, want.LogLik, want.Evaluations)
	}
	t.Logf("uninterrupted %d evaluations in %.2fs; --deadline %v stopped after %d, at %v", want.Evaluations, want.Seconds, stopped.limit, got.Evaluations, stopped.took.Round(time.Millisecond))

	// Slurm's end time (whole seconds, one more for the truncation).
	bindir := filepath.Join(dir, "bin")
	os.Mkdir(bindir, 0o755)
	slurm := deadlineStop(t, want.Seconds, want.Evaluations, func(try int, limit time.Duration) deadlineRun {
		res := filepath.Join(dir, fmt.Sprintf("s%d.json", try))
		end := time.Now().Add(limit + time.Second).Format("2006-01-02T15:04:05")
		script := "#!/bin/sh\n[ \"$*\" = \"-h -j 42 -o %e\" ] && echo " + end + "\n"
		if err := os.WriteFile(filepath.Join(bindir, "squeue"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		env := []string{"SLURM_JOB_ID=42", "PATH=" + bindir + ":" + os.Getenv("PATH")}
		_, e, code := runIn(t, dir, env, bin, append(args, "--json", res)...)
		return deadlineRun{res: res, stderr: e, code: code, slack: time.Second}
	})
	if !strings.Contains(slurm.stderr, "(the time limit of Slurm job 42)") {
		t.Fatalf("Slurm job 42: exit %d after %v\n%s", slurm.code, slurm.took, slurm.stderr)
	}
}

// deadlineRun is one fit with a deadline: its JSON's path, its stderr and
// exit status, and (filled in by deadlineStop) the deadline, its wall
// time, and slack: how much later than the limit the deadline may be.
type deadlineRun struct {
	res, stderr string
	code        int
	limit, took time.Duration
	slack       time.Duration
}

// deadlineStop runs fit(try, limit) with a deadline limit of 2 s (the
// reserve) plus a share of the uninterrupted search's seconds (a quarter
// first) until the fit stops for the deadline after some evaluations, and
// returns that run, whose JSON says status "deadline" and which ended
// before the deadline (1 s allowed for the process's start and exit). A
// run that instead ended its search (the load dropped since the
// uninterrupted fit) must have ended before the deadline with all its
// evaluations: the next try's share is halved. A run that could start no
// evaluation (the load rose) must say so, exit with status 143 and write
// nothing: the next share is doubled. Five tries at most.
func deadlineStop(t *testing.T, seconds float64, evals int, fit func(try int, limit time.Duration) deadlineRun) deadlineRun {
	t.Helper()
	share := 0.25
	for try := range 5 {
		limit := 2*time.Second + time.Duration(seconds*share*float64(time.Second))
		t0 := time.Now()
		r := fit(try, limit)
		r.limit, r.took = limit, time.Since(t0)
		if r.took > limit+r.slack+time.Second {
			t.Fatalf("--deadline %v: exit %d after %v (the deadline passed)\n%s", limit, r.code, r.took, r.stderr)
		}
		_, err := os.Stat(r.res)
		switch {
		case r.code == 0:
			if got := readFitJSON(t, r.res); got.Evaluations != evals || got.Status == "deadline" {
				t.Fatalf("--deadline %v: exit 0 after %v, status %q after %d evaluations (uninterrupted %d)\n%s", limit, r.took, got.Status, got.Evaluations, evals, r.stderr)
			}
			t.Logf("--deadline %v: the search ended in %v: the machine ran faster than for the uninterrupted fit", limit, r.took)
			share /= 2
		case r.code == 143 && strings.Contains(r.stderr, "fit: stopped for the deadline") && strings.Contains(r.stderr, "after 0 evaluations; nothing written"):
			if err == nil {
				t.Fatalf("--deadline %v: no evaluation, yet %s was written", limit, r.res)
			}
			t.Logf("--deadline %v: no evaluation could start: the machine ran slower than for the uninterrupted fit", limit)
			share *= 2
		case r.code == 143 && strings.Contains(r.stderr, "fit: stopped for the deadline") && err == nil:
			if got := readFitJSON(t, r.res); got.Status != "deadline" {
				t.Fatalf("--deadline %v: exit 143 after %v, status %q\n%s", limit, r.took, got.Status, r.stderr)
			}
			return r
		default:
			t.Fatalf("--deadline %v: exit %d after %v\n%s", limit, r.code, r.took, r.stderr)
		}
	}
	t.Fatalf("five deadlines from %.2f s of search: the fit never stopped for one after some evaluations", seconds)
	return deadlineRun{}
}

// TestMPIInputsFromRank0: under mpirun, rank 0 alone reads the inputs and
// writes the outputs. Two ranks in other working directories (MPMD
// -wdir), the data file and the config only in rank 0's: the fit runs,
// to the one-rank l bitwise, and only rank 0's directory gets the JSON and
// checkpoint. A FIFO, which can be read once, fits on two ranks too. And
// kill -TERM of mpirun (which kills its ranks one second after forwarding
// the signal) still leaves the JSON, status "interrupted", and the
// checkpoint: the ranks give up the evaluation under way and write at
// once (mpirun itself exits with 1 whatever its ranks do).
func TestMPIInputsFromRank0(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	if err := os.WriteFile(filepath.Join(a, "d.csv"), []byte(cliFixtures()["d.csv"]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, "c.toml"), []byte("data = \"d.csv\"\nnb = 30\nworkers = 1\nmax_evals = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code, _ := mpirun(t, 1, nil, bin, "fit", "--config", filepath.Join(a, "c.toml"), "--json", filepath.Join(a, "one.json")); code != 0 {
		t.Fatalf("one rank: %s", e)
	}
	want := readFitJSON(t, filepath.Join(a, "one.json"))
	if out, err := mpirunIn(bin, []string{a, b}, "fit", "--config", "c.toml", "--json", "r.json"); err != nil {
		t.Fatalf("two ranks, the inputs in rank 0's directory only: %v\n%s", err, out)
	}
	got := readFitJSON(t, filepath.Join(a, "r.json"))
	if got.LogLik != want.LogLik || fmt.Sprint(got.Theta) != fmt.Sprint(want.Theta) {
		t.Errorf("two ranks: theta %v l %v; one rank %v %v", got.Theta, got.LogLik, want.Theta, want.LogLik)
	}
	if left, _ := os.ReadDir(b); len(left) != 0 {
		t.Errorf("rank 1 wrote into its directory: %v", left)
	}

	fifo := fifoWith(t, filepath.Join(dir, "d.fifo"), cliFixtures()["d.csv"])
	if _, e, code, _ := mpirun(t, 2, nil, bin, "fit", "--data", fifo, "--nb", "30", "--workers", "1", "--max-evals", "10", "--json", filepath.Join(dir, "f.json")); code != 0 {
		t.Fatalf("two ranks from a FIFO: exit %d\n%s", code, e)
	}
	if got := readFitJSON(t, filepath.Join(dir, "f.json")); got.LogLik != want.LogLik {
		t.Errorf("two ranks from a FIFO: l %v, one rank from the file %v", got.LogLik, want.LogLik)
	}

	// kill -TERM of mpirun during evaluations of about a second.
	big := filepath.Join(dir, "big.csv")
	if _, e, code, _ := mpirun(t, 1, nil, bin, "simulate", "--n", "3000", "--seed", "2", "--out", big); code != 0 {
		t.Fatal(e)
	}
	res, ckpt := filepath.Join(dir, "m.json"), filepath.Join(dir, "m.ckpt")
	m := exec.Command("mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", bin, "fit", "--data", big, "--workers", "1", "--json", res)
	m.Env = append(os.Environ(), "OMPI_MCA_btl_vader_single_copy_mechanism=none")
	var me strings.Builder
	m.Stderr = &me
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(120 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n, _ := checkpointEvals(ckpt); n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			m.Process.Kill()
			t.Fatalf("no 2 evaluations in 120 s:\n%s", me.String())
		}
	}
	m.Process.Signal(syscall.SIGTERM)
	m.Wait()
	r := readFitJSON(t, res)
	n, st := checkpointEvals(ckpt)
	if r.Status != "interrupted" || st != "interrupted" || n != r.Evaluations || !strings.Contains(me.String(), "fit: interrupted by SIGTERM after") {
		t.Errorf("kill -TERM mpirun: JSON status %q after %d, checkpoint %q with %d\n%s", r.Status, r.Evaluations, st, n, me.String())
	}
}

// mpirunIn runs bin with args on one rank per directory of dirs, each
// rank in its own (MPMD: -wdir), and returns what they printed. A run
// that has not ended in 3 minutes (ranks that wait on each other) gets
// SIGTERM, which mpirun forwards, and an error saying so.
func mpirunIn(bin string, dirs []string, args ...string) ([]byte, error) {
	full := []string{"--allow-run-as-root", "--oversubscribe"}
	for i, d := range dirs {
		if i > 0 {
			full = append(full, ":")
		}
		full = append(append(full, "-np", "1", "-wdir", d, bin), args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mpirun", full...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), "OMPI_MCA_btl_vader_single_copy_mechanism=none")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("no end in 3 minutes (a hang): %v", err)
	}
	return out, err
}

// TestMPIInputFilesFromRank0: the inputs other than the data are read by
// rank 0 alone too. Two ranks in other working directories, the inputs
// in rank 0's only: predict's raster --at and --blocks polygons (GDAL
// decodes them on rank 0, which sends the values), fit's --vecchia-sets,
// --perfmodel (read for dmda, then rewritten) and --cluster (with
// --distribution lp): each run gives the one-rank result bitwise (the
// predictions' bytes, theta and l), the JSON records the files with their
// digests, and rank 1's directory stays empty.
func TestMPIInputFilesFromRank0(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	copyInto := func(names ...string) {
		for _, n := range names {
			src, err := os.ReadFile(filepath.Join("..", "..", n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(a, filepath.Base(n)), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyInto("testdata/real/meuse-raw.csv", "testdata/real/meuse-grid.tif", "testdata/real/meuse-blocks.geojson", "configs/cluster-local-2.toml")
	twoRanks := func(what string, args ...string) {
		t.Helper()
		if out, err := mpirunIn(bin, []string{a, b}, args...); err != nil {
			t.Fatalf("%s on two ranks, the inputs in rank 0's directory only: %v\n%s", what, err, out)
		}
		if left, _ := os.ReadDir(b); len(left) != 0 {
			t.Fatalf("%s: rank 1 wrote into its directory: %v", what, left)
		}
	}
	oneRank := func(what string, args ...string) {
		t.Helper()
		if _, e, code := runIn(t, a, nil, bin, args...); code != 0 {
			t.Fatalf("%s on one rank: exit %d\n%s", what, code, e)
		}
	}
	same := func(what, one, two string) {
		t.Helper()
		x, errX := os.ReadFile(filepath.Join(a, one))
		y, errY := os.ReadFile(filepath.Join(a, two))
		if errX != nil || errY != nil || len(x) == 0 || string(x) != string(y) {
			t.Errorf("%s: two ranks wrote %d bytes (%v), one rank %d (%v): not the same", what, len(y), errY, len(x), errX)
		}
	}
	inputs := func(res string) map[string]string {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(a, res))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Run struct {
				Inputs []struct{ Flag, Path, SHA256 string } `json:"inputs"`
			} `json:"run"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, in := range r.Run.Inputs {
			m[in.Flag+" "+in.Path] = in.SHA256
		}
		return m
	}
	digest := func(name string) string {
		sum, _, err := provenance.FileSHA256(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}

	if hasGDAL() {
		pr := []string{"predict", "-q", "--data", "meuse-raw.csv", "--z", "zinc", "--transform", "log", "--mean", "dist",
			"--theta", "0.23,220,0.5,0.031", "--workers", "1", "--at", "meuse-grid.tif", "--blocks", "meuse-blocks.geojson"}
		oneRank("predict --at grid.tif --blocks", append(pr, "--out", "one.csv")...)
		twoRanks("predict --at grid.tif --blocks", append(pr, "--out", "two.csv")...)
		same("predict --at grid.tif --blocks polygons", "one.csv", "two.csv")
	} else {
		t.Log("no gdal-config: the raster and polygon inputs are not tried (scripts/deps.sh installs libgdal-dev)")
	}

	oneRank("simulate", "simulate", "--n", "400", "--seed", "3", "--out", "d.csv")
	vf := []string{"fit", "-q", "--data", "d.csv", "--computation", "vecchia", "--vecchia-m", "10", "--workers", "1"}
	oneRank("fit --vecchia-sets-out", append(vf, "--vecchia-sets-out", "sets.txt", "--json", "v1.json")...)
	twoRanks("fit --vecchia-sets", append(vf, "--vecchia-sets", "sets.txt", "--json", "v2.json")...)
	if x, y := readFitJSON(t, filepath.Join(a, "v1.json")), readFitJSON(t, filepath.Join(a, "v2.json")); x.LogLik != y.LogLik || fmt.Sprint(x.Theta) != fmt.Sprint(y.Theta) {
		t.Errorf("fit --vecchia-sets on two ranks: theta %v l %v; one rank from its own sets %v %v", y.Theta, y.LogLik, x.Theta, x.LogLik)
	}
	if got, want := inputs("v2.json")["vecchia-sets sets.txt"], digest("sets.txt"); got != want {
		t.Errorf("the JSON records the sets file's digest %q, want %q", got, want)
	}

	pf := []string{"fit", "-q", "--data", "d.csv", "--nb", "100", "--workers", "1", "--max-evals", "8", "--scheduler", "dmda", "--perfmodel", "pm.json"}
	oneRank("fit --perfmodel (written)", append(pf, "--json", "p1.json")...)
	model := digest("pm.json")
	twoRanks("fit --perfmodel --cluster", append(pf, "--distribution", "lp", "--cluster", "cluster-local-2.toml", "--json", "p2.json")...)
	if x, y := readFitJSON(t, filepath.Join(a, "p1.json")), readFitJSON(t, filepath.Join(a, "p2.json")); x.LogLik != y.LogLik || fmt.Sprint(x.Theta) != fmt.Sprint(y.Theta) {
		t.Errorf("fit --perfmodel --cluster on two ranks: theta %v l %v; one rank %v %v", y.Theta, y.LogLik, x.Theta, x.LogLik)
	}
	rec := inputs("p2.json")
	if rec["perfmodel pm.json"] != model || rec["cluster cluster-local-2.toml"] != digest("cluster-local-2.toml") {
		t.Errorf("the JSON's inputs %v: want pm.json as it was read (%s) and the cluster file", rec, model)
	}
}
