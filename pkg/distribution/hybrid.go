package distribution

import "fmt"

// Hybrid is seed 002's hybrid data distribution (HiCMA's, for the tile
// low-rank Cholesky): two intertwined 2D block-cyclic distributions over
// the same nodes with different grids. The tiles within Band sub-diagonals
// of the diagonal (m - n <= Band: the dense tiles of a TLR matrix, about
// nb^2 words each) follow Dense, the others (low-rank, about 2 nb k words)
// follow LowRank:
//
//	owner(m, n) = Dense.Owner(m, n)    if m - n <= Band,
//	            = LowRank.Owner(m, n)  otherwise.
//
// On a plain P x Q block-cyclic grid, diagonal tile (m, m) goes to node
// (m mod P) Q + (m mod Q): only lcm(P, Q) of the P Q nodes (P = Q: P
// nodes) hold diagonal tiles and run the dense potrf and the dense
// updates of the diagonal, the heavy tasks of a TLR Cholesky. With the
// dense band on a grid of PQ x 1 (NewHybrid's default), diagonal tile m
// goes to node m mod PQ: every node holds NT/(PQ) of them, and their
// memory per node falls from n nb / max(P, Q) to n nb / (P Q) words
// (seed 002, equation 1).
type Hybrid struct {
	Band    int         // sub-diagonals of the dense band, >= 0
	Dense   BlockCyclic // grid of the band's tiles
	LowRank BlockCyclic // grid of the other tiles; Dense.Nodes() == LowRank.Nodes()
}

// NewHybrid returns the hybrid distribution over nodes nodes: the band of
// band sub-diagonals on a nodes x 1 grid (diagonal tile m on node m mod
// nodes), the other tiles on a p x q grid (p = q = 0: TallGrid; one of
// them 0: nodes divided by the other).
func NewHybrid(nodes, band, p, q int) (Hybrid, error) {
	if band < 0 {
		return Hybrid{}, fmt.Errorf("distribution: hybrid band must be >= 0, got %d", band)
	}
	d, err := New("bc", nodes, p, q, nil, 0)
	if err != nil {
		return Hybrid{}, err
	}
	return Hybrid{Band: band, Dense: BlockCyclic{P: nodes, Q: 1}, LowRank: d.(BlockCyclic)}, nil
}

// Owner returns the owner of lower tile (m, n) (see Hybrid); Owner(n, m)
// is Owner(m, n).
func (h Hybrid) Owner(m, n int) int {
	if m < n {
		m, n = n, m
	}
	if m-n <= h.Band {
		return h.Dense.Owner(m, n)
	}
	return h.LowRank.Owner(m, n)
}

// Nodes returns the number of nodes of the grids.
func (h Hybrid) Nodes() int { return h.LowRank.Nodes() }

// Name returns "hybrid band B (PxQ dense, P'xQ' low-rank)".
func (h Hybrid) Name() string {
	return fmt.Sprintf("hybrid band %d (%dx%d dense, %dx%d low-rank)", h.Band, h.Dense.P, h.Dense.Q, h.LowRank.P, h.LowRank.Q)
}
