package insert

// Codelets returns the codelets of this package, one per kind (lr-gemm,
// for instance, serves every update with a low-rank tile), in the order
// of a likelihood evaluation: generation, Cholesky, hierarchical potrf,
// solve and reductions, then the products of prediction. A codelet
// declared elsewhere (Vecchia's block tasks) that has a device
// implementation belongs in this list.
func Codelets() []Declared {
	return []Declared{
		dcmgCL, lrDcmgCL, sDcmgCL, dderivCL, zcpyCL, copyInCL,
		potrfCL, trtriCL, trmmCL, syrkCL, gemmCL,
		lrTrsmCL, lrSyrkCL, lrGemmCL, sTrsmCL, sSyrkCL, sGemmCL,
		hSplitCL, hPotrfCL, hTrsmCL, hSyrkCL, hGemmCL, hJoinCL,
		detCL, trsvCL, gemvCL, lrGemvCL, sGemvCL, geaddCL, dotCL,
		trmvCL, colssCL, coldotCL, tdotCL, lrMulCL, sMulCL,
	}
}
