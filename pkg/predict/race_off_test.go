//go:build !race

package predict

const raceOn = false
