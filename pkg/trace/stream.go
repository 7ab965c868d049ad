package trace

import (
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/exageostat/exageostat/pkg/pqueue"
)

// Sink receives a runtime's trace events as they happen (runtime.Options
// .Sink). Begin tells it that lane (a worker) started at t something whose
// event comes later; Add hands it a finished event (a task's ends its
// lane's Begin).
type Sink interface {
	Begin(lane int, t int64)
	Add(e Event)
}

// Stream writes one rank's trace to a Paje file as the run goes (a Sink):
// events wait in a bounded buffer and go to the file in time order, every
// StreamEvery and whenever more than StreamLimit points wait, so that a run
// killed at any moment (kill -9) leaves a file of whole lines, readable by
// ReadPaje and pj_dump, with everything up to a second or so before.
//
// Paje needs its lines in time order while tasks are reported when they
// end. A point is written once no lane that has begun something still to
// come began earlier (the watermark: the earliest Begin without its Add);
// a run that holds more than StreamLimit points (a lane that began long
// ago) writes its oldest half anyway, and a later point before them is written at
// their time. Transfers are marked when they complete.
type Stream struct {
	mu      sync.Mutex // pend, holds, seq
	pend    *pqueue.Queue[point]
	holds   map[int]int64
	seq     uint64
	flushMu sync.Mutex // the encoder and the file
	enc     *pajeEncoder
	f       *os.File
	err     error
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	limit   int           // the most points that wait
	every   time.Duration // how often the stream writes
	once    sync.Once
}

// Bounds of a Stream.
const (
	StreamLimit = 1 << 15     // points waiting (a few MB)
	StreamEvery = time.Second // between writes
)

// CreateStream creates (truncates) the Paje file path of rank's trace,
// writes its header and rank's containers, and starts writing events as
// they come (at most StreamLimit waiting, every StreamEvery). Close it at
// the end.
func CreateStream(path string, rank int) (*Stream, error) {
	return createStream(path, rank, StreamLimit, StreamEvery)
}

func createStream(path string, rank, limit int, every time.Duration) (*Stream, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	s := &Stream{pend: pqueue.New(pointBefore), holds: map[int]int64{}, enc: newPajeEncoder(), f: f, kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), limit: limit, every: every}
	s.enc.b.WriteString(pajeHeader)
	s.enc.rank(rank, sec(0))
	if _, err := f.Write(s.enc.b.Bytes()); err != nil {
		f.Close()
		return nil, fmt.Errorf("trace: %w", err)
	}
	s.enc.b.Reset()
	go s.run()
	return s, nil
}

// run flushes every FlushEvery and when kicked, until Close.
func (s *Stream) run() {
	defer close(s.done)
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		case <-s.kick:
		}
		s.flush(false)
	}
}

// Begin marks lane busy from t until its next task event.
func (s *Stream) Begin(lane int, t int64) {
	s.mu.Lock()
	s.holds[lane] = t
	s.mu.Unlock()
}

// Add queues e's points for the file.
func (s *Stream) Add(e Event) {
	s.mu.Lock()
	if e.Worker >= 0 && !e.IsTransfer() && e.Kind != MemoryKind {
		if t, ok := s.holds[e.Worker]; ok && t <= e.Start {
			delete(s.holds, e.Worker)
		}
	}
	var ps [3]point
	for _, p := range points(ps[:0], e, &s.seq) {
		s.pend.Push(p)
	}
	full := s.pend.Len() > s.limit
	s.mu.Unlock()
	if full {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// flush writes the points before the watermark (all with final), and the
// oldest half when more than the limit wait.
func (s *Stream) flush(final bool) {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	mark := int64(math.MaxInt64)
	if !final {
		for _, t := range s.holds {
			mark = min(mark, t)
		}
	}
	var out []point
	for s.pend.Len() > 0 && s.pend.Peek().t <= mark {
		out = append(out, s.pend.Pop())
	}
	if s.pend.Len() > s.limit {
		for s.pend.Len() > s.limit/2 {
			out = append(out, s.pend.Pop())
		}
	}
	s.mu.Unlock()
	if len(out) == 0 || s.err != nil {
		return
	}
	for i := range out {
		s.enc.write(&out[i])
	}
	// One write of whole lines: a kill leaves no half line behind.
	if _, err := s.f.Write(s.enc.b.Bytes()); err != nil {
		s.err = fmt.Errorf("trace: %w", err)
	}
	s.enc.b.Reset()
}

// Close writes every waiting point and closes the file; it returns the
// first write error.
func (s *Stream) Close() error {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		s.flush(true)
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = fmt.Errorf("trace: %w", err)
		}
	})
	return s.err
}

// pointBefore orders the pending points: by time, then sequence.
func pointBefore(a, b point) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.seq < b.seq
}
