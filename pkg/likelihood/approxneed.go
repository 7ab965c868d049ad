package likelihood

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
// rank: MemoryNeed with the tiles in their formats (for tlr at the rank
// TLRRankSafety x meanRank, Approx.RankEstimate), plus per-worker scratch
// (MemoryNeed alone for Exact):
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
	if a.Computation == TLR {
		o.Approx.RankEstimate = TLRRankSafety * meanRank
	}
	out := MemoryNeed(n, o, ranks)
	scratch := int64(8 * o.NB * o.NB)
	if a.Computation == TLR {
		maxRank := a.MaxRank
		if maxRank <= 0 {
			maxRank = max(1, o.NB/2)
		}
		// No tile of nb columns has a rank above nb, whatever --max-rank
		// allows: the buffers in flight hold the ranks reached.
		maxRank = min(maxRank, o.NB)
		// The low-rank scratch, and the transient buffers of an lr-gemm
		// in flight (the stacked factors, their QR and SVD workspaces,
		// taken from the Go heap, with the collector's slack): three more
		// of its size. Without them the N = 40000 fit's RSS exceeded
		// the estimate by 13 % (docs/approx.md).
		scratch += 4 * int64(8*(1+2*o.NB*maxRank))
	}
	for r := range out {
		out[r] += int64(max(workers, 1)) * scratch
	}
	return out
}
