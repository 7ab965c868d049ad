//go:build linux

package cputime

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestThread: on a locked thread, a busy loop that runs until the kernel's
// own account of the thread (getrusage(RUSAGE_THREAD), an independent
// reading) grows by 20 ms adds the same CPU time to Thread, within 2 ms,
// whatever the load of the machine; a 20 ms sleep adds almost none.
func TestThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rusage := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(1, &ru); err != nil { // RUSAGE_THREAD
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0, ok := Thread()
	if !ok {
		t.Fatal("no thread CPU clock")
	}
	r0 := rusage()
	x := 0.0
	for rusage()-r0 < 20*time.Millisecond {
		for range 10000 {
			x++
		}
	}
	c1, _ := Thread()
	dr := rusage() - r0
	if d := time.Duration(c1 - c0); d < dr-2*time.Millisecond || d > dr+2*time.Millisecond {
		t.Errorf("busy loop: %v of CPU by Thread, %v by getrusage (x=%g)", d, dr, x)
	}
	time.Sleep(20 * time.Millisecond)
	if c2, _ := Thread(); time.Duration(c2-c1) > 2*time.Millisecond {
		t.Errorf("a 20 ms sleep took %v of CPU", time.Duration(c2-c1))
	}
}

// TestRunDelay: the calling thread's run delay reads and does not go back.
func TestRunDelay(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := Gettid()
	a, ok := RunDelay(tid)
	if !ok {
		t.Fatalf("no run delay for thread %d", tid)
	}
	time.Sleep(10 * time.Millisecond)
	if b, ok := RunDelay(tid); !ok || b < a {
		t.Errorf("run delay %d then %d (%v)", a, b, ok)
	}
	if _, ok := RunDelay(1 << 30); ok {
		t.Error("a thread that does not exist has a run delay")
	}
}

// TestOfThreadProcess: a busy loop of 20 ms of CPU on a locked thread (by
// Thread, the thread's own clock) adds the same to OfThread of its id,
// within 2 ms, and at least as much to Process (every thread of the
// process); a thread that does not exist has no CPU time.
func TestOfThreadProcess(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := Gettid()
	o0, ok1 := OfThread(tid)
	p0, ok2 := Process()
	c0, ok3 := Thread()
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("no CPU clock: thread %v, process %v, own thread %v", ok1, ok2, ok3)
	}
	x := 0.0
	for {
		if c, _ := Thread(); c-c0 >= int64(20*time.Millisecond) {
			break
		}
		for range 10000 {
			x++
		}
	}
	c1, _ := Thread()
	o1, _ := OfThread(tid)
	p1, _ := Process()
	dc, do, dp := time.Duration(c1-c0), time.Duration(o1-o0), time.Duration(p1-p0)
	if do < dc-2*time.Millisecond || do > dc+2*time.Millisecond {
		t.Errorf("busy loop: %v of CPU by Thread, %v by OfThread (x=%g)", dc, do, x)
	}
	if dp < dc-time.Millisecond {
		t.Errorf("busy loop: %v of CPU by Thread, only %v by Process", dc, dp)
	}
	if _, ok := OfThread(1 << 30); ok {
		t.Error("a thread that does not exist has a CPU time")
	}
}
