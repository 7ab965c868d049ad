package job

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/exageostat/exageostat/pkg/runtime"
)

// ProgressEvery is how often the progress line is redrawn.
const ProgressEvery = 2 * time.Second

// meter draws a progress line of the graph under way on this rank (an
// evaluation of a fit): "eval 12: 4312/8000 tasks (54 %), 2.1s, ETA 1.8s",
// every ProgressEvery, counting the nodes the runtime was given and has
// completed since the graph began (Runtime.Progress); the ETA is the time
// so far times the nodes left over those done. On a terminal it redraws
// one line in place and erases it when the graph ends; elsewhere it writes
// a line each time.
type meter struct {
	rt    *runtime.Runtime
	w     io.Writer
	tty   bool
	head  func() string // text before the progress (nil: none)
	every time.Duration

	mu            sync.Mutex
	label         string // "" between graphs
	done0, given0 int64
	t0            time.Time
	shown         bool

	stop chan struct{}
	wg   sync.WaitGroup
}

// startMeter starts a meter writing to w (nil: none, and a nil meter,
// whose methods do nothing).
func startMeter(rt *runtime.Runtime, w io.Writer, tty bool, head func() string, every time.Duration) *meter {
	if w == nil {
		return nil
	}
	m := &meter{rt: rt, w: w, tty: tty, head: head, every: every, stop: make(chan struct{})}
	m.wg.Add(1)
	go m.run()
	return m
}

func (m *meter) run() {
	defer m.wg.Done()
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.draw()
		}
	}
}

// begin starts the graph label.
func (m *meter) begin(label string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.label, m.t0 = label, time.Now()
	m.done0, m.given0 = m.rt.Progress()
}

// end erases the line of the graph that ended (on a terminal; a head is
// drawn again by its owner).
func (m *meter) end() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shown && m.tty {
		fmt.Fprint(m.w, "\r\x1b[K")
	}
	m.label, m.shown = "", false
}

// draw writes the line of the graph under way, if any.
func (m *meter) draw() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.label == "" {
		return
	}
	done, given := m.rt.Progress()
	line := progressLine(m.label, done-m.done0, given-m.given0, time.Since(m.t0).Seconds())
	if m.head != nil {
		if h := m.head(); h != "" {
			line = h + "| " + line
		}
	}
	if m.tty {
		fmt.Fprint(m.w, "\r\x1b[K"+line)
	} else {
		fmt.Fprintln(m.w, line)
	}
	m.shown = true
}

// progressLine is the meter's line: done of total nodes after elapsed
// seconds, and the ETA elapsed (total - done) / done.
func progressLine(label string, done, total int64, elapsed float64) string {
	s := fmt.Sprintf("%s: %d/%d tasks", label, done, total)
	if total > 0 {
		s += fmt.Sprintf(" (%d %%)", 100*done/total)
	}
	s += fmt.Sprintf(", %.1fs", elapsed)
	if done > 0 && total >= done {
		s += fmt.Sprintf(", ETA %.1fs", elapsed*float64(total-done)/float64(done))
	}
	return s
}

// close stops the meter (its line erased).
func (m *meter) close() {
	if m == nil {
		return
	}
	close(m.stop)
	m.wg.Wait()
	m.end()
}
