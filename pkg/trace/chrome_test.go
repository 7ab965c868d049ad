package trace

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"testing"
)

// mixed is a 2-rank trace: tasks with their submission, ready and priority
// marks (one on a GPU worker), two messages from rank 0 to rank 1 under one
// tag (matched in posting order), a receive whose sender is not in the
// trace, a simulated transfer, and memory samples.
func mixed() []Event {
	none := [3]int{-1, -1, -1}
	return []Event{
		{Kind: "potrf", Tile: [3]int{0, 0, 0}, Rank: 0, Worker: 0, Start: 1000, End: 5000, Flops: 100, Iter: 1, Submit: 10, Ready: 900, Priority: 7, Resource: "cpu", Exec: 1200},
		{Kind: "trtri", Tile: [3]int{0, 0, 0}, Rank: 0, Worker: 0, Start: 5500, End: 6000, Iter: 1, Submit: 11, Ready: 5000, Resource: "cpu", Exec: 5500},
		{Kind: "gemm", Tile: [3]int{2, 1, 0}, Rank: 1, Worker: 1, Start: 9000, End: 12000, Flops: 50, Iter: 1, Submit: 20, Ready: 8000, Resource: "gpu"},
		{Kind: "dcmg", Tile: [3]int{1, 0, -1}, Rank: 1, Worker: 0, Start: 500, End: 4000, Iter: 1, Submit: 30, Ready: 40, Priority: -3, Resource: "cpu"},
		{Kind: "send", Tile: none, Rank: 0, Worker: -1, Start: 5100, End: 7000, Iter: 1, Src: 0, Dst: 1, Tag: 4, Handle: "A(0,0)", Bytes: 800},
		{Kind: "recv", Tile: none, Rank: 1, Worker: -1, Start: 3000, End: 7500, Iter: 1, Src: 0, Dst: 1, Tag: 4, Handle: "A(0,0)", Bytes: 800},
		{Kind: "send", Tile: none, Rank: 0, Worker: -1, Start: 7100, End: 8000, Iter: 1, Src: 0, Dst: 1, Tag: 4, Handle: "A(1,1)", Bytes: 800},
		{Kind: "recv", Tile: none, Rank: 1, Worker: -1, Start: 7600, End: 8200, Iter: 1, Src: 0, Dst: 1, Tag: 4, Handle: "A(1,1)", Bytes: 800},
		{Kind: "recv", Tile: none, Rank: 1, Worker: -1, Start: 3500, End: 6000, Iter: 1, Src: 2, Dst: 1, Tag: 9, Handle: "z(3)", Bytes: 80},
		{Kind: "xfer", Tile: none, Rank: 1, Worker: -1, Start: 4000, End: 4600, Src: 0, Dst: 1, Handle: "tile(2,0)", Bytes: 1600},
		{Kind: MemoryKind, Tile: none, Rank: 1, Worker: -1, Start: 3000, End: 3000, Bytes: 123_456_789},
	}
}

func TestChromeRoundTrip(t *testing.T) {
	ev := mixed()
	Sort(ev)
	var buf bytes.Buffer
	if err := WriteChrome(&buf, ev); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"pid":1,"tid":1,"args":{"name":"gpu worker 0"}`, `"pid":1,"tid":0,"args":{"name":"cpu worker 0"}`,
		`"pid":1,"tid":1000,"args":{"name":"comm"}`, `"pid":0,"tid":1000,"args":{"name":"comm"}`, `"name":"iteration 1"`,
		`{"name":"runtime","cat":"state","ph":"X","ts":1,"dur":0.2,"pid":0,"tid":0}`} { // potrf waited 200 ns for its buffers
		if !bytes.Contains(buf.Bytes(), []byte(name)) {
			t.Errorf("the trace lacks %s", name)
		}
	}
	// One lane per worker and one comm lane per rank: 3 + 2.
	if n := bytes.Count(buf.Bytes(), []byte(`"thread_name"`)); n != 5 {
		t.Errorf("%d lanes, want 5", n)
	}
	back, err := ReadChrome(&buf)
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, back, ev)
	if _, err := ReadChrome(bytes.NewReader([]byte("not json"))); err == nil {
		t.Error("no error for a file that is not a trace")
	}
}

// sameEvents reports each event of back (read) that differs from ev
// (written).
func sameEvents(t *testing.T, back, ev []Event) {
	t.Helper()
	if reflect.DeepEqual(back, ev) {
		return
	}
	for i := range max(len(ev), len(back)) {
		if i >= len(ev) || i >= len(back) || !reflect.DeepEqual(ev[i], back[i]) {
			t.Errorf("event %d: wrote %+v", i, at(ev, i))
			t.Errorf("          read  %+v", at(back, i))
		}
	}
}

func at(ev []Event, i int) any {
	if i < len(ev) {
		return ev[i]
	}
	return nil
}

// TestChromeTransfers: the pairs are matched in posting order, a transfer
// lasts from the later posting to its completion, every transfer slice
// names its source, destination, tile and bytes, the slices of a lane never
// overlap, and each matched pair is joined by one flow.
func TestChromeTransfers(t *testing.T) {
	ev := mixed()
	tr := Transfers(ev)
	type tx struct {
		src, dst   int
		tile       string
		start, end int64
		sent       bool
	}
	var got []tx
	for _, x := range tr {
		got = append(got, tx{x.Src, x.Dst, x.Handle, x.Start, x.End, x.Send != nil})
	}
	want := []tx{
		{0, 1, "A(0,0)", 5100, 7500, true}, // max(send 5100, recv 3000) to the receive's end
		{2, 1, "z(3)", 3500, 6000, false},  // no sender in the trace
		{0, 1, "tile(2,0)", 4000, 4600, false},
		{0, 1, "A(1,1)", 7600, 8200, true},
	}
	sort.Slice(want, func(i, j int) bool { return want[i].start < want[j].start })
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("transfers\n got %+v\nwant %+v", got, want)
	}

	var buf bytes.Buffer
	if err := WriteChrome(&buf, ev); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	type lane struct{ pid, tid int }
	slices := map[lane][][2]float64{}
	flows := map[int][]string{}
	nTransfer := 0
	for _, c := range doc.TraceEvents {
		switch c.Ph {
		case "X":
			slices[lane{c.Pid, c.Tid}] = append(slices[lane{c.Pid, c.Tid}], [2]float64{c.Ts, c.Ts + c.Dur})
			if c.Cat == "transfer" {
				nTransfer++
				for _, k := range []string{"src", "dst", "tile", "bytes", "posted_us"} {
					if _, ok := c.Args[k]; !ok {
						t.Errorf("transfer slice %s lacks %s", c.Name, k)
					}
				}
			}
		case "s", "f":
			flows[c.ID] = append(flows[c.ID], c.Ph)
		}
	}
	// 2 pairs (2 slices each), 1 lone recv, 1 simulated transfer drawn on both ranks.
	if nTransfer != 7 {
		t.Errorf("%d transfer slices, want 7", nTransfer)
	}
	pairs := 0
	for id, f := range flows {
		if len(f) != 2 || f[0] != "s" || f[1] != "f" {
			t.Errorf("flow %d: %v", id, f)
		}
		pairs++
	}
	if pairs != 3 {
		t.Errorf("%d flows, want 3 (two matched pairs and the simulated transfer)", pairs)
	}
	for l, s := range slices {
		sort.Slice(s, func(i, j int) bool { // parents before the slices they hold
			if s[i][0] != s[j][0] {
				return s[i][0] < s[j][0]
			}
			return s[i][1] > s[j][1]
		})
		for i := 1; i < len(s); i++ {
			if s[i][0] < s[i-1][1] && !(s[i][1] <= s[i-1][1]) {
				t.Errorf("rank %d lane %d: slices %v and %v overlap partially", l.pid, l.tid, s[i-1], s[i])
			}
		}
	}
}
