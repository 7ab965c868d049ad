package distribution

import "fmt"

// BlockCyclic is the 2D block-cyclic distribution of ScaLAPACK and Chameleon
// over a P x Q grid of homogeneous nodes numbered row-major: lower tile
// (m, n) belongs to
//
//	owner(m, n) = (m mod P) Q + (n mod Q),
//
// the node in grid row m mod P and grid column n mod Q. Each node owns about
// T/(PQ) of the T lower tiles, and tile row m (column n) is spread over the Q
// nodes of one grid row (the P nodes of one grid column).
type BlockCyclic struct {
	P, Q int // grid rows and columns, both >= 1
}

// Owner returns (m mod P) Q + (n mod Q) for m >= n; Owner(n, m) is
// Owner(m, n).
func (b BlockCyclic) Owner(m, n int) int {
	if m < n {
		m, n = n, m
	}
	return (m%b.P)*b.Q + n%b.Q
}

// Nodes returns P Q.
func (b BlockCyclic) Nodes() int { return b.P * b.Q }

// Name returns "bc PxQ".
func (b BlockCyclic) Name() string { return fmt.Sprintf("bc %dx%d", b.P, b.Q) }

// TallGrid returns the most square grid p x q with p q = nodes and p >= q
// (2 -> 2 x 1, 6 -> 3 x 2): the default grid of a run. With more grid rows
// than columns, a node's gemm updates of one step read the panel tiles of
// its own rows (which it owns when the panel column is its) and of the
// other rows, so it receives about 1 - 1/p of a panel at every step; with
// more columns, a node owning none of a panel column receives the whole
// panel every q-th step. The traffic is the same; the replicas held at once
// are fewer with the tall grid.
func TallGrid(nodes int) (p, q int) {
	q, p = SquareGrid(nodes)
	return p, q
}

// SquareGrid returns the most square grid p x q with p q = nodes and p <= q:
// p is the largest divisor of nodes not above its square root (4 -> 2 x 2,
// 6 -> 2 x 3, 7 -> 1 x 7). It returns 0, 0 for nodes < 1.
func SquareGrid(nodes int) (p, q int) {
	if nodes < 1 {
		return 0, 0
	}
	p = 1
	for d := 1; d*d <= nodes; d++ {
		if nodes%d == 0 {
			p = d
		}
	}
	return p, nodes / p
}
