package plot

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/trace"
)

// planted is a trace of 2 workers over 10 ms: worker 0 busy 0-4 ms
// (dcmg) and 5-10 ms (potrf of step 0), worker 1 busy 2-6 ms (gemm of
// step 0), a transfer and two memory samples. Busy time 4 + 5 + 4 = 13 ms
// of 2 x 10: utilisation 0.65; over the first 9 ms, 4 + 4 + 4 = 12 ms of
// 2 x 9: 2/3.
func planted() []trace.Event {
	none := [3]int{-1, -1, -1}
	ms := int64(1_000_000)
	return []trace.Event{
		{Kind: "dcmg", Tile: [3]int{1, 0, -1}, Worker: 0, Start: 0, End: 4 * ms, Iter: 1, Submit: 1, Ready: 1, Resource: "cpu"},
		{Kind: "potrf", Tile: [3]int{0, 0, 0}, Worker: 0, Start: 5 * ms, End: 10 * ms, Iter: 1, Submit: 2, Ready: 4 * ms, Resource: "cpu"},
		{Kind: "gemm", Tile: [3]int{1, 1, 0}, Worker: 1, Start: 2 * ms, End: 6 * ms, Iter: 1, Submit: 3, Ready: ms, Resource: "cpu"},
		{Kind: "recv", Tile: none, Worker: -1, Start: ms, End: 3 * ms, Iter: 1, Src: 1, Dst: 0, Handle: "A(1,0)", Bytes: 8},
		{Kind: trace.MemoryKind, Tile: none, Worker: -1, Start: ms, End: ms, Bytes: 2_000_000},
		{Kind: trace.MemoryKind, Tile: none, Worker: -1, Start: 7 * ms, End: 7 * ms, Bytes: 1_000_000},
	}
}

func TestUtilization(t *testing.T) {
	whole, first90, span, lanes := Utilization(planted())
	if math.Abs(whole-0.65) > 1e-12 || math.Abs(first90-2.0/3) > 1e-12 || math.Abs(span-0.01) > 1e-15 || lanes != 2 {
		t.Errorf("utilisation %g, first 90 %% %g, span %g, lanes %d; want 0.65, 2/3, 0.01, 2", whole, first90, span, lanes)
	}
}

func TestTraceView(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "v.svg")
	sum, err := TraceView(svg, planted(), TraceViewOptions{Title: "planted"})
	if err != nil {
		t.Fatal(err)
	}
	want := TraceSummary{Makespan: 0.01, Workers: 2, Utilization: 0.65, Utilization90: 2.0 / 3, Potrf: 1, Tasks: 3, Ranks: 1, Transfers: 1}
	if math.Abs(sum.Utilization-want.Utilization) > 1e-12 || math.Abs(sum.Utilization90-want.Utilization90) > 1e-12 {
		t.Errorf("summary %+v, want %+v", *sum, want)
	}
	sum.Utilization, sum.Utilization90 = want.Utilization, want.Utilization90
	if *sum != want {
		t.Errorf("summary %+v, want %+v", *sum, want)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"planted: makespan 0.01 s, utilisation 65.0 % (first 90 %: 66.7 %), 2 workers on 1 rank(s)",
		"iteration panel", "tasks submitted and ready", "tile memory held per rank", "r0 cpu1", "r0 comm", "potrf (critical path)",
		"transfer", "time (s)"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("the SVG lacks %q", s)
		}
	}
	// The legends sit right of the panels (x beyond 10 in - 1.6 in, in
	// points), off the data.
	for _, l := range []string{"generation", "submitted", "rank 0"} {
		m := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*\n[^>]*>` + l + `</text>`).FindSubmatch(b)
		if m == nil {
			t.Errorf("no legend entry %q", l)
			continue
		}
		if x, _ := strconv.ParseFloat(string(m[1]), 64); x < 72*(10-1.6) {
			t.Errorf("legend entry %q at x = %g pt, over the panels (< %g)", l, x, 72*(10-1.6))
		}
	}
	// A PNG of 10 x 11 inches at the asked resolution.
	p := filepath.Join(dir, "v.png")
	if _, err := TraceView(p, planted(), TraceViewOptions{DPI: 60, Iteration: 1}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 600 || b.Dy() != 660 {
		t.Errorf("PNG %v, want 600 x 660 at 60 dpi", b)
	}
	for _, c := range []struct {
		path string
		o    TraceViewOptions
		want string
	}{
		{filepath.Join(dir, "v.pdf"), TraceViewOptions{}, "an .svg or a .png"},
		{filepath.Join(dir, "w.svg"), TraceViewOptions{Iteration: 5}, "no task of iteration 5"},
	} {
		if _, err := TraceView(c.path, planted(), c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.path, err, c.want)
		}
	}
}
