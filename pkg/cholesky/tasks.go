package cholesky

// Tasks returns the number of tasks Factor submits for the exact (dense)
// Cholesky of nt x nt tiles, without hierarchical potrf: nt potrf, nt - 1
// trtri (no panel after the last step), nt(nt-1)/2 trmm and as many syrk,
// and nt(nt-1)(nt-2)/6 gemm, (nt^3 + 3 nt^2 + 8 nt - 6)/6 in all (nt >= 1).
// It is a float64 so that the memory estimates of absurd sizes do not
// overflow; it is exact while below 2^53.
func Tasks(nt float64) float64 {
	below := nt * (nt - 1) / 2
	return nt + (nt - 1) + 2*below + nt*(nt-1)*(nt-2)/6
}
