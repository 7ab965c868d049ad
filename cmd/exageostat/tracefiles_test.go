package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/trace"
)

// pajeCheck parses a Paje file with pajeng's pj_dump (Debian's pajeng,
// installed by scripts/deps.sh), which refuses a file out of time order,
// with undeclared containers or types, or with a link that does not end;
// it returns the count of each kind of line of its dump.
func pajeCheck(t *testing.T, path string) map[string]int {
	t.Helper()
	out, err := exec.Command("pj_dump", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pj_dump %s: %v\n%s", path, err, out)
	}
	count := map[string]int{}
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			count[strings.SplitN(l, ",", 2)[0]]++
		}
	}
	return count
}

// TestTraceFourRanks: a fit on 4 MPI ranks with --trace t.json writes each
// rank's Paje file, the merged Perfetto JSON (scripts/check-trace.py
// passes it: transfer slices with their source, destination, tile and
// bytes, no partial overlaps, complete flows; one lane per worker and one
// comm lane per rank) and the merged Paje file, which pj_dump parses (the
// transfers as links) and ViTE loads without an error (its headless SVG
// export); trace merge of the rank files gives the same tasks.
func TestTraceFourRanks(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.json")
	if _, e, code, _ := mpirun(t, 4, nil, bin, "fit", "--n", "1600", "--nb", "200", "--workers", "1", "--max-evals", "2",
		"--trace", tr, "-q"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, e)
	}
	out, err := exec.Command("python3", "../../scripts/check-trace.py", tr).CombinedOutput()
	if err != nil {
		t.Fatalf("check-trace.py: %v\n%s", err, out)
	}
	var tasks, transfers, flows, lanes int
	if _, err := fmt.Sscanf(string(out[strings.LastIndex(string(out), ": ")+2:]), "%d tasks, %d transfer slices, %d flows, %d lanes",
		&tasks, &transfers, &flows, &lanes); err != nil || tasks == 0 || transfers == 0 || flows == 0 || lanes > 4*3 {
		t.Errorf("check-trace.py: %s (want tasks, transfers and flows, at most 3 lanes a rank)", out)
	}
	merged := trace.PajePath(tr)
	c := pajeCheck(t, merged)
	if c["Link"] != flows || c["State"] == 0 || c["Container"] < 1+4*3 {
		t.Errorf("pj_dump of %s: %v; want %d links (the flows)", merged, c, flows)
	}
	if vite, err := exec.LookPath("vite"); err == nil {
		cmd := exec.Command(vite, merged, "-e", filepath.Join(dir, "vite.svg"))
		cmd.Env = append(os.Environ(), "QT_QPA_PLATFORM=offscreen", "XDG_RUNTIME_DIR="+dir)
		o, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(o), "0 errors and 0 warnings") {
			t.Errorf("vite %s: %v\n%s", merged, err, o)
		}
	} else {
		t.Errorf("vite not found (Debian's vite; scripts/deps.sh installs it): %v", err)
	}
	var ranks []string
	for r := range 4 {
		ranks = append(ranks, trace.RankPath(tr, r))
	}
	re := filepath.Join(dir, "re.json")
	if _, e, code := run(t, bin, append(append([]string{"trace", "merge"}, ranks...), "--out", re)...); code != 0 {
		t.Fatalf("trace merge: exit %d: %s", code, e)
	}
	a, err := trace.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := trace.ReadFile(re)
	if err != nil {
		t.Fatal(err)
	}
	if ta, tb := countTasks(a), countTasks(b); ta != tb || ta != tasks {
		t.Errorf("tasks: %d in the run's trace, %d merged again, %d by check-trace.py", ta, tb, tasks)
	}
	checkJobOutputs(t, bin, dir)
}

// checkJobOutputs: simulate and predict on 2 MPI ranks write --json with
// each rank's memory (the owned tiles of the 400 x 400 matrix in tiles of
// 100, 4 x 5 / 2 = 10 tiles of 80000 bytes, split over the ranks) and
// --trace as fit does (merged JSON with one potrf per diagonal tile, a
// Paje file pj_dump parses, a file per rank).
func checkJobOutputs(t *testing.T, bin, dir string) {
	at := filepath.Join(dir, "at.csv")
	if err := os.WriteFile(at, []byte("x,y\n0.1,0.2\n0.5,0.5\n0.9,0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "d.csv")
	for _, c := range []struct {
		name string
		args []string
		n    int
	}{
		{"simulate", []string{"simulate", "--n", "400", "--out", data}, 400},
		{"predict", []string{"predict", "--data", data, "--theta", "1,0.1,0.5", "--at", at, "--out", filepath.Join(dir, "p.csv")}, 3},
	} {
		js, tr := filepath.Join(dir, c.name+".json"), filepath.Join(dir, c.name+"-trace.json")
		args := append(c.args, "--nb", "100", "--workers", "1", "--json", js, "--trace", tr, "-q")
		if _, e, code, _ := mpirun(t, 2, nil, bin, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, e)
		}
		var res struct {
			N, Predicted int
			Ranks        int
			Memory       []job.RankMemory
			Traced       []string `json:"trace_files"`
		}
		if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &res) != nil {
			t.Fatalf("%s --json: %v", c.name, err)
		}
		var owned int64
		for r, m := range res.Memory {
			owned += m.OwnedTileBytes
			if m.Rank != r || m.OwnedTileBytes <= 0 || m.PeakTileBytes <= 0 || m.NeedBytes <= 0 {
				t.Errorf("%s: memory of rank %d: %+v", c.name, r, m)
			}
		}
		if res.Ranks != 2 || len(res.Memory) != 2 || owned != 10*100*100*8 || max(res.N, res.Predicted) != c.n {
			t.Errorf("%s --json: %d ranks, %d memory rows, %d bytes owned (want 2, 2, 800000), n %d %d (want %d)",
				c.name, res.Ranks, len(res.Memory), owned, res.N, res.Predicted, c.n)
		}
		ev, err := trace.ReadFile(tr)
		if err != nil {
			t.Fatalf("%s --trace: %v", c.name, err)
		}
		potrf := 0
		for _, e := range ev {
			if e.Kind == kind.Potrf {
				potrf++
			}
		}
		if potrf != 4 || len(res.Traced) != 2 {
			t.Errorf("%s --trace: %d potrf tasks (want 4, one per diagonal tile), files %v", c.name, potrf, res.Traced)
		}
		if c := pajeCheck(t, trace.PajePath(tr)); c["State"] == 0 {
			t.Errorf("%s: pj_dump of the Paje file: %v", tr, c)
		}
		for r := range 2 {
			if _, err := trace.ReadFile(trace.RankPath(tr, r)); err != nil {
				t.Errorf("%s: rank %d's file: %v", c.name, r, err)
			}
		}
	}
}

func countTasks(ev []trace.Event) int {
	n := 0
	for _, e := range ev {
		if e.Worker >= 0 && !e.IsTransfer() && e.Kind != trace.MemoryKind {
			n++
		}
	}
	return n
}

// TestTraceKilled: a fit on 4 MPI ranks with --trace, killed with SIGKILL
// (every process of its session) while it runs, leaves each rank's trace
// file readable: the trace reader finds tasks and transfers in each,
// pj_dump parses each, and trace merge merges them.
func TestTraceKilled(t *testing.T) {
	bin := mpiBinary(t)
	dir := t.TempDir()
	tr := filepath.Join(dir, "k.json")
	const ranks = 4
	cmd := exec.Command("mpirun", "--allow-run-as-root", "--oversubscribe", "-np", strconv.Itoa(ranks), bin, "fit", "--n", "6000", "--nb", "500",
		"--workers", "1", "--max-evals", "200", "--trace", tr, "-q")
	cmd.Env = append(os.Environ(), "OMPI_MCA_btl_vader_single_copy_mechanism=none")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // the ranks stay in its session
	// stderr to a file, not a pipe: Wait must not wait for a process that
	// escaped the kill to close it.
	errFile, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	cmd.Stderr = errFile
	stderr := func() string { b, _ := os.ReadFile(errFile.Name()); return string(b) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until every rank has written a few hundred task lines.
	deadline := time.Now().Add(5 * time.Minute)
	for !grown(tr, ranks, 40_000) {
		select {
		case err := <-done:
			t.Fatalf("the fit ended before it was killed: %v\n%s", err, stderr())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			killSession(cmd.Process.Pid)
			t.Fatalf("the rank files did not grow in 5 minutes (4 ranks on a loaded machine grow them in about 2.5)\n%s", stderr())
		}
	}
	killSession(cmd.Process.Pid)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("mpirun did not end a minute after SIGKILL")
	}
	var files []string
	for r := range ranks {
		p := trace.RankPath(tr, r)
		files = append(files, p)
		ev, err := trace.ReadFile(p)
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		tasks, xfers := countTasks(ev), 0
		for _, e := range ev {
			if e.IsTransfer() {
				xfers++
			}
		}
		if tasks == 0 || xfers == 0 {
			t.Errorf("rank %d's trace after kill -9: %d tasks, %d transfers", r, tasks, xfers)
		}
		if c := pajeCheck(t, p); c["State"] < tasks {
			t.Errorf("pj_dump of rank %d: %v, fewer states than the %d tasks read", r, c, tasks)
		}
	}
	out := filepath.Join(dir, "merged.json")
	if _, e, code := run(t, bin, append(append([]string{"trace", "merge"}, files...), "--out", out)...); code != 0 {
		t.Fatalf("trace merge: exit %d: %s", code, e)
	}
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &doc) != nil || len(doc.TraceEvents) == 0 {
		t.Errorf("merged trace: %v, %d events", err, len(doc.TraceEvents))
	}
}

// grown reports whether each of the ranks' trace files of path is larger
// than size bytes.
func grown(path string, ranks int, size int64) bool {
	for r := range ranks {
		fi, err := os.Stat(trace.RankPath(path, r))
		if err != nil || fi.Size() < size {
			return false
		}
	}
	return true
}

// killSession sends SIGKILL to every process of session sid (mpirun,
// started with Setsid, and its ranks), each by its pid.
func killSession(sid int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...: after the last ')'.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 3 && f[3] == fmt.Sprint(sid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestTraceRefusals: trace merge without its files or --out, and simulate
// --trace with the untraced vecchia draw, end with exit 2 naming what is
// wrong.
func TestTraceRefusals(t *testing.T) {
	runCLICases(t, binary(t), []cliCase{
		{name: "merge no files", args: []string{"trace", "merge", "--out", "@m.json"}, want: "trace merge: give the ranks' trace files"},
		{name: "merge no out", args: []string{"trace", "merge", "@r.paje"}, files: map[string]string{"r.paje": "%"}, want: "trace merge: --out FILE.json, FILE.paje or FILE.csv is required"},
		{name: "merge not a trace", args: []string{"trace", "merge", "@r.paje", "--out", "@m.json"}, files: map[string]string{"r.paje": "x"},
			want: "neither a Paje trace nor a Chrome trace-event JSON file"},
		{name: "simulate vecchia trace", args: []string{"simulate", "--n", "100", "--computation", "vecchia", "--out", "@s.csv", "--trace", "@t.json"},
			want: "simulate: --trace: not with --computation vecchia"},
	})
}
