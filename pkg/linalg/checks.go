package linalg

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
)

// The checks below panic, with a message "linalg: OP: what is wrong", on
// an argument no caller may pass: they run before every call into a
// library, so that C never reads or writes past a slice and gonum's and
// OpenBLAS' refusals read alike. The exported ones return the number of
// elements each operand spans, 0 for every operand when the operation is
// empty (nothing is referenced, as the reference BLAS returns at once):
// Backend checks its slices against them, and a device, which has no
// lengths, uses the dimension checks alone.

func bad(op, format string, args ...any) {
	panic(fmt.Sprintf("linalg: %s: %s", op, fmt.Sprintf(format, args...)))
}

func checkDim(op, name string, n int) {
	if n < 0 {
		bad(op, "%s = %d < 0", name, n)
	}
}

// checkOrder panics unless big >= small.
func checkOrder(op, bigName string, big int, smallName string, small int) {
	if big < small {
		bad(op, "%s = %d < %s = %d", bigName, big, smallName, small)
	}
}

func checkLd(op, name string, ld, rows int) {
	if ld < max(1, rows) {
		bad(op, "%s = %d < max(1, %d)", name, ld, rows)
	}
}

func checkInc(op, name string, inc int) {
	if inc == 0 {
		bad(op, "%s = 0", name)
	}
}

func checkTrans(op, name string, t blas.Transpose) {
	if t != blas.NoTrans && t != blas.Trans && t != blas.ConjTrans {
		bad(op, "%s = %q is not NoTrans, Trans or ConjTrans", name, t)
	}
}

func checkUplo(op string, u blas.Uplo) {
	if u != blas.Lower && u != blas.Upper {
		bad(op, "uplo = %q is not Lower or Upper", u)
	}
}

func checkSide(op string, s blas.Side) {
	if s != blas.Left && s != blas.Right {
		bad(op, "side = %q is not Left or Right", s)
	}
}

func checkDiag(op string, d blas.Diag) {
	if d != blas.NonUnit && d != blas.Unit {
		bad(op, "diag = %q is not NonUnit or Unit", d)
	}
}

// need panics when x is shorter than the n elements its operand spans.
func need[T any](op, name string, x []T, n int) {
	if len(x) < n {
		bad(op, "len(%s) = %d < %d, the elements it spans", name, len(x), n)
	}
}

// span returns the elements a rows x cols matrix with leading dimension
// ld spans, ld (cols-1) + rows, and 0 when it is empty.
func span(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return ld*(cols-1) + rows
}

// vspan returns the elements an n-vector with increment inc spans.
func vspan(n, inc int) int {
	if n == 0 {
		return 0
	}
	if inc < 0 {
		inc = -inc
	}
	return 1 + (n-1)*inc
}

// opDims returns the shape of the matrix X whose op(X) is rows x cols.
func opDims(t blas.Transpose, rows, cols int) (int, int) {
	if t == blas.NoTrans {
		return rows, cols
	}
	return cols, rows
}

// CheckGemm checks the arguments of a gemm, C = alpha op(A) op(B) +
// beta C with C m x n and op(A) m x k, and returns the elements A, B and C
// span.
func CheckGemm(tA, tB blas.Transpose, m, n, k, lda, ldb, ldc int) (la, lb, lc int) {
	const op = "gemm"
	checkTrans(op, "tA", tA)
	checkTrans(op, "tB", tB)
	checkDim(op, "m", m)
	checkDim(op, "n", n)
	checkDim(op, "k", k)
	ar, ac := opDims(tA, m, k)
	br, bc := opDims(tB, k, n)
	checkLd(op, "lda", lda, ar)
	checkLd(op, "ldb", ldb, br)
	checkLd(op, "ldc", ldc, m)
	if m == 0 || n == 0 {
		return 0, 0, 0
	}
	return span(ar, ac, lda), span(br, bc, ldb), span(m, n, ldc)
}

// CheckSyrk checks the arguments of a syrk, C = alpha op(A) op(A)^T +
// beta C with C n x n and op(A) n x k, and returns the elements A and C
// span.
func CheckSyrk(uplo blas.Uplo, tA blas.Transpose, n, k, lda, ldc int) (la, lc int) {
	const op = "syrk"
	checkUplo(op, uplo)
	checkTrans(op, "tA", tA)
	checkDim(op, "n", n)
	checkDim(op, "k", k)
	ar, ac := opDims(tA, n, k)
	checkLd(op, "lda", lda, ar)
	checkLd(op, "ldc", ldc, n)
	if n == 0 {
		return 0, 0
	}
	return span(ar, ac, lda), span(n, n, ldc)
}

// CheckTriangular checks the arguments of op ("trsm", "trmm", ...) on the
// m x n matrix B with the triangular A on side side (order m on the left,
// n on the right), and returns the elements A and B span.
func CheckTriangular(op string, side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag,
	m, n, lda, ldb int) (la, lb int) {
	checkSide(op, side)
	checkUplo(op, uplo)
	checkTrans(op, "tA", tA)
	checkDiag(op, diag)
	checkDim(op, "m", m)
	checkDim(op, "n", n)
	p := m
	if side == blas.Right {
		p = n
	}
	checkLd(op, "lda", lda, p)
	checkLd(op, "ldb", ldb, m)
	if m == 0 || n == 0 {
		return 0, 0
	}
	return span(p, p, lda), span(m, n, ldb)
}

// CheckGemv checks the arguments of a gemv, y = alpha op(A) x + beta y with
// A m x n, and returns the elements A, x and y span.
func CheckGemv(tA blas.Transpose, m, n, lda, incX, incY int) (la, lx, ly int) {
	const op = "gemv"
	checkTrans(op, "tA", tA)
	checkDim(op, "m", m)
	checkDim(op, "n", n)
	checkLd(op, "lda", lda, m)
	checkInc(op, "incX", incX)
	checkInc(op, "incY", incY)
	if m == 0 || n == 0 {
		return 0, 0, 0
	}
	ny, nx := opDims(tA, m, n)
	return span(m, n, lda), vspan(nx, incX), vspan(ny, incY)
}

// CheckPotrf checks the order and leading dimension of the n x n matrix of
// a potrf and returns the elements it spans.
func CheckPotrf(n, lda int) int { return square("potrf", n, lda) }

// square checks the order and leading dimension of op's n x n matrix and
// returns the elements it spans.
func square(op string, n, lda int) int {
	checkDim(op, "n", n)
	checkLd(op, "lda", lda, n)
	return span(n, n, lda)
}
