//go:build amd64 && !purego

package greedy

import (
	"math"

	"golang.org/x/sys/cpu"
)

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

// laneIota is tailZ's first lane indices.
var laneIota = [8]int64{0, 1, 2, 3, 4, 5, 6, 7}

// tail is the end of update over the unpicked candidates (r.act, the
// bits of r.mask): g_c = gt[c] / sq, resid_c -= g_c^2, cv_c -= g_c gi,
// and the next pick (best's rule, over the new values): tailGo, or with
// AVX-512 eight candidates at a time (tailZ, the same operations each
// rounded alike; the lanes' best scores then reduced to the largest, the
// earliest candidate on ties: the same pick).
func (r *row) tail(gt []float64, sq, gi float64) int {
	k := len(gt)
	if !hasColZ || k == 0 {
		return r.tailGo(gt, sq, gi)
	}
	_, _, _ = r.resid[k-1], r.cv[k-1], r.mask[(k-1)>>3]
	best := [8]float64{}
	idx := [8]int64{}
	for l := range best {
		best[l], idx[l] = math.Inf(-1), -1
	}
	tailZ(&gt[0], &r.resid[0], &r.cv[0], &r.mask[0], k, sq, gi, &best, &idx, &laneIota)
	b, bv := -1, math.Inf(-1)
	for l, j := range idx {
		if j >= 0 && (best[l] > bv || (best[l] == bv && int(j) < b)) {
			b, bv = int(j), best[l]
		}
	}
	if b < 0 && len(r.act) > 0 {
		return r.act[0]
	}
	return b
}

// tailZ: see colsub_amd64.s.
//
//go:noescape
func tailZ(gt, resid, cv *float64, mask *uint8, n int, sq, gi float64, best *[8]float64, idx *[8]int64, iota *[8]int64)
