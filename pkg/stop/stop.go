// Package stop carries a request to end a run early from where it is
// noticed (a signal handler, a batch system's time limit, --deadline) to
// the work that must stop: the search between two evaluations, the
// evaluation under way, a blocked read, the steps after the search.
//
// A signal asks for an orderly stop: the work under way ends, or is given
// up when it cannot end soon, and the result so far is written. A batch
// system may send the same signal several times at once (Slurm signals
// each task of a step twice within milliseconds at a time limit): a repeat
// within Window is the same request. A repeat after Window asks to give up
// the work under way at once (Now), still writing the result; a third
// request, beyond that, is the caller's to turn into an exit without
// writing anything.
package stop

import (
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Window is how long after a signal a repeated one is the same request.
const Window = time.Second

// Request is one run's request to stop. The zero value is not usable: use
// New. A nil *Request never asks anything.
type Request struct {
	mu     sync.Mutex
	sig    os.Signal
	first  time.Time
	count  int // requests that counted (repeats within Window do not)
	asked  chan struct{}
	now    chan struct{}
	closed bool
}

// New returns a request that nothing has asked yet.
func New() *Request {
	return &Request{asked: make(chan struct{}), now: make(chan struct{})}
}

// Ask records the signal s at time t and returns how many requests have
// counted so far: 1 for the first (Asked is closed), 2 for one more than
// Window after the first (Now is closed), 3 and more beyond. A repeat
// within Window of the first returns 0: it changes nothing.
func (r *Request) Ask(s os.Signal, t time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.count == 0:
		r.sig, r.first = s, t
		close(r.asked)
	case t.Sub(r.first) < Window:
		return 0
	case r.count == 1:
		r.giveUpLocked()
	}
	r.count++
	return r.count
}

// GiveUp asks the work under way to be given up at once (closes Now), as a
// repeated signal does; the grace period of an orderly stop ends with it.
func (r *Request) GiveUp() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.giveUpLocked()
	r.mu.Unlock()
}

func (r *Request) giveUpLocked() {
	if !r.closed {
		r.closed = true
		close(r.now)
	}
}

// Signal returns the signal of the first request, or nil.
func (r *Request) Signal() os.Signal {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sig
}

// Number returns the first request's signal number, 0 when none.
func (r *Request) Number() syscall.Signal {
	if s, ok := r.Signal().(syscall.Signal); ok {
		return s
	}
	return 0
}

// Asked is closed by the first request (nil: never).
func (r *Request) Asked() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.asked
}

// Now is closed when the work under way must be given up at once (nil:
// never).
func (r *Request) Now() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.now
}

// Name returns the usual name of a signal ("SIGTERM"), or its number.
func Name(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case nil:
		return "no signal"
	}
	if n, ok := s.(syscall.Signal); ok {
		return "signal " + strconv.Itoa(int(n))
	}
	return s.String()
}
