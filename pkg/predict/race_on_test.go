//go:build race

package predict

// raceOn: the race detector slows the dense references about tenfold.
const raceOn = true
