package distribution

import (
	"fmt"
	"sort"
)

// OneDOneD is the 1D-1D distribution of heterogeneous nodes (Beaumont,
// Boudet, Petitet, Rastello and Robert, "A proposal for a heterogeneous
// cluster ScaLAPACK", IEEE Trans. Computers 50(10), 2001), the one ExaGeoStat
// uses for the factorisation on heterogeneous nodes (Figure 2 of "Multi-phase
// task-based ExaGeoStat on system-level heterogeneous nodes"). It is built in
// two steps.
//
// Column-based partition. The unit square is cut into vertical slabs, each
// split horizontally into one rectangle per node of area s_i (the normalised
// powers, sum 1): a slab holding nodes C has width W_C = sum_{i in C} s_i and
// node i's rectangle height s_i / W_C. Among such partitions the one
// minimising the sum of the half-perimeters (the communication volume of a
// matrix product), sum_C (|C| W_C + 1), is found by dynamic programming over
// the nodes sorted by power, a slab holding consecutive nodes of that order
// (the col-peri-sum partition of Beaumont et al., 2002). Powers 1, 1, 4, 4
// give two slabs: {0, 1} of width 0.2 and {2, 3} of width 0.8.
//
// Shuffle. Instead of contiguous rectangles, tile columns are dealt to the
// slabs one by one, and within each slab tile rows are dealt to its nodes
// one by one, each time to the candidate that is least loaded relative to its
// target after taking the item (the incremental heterogeneous 1D allocation of
// Beaumont et al.): every prefix of columns, and of rows within a slab, is
// spread in proportion to the powers, which keeps every step of the Cholesky
// balanced. Tile (m, n) then belongs to the node that owns row m in the slab
// of column n: a node's tiles lie in the columns of its slab, in the rows it
// was dealt there.
//
// Lower triangle. The paper deals a square; here the items are weighted by
// the lower tiles they hold. Node i's target is its quota q_i, the share
// T s_i of the T = NT(NT+1)/2 lower tiles rounded by largest remainders
// (Quotas), and a slab's target is the sum of its quotas. Column n (NT - n
// lower tiles) goes to the slab C minimising (L_C + NT - n) / Q_C, columns
// taken left to right; row m of slab C, holding one tile per column of C at
// or left of m, goes to the node of C minimising (l_i + w_m) / q_i, rows
// taken bottom to top. Heaviest items first gives a fine finish, and for
// equal powers the back-and-forth order 0 1 1 0 0 1 1 0 that balances a
// triangle. Ties go to the lower slab or node. A final correction moves the
// few tiles still off target (Corrected reports how many: at most 2 over the
// tests' powers and NT = 1..120, most often none) from nodes above their quota
// to the neediest node, same slab first, spread evenly over the giver's
// tiles, so that every node owns exactly q_i lower tiles: within one tile of
// its power share T s_i / sum(s).
type OneDOneD struct {
	nt        int
	powers    []float64
	groups    [][]int // nodes of each slab, by increasing power
	colGroup  []int   // slab of each tile column
	owner     [][]int // lower tiles
	quotas    []int
	corrected int
}

// NewOneDOneD returns the 1D-1D distribution of the lower tiles of an nt x nt
// tile matrix over len(powers) nodes of the given relative powers (any
// positive scale: [1, 1, 4, 4] and [10, 10, 40, 40] are the same).
func NewOneDOneD(nt int, powers []float64) (*OneDOneD, error) {
	if nt < 1 {
		return nil, fmt.Errorf("distribution: need at least one tile, got nt = %d", nt)
	}
	if err := checkPowers(powers); err != nil {
		return nil, err
	}
	d := &OneDOneD{nt: nt, powers: append([]float64(nil), powers...)}
	d.quotas = Quotas(powers, nt)
	d.groups = columnPartition(powers)

	// Columns to slabs.
	gq := make([]int, len(d.groups))
	for g, nodes := range d.groups {
		for _, i := range nodes {
			gq[g] += d.quotas[i]
		}
	}
	d.colGroup = make([]int, nt)
	gl := make([]int, len(d.groups))
	for n := 0; n < nt; n++ {
		g := leastLoaded(len(d.groups), func(k int) (int, int) { return gl[k], gq[k] }, nt-n)
		d.colGroup[n] = g
		gl[g] += nt - n
	}

	// Rows to nodes within each slab: rowOwner[g][m].
	rowOwner := make([][]int, len(d.groups))
	load := make([]int, len(powers))
	for g, nodes := range d.groups {
		rowOwner[g] = make([]int, nt)
		// w[m]: the slab's columns at or left of m, the tiles of row m it holds.
		w := make([]int, nt)
		c := 0
		for m := 0; m < nt; m++ {
			if d.colGroup[m] == g {
				c++
			}
			w[m] = c
		}
		for m := nt - 1; m >= 0; m-- {
			k := leastLoaded(len(nodes), func(k int) (int, int) { return load[nodes[k]], d.quotas[nodes[k]] }, w[m])
			rowOwner[g][m] = nodes[k]
			load[nodes[k]] += w[m]
		}
	}
	d.owner = make([][]int, nt)
	for m := range d.owner {
		d.owner[m] = make([]int, m+1)
		for n := 0; n <= m; n++ {
			d.owner[m][n] = rowOwner[d.colGroup[n]][m]
		}
	}
	d.correct()
	return d, nil
}

// leastLoaded returns the k in [0, count) that minimises (load_k + w) /
// target_k, with load_k, target_k = f(k); a target of 0 is never chosen
// unless all are 0 (then 0). Ties go to the lower k. The comparison is exact.
func leastLoaded(count int, f func(k int) (load, target int), w int) int {
	best, bl, bt := -1, 0, 0
	for k := 0; k < count; k++ {
		l, t := f(k)
		if t <= 0 {
			continue
		}
		// (l + w) / t < (bl + w) / bt
		if best < 0 || int64(l+w)*int64(bt) < int64(bl+w)*int64(t) {
			best, bl, bt = k, l, t
		}
	}
	if best < 0 {
		return 0
	}
	return best
}

// columnPartition returns the slabs of the column-based partition of the
// unit square into rectangles of areas proportional to powers that minimises
// the sum of half-perimeters: nodes sorted by increasing power (stable), cut
// into consecutive runs by dynamic programming; a run C of normalised width
// W_C costs |C| W_C + 1 (its |C| rectangles of width W_C and heights summing
// to 1). Ties go to the longest last slab.
func columnPartition(powers []float64) [][]int {
	p := len(powers)
	order := make([]int, p)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return powers[order[a]] < powers[order[b]] })
	var sum float64
	for _, v := range powers {
		sum += v
	}
	prefix := make([]float64, p+1)
	for k, i := range order {
		prefix[k+1] = prefix[k] + powers[i]/sum
	}
	cost := make([]float64, p+1)
	cut := make([]int, p+1)
	for j := 1; j <= p; j++ {
		cost[j] = -1
		for i := 0; i < j; i++ {
			c := cost[i] + float64(j-i)*(prefix[j]-prefix[i]) + 1
			if cost[j] < 0 || c < cost[j]-1e-12 {
				cost[j], cut[j] = c, i
			}
		}
	}
	var groups [][]int
	for j := p; j > 0; j = cut[j] {
		groups = append(groups, append([]int(nil), order[cut[j]:j]...))
	}
	for a, b := 0, len(groups)-1; a < b; a, b = a+1, b-1 {
		groups[a], groups[b] = groups[b], groups[a]
	}
	return groups
}

// correct moves tiles from nodes above their quota to nodes below it until
// every node owns exactly its quota.
func (d *OneDOneD) correct() {
	nodes := len(d.powers)
	count := make([]int, nodes)
	for _, row := range d.owner {
		for _, o := range row {
			count[o]++
		}
	}
	slab := make([]int, nodes)
	for g, ns := range d.groups {
		for _, i := range ns {
			slab[i] = g
		}
	}
	for a := 0; a < nodes; a++ {
		excess := count[a] - d.quotas[a]
		if excess <= 0 {
			continue
		}
		// a's tiles column by column, top to bottom.
		var tiles [][2]int
		for n := 0; n < d.nt; n++ {
			for m := n; m < d.nt; m++ {
				if d.owner[m][n] == a {
					tiles = append(tiles, [2]int{m, n})
				}
			}
		}
		for k := 0; k < excess; k++ {
			t := tiles[(2*k+1)*len(tiles)/(2*excess)]
			b, need := -1, 0
			for i := 0; i < nodes; i++ {
				di := d.quotas[i] - count[i]
				if di <= 0 {
					continue
				}
				same := slab[i] == slab[a]
				if b < 0 || (same && slab[b] != slab[a]) || (same == (slab[b] == slab[a]) && di > need) {
					b, need = i, di
				}
			}
			d.owner[t[0]][t[1]] = b
			count[a]--
			count[b]++
			d.corrected++
		}
	}
}

// Owner returns the node of lower tile (m, n), 0 <= n <= m < NT;
// Owner(n, m) is Owner(m, n). It panics outside the matrix.
func (d *OneDOneD) Owner(m, n int) int {
	if m < n {
		m, n = n, m
	}
	return d.owner[m][n]
}

// Nodes returns the number of nodes, len(powers).
func (d *OneDOneD) Nodes() int { return len(d.powers) }

// Name returns "1d1d".
func (d *OneDOneD) Name() string { return "1d1d" }

// NT returns the number of tile rows the distribution was built for.
func (d *OneDOneD) NT() int { return d.nt }

// Powers returns a copy of the relative node powers.
func (d *OneDOneD) Powers() []float64 { return append([]float64(nil), d.powers...) }

// Quotas returns a copy of the number of lower tiles each node owns:
// Quotas(powers, NT).
func (d *OneDOneD) Quotas() []int { return append([]int(nil), d.quotas...) }

// Slabs returns the column-based partition: the nodes of each vertical slab,
// by increasing power.
func (d *OneDOneD) Slabs() [][]int {
	s := make([][]int, len(d.groups))
	for g, ns := range d.groups {
		s[g] = append([]int(nil), ns...)
	}
	return s
}

// ColumnSlabs returns, for each tile column, the slab it was dealt to (before
// the final correction, which moves single tiles only).
func (d *OneDOneD) ColumnSlabs() []int { return append([]int(nil), d.colGroup...) }

// Corrected returns the number of tiles the final correction moved off the
// pure 1D-1D pattern to reach the quotas exactly.
func (d *OneDOneD) Corrected() int { return d.corrected }
