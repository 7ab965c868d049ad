package job

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestProgressLine: done / total, the percentage and the ETA (elapsed
// times the nodes left over those done).
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		done, total int64
		elapsed     float64
		want        string
	}{
		{250, 1000, 2, "eval 3: 250/1000 tasks (25 %), 2.0s, ETA 6.0s"},
		{0, 1000, 1, "eval 3: 0/1000 tasks (0 %), 1.0s"},
		{0, 0, 0.5, "eval 3: 0/0 tasks, 0.5s"},
	} {
		if got := progressLine("eval 3", c.done, c.total, c.elapsed); got != c.want {
			t.Errorf("progressLine(%d, %d, %g) = %q, want %q", c.done, c.total, c.elapsed, got, c.want)
		}
	}
}

// syncBuf is a strings.Builder safe for the meter's goroutine.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMeter: while a graph of 5 tasks runs (2 done, 3 held by a gate), the
// meter draws its line in place ("2/5 tasks"), and erases it when the
// graph ends; not on a terminal it writes whole lines.
func TestMeter(t *testing.T) {
	for _, tty := range []bool{true, false} {
		rt := runtime.New(runtime.Options{Workers: 1})
		var out syncBuf
		m := startMeter(rt, &out, tty, nil, 10*time.Millisecond)
		m.begin("eval 1")
		gate, twoDone := make(chan struct{}), make(chan struct{})
		n := 0
		for i := range 5 {
			rt.Submit(runtime.Task{Kind: "t", Access: []runtime.Access{{H: runtime.NewHandle("x", 0), Mode: runtime.W}}, Run: func(runtime.Context) error {
				n++
				if n == 3 {
					close(twoDone)
					<-gate
				}
				_ = i
				return nil
			}})
		}
		<-twoDone
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(out.String(), "eval 1: 2/5 tasks (40 %)") && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		close(gate)
		if err := rt.Wait(); err != nil {
			t.Fatal(err)
		}
		m.end()
		m.close()
		rt.Close()
		s := out.String()
		switch {
		case !strings.Contains(s, "eval 1: 2/5 tasks (40 %)"):
			t.Errorf("tty %v: no line of 2 done of 5: %q", tty, s)
		case tty && (!strings.HasPrefix(s, "\r\x1b[K") || !strings.HasSuffix(s, "\r\x1b[K") || strings.Contains(s, "\n")):
			t.Errorf("tty: the line is not redrawn in place and erased: %q", s)
		case !tty && (strings.Contains(s, "\r") || !strings.HasSuffix(s, "\n")):
			t.Errorf("not a tty: %q", s)
		}
	}
}
