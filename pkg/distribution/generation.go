package distribution

import "fmt"

// Generation derives the generation-phase distribution of an nt x nt tile
// matrix from the factorisation distribution fact, so that node i owns
// exactly target[i] lower tiles during the generation while as few tiles as
// possible change owner between the two phases: Algorithm 2 of "Multi-phase
// task-based ExaGeoStat on system-level heterogeneous nodes" (Section 4.4).
//
// Let c_i be the number of lower tiles fact gives node i (Counts) and
// t_i = target[i] (the targets must be non-negative and sum to
// T = nt(nt+1)/2). A tile owned by i in fact but not in the generation has to
// move, so at least
//
//	moves_min = sum_i max(0, c_i - t_i)
//
// tiles move between the phases; Generation moves exactly moves_min. The
// tiles are visited in generation order, anti-diagonal by anti-diagonal
// (d = m + n = 0, 1, ..., 2 nt - 2; within one, from the column n = 0 towards
// the diagonal), and only a giver's tiles (d_i = c_i - t_i > 0) ever change
// owner: the k-th tile of giver i met in that order (k = 1 ... c_i) is given
// when k crosses the next of d_i evenly spaced thresholds
//
//	k >= (2j + 1) c_i / (2 d_i),   j = 0 ... d_i - 1
//
// (j the tiles i has given so far; integer arithmetic). This is the paper's
// rate rule, one tile given every c_i / d_i tiles of the giver, centred in
// each run of c_i / d_i tiles rather than at its end. Since c_i / d_i >= 1 at
// most one threshold falls on one tile, and the last one, (2 d_i - 1) c_i /
// (2 d_i) <= c_i, is always reached: every giver gives exactly d_i tiles.
//
// The tile goes to the neediest receiver (e_r = t_r - c_r > 0) relative to its
// need: the r minimising (g_r + 1) / e_r, g_r the tiles r has received so far
// (ties to the lower node). The paper's which.min(diff) takes the receiver
// with the largest absolute deficit, which hands all the first moved tiles
// to the neediest receiver until the deficits level out (its generation
// tiles then crowd the first anti-diagonals); the relative rule deals the
// moved tiles to the receivers in proportion to their needs all along, and
// gives the same counts. A receiver with g_r = e_r has (g_r + 1) / e_r > 1
// while one still short has at most 1, so no receiver overshoots: every node
// ends exactly on its target, and the tiles that move are exactly the
// moves_min given by the givers.
//
// Because the given tiles are spaced evenly over each giver's tiles in the
// generation order, and fact (1D-1D, block-cyclic) is itself cyclic, every
// node's generation tiles are spread over the whole matrix and over the
// generation steps like a cyclic distribution of the target counts, rather
// than lumped in one corner (see Figure 4 of the paper: the stripes of the
// factorisation stay visible in the generation distribution).
func Generation(fact Distribution, nt int, target []int) (*Explicit, error) {
	if nt < 1 {
		return nil, fmt.Errorf("distribution: need at least one tile, got nt = %d", nt)
	}
	nodes := fact.Nodes()
	if len(target) != nodes {
		return nil, fmt.Errorf("distribution: need %d generation targets (one per node), got %d", nodes, len(target))
	}
	total := 0
	for i, t := range target {
		if t < 0 {
			return nil, fmt.Errorf("distribution: generation target of node %d is negative (%d)", i, t)
		}
		total += t
	}
	if total != Tiles(nt) {
		return nil, fmt.Errorf("distribution: generation targets sum to %d, want the %d lower tiles of %d x %d tiles", total, Tiles(nt), nt, nt)
	}

	owner := Tabulate(fact, nt).owner
	count := Counts(fact, nt)
	base := make([]int, nodes) // d_i = c_i - t_i > 0: what giver i gives in all
	need := make([]int, nodes) // t_r - c_r > 0: what receiver r gets in all
	for i := range base {
		if d := count[i] - target[i]; d > 0 {
			base[i] = d
		} else {
			need[i] = -d
		}
	}
	received := make([]int, nodes)
	seen := make([]int64, nodes)  // k: giver tiles met so far
	given := make([]int64, nodes) // j: tiles given so far
	forEachAntiDiagonal(nt, func(m, n int) {
		i := owner[m][n]
		d := int64(base[i])
		if d == 0 || given[i] == d {
			return
		}
		seen[i]++
		if seen[i]*2*d < (2*given[i]+1)*int64(count[i]) {
			return
		}
		// sum(need) = sum(base) and i has not given all of base[i], so some
		// receiver has received[r] < need[r]: leastLoaded picks one of them.
		r := leastLoaded(nodes, func(k int) (int, int) { return received[k], need[k] }, 1)
		owner[m][n] = r
		received[r]++
		given[i]++
	})
	return &Explicit{name: "generation from " + fact.Name(), nodes: nodes, owner: owner}, nil
}

// MinMoves returns sum_i max(0, Counts(fact, nt)[i] - target[i]), the
// fewest tiles that must change owner between fact and any distribution
// giving node i target[i] tiles: the number Generation achieves.
func MinMoves(fact Distribution, nt int, target []int) int {
	k := 0
	for i, c := range Counts(fact, nt) {
		if i < len(target) && c > target[i] {
			k += c - target[i]
		}
	}
	return k
}

// forEachAntiDiagonal calls f(m, n) for the lower tiles of an nt x nt tile
// matrix in generation order: anti-diagonal d = m + n from 0 to 2 nt - 2,
// and within one from the smallest column n = max(0, d - nt + 1) to the
// diagonal n = floor(d / 2).
func forEachAntiDiagonal(nt int, f func(m, n int)) {
	for d := 0; d <= 2*nt-2; d++ {
		for n := max(0, d-nt+1); n <= d/2; n++ {
			f(d-n, n)
		}
	}
}
