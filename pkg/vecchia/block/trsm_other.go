//go:build !amd64 || purego

package block

// solveLower is solveLowerGo (no vector code on this platform or build).
func solveLower(n, q int, l []float64, ld int, b []float64, ldb int) {
	solveLowerGo(n, q, l, ld, b, ldb)
}

// solveUpperT is solveUpperTGo.
func solveUpperT(n, q int, l []float64, ld int, b []float64, ldb int, row []float64) {
	solveUpperTGo(n, q, l, ld, b, ldb, row)
}

// solveLowerYMM is solveLowerGo (no vector code on this platform or
// build).
func solveLowerYMM(n, q int, l []float64, ld int, b []float64, ldb int) {
	solveLowerGo(n, q, l, ld, b, ldb)
}

// solveUpperTYMM is solveUpperTGo (no vector code on this platform or
// build).
func solveUpperTYMM(n, q int, l []float64, ld int, b []float64, ldb int, row []float64) {
	solveUpperTGo(n, q, l, ld, b, ldb, row)
}
