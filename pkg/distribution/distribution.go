// Package distribution says which node (MPI rank) owns which tile of a tiled
// symmetric matrix: the static data distributions of the distributed
// Cholesky and likelihood DAGs (owner computes: a task runs on the owner of
// the tile it writes).
//
// A symmetric NT x NT tile matrix stores its lower tiles (m, n), m >= n, so
// there are T = NT(NT+1)/2 of them. A Distribution maps each lower tile to a
// node in [0, Nodes()); the upper tile (n, m) of the symmetric matrix is the
// same data as (m, n), so every implementation here answers Owner(n, m) with
// Owner(m, n). A Distribution's Owner method has the type of tile.OwnerFunc
// and can be passed to tile.NewSym as it is.
//
// Three distributions are provided:
//
//   - BlockCyclic: ScaLAPACK's 2D block-cyclic distribution over a P x Q grid
//     of homogeneous nodes, owner(m, n) = (m mod P) Q + (n mod Q).
//   - OneDOneD: the 1D-1D distribution of Beaumont, Boudet, Petitet, Rastello
//     and Robert for heterogeneous nodes of relative powers s_i (a column-based
//     partition of the matrix into rectangles of areas proportional to s_i,
//     then shuffled into a cyclic pattern), where every node owns within one
//     tile of its share T s_i / sum(s) of the lower tiles.
//   - Explicit: any per-tile owner table (for instance a generation-phase
//     distribution derived from the factorisation one).
//
// Counts, Moves and SVG measure and draw a distribution; one distribution
// per phase (generation, factorisation) is the multi-phase scheme of
// ExaGeoStat on heterogeneous nodes, where Moves counts the tiles that cross
// the network between the two phases.
package distribution

import (
	"fmt"
	"math"
	"sort"
)

// Distribution is a static owner map of the lower tiles of a symmetric tile
// matrix.
type Distribution interface {
	// Owner returns the node in [0, Nodes()) that owns lower tile (m, n),
	// m >= n >= 0. For the symmetric matrix the upper tile (n, m) is the
	// lower tile (m, n): Owner(n, m) == Owner(m, n).
	Owner(m, n int) int
	// Nodes returns the number of nodes (ranks) the tiles are spread over.
	Nodes() int
	// Name returns a short description such as "bc 2x2" or "1d1d".
	Name() string
}

// Tiles returns T = nt(nt+1)/2, the number of lower tiles (diagonal
// included) of an nt x nt tile matrix.
func Tiles(nt int) int { return nt * (nt + 1) / 2 }

// Counts returns, for each node of d, how many lower tiles of an nt x nt
// tile matrix it owns. The counts sum to Tiles(nt).
func Counts(d Distribution, nt int) []int {
	c := make([]int, d.Nodes())
	for m := 0; m < nt; m++ {
		for n := 0; n <= m; n++ {
			c[d.Owner(m, n)]++
		}
	}
	return c
}

// Moves returns the number of lower tiles of an nt x nt tile matrix whose
// owner differs between a and b: the tiles that must be sent when the data
// produced under distribution a (say the generation phase) is consumed under
// distribution b (the factorisation).
func Moves(a, b Distribution, nt int) int {
	k := 0
	for m := 0; m < nt; m++ {
		for n := 0; n <= m; n++ {
			if a.Owner(m, n) != b.Owner(m, n) {
				k++
			}
		}
	}
	return k
}

// checkPowers reports whether every power is a finite positive number.
func checkPowers(powers []float64) error {
	if len(powers) == 0 {
		return fmt.Errorf("distribution: no node powers")
	}
	for i, p := range powers {
		if !(p > 0) || math.IsInf(p, 0) {
			return fmt.Errorf("distribution: power of node %d must be a positive number, got %g", i, p)
		}
	}
	return nil
}

// Shares returns each node's share of the lower tiles of an nt x nt tile
// matrix in proportion to its power: T powers[i] / sum(powers), with
// T = Tiles(nt). The powers must be positive.
func Shares(powers []float64, nt int) []float64 {
	var sum float64
	for _, p := range powers {
		sum += p
	}
	t := float64(Tiles(nt))
	s := make([]float64, len(powers))
	for i, p := range powers {
		s[i] = t * p / sum
	}
	return s
}

// Quotas rounds Shares(powers, nt) to integers that sum to Tiles(nt) by the
// largest-remainder method: each node gets the floor of its share, and the
// tiles left go one each to the nodes with the largest fractional parts
// (ties to the lower index). Hence |Quotas[i] - Shares[i]| < 1 for every node.
func Quotas(powers []float64, nt int) []int {
	s := Shares(powers, nt)
	q := make([]int, len(s))
	left := Tiles(nt)
	for i, v := range s {
		q[i] = int(math.Floor(v))
		left -= q[i]
	}
	order := make([]int, len(s))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		fa := s[order[a]] - math.Floor(s[order[a]])
		fb := s[order[b]] - math.Floor(s[order[b]])
		return fa > fb
	})
	// 0 <= left <= len(q) up to rounding in Shares, which the second loop
	// undoes should the floors overshoot.
	for k := 0; left > 0; k++ {
		q[order[k%len(order)]]++
		left--
	}
	for k := len(order) - 1; left < 0 && k >= 0; k-- {
		if i := order[k]; q[i] > 0 {
			q[i]--
			left++
		}
	}
	return q
}

// New builds the distribution named kind over nodes nodes for an nt x nt
// tile matrix: "bc" is BlockCyclic on a p x q grid (p = q = 0: TallGrid;
// one of them 0: nodes divided by the other), "1d1d" is NewOneDOneD with the
// relative powers (nil: equal powers), "hybrid" is NewHybrid with the
// diagonal as its dense band and its low-rank tiles on the p x q grid. It
// is the one place that turns a configuration's keys into a distribution.
func New(kind string, nodes, p, q int, powers []float64, nt int) (Distribution, error) {
	return NewBanded(kind, nodes, p, q, 0, powers, nt)
}

// NewBanded is New with the band of a "hybrid" distribution (the
// sub-diagonals of its dense grid); band must be 0 for the other kinds.
func NewBanded(kind string, nodes, p, q, band int, powers []float64, nt int) (Distribution, error) {
	if band != 0 && kind != "hybrid" {
		return nil, fmt.Errorf("distribution: a band (%d) is only used with the hybrid distribution, not %q", band, kind)
	}
	if kind == "hybrid" {
		if nodes < 1 {
			return nil, fmt.Errorf("distribution: need at least one node, got %d", nodes)
		}
		return NewHybrid(nodes, band, p, q)
	}
	if nodes < 1 {
		return nil, fmt.Errorf("distribution: need at least one node, got %d", nodes)
	}
	switch kind {
	case "bc":
		switch {
		case p == 0 && q == 0:
			p, q = TallGrid(nodes)
		case p == 0 && q > 0 && nodes%q == 0:
			p = nodes / q
		case q == 0 && p > 0 && nodes%p == 0:
			q = nodes / p
		}
		if p < 1 || q < 1 || p*q != nodes {
			return nil, fmt.Errorf("distribution: a %d x %d grid does not hold %d nodes", p, q, nodes)
		}
		return BlockCyclic{P: p, Q: q}, nil
	case "1d1d":
		if powers == nil {
			powers = make([]float64, nodes)
			for i := range powers {
				powers[i] = 1
			}
		}
		if len(powers) != nodes {
			return nil, fmt.Errorf("distribution: need %d powers, got %d", nodes, len(powers))
		}
		return NewOneDOneD(nt, powers)
	}
	return nil, fmt.Errorf("distribution: unknown distribution %q (want bc, 1d1d or hybrid)", kind)
}
