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
	if n < leftMin {
		solveLowerAVX(n, q, &l[0], ld, &b[0], ldb)
		return
	}
	calls := (q + leftQ - 1) / leftQ
	for c := 0; c < q; calls-- {
		w := (q - c + calls - 1) / calls // as even as the calls go: 12 as 6 and 6
		solveLowerLeftAVX(n, w, &l[0], ld, &b[c*ldb], ldb)
		c += w
	}
}

// leftMin and leftQ bound where solveLower substitutes left-looking
// (solveLowerLeftAVX): from n = 8 rows on, up to nine right-hand sides a
// call, more in calls as even as they go. Measured (ns a call, least of
// 3, AMD EPYC, load 1.0, against the right-looking solveLowerAVX): n =
// 39, q = 2, 3, 6, 9, 12: 231, 259, 391, 539, 792 against 374, 372, 502,
// 732, 863; n = 16: 83, 83, 104, 141, 209 against 129, 131, 153, 201,
// 234.
const leftMin, leftQ = 8, 9

// solveUpperT is solveUpperTGo, with AVX2 where the CPU has it (the
// same values, bitwise; row: scratch of at least n values).
func solveUpperT(n, q int, l []float64, ld int, b []float64, ldb int, row []float64) {
	if !useVec || n == 0 || q == 0 {
		solveUpperTGo(n, q, l, ld, b, ldb, row)
		return
	}
	_ = l[(n-1)*ld+n-1]
	_ = b[(q-1)*ldb+n-1]
	_ = row[n-1]
	solveUpperTAVX(n, q, &l[0], ld, &b[0], ldb, &row[0])
}

//go:noescape
func solveLowerAVX(n, q int, l *float64, ld int, b *float64, ldb int)

//go:noescape
func solveLowerLeftAVX(n, q int, l *float64, ld int, b *float64, ldb int)

//go:noescape
func solveUpperTAVX(n, q int, l *float64, ld int, b *float64, ldb int, row *float64)
