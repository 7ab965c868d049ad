package tlr

import (
	"math"
	"math/rand/v2"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// ModelNB is seed 002's tile size for the TLR Cholesky of an N x N matrix
// on P nodes whose off-diagonal tiles have mean rank k (its equation (2),
// balancing the dense diagonal's cubic work against the low-rank updates'):
//
//	nb = sqrt(3 N k (3 + sqrt(9 + 32 P)) / (4 P)).
func ModelNB(n int, k float64, nodes int) float64 {
	p := float64(max(nodes, 1))
	return math.Sqrt(3 * float64(n) * k * (3 + math.Sqrt(9+32*p)) / (4 * p))
}

// SampleRank returns the mean rank of up to samples off-diagonal tiles of
// size nb of the covariance of pts (kernel k, no nugget), chosen uniformly
// at random (seed) among the lower tiles and compressed by c at its
// accuracy; a tile kept dense counts as rank nb. The points are taken in
// their order (Morton order, as the likelihood's).
func SampleRank(c Compressor, k matern.Kernel, metric matern.Metric, pts matern.Points, nb, samples int, seed uint64) float64 {
	n := len(pts.X)
	nt := (n + nb - 1) / nb
	if nt < 2 || samples < 1 {
		return 0
	}
	rng := rand.New(rand.NewPCG(seed, 0x7a11))
	a := make([]float64, nb*nb)
	f := runtime.LowRank{M: nb, N: nb, MaxRank: nb / 2}
	buf := make([]float64, f.Words())
	var sum float64
	count := 0
	for range samples {
		// A lower tile (m, j), m > j, uniformly: m with weight m.
		m := 1 + int(math.Sqrt(rng.Float64()*float64(nt*nt-1)))
		m = min(max(m, 1), nt-1)
		j := rng.IntN(m)
		rows, cols := min(nb, n-m*nb), min(nb, n-j*nb)
		if rows < nb || cols < nb {
			continue // a ragged last tile: not representative
		}
		matern.FillTile(k, 0, metric, pts, m*nb, rows, pts, j*nb, cols, false, a, rows)
		r, err := c.Compress(f, a, buf)
		if err != nil || r < 0 {
			r = nb
		}
		sum += float64(r)
		count++
	}
	if count == 0 {
		return 0
	}
	return sum / float64(count)
}

// SampleNB is the tile size at which AutoNB samples the ranks: 4 sqrt(N)
// rounded to a multiple of 16, at least 160.
func SampleNB(n int) int {
	return max(160, int(math.Round(4*math.Sqrt(float64(n))/16))*16)
}

// AutoNB returns the model's tile size for the points pts on nodes nodes:
// the mean rank k of a sample of compressed tiles at SampleNB, then
// ModelNB, clamped to [lo, min(hi, N/2)] and made to cut N into equal
// tiles (FullTiles). It returns the tile size and k.
//
// One step, not a fixed point: the rank grows with the tile (about
// 0.065 nb for the exponential kernel at 1e-9, N = 16000), and iterating
// nb = ModelNB(k(nb)) then runs to the largest tile on one node.
func AutoNB(c Compressor, k matern.Kernel, metric matern.Metric, pts matern.Points, nodes, lo, hi, samples int, seed uint64) (int, float64) {
	n := len(pts.X)
	nb0 := min(SampleNB(n), max(n/2, 16))
	rank := SampleRank(c, k, metric, pts, nb0, samples, seed)
	if rank <= 0 {
		return min(max(nb0, lo), hi), rank
	}
	nb := min(max(int(math.Round(ModelNB(n, rank, nodes))), lo), hi, max(n/2, lo))
	return FullTiles(n, nb), rank
}

// FullTiles returns the tile size nearest nb that cuts n into tiles of
// equal size (the last one at most a few rows shorter): ceil(n / NT) with
// NT = round(n / nb). A ragged last tile costs a whole step of the
// factorisation for a sliver of work.
func FullTiles(n, nb int) int {
	nt := max(1, int(math.Round(float64(n)/float64(nb))))
	return (n + nt - 1) / nt
}
