package vecchia

import (
	"fmt"
	"slices"
)

// Blocks are the groups of a Vecchia approximation: block b is the sorted
// list of ordered locations Idx[Start[b]:Start[b+1]], its responses stored
// as ^i (see block.Response); every location is the response of exactly
// one block, and the other members of a block are the union of its
// responses' conditioning sets.
type Blocks struct {
	Idx   []int32
	Start []int64
	// Chunks are the first block of each region of the grouping (and the
	// number of blocks last): a block never spans two regions.
	Chunks []int
}

// Len returns the number of blocks.
func (b *Blocks) Len() int { return len(b.Start) - 1 }

// Size returns block i's number of members u and of responses r.
func (b *Blocks) Size(i int) (u, r int) {
	idx := b.Idx[b.Start[i]:b.Start[i+1]]
	for _, v := range idx {
		if v < 0 {
			r++
		}
	}
	return len(idx), r
}

// Bytes returns the memory the blocks hold.
func (b *Blocks) Bytes() int64 { return 4*int64(len(b.Idx)) + 8*int64(len(b.Start)) }

// Grouping says how Group merges locations into blocks.
type Grouping struct {
	// Off makes one block per location (u = m+1): the plain Vecchia
	// approximation on the given sets, as GpGp's vecchia_meanzero_loglik.
	Off bool
	// MaxSize bounds a block's members (0: DefaultMaxSize).
	MaxSize int
	// Entry and Grad weigh the cost model (0: the defaults): a block of u
	// members and r responses costs Entry u(u+1)/2 + u^3/3 + Grad u^2 r
	// (covariance entries, Cholesky factor, the gradient and information
	// solves), in flops.
	Entry, Grad float64
	// Tries is how many of a location's nearest conditioning points'
	// blocks it may join (0: DefaultTries).
	Tries int
	// TaskWork is the modelled work of one task, in the cost model's
	// flops (0: DefaultTaskWork, a few milliseconds on one core).
	TaskWork float64
	// Region is the number of locations per region of the merge (0:
	// DefaultRegion; see Group): a location joins blocks of its own
	// region only, and the regions are merged in parallel.
	Region int
	// Workers is how many threads merge the regions (0: one). The blocks
	// do not depend on it.
	Workers int
}

// Defaults of Grouping.
const (
	DefaultMaxSize  = 160
	DefaultEntry    = 300
	DefaultGrad     = 8
	DefaultTries    = 3
	DefaultTaskWork = 4e7
	DefaultRegion   = 8192
)

func (g Grouping) withDefaults() Grouping {
	if g.MaxSize <= 0 {
		g.MaxSize = DefaultMaxSize
	}
	if g.Entry <= 0 {
		g.Entry = DefaultEntry
	}
	if g.Grad <= 0 {
		g.Grad = DefaultGrad
	}
	if g.Tries <= 0 {
		g.Tries = DefaultTries
	}
	if g.TaskWork <= 0 {
		g.TaskWork = DefaultTaskWork
	}
	if g.Region <= 0 {
		g.Region = DefaultRegion
	}
	return g
}

// cost is the cost model of a block of u members and r responses.
func (g Grouping) cost(u, r int) float64 {
	fu, fr := float64(u), float64(r)
	return g.Entry*fu*(fu+1)/2 + fu*fu*fu/3 + g.Grad*fu*fu*fr
}

// Group merges the n ordered locations into blocks given their
// conditioning sets: row i of the flat sets (stride m, entries < i,
// nearest first, -1 after the last) is location i's set.
//
// The locations are first split into regions (regions): the first K =
// max(1, n/Region) locations are the roots, and every later location
// belongs to the region of its nearest conditioning point; K depends on
// n and Region only. Within a region the merge is greedy, in the
// ordering: location i joins the block of one of its Tries nearest
// conditioning points of the same region when that lowers the modelled
// cost (cost(U + U_i) <= cost(U) + cost(U_i), U_i = {i} and its set, the
// block with the largest saving wins, ties to the nearest point) and the
// block stays within MaxSize members; otherwise it starts a block. The
// regions are grouped by g.Workers threads at once, each region by one;
// blocks are numbered region by region (Blocks.Chunks), in the order of
// their first location within a region. The result depends only on the
// sets and Region, not on the workers or the ranks (a rank of a
// distributed run groups whole regions, Distribute): deterministic.
func Group(n, m int, sets []int32, g Grouping) (*Blocks, error) {
	if len(sets) != n*m {
		return nil, fmt.Errorf("vecchia: %d set entries for %d locations of %d neighbours", len(sets), n, m)
	}
	g = g.withDefaults()
	rg, err := regions(n, m, sets, g.Region)
	if err != nil {
		return nil, err
	}
	return g.groupRegions(rg, 0, rg.count(), m, func(i int32) []int32 { return sets[int(i)*m : int(i+1)*m] }), nil
}

// groupRegions groups the regions r0 .. r1-1 of rg, row(i) the set of
// location i, on g.Workers threads.
func (g Grouping) groupRegions(rg *regionSet, r0, r1, m int, row func(i int32) []int32) *Blocks {
	own := make([]int32, len(rg.root)) // block of each location, within its region
	groups := make([][]group, r1-r0)
	parallel(r1-r0, g.Workers, func(r int) { groups[r] = g.region(rg, int32(r0+r), m, row, own) })
	return pack(groups, g.Workers)
}

// group is one block while Group merges: its sorted members and its
// responses, in increasing order.
type group struct {
	members, resp []int32
}

// regionSet is the split of the locations into regions: root[i] is
// location i's region, and loc[start[r]:start[r+1]] are region r's
// locations in increasing order.
type regionSet struct {
	root  []int32
	loc   []int32
	start []int32
}

func (rg *regionSet) count() int { return len(rg.start) - 1 }

// regions splits the n locations into max(1, n/size) regions: the first
// K locations are the roots of their own region, and location i >= K
// belongs to the region of the first member of its set (its nearest
// conditioning point; region 0 for an empty set). It checks that every
// set holds earlier locations only.
func regions(n, m int, sets []int32, size int) (*regionSet, error) {
	k := max(1, n/size)
	root := make([]int32, n)
	for i := 0; i < n; i++ {
		row := sets[i*m : (i+1)*m]
		for _, j := range row {
			if j < 0 {
				break
			}
			if j >= int32(i) {
				return nil, fmt.Errorf("vecchia: the set of location %d holds %d, not an earlier location", i, j)
			}
		}
		switch {
		case i < k:
			root[i] = int32(i)
		case m > 0 && row[0] >= 0:
			root[i] = root[row[0]]
		}
	}
	return regionsOf(root, k), nil
}

// regionsOf returns the k regions of the locations, root[i] location
// i's region.
func regionsOf(root []int32, k int) *regionSet {
	rg := &regionSet{root: root, loc: make([]int32, len(root)), start: make([]int32, k+1)}
	for _, r := range root {
		rg.start[r+1]++
	}
	for r := 0; r < k; r++ {
		rg.start[r+1] += rg.start[r]
	}
	fill := slices.Clone(rg.start[:k])
	for i, r := range rg.root {
		rg.loc[fill[r]] = int32(i)
		fill[r]++
	}
	return rg
}

// region merges region r's locations into blocks (Group), in the order
// of their first location, and sets own of each of them to its block's
// index among them.
func (g Grouping) region(rg *regionSet, r int32, m int, set func(i int32) []int32, own []int32) []group {
	var blocks []group
	ui := make([]int32, 0, m+1)
	var best []int32
	for _, i := range rg.loc[rg.start[r]:rg.start[r+1]] {
		row := set(i)
		ui = sortedSet(ui, row, i)
		target, gain := int32(-1), 0.0
		if !g.Off {
			ci := g.cost(len(ui), 1)
			for t := 0; t < g.Tries && t < m && row[t] >= 0; t++ {
				if rg.root[row[t]] != r {
					continue
				}
				b := own[row[t]]
				if b == target {
					continue
				}
				bk := &blocks[b]
				u := unionSize(bk.members, ui)
				if u > g.MaxSize {
					continue
				}
				nr := len(bk.resp)
				if s := g.cost(len(bk.members), nr) + ci - g.cost(u, nr+1); s >= 0 && (target < 0 || s > gain) {
					target, gain = b, s
				}
			}
		}
		if target < 0 {
			own[i] = int32(len(blocks))
			blocks = append(blocks, group{members: slices.Clone(ui), resp: []int32{i}})
			continue
		}
		own[i] = target
		bk := &blocks[target]
		best = mergeSorted(best[:0], bk.members, ui)
		bk.members = append(bk.members[:0], best...)
		bk.resp = append(bk.resp, i)
	}
	return blocks
}

// sortedSet returns in dst the members of set row (nearest first, -1
// after the last; every member earlier than i) and i, in increasing
// order. In a maxmin ordering a location's nearer neighbours mostly came
// later than its farther ones, so the row read backwards is nearly
// sorted: an insertion sort moves few entries.
func sortedSet(dst, row []int32, i int32) []int32 {
	dst = dst[:0]
	n := 0
	for n < len(row) && row[n] >= 0 {
		n++
	}
	for k := n - 1; k >= 0; k-- {
		v := row[k]
		q := len(dst)
		dst = append(dst, v)
		for q > 0 && dst[q-1] > v {
			dst[q] = dst[q-1]
			q--
		}
		dst[q] = v
	}
	return append(dst, i) // after every member of its set
}

// unionSize returns |a ∪ b| for sorted a and b (a merge of the two).
func unionSize(a, b []int32) int {
	i, j, u := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		di, dj := 0, 0 // set without a branch (conditional moves): the two lists interleave at random
		if x <= y {
			di = 1
		}
		if y <= x {
			dj = 1
		}
		i, j, u = i+di, j+dj, u+1
	}
	return u + len(a) - i + len(b) - j
}

// mergeSorted appends the sorted union of sorted a and b to dst.
func mergeSorted(dst, a, b []int32) []int32 {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			dst = append(dst, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, a[i])
			i, j = i+1, j+1
		}
	}
	return dst
}

// pack flattens the regions' blocks, region by region (Blocks.Chunks),
// marking each location as the response of its own block: the offsets
// first, then the copies by workers threads in chunks of blocks (the same
// result for any number).
func pack(groups [][]group, workers int) *Blocks {
	type ref struct{ r, k int32 }
	nb := 0
	for _, gr := range groups {
		nb += len(gr)
	}
	order := make([]ref, 0, nb)
	start := make([]int64, 1, nb+1)
	chunks := make([]int, 1, len(groups)+1)
	for r, gr := range groups {
		for k := range gr {
			order = append(order, ref{int32(r), int32(k)})
			start = append(start, start[len(start)-1]+int64(len(gr[k].members)))
		}
		chunks = append(chunks, len(order))
	}
	bl := &Blocks{Idx: make([]int32, start[nb]), Start: start, Chunks: chunks}
	const chunk = 4096
	parallel((nb+chunk-1)/chunk, workers, func(c int) {
		for b := c * chunk; b < min(nb, (c+1)*chunk); b++ {
			g := &groups[order[b].r][order[b].k]
			dst := bl.Idx[start[b]:start[b+1]]
			k := 0
			for q, v := range g.members {
				if k < len(g.resp) && g.resp[k] == v {
					v = ^v
					k++
				}
				dst[q] = v
			}
			*g = group{}
		}
	})
	return bl
}
