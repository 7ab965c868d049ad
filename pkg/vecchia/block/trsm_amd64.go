//go:build amd64 && !purego

package block

//go:generate go run ./internal/asmgen -kind trsm -o trsm_amd64.s
//go:generate go run ./internal/asmgen -kind trsmz -o trsmz_amd64.s

// solveLower is solveLowerGo, with AVX2 where the CPU has it (the same
// values, bitwise): the whole substitution in one call, left-looking
// (solveLowerLeftAVX) or right-looking (solveLowerAVX); with AVX-512,
// from zMinQ right-hand sides on, left-looking by panels of 8 rows
// (solveLowerZ).
func solveLower(n, q int, l []float64, ld int, b []float64, ldb int) {
	if !useVec || n == 0 || q == 0 {
		solveLowerGo(n, q, l, ld, b, ldb)
		return
	}
	if hasCholZ && q >= zMinQ {
		_ = l[(n-1)*ld+n-1]
		_ = b[(q-1)*ldb+n-1]
		solveLowerVecZ(n, q, l, ld, b, ldb)
		return
	}
	solveLowerYMM(n, q, l, ld, b, ldb)
}

// solveLowerYMM is solveLower's AVX2 code (solveLowerGo where the CPU
// lacks AVX2).
func solveLowerYMM(n, q int, l []float64, ld int, b []float64, ldb int) {
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
// same values, bitwise; row: scratch of at least n values); with AVX-512
// and n <= 96, the right-hand sides held in registers over the whole
// substitution (solveUpperTZ6, 8, 12: calls of up to 4 right-hand sides
// for n <= 48, 3 for n <= 64, 2 for n <= 96).
func solveUpperT(n, q int, l []float64, ld int, b []float64, ldb int, row []float64) {
	if !hasCholZ || !useVec || n == 0 || n > 96 || q == 0 {
		solveUpperTYMM(n, q, l, ld, b, ldb, row)
		return
	}
	_ = l[(n-1)*ld+n-1]
	_ = b[(q-1)*ldb+n-1]
	f, w := solveUpperTZ12, 2
	switch {
	case n <= 48:
		f, w = solveUpperTZ6, 4
	case n <= 64:
		f, w = solveUpperTZ8, 3
	}
	for c := 0; c < q; c += w {
		f(n, min(w, q-c), &l[0], ld, &b[c*ldb], ldb)
	}
}

// solveUpperTZ6, solveUpperTZ8 and solveUpperTZ12 are solveUpperTGo for
// 1 <= n <= 48, 64, 96 and 1 <= q <= 4, 3, 2 with AVX-512: each
// right-hand side's rows in registers over the whole substitution, row j
// of L gathered (stride ld) at step j, b[j] stored once, as w (the same
// values bitwise).
//
//go:noescape
func solveUpperTZ6(n, q int, l *float64, ld int, b *float64, ldb int)

//go:noescape
func solveUpperTZ8(n, q int, l *float64, ld int, b *float64, ldb int)

//go:noescape
func solveUpperTZ12(n, q int, l *float64, ld int, b *float64, ldb int)

// solveUpperTYMM is solveUpperT's AVX2 code (solveUpperTGo where the CPU
// lacks AVX2).
func solveUpperTYMM(n, q int, l []float64, ld int, b []float64, ldb int, row []float64) {
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

// solveLowerVecZ is solveLower with AVX-512: calls of up to 16
// right-hand sides (solveLowerZ), as even as they go (the lengths
// checked by solveLower).
func solveLowerVecZ(n, q int, l []float64, ld int, b []float64, ldb int) {
	calls := (q + solveZMax - 1) / solveZMax
	for c := 0; c < q; calls-- {
		w := (q - c + calls - 1) / calls
		solveLowerZ(n, w, &l[0], ld, &b[c*ldb], ldb)
		c += w
	}
}

// solveZMax is the most right-hand sides of one solveLowerZ call; zMinQ
// the fewest solveLower gives it: with fewer the AVX2 code's panels of 8
// rows in two vectors each keep more sums in flight. Measured
// (BenchmarkSolve, thread CPU ns a call, 3 runs, AMD EPYC, load 4.4-4.9,
// AVX2 against AVX-512): n = 39, q = 2, 9, 13: 199-241, 551-564,
// 897-968 against 229-265, 357-430, 453-546; n = 45: 279-364, 696-849,
// 1225-1325 against 311-348, 456-530, 590-664.
const solveZMax, zMinQ = 16, 4

//go:noescape
func solveLowerZ(n, q int, l *float64, ld int, b *float64, ldb int)
