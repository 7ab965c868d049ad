//go:build amd64 && !purego

package greedy

import "golang.org/x/sys/cpu"

// hasColZ reports whether colSub can use the AVX-512 code (colSubZ).
var hasColZ = cpu.X86.HasAVX512F

// colSub sets gt[j] -= g_s[j] g_s[b] for s = 0..t-1 in that order, for
// j < len(gt), g_s = g[s*stride : s*stride+len(gt)] (b < len(gt) <=
// stride): colSubGo's products and differences, each rounded, with
// AVX-512 where the CPU has it (colSubZ: 32 entries at a time, held in
// registers over every s), so the same values bitwise.
func colSub(g []float64, stride, t, b int, gt []float64) {
	k := len(gt)
	if !hasColZ || t == 0 || k == 0 {
		colSubGo(g, stride, t, b, gt)
		return
	}
	_ = g[(t-1)*stride+k-1]
	for j := 0; j < k; j += 32 {
		n := min(32, k-j)
		colSubZ(&g[j], &g[b], stride, t, &gt[j], uint32(1<<n-1))
	}
}

// colSubZ is colSub on the up to 32 entries of the mask's bits: gt[j] -=
// col[s*stride+j] f[s*stride] for s < t, j < 32 where bit j of mask is set
// (the first bits).
//
//go:noescape
func colSubZ(col, f *float64, stride, t int, gt *float64, mask uint32)
