package block

import "math"

// solveLowerGo overwrites the n x q column-major matrix b (leading
// dimension ldb) with L^-1 b, L the lower triangle of the n x n matrix l
// (leading dimension ld): dtrsm (left, lower, no transpose, non-unit)
// for the blocks' sizes, where OpenBLAS's per-call costs dominate.
// Forward substitution by columns of L: for j = 0..n-1, each column c:
// w = b[j,c] * (1/L[j,j]) (one division a step, not one a column), then
// b[j+1:n, c] -= w L[j+1:n, j] (fused multiply-adds; the vector code and
// the scalar code give the same values bitwise).
func solveLowerGo(n, q int, l []float64, ld int, b []float64, ldb int) {
	for j := 0; j < n; j++ {
		solveStepGo(n-j-1, q, 1/l[j+j*ld], b[j:], ldb, l[j+j*ld+1:j*ld+n], false)
	}
}

// solveUpperTGo overwrites b (n x q, leading dimension ldb) with L^-T b,
// L as solveLowerGo's (its lower triangle only is read): back
// substitution by columns of L^T, for j = n-1..0: L[j, 0:j] gathered
// into row (at least n-1 values), then w = b[j,c] * (1/L[j,j]), b[0:j,
// c] -= w L[j, 0:j]^T.
func solveUpperTGo(n, q int, l []float64, ld int, b []float64, ldb int, row []float64) {
	for j := n - 1; j >= 0; j-- {
		gatherRow(j, l[j:], ld, row)
		solveStepGo(j, q, 1/l[j+j*ld], b, ldb, row[:j], true)
	}
}

// gatherRow copies the first m entries of a row of a column-major matrix
// (l from the row's first entry, leading dimension ld) into row.
func gatherRow(m int, l []float64, ld int, row []float64) {
	for i := range row[:m] {
		row[i] = l[i*ld]
	}
}

// solveStepGo is one step of the substitutions, for each column c < q:
// w = piv[c*ldb] * inv (inv = 1/L[j,j]), piv[c*ldb] = w, rows[c*ldb+i] -= w col[i] for
// i < m (piv and rows are the same slice from the pivot's row on: rows
// starts one past it when back is false, at row 0 when back is true and
// then m is the pivot's row).
func solveStepGo(m, q int, inv float64, b []float64, ldb int, col []float64, back bool) {
	col = col[:m]
	for c := 0; c < q; c++ {
		bc := b[c*ldb:]
		var piv int
		rows := bc[1:]
		if back {
			piv, rows = m, bc
		}
		w := bc[piv] * inv
		bc[piv] = w
		rows = rows[:m]
		for i, v := range col {
			rows[i] = math.FMA(-w, v, rows[i])
		}
	}
}
