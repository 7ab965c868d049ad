package mixed

import (
	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
)

// Gonum implements Impl with gonum's pure-Go float32 BLAS on the
// transposed (row-major) view of each matrix.
type Gonum struct{}

// Name implements Impl.
func (Gonum) Name() string { return "gonum" }

// Sgemm implements Impl: C^T = op(B)^T op(A)^T.
func (Gonum) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int,
	beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	var g gblas.Implementation
	g.Sgemm(tB, tA, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
}

// Strsm implements Impl: the side and the triangle flip in the row-major view.
func (Gonum) Strsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int, alpha float32,
	a []float32, lda int, b []float32, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	s, u := blas.Left, blas.Lower
	if side == blas.Left {
		s = blas.Right
	}
	if uplo == blas.Lower {
		u = blas.Upper
	}
	var g gblas.Implementation
	g.Strsm(s, u, tA, diag, n, m, alpha, a, lda, b, ldb)
}
