package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// TestProvenance: --version prints the commit stamped at link time (as the
// Makefile does), and a fit's JSON says what the run was: the version, the
// command line, the input files with their SHA-256 (computed here), the
// CPU, host, ranks, workers and date.
func TestProvenance(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "exageostat")
	const stamp = "0123456789abcdef0123456789abcdef01234567"
	ld := "-X github.com/exageostat/exageostat/pkg/provenance.commit=" + stamp + " -X github.com/exageostat/exageostat/pkg/provenance.modified=true"
	if out, err := exec.Command("go", "build", "-ldflags", ld, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	stdout, stderr, code := run(t, bin, "--version")
	want := "exageostat devel (commit 0123456789ab, modified; " + goruntime.Version() + " " + goruntime.GOOS + "/" + goruntime.GOARCH + ")\n"
	if code != 0 || stdout != want {
		t.Errorf("--version: exit %d, stdout %q (stderr %q), want %q", code, stdout, stderr, want)
	}

	data := []byte("x,y,z\n0.1,0.2,1\n0.5,0.1,-0.4\n0.9,0.4,0.3\n0.7,0.7,1.2\n0.3,0.8,-1\n0.2,0.5,0.1\n")
	dpath := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(dpath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(dir, "r.json")
	// A Vecchia fit lets the data's bytes go once parsed (Inputs.Release):
	// its record is the same.
	for _, comp := range [][]string{nil, {"--computation", "vecchia", "--vecchia-check=false"}} {
		provenanceOf(t, bin, stamp, append([]string{"fit", "--data", dpath, "--max-evals", "3", "--workers", "1", "--json", jpath, "--checkpoint", "none"}, comp...),
			jpath, dpath, data)
	}
}

// provenanceOf runs bin with args, which writes the JSON result jpath of
// the data dpath (content data), and checks its run record.
func provenanceOf(t *testing.T, bin, stamp string, args []string, jpath, dpath string, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	before := time.Now().UTC().Add(-time.Second)
	if _, stderr, code := run(t, bin, args...); code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	b, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Run struct {
			Version, Commit, CPU, Host, Date string
			Modified                         bool
			Command                          []string
			Inputs                           []struct {
				Flag, Path, SHA256 string
				Bytes              int64
			}
			Ranks, Workers int
		} `json:"run"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	p := r.Run
	host, _ := os.Hostname()
	if p.Version != "devel" || p.Commit != stamp || !p.Modified || p.Host != host || p.Ranks != 1 || p.Workers != 1 || p.CPU == "" {
		t.Errorf("run %+v", p)
	}
	if strings.Join(p.Command[1:], " ") != strings.Join(args, " ") {
		t.Errorf("command %q, want %q", p.Command[1:], args)
	}
	if len(p.Inputs) != 1 || p.Inputs[0].Flag != "data" || p.Inputs[0].Path != dpath || p.Inputs[0].SHA256 != hex.EncodeToString(sum[:]) || p.Inputs[0].Bytes != int64(len(data)) {
		t.Errorf("%v: inputs %+v, want the data file with sha256 %x", args[:3], p.Inputs, sum)
	}
	if d, err := time.Parse(time.RFC3339, p.Date); err != nil || d.Before(before) || d.After(time.Now().UTC()) {
		t.Errorf("date %q (%v), want the run's start", p.Date, err)
	}
}

// TestBenchHeaders: every benchmark's table starts with the line naming
// the binary, the CPU model (read here from /proc/cpuinfo), the host and
// the date, and its JSON carries the same in "run"; figures come with
// their minimum and maximum.
func TestBenchHeaders(t *testing.T) {
	bin := binary(t)
	cpu := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	host, _ := os.Hostname()
	cases := []struct {
		args   []string
		spread string // a line with the minimum and maximum
	}{
		{[]string{"bench", "runtime", "--tasks", "200", "--workers", "1"}, "us/task ("},
		{[]string{"bench", "cholesky", "--n", "256", "--nb", "64", "--workers", "1", "--reps", "2"}, "(min "},
		{[]string{"bench", "likelihood", "--n", "200", "--nb", "50", "--workers", "1", "--reps", "2"}, "per evaluation (min "},
	}
	for _, c := range cases {
		stdout, stderr, code := run(t, bin, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, code, stderr)
		}
		first, _, _ := strings.Cut(stdout, "\n")
		if !strings.HasPrefix(first, "# exageostat devel ") || !strings.Contains(first, "| "+cpu+" (") || !strings.Contains(first, "| host "+host+" |") {
			t.Errorf("%v: header %q, want the version, CPU %q and host %q", c.args, first, cpu, host)
		}
		if _, err := time.Parse(time.RFC3339, first[strings.LastIndex(first, "| ")+2:]); err != nil {
			t.Errorf("%v: header %q ends without a date: %v", c.args, first, err)
		}
		if !strings.Contains(stdout, c.spread) {
			t.Errorf("%v: no spread %q in\n%s", c.args, c.spread, stdout)
		}
		stdout, stderr, code = run(t, bin, append(c.args, "--json")...)
		var r struct {
			Run struct {
				CPU, Host, Date, Version string
				Command                  []string
			} `json:"run"`
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 {
			t.Fatalf("%v --json: exit %d, %v\n%s%s", c.args, code, err, stdout, stderr)
		}
		if r.Run.CPU != cpu || r.Run.Host != host || r.Run.Version != "devel" || len(r.Run.Command) != len(c.args)+2 {
			t.Errorf("%v --json: run %+v", c.args, r.Run)
		}
	}
}

// TestOutStdout: --out - writes the CSV to standard output and nothing
// else there (the messages go to stderr); the values are those --out FILE
// writes.
func TestOutStdout(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.csv")
	if _, stderr, code := run(t, bin, "simulate", "--n", "30", "--nb", "10", "--seed", "3", "--out", file); code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, bin, "simulate", "--n", "30", "--nb", "10", "--seed", "3", "--out", "-")
	if code != 0 || stdout != string(want) || !strings.Contains(stderr, "to standard output") {
		t.Errorf("simulate --out -: exit %d, stdout %q, stderr %q; want the file's %q", code, stdout, stderr, want)
	}
	at := filepath.Join(dir, "at.csv")
	if err := os.WriteFile(at, []byte("x,y\n0.5,0.5\n0.1,0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pfile := filepath.Join(dir, "p.csv")
	args := []string{"predict", "--data", file, "--at", at, "--theta", "1,0.1,0.5", "--nb", "10", "--out"}
	if _, stderr, code := run(t, bin, append(args, pfile)...); code != 0 {
		t.Fatalf("predict: %s", stderr)
	}
	if want, err = os.ReadFile(pfile); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run(t, bin, append(args, "-")...)
	if code != 0 || stdout != string(want) {
		t.Errorf("predict --out -: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
}

// TestQuiet: -q keeps stderr to warnings (here a search cut by --max-evals
// and a moved start are warnings of the table on stdout; the workers'
// oversubscription is one on stderr): no set-up note, no line per
// evaluation; the table stays on stdout.
func TestQuiet(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	if _, stderr, code := run(t, bin, "simulate", "--n", "40", "--nb", "20", "--out", data); code != 0 {
		t.Fatal(stderr)
	}
	cmd := exec.Command(bin, "fit", "--data", data, "--max-evals", "3", "--nb", "20", "--workers", "2", "-q")
	cmd.Env = append(os.Environ(), "SLURM_CPUS_PER_TASK=1")
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("fit -q: %v\n%s", err, e.String())
	}
	stderr := e.String()
	if strings.Contains(stderr, "eval ") || strings.Contains(stderr, "fit: N=") || !strings.Contains(stderr, "warning: this process runs 2 workers on 1 core") {
		t.Errorf("fit -q stderr:\n%s\nwant only the workers' warning", stderr)
	}
	if !strings.Contains(o.String(), "loglik ") || !strings.Contains(o.String(), "warning: the search stopped after 3 evaluations") {
		t.Errorf("fit -q stdout lacks the table and its warnings:\n%s", o.String())
	}
}
