//go:build amd64 && !purego

package block

// solveStep is solveStepGo forward, four rows at a time with AVX2 where
// the CPU has it (the same values, bitwise): b from the pivot's row on.
func solveStep(m, q int, d float64, b []float64, ldb int, col []float64) {
	if !useVec || q == 0 {
		solveStepGo(m, q, d, b, ldb, col, false)
		return
	}
	_ = b[(q-1)*ldb+m]
	_ = col[:m]
	rows := &b[0]
	if m == 0 {
		col = b // any valid pointer: no row is read
	} else {
		rows = &b[1]
	}
	solveStepAVX(m, q, d, &b[0], rows, ldb, &col[0])
}

// solveStepBack is solveStepGo backward: b from row 0, m the pivot's row.
func solveStepBack(m, q int, d float64, b []float64, ldb int, col []float64) {
	if !useVec || q == 0 {
		solveStepGo(m, q, d, b, ldb, col, true)
		return
	}
	_ = b[(q-1)*ldb+m]
	_ = col[:m]
	if m == 0 {
		col = b
	}
	solveStepAVX(m, q, d, &b[m], &b[0], ldb, &col[0])
}

// solveStepAVX: for c < q, w = piv[c ldb] / d, piv[c ldb] = w,
// rows[c ldb + i] -= w col[i] for i < m.
//
//go:noescape
func solveStepAVX(m, q int, d float64, piv, rows *float64, ldb int, col *float64)
