package kernels

import "gonum.org/v1/gonum/blas"

// trtriBase is the order below which LowerInverse calls the library's
// Dtrtri directly.
const trtriBase = 96

// LowerInverse overwrites the lower triangle of the n x n non-unit lower
// triangular matrix a with its inverse, by recursion on the 2 x 2 block
// form
//
//	[L11  0 ]^-1   [ X11              0  ]
//	[L21 L22]    = [ -X22 L21 X11    X22 ],  X11 = L11^-1, X22 = L22^-1,
//
// so that almost all of its n^3/3 flops run in Dtrmm, which is several
// times faster than the library's Dtrtri on tile-sized blocks. It returns
// LAPACK's info (j > 0: A(j-1, j-1) is zero).
func LowerInverse(k Impl, n int, a []float64, lda int) int {
	if n <= trtriBase {
		return k.Dtrtri(blas.Lower, blas.NonUnit, n, a, lda)
	}
	n1 := n / 2
	n2 := n - n1
	a21 := a[n1:]        // n2 x n1 at (n1, 0)
	a22 := a[n1+n1*lda:] // n2 x n2 at (n1, n1)
	if info := LowerInverse(k, n1, a, lda); info != 0 {
		return info
	}
	if info := LowerInverse(k, n2, a22, lda); info != 0 {
		return n1 + info
	}
	// X21 = -X22 (L21 X11).
	k.Dtrmm(blas.Right, blas.Lower, blas.NoTrans, blas.NonUnit, n2, n1, 1, a, lda, a21, lda)
	k.Dtrmm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n2, n1, -1, a22, lda, a21, lda)
	return 0
}
