// Package cputime reads the CPU time of the calling OS thread: the time the
// thread ran on a core, user and system, without the time the OS gave the
// core to another thread. Around a piece of work on a thread locked to the
// goroutine (runtime.LockOSThread), the difference is the work's CPU
// time, which a loaded machine does not inflate as it does wall time.
package cputime

// Thread returns the calling thread's CPU time in nanoseconds, and false
// where the system cannot tell (then 0): Linux reads
// clock_gettime(CLOCK_THREAD_CPUTIME_ID).
func Thread() (ns int64, ok bool) { return thread() }

// Gettid returns the calling OS thread's id (0 where the system has
// none).
func Gettid() int { return gettid() }

// RunDelay returns the nanoseconds thread tid of this process has spent
// runnable but waiting for a core (the OS gave the core to other work),
// since it started; false where the system cannot tell. Linux reads the
// second field of /proc/self/task/TID/schedstat.
func RunDelay(tid int) (ns int64, ok bool) { return runDelay(tid) }

// Process returns the CPU time of the whole process (all its threads) in
// nanoseconds, and false where the system cannot tell: Linux reads
// clock_gettime(CLOCK_PROCESS_CPUTIME_ID).
func Process() (ns int64, ok bool) { return process() }

// OfThread returns the CPU time of thread tid of this process in
// nanoseconds, and false where the system cannot tell: Linux reads the
// first field of /proc/self/task/TID/schedstat.
func OfThread(tid int) (ns int64, ok bool) { return schedstat(tid, 0) }
