package likelihood

import (
	"math"

	"github.com/exageostat/exageostat/pkg/tile"
)

// TLRRankSafety multiplies the sampled mean rank in ApproxNeed's TLR
// estimate. The sample (tlr.SampleRank, a few dozen tiles out of
// thousands) misses the spread of the ranks and the runtime's transient
// buffers (lr-gemm's recompressed products before the resize, the tiles
// in flight between generation and the first update). With this factor
// the measured peaks of tile buffers (Mem().Peak, theta = (1, 0.1, 0.5),
// 32 sampled tiles) were 0.82 of the estimate at N = 4000, nb = 400;
// 0.85 at N = 16000, nb = 800 (279 of 328 MB); 0.77 at N = 40000,
// nb = 1000 (904 of 1168 MB) (docs/approx.md).
const TLRRankSafety = 1.5

// ApproxNeed returns, for each of ranks ranks, the bytes an evaluation of
// n points with the computation of o (o.Approx) holds at most on that
// rank, as MemoryNeed does for the exact computation (which it returns
// for Exact):
//
//   - mp: the tiles within the band in float64 (8 bytes a word), the
//     others in float32 (4 bytes);
//   - dst: the tiles within the band only;
//   - tlr: the dense diagonal tiles, and each off-diagonal tile m x c as
//     1 + (m + c) k words, with k = TLRRankSafety x meanRank rounded up to
//     a multiple of 8 (the runtime's resize granularity) and at most the
//     format's maximum rank; meanRank is the expected mean rank of an
//     off-diagonal tile, an estimate from a sample of compressed tiles
//     (tlr.SampleRank at this nb and theta).
//
// Every approximation adds, per worker, the dense generation scratch tile
// and, for tlr, the low-rank scratch of the largest rank (1 + 2 nb
// maxRank words) and three more of its size for an lr-gemm's transient
// buffers (stacked factors, QR and SVD workspaces on the Go heap, and the
// collector's slack); then the replicas, the two diagonal workspaces, the
// vectors and Overhead as MemoryNeed. The band follows o.Approx.Band (a
// negative band: the automatic one).
func ApproxNeed(n int, o Options, ranks, workers int, meanRank float64) []int64 {
	a := o.Approx
	if a.Computation == "" || a.Computation == Exact {
		return MemoryNeed(n, o, ranks)
	}
	l := tile.NewLayout(n, o.NB)
	band := a.Band
	if a.Computation == TLR {
		band = 0
	} else if band < 0 {
		band = autoBand(l.NT)
	}
	maxRank := a.MaxRank
	if maxRank <= 0 {
		maxRank = max(1, o.NB/2)
	}
	k := int(math.Ceil(TLRRankSafety*meanRank/8)) * 8
	k = min(max(k, 0), maxRank)
	tileBytes := func(m, c int) int64 {
		rm, rc := l.Rows(m), l.Rows(c)
		switch {
		case m-c <= band:
			return int64(8 * rm * rc)
		case a.Computation == MP:
			return int64(4 * rm * rc)
		case a.Computation == TLR:
			return int64(8 * (1 + (rm+rc)*k))
		}
		return 0 // dst: dropped
	}
	own := o.Owner
	if own == nil {
		own = tile.Local
	}
	owned := make([]int64, ranks)
	gen := make([]int64, ranks)
	vec := make([]int64, ranks)
	var all int64
	for m := 0; m < l.NT; m++ {
		for c := 0; c <= m; c++ {
			b := tileBytes(m, c)
			all += b
			owned[min(max(own(m, c), 0), ranks-1)] += b
			if o.GenOwner != nil {
				if g := min(max(o.GenOwner(m, c), 0), ranks-1); g != own(m, c) {
					gen[g] += b
				}
			}
		}
		vec[min(max(own(m, m), 0), ranks-1)] += int64(8 * 4 * l.Rows(m))
	}
	denseTile := int64(8 * o.NB * o.NB)
	scratch := denseTile
	if a.Computation == TLR {
		// The low-rank scratch, and the transient buffers of an lr-gemm
		// in flight (the stacked factors, their QR and SVD workspaces,
		// taken from the Go heap, with the collector's slack): three more
		// of its size. Without them the N = 40000 fit's RSS exceeded
		// the estimate by 13 % (docs/approx.md).
		scratch += 4 * int64(8*(1+2*o.NB*maxRank))
	}
	// A column of tiles: the mean lower tile's bytes, NT times.
	column := all / int64(max(1, l.NT*(l.NT+1)/2)) * int64(l.NT)
	out := make([]int64, ranks)
	for r := range out {
		replicas := int64(0)
		if ranks > 1 {
			replicas = max(owned[r]/8, 4*denseTile, column)
		}
		out[r] = owned[r] + gen[r] + replicas + int64(max(workers, 1))*scratch + 2*denseTile + vec[r] + Overhead
	}
	return out
}
