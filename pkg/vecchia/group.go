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
	// Chunks are the first block of each cell of the grouping (and the
	// number of blocks last): a block never spans two cells.
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
	// Chunk bounds the locations of a cell (0: n/64 for n locations,
	// within MinChunk .. MaxChunk): the cells are the nodes of a k-d tree
	// of the locations at the first depth where each holds at most Chunk
	// (cellsOf); a location joins only blocks begun in its own cell, tasks
	// and groups of tasks never span two cells, and a rank of a
	// distributed run prepares and evaluates whole cells (Distribute). The
	// plan does not depend on the number of ranks or workers.
	Chunk int
}

// Defaults of Grouping.
const (
	DefaultMaxSize  = 160
	DefaultEntry    = 300
	DefaultGrad     = 8
	DefaultTries    = 3
	DefaultTaskWork = 4e7
	MinChunk        = 1024
	MaxChunk        = 4096
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
	return g
}

// chunk returns the chunk size of the grouping of n locations.
func (g Grouping) chunk(n int) int {
	if g.Chunk > 0 {
		return g.Chunk
	}
	return min(MaxChunk, max(MinChunk, (n+63)/64))
}

// cost is the cost model of a block of u members and r responses.
func (g Grouping) cost(u, r int) float64 {
	fu, fr := float64(u), float64(r)
	return g.Entry*fu*(fu+1)/2 + fu*fu*fu/3 + g.Grad*fu*fu*fr
}

// Group merges the n ordered locations into blocks given their
// conditioning sets: row i of the flat sets (stride m, entries < i,
// nearest first, -1 after the last) is location i's set; cell[i] is
// location i's cell (cellsOf) and nc the number of cells.
//
// The merge is greedy, in the ordering, cell by cell: location i joins
// the block of one of its Tries nearest conditioning points, when that
// block was begun in i's cell, if that lowers the modelled cost
// (cost(U + U_i) <= cost(U) + cost(U_i), U_i = {i} and its set, the block
// with the largest saving wins, ties to the nearest point) and the block
// stays within MaxSize members; otherwise it starts a block. Blocks are
// numbered by cell, then in the order of their first location. The result
// depends only on the sets and the cells: deterministic.
func Group(cell []int32, nc, m int, sets []int32, g Grouping) (*Blocks, error) {
	n := len(cell)
	if len(sets) != n*m {
		return nil, fmt.Errorf("vecchia: %d set entries for %d locations of %d neighbours", len(sets), n, m)
	}
	return groupCells(cell, 0, nc, m, func(i int) []int32 { return sets[i*m : (i+1)*m] }, g)
}

// groupCells groups the locations of the cells c0 .. c1-1, row(i) the
// set (m entries) of location i.
func groupCells(cell []int32, c0, c1, m int, row func(i int) []int32, g Grouping) (*Blocks, error) {
	g = g.withDefaults()
	start := make([]int, c1-c0+1) // the locations of each cell, in the ordering
	for _, c := range cell {
		if int(c) >= c0 && int(c) < c1 {
			start[int(c)-c0+1]++
		}
	}
	for c := 1; c < len(start); c++ {
		start[c] += start[c-1]
	}
	locs := make([]int32, start[len(start)-1])
	next := slices.Clone(start)
	for i, c := range cell {
		if int(c) >= c0 && int(c) < c1 {
			locs[next[int(c)-c0]] = int32(i)
			next[int(c)-c0]++
		}
	}
	own := make([]int32, len(cell)) // block of each location, in its cell
	out := &Blocks{Start: []int64{0}, Chunks: []int{0}}
	for c := c0; c < c1; c++ {
		if err := groupCell(out, locs[start[c-c0]:start[c-c0+1]], cell, own, m, row, g); err != nil {
			return nil, err
		}
		out.Chunks = append(out.Chunks, out.Len())
	}
	return out, nil
}

// groupCell appends to out the blocks of the locations locs (one cell,
// in the ordering), own the block (within the cell) of each location.
func groupCell(out *Blocks, locs, cell, own []int32, m int, row func(i int) []int32, g Grouping) error {
	var members [][]int32 // sorted members of each block (responses not marked)
	var resp []int32      // responses per block
	ui := make([]int32, 0, m+1)
	var best []int32
	for _, i32 := range locs {
		i := int(i32)
		set := row(i)
		ui = append(ui[:0], i32)
		for _, j := range set {
			if j < 0 {
				break
			}
			if j >= i32 {
				return fmt.Errorf("vecchia: the set of location %d holds %d, not an earlier location", i, j)
			}
			ui = append(ui, j)
		}
		slices.Sort(ui)
		target, gain := int32(-1), 0.0
		if !g.Off {
			ci := g.cost(len(ui), 1)
			for t := 0; t < g.Tries && t < m && set[t] >= 0; t++ {
				if cell[set[t]] != cell[i] {
					continue // a block of another cell
				}
				b := own[set[t]]
				if b == target {
					continue
				}
				u := unionSize(members[b], ui)
				if u > g.MaxSize {
					continue
				}
				if s := g.cost(len(members[b]), int(resp[b])) + ci - g.cost(u, int(resp[b])+1); s >= 0 && (target < 0 || s > gain) {
					target, gain = b, s
				}
			}
		}
		if target < 0 {
			own[i] = int32(len(members))
			members = append(members, slices.Clone(ui))
			resp = append(resp, 1)
			continue
		}
		own[i] = target
		best = mergeSorted(best[:0], members[target], ui)
		members[target] = append(members[target][:0], best...)
		resp[target]++
	}
	pack(out, cell, own, members, locs)
	return nil
}

// unionSize returns |a ∪ b| for sorted a and b (a merge of the two).
func unionSize(a, b []int32) int {
	i, j, u := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		if x <= y {
			i++
		}
		if y <= x {
			j++
		}
		u++
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

// pack appends the blocks of a cell, its locations locs, to out,
// marking each location as the response of its own block.
func pack(out *Blocks, cell, own []int32, members [][]int32, locs []int32) {
	total := 0
	for _, mb := range members {
		total += len(mb)
	}
	out.Idx = slices.Grow(out.Idx, total)
	var c int32 = -1
	if len(locs) > 0 {
		c = cell[locs[0]]
	}
	for b, mb := range members {
		for _, v := range mb {
			if cell[v] == c && own[v] == int32(b) {
				v = ^v
			}
			out.Idx = append(out.Idx, v)
		}
		out.Start = append(out.Start, int64(len(out.Idx)))
	}
}
