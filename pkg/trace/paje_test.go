package trace

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// pjDump runs pajeng's pj_dump (Debian's pajeng, installed by
// scripts/deps.sh) on path: nil when it parses the whole trace (time
// order, containers, types, complete links), and its output.
func pjDump(t *testing.T, path string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Fatalf("pj_dump not found (Debian's pajeng; scripts/deps.sh installs it): %v", err)
	}
	out, err := exec.Command(bin, path).CombinedOutput()
	return string(out), err
}

// TestPajeRoundTrip: the mixed 2-rank trace written as Paje reads back
// into the same events; pj_dump parses it, with the tasks as states, the
// memory as a variable, the messages as events and the two matched
// transfers and the simulated one as links.
func TestPajeRoundTrip(t *testing.T) {
	ev := mixed()
	Sort(ev)
	var buf bytes.Buffer
	if err := WritePaje(&buf, ev); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPaje(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, back, ev)
	path := filepath.Join(t.TempDir(), "t.paje")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := pjDump(t, path)
	if err != nil {
		t.Fatalf("pj_dump: %v\n%s", err, out)
	}
	count := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		count[strings.SplitN(l, ",", 2)[0]]++
	}
	// 6 messages (5 sides and a simulated transfer); 3 links; 1 memory
	// sample; the root, 2 ranks, 2 comm and 3 workers.
	if count["Link"] != 3 || count["Event"] != 6 || count["Variable"] != 1 || count["Container"] != 8 || !strings.Contains(out, "potrf") {
		t.Errorf("pj_dump: %v\n%s", count, out)
	}
}

// TestStream: events handed to a Stream by several workers at once, each
// reporting its tasks when they end (after a Begin at their start), with
// messages and memory samples in between: the file read back holds them
// all, exactly, pj_dump parses it (its lines are in time order), and a
// copy of the file taken while it is written, cut in the middle of a line,
// reads too (a killed run). With a limit of 16 waiting points (points
// written before the watermark), every event is still there, and the file
// still in time order.
func TestStream(t *testing.T) {
	for _, limit := range []int{1 << 12, 16} {
		streamWorkers(t, limit)
	}
}

func streamWorkers(t *testing.T, limit int) {
	path := filepath.Join(t.TempDir(), "t.rank0.paje")
	s, err := createStream(path, 0, limit, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var want []Event
	var mu sync.Mutex
	var wg sync.WaitGroup
	var clock sync.Mutex
	now := int64(1000)
	tick := func(d int64) int64 {
		clock.Lock()
		defer clock.Unlock()
		now += d
		return now
	}
	// stamp makes an event at the clock's time and adds it at once.
	stamp := func(f func(int64) Event) Event {
		clock.Lock()
		defer clock.Unlock()
		now++
		e := f(now)
		s.Add(e)
		return e
	}
	// begin reads the clock and begins lane w at once, as a worker that
	// takes a task (no other lane's point can be written in between).
	begin := func(w int, d int64) int64 {
		clock.Lock()
		defer clock.Unlock()
		now += d
		s.Begin(w, now)
		return now
	}
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range 300 {
				start := begin(w, int64(rng.IntN(50)))
				exec := tick(int64(rng.IntN(20)))
				end := tick(int64(rng.IntN(200)))
				e := Event{Kind: []string{"gemm", "potrf", "dcmg"}[i%3], Tile: [3]int{i, w, -1}, Worker: w, Start: start, Exec: exec,
					End: end, Flops: float64(i), Iter: 1 + i/100, Resource: "cpu", CPU: end - exec}
				s.Add(e)
				var extra []Event
				if i%7 == 0 {
					extra = append(extra, stamp(func(t int64) Event {
						return Event{Kind: "recv", Tile: [3]int{-1, -1, -1}, Worker: -1, Start: start - 500, End: t,
							Src: 1, Tag: i, Handle: "A(1,2)", Bytes: 800, Iter: 1}
					}))
				}
				if i%5 == 0 {
					extra = append(extra, stamp(func(t int64) Event {
						return Event{Kind: MemoryKind, Tile: [3]int{-1, -1, -1}, Worker: -1, Start: t, End: t, Bytes: int64(i)}
					}))
				}
				mu.Lock()
				want = append(append(want, e), extra...)
				mu.Unlock()
				if i == 150 && w == 0 {
					partial(t, path)
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	Sort(want)
	if len(got) != len(want) {
		t.Fatalf("read %d events, wrote %d", len(got), len(want))
	}
	for i := range want {
		if limit > 1000 && !reflect.DeepEqual(want[i], got[i]) {
			t.Fatalf("event %d: wrote %+v, read %+v", i, want[i], got[i])
		}
	}
	if out, err := pjDump(t, path); err != nil {
		t.Fatalf("pj_dump: %v\n%s", err, out)
	}
}

// partial copies the stream's file as it is, cuts it in the middle of its
// last line, and checks that it reads and that pj_dump parses the whole
// lines.
func partial(t *testing.T, path string) {
	var b []byte
	for wait := time.Now(); len(b) < len(pajeHeader)+1000 && time.Since(wait) < 10*time.Second; {
		time.Sleep(5 * time.Millisecond) // let the stream write
		var err error
		if b, err = os.ReadFile(path); err != nil {
			t.Error(err)
			return
		}
	}
	cut := filepath.Join(filepath.Dir(path), "cut.paje")
	whole := b
	if i := bytes.LastIndexByte(b[:len(b)-1], '\n'); i > 0 {
		whole = b[:i+1]
		b = b[:i+1+(len(b)-i-1)/2] // half of the last line
	}
	if err := os.WriteFile(cut, b, 0o644); err != nil {
		t.Error(err)
		return
	}
	ev, err := ReadFile(cut)
	if err != nil || len(ev) == 0 {
		t.Errorf("a file cut mid-line: %d events, %v\n%s", len(ev), err, b[len(pajeHeader):])
	}
	os.WriteFile(cut, whole, 0o644)
	if out, err := pjDump(t, cut); err != nil {
		t.Errorf("pj_dump of a partial trace: %v\n%s", err, out)
	}
}

// TestReadFormats: Read tells a Paje trace from a Chrome one and names
// what it cannot read.
func TestReadFormats(t *testing.T) {
	ev := mixed()
	Sort(ev)
	var pj, ch bytes.Buffer
	if err := WritePaje(&pj, ev); err != nil {
		t.Fatal(err)
	}
	if err := WriteChrome(&ch, ev); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*bytes.Buffer{&pj, &ch} {
		got, err := Read(bytes.NewReader(b.Bytes()))
		if err != nil || len(got) != len(ev) {
			t.Errorf("read %d events, %v; want %d", len(got), err, len(ev))
		}
	}
	for _, bad := range []string{"", "x,y\n", "%EventDef PajeSetState 1\n%EndEventDef\n7 1 2\n"} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}
