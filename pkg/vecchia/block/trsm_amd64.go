//go:build amd64 && !purego

package block

//go:generate go run ./internal/asmgen -kind trsm -o trsm_amd64.s

// solveLower is solveLowerGo, with AVX2 where the CPU has it (the same
// values, bitwise): the whole substitution in one call, left-looking
// (solveLowerLeftAVX) or right-looking (solveLowerAVX).
func solveLower(n, q int, l []float64, ld int, b []float64, ldb int) {
	if !useVec || n == 0 || q == 0 {
		solveLowerGo(n, q, l, ld, b, ldb)
		return
	}
	_ = l[(n-1)*ld+n-1]
	_ = b[(q-1)*ldb+n-1]
	if n < leftMin || q > leftQ {
		solveLowerAVX(n, q, &l[0], ld, &b[0], ldb)
		return
	}
	solveLowerLeftAVX(n, q, &l[0], ld, &b[0], ldb)
}

// leftMin and leftQ bound where solveLower substitutes left-looking
// (solveLowerLeftAVX: n >= leftMin rows, up to leftQ right-hand sides in
// one call, 1.2-1.5 times faster at n = 39-45 for q = 2-6, thread time
// alternated): below n = 8 and above eight right-hand sides (the
// derivatives' q = 9 or 12, where the right-looking steps hide their
// latencies over the right-hand sides as well) the right-looking steps
// (solveLowerAVX) are as fast or faster.
const leftMin, leftQ = 8, 8

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
func solveLowerLeftAVX(n, q int, l *float64, ld int, b *float64, ldb int)

//go:noescape
func solveUpperTAVX(n, q int, l *float64, ld int, b *float64, ldb int)
