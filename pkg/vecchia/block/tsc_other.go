//go:build !amd64 || purego

package block

// haveTicks says that ticks reads no counter here: phaseClock reads the
// monotonic clock instead.
const haveTicks = false

// ticks is not used without a time-stamp counter.
func ticks() int64 { return 0 }
