//go:build !amd64 || purego

package block

// solveStep is solveStepGo forward (no vector code on this platform or
// build): b from the pivot's row on.
func solveStep(m, q int, d float64, b []float64, ldb int, col []float64) {
	solveStepGo(m, q, d, b, ldb, col, false)
}

// solveStepBack is solveStepGo backward: b from row 0, m the pivot's row.
func solveStepBack(m, q int, d float64, b []float64, ldb int, col []float64) {
	solveStepGo(m, q, d, b, ldb, col, true)
}
