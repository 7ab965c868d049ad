//go:build !amd64 || purego

package block

// gram42 is gram42Go (no vector code on this platform or build).
func gram42(n int, x *[4][]float64, y *[2][]float64, out *[8]float64) {
	gram42Go(n, x, y, out)
}

// gram4 is gram4Pairs (no vector code on this platform or build).
func gram4(n int, x *[4][]float64, y *[6][]float64, p int, out *[24]float64) {
	gram4Pairs(n, x, y, p, out)
}
