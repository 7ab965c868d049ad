package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() []Event {
	return []Event{
		{Kind: "gemm", Tile: [3]int{2, 1, 0}, Rank: 0, Worker: 1, Start: 3000, End: 9000, Flops: 10, Iter: 4},
		{Kind: "potrf", Tile: [3]int{0, 0, 0}, Rank: 0, Worker: 0, Start: 1000, End: 2500},
		{Kind: "dot", Tile: [3]int{-1, -1, -1}, Rank: 1, Worker: 0, Start: 1000, End: 1500},
	}
}

func TestChromeJSON(t *testing.T) {
	ev := sample()
	Sort(ev)
	if ev[0].Kind != "potrf" || ev[1].Kind != "dot" || ev[2].Kind != "gemm" {
		t.Fatalf("Sort order wrong: %v %v %v", ev[0].Kind, ev[1].Kind, ev[2].Kind)
	}
	var buf bytes.Buffer
	if err := WriteChrome(&buf, ev); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	var x []string
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" || e.Tid >= commLane {
			continue
		}
		x = append(x, e.Name)
		if e.Name == "gemm" {
			if e.Ts != 3 || e.Dur != 6 || e.Tid != 1 || e.Args["m"] != 2.0 || e.Args["k"] != 0.0 || e.Args["flops"] != 10.0 || e.Args["iteration"] != 4.0 {
				t.Fatalf("gemm event wrong: %+v", e)
			}
		}
		if e.Name == "potrf" && (e.Pid != 0 || len(e.Args) != 3) { // m, n, k
			t.Fatalf("potrf event wrong: %+v", e)
		}
		if e.Name == "dot" && (e.Pid != 1 || len(e.Args) != 0) {
			t.Fatalf("dot event wrong: %+v", e)
		}
	}
	if strings.Join(x, ",") != "potrf,dot,gemm" {
		t.Fatalf("complete events %v", x)
	}
}

func TestWriteFileCSVAndAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	if err := WriteFile(p, sample()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != "rank,worker,kind,m,n,k,start_s,end_s,flops,iteration,submit_s,ready_s,priority,resource,src,dst,tag,tile,bytes,cpu_s" ||
		lines[1] != "0,1,gemm,2,1,0,0.000003000,0.000009000,10,4,0.000000000,0.000000000,0,cpu,-1,-1,0,,0,0.000000000" {
		t.Fatalf("csv:\n%s", b)
	}
	// A directory that does not exist: error, and nothing left behind.
	if err := WriteFile(filepath.Join(dir, "no", "t.json"), sample()); err == nil {
		t.Fatal("no error for a missing directory")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left files behind: %v", entries)
	}
}

func TestMemoryCounter(t *testing.T) {
	ev := []Event{{Kind: MemoryKind, Rank: 1, Worker: -1, Start: 2000, End: 2000, Bytes: 3_000_000}}
	var b strings.Builder
	if err := WriteChrome(&b, ev); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `{"name":"tile memory (MB)","ph":"C","ts":2,"pid":1,"tid":0,"args":{"MB":3}}`) ||
		strings.Contains(b.String(), "thread_name") {
		t.Fatalf("memory sample as a counter of rank 1, no worker lane:\n%s", b.String())
	}
	b.Reset()
	if err := WriteCSV(&b, ev); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "1,-1,memory,0,0,0,0.000002000,0.000002000,3e+06,0,") {
		t.Fatalf("CSV: %s", b.String())
	}
}
