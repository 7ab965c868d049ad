//go:build amd64 && !purego

package block

//go:generate go run ./internal/asmgen -kind trsm -o trsm_amd64.s

// solveLower is solveLowerGo, with AVX2 where the CPU has it (the same
// values, bitwise): the whole substitution in one call.
func solveLower(n, q int, l []float64, ld int, b []float64, ldb int) {
	if !useVec || n == 0 || q == 0 {
		solveLowerGo(n, q, l, ld, b, ldb)
		return
	}
	_ = l[(n-1)*ld+n-1]
	_ = b[(q-1)*ldb+n-1]
	solveLowerAVX(n, q, &l[0], ld, &b[0], ldb)
}

// solveUpperT is solveUpperTGo, with AVX2 where the CPU has it.
func solveUpperT(n, q int, l []float64, ld int, b []float64, ldb int) {
	if !useVec || n == 0 || q == 0 {
		solveUpperTGo(n, q, l, ld, b, ldb)
		return
	}
	_ = l[(n-1)*ld+n-1]
	_ = b[(q-1)*ldb+n-1]
	solveUpperTAVX(n, q, &l[0], ld, &b[0], ldb)
}

//go:noescape
func solveLowerAVX(n, q int, l *float64, ld int, b *float64, ldb int)

//go:noescape
func solveUpperTAVX(n, q int, l *float64, ld int, b *float64, ldb int)
