//go:build linux

package cputime

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func thread() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}

func gettid() int { return unix.Gettid() }

func process() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}

func runDelay(tid int) (int64, bool) { return schedstat(tid, 1) }

// schedstat returns field i of /proc/self/task/TID/schedstat (0: the
// nanoseconds on a core, 1: waiting for one).
func schedstat(tid, i int) (int64, bool) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) <= i {
		return 0, false
	}
	v, err := strconv.ParseInt(f[i], 10, 64)
	return v, err == nil
}
