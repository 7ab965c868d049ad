//go:build amd64 && !purego

package block

// haveTicks says that ticks reads the processor's time-stamp counter.
const haveTicks = true

// ticks returns the processor's time-stamp counter (RDTSC): a count at a
// constant rate (the CPUs with constant_tsc and nonstop_tsc, as the
// Linux kernel's tsc clocksource needs), about 20 ns a read against 60-150
// for a clock read through the vDSO. phaseClock converts its counts to
// seconds by the task's own clock reads.
//
//go:noescape
func ticks() int64
