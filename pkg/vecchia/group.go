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
}

// Defaults of Grouping.
const (
	DefaultMaxSize  = 160
	DefaultEntry    = 300
	DefaultGrad     = 8
	DefaultTries    = 3
	DefaultTaskWork = 4e7
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

// cost is the cost model of a block of u members and r responses.
func (g Grouping) cost(u, r int) float64 {
	fu, fr := float64(u), float64(r)
	return g.Entry*fu*(fu+1)/2 + fu*fu*fu/3 + g.Grad*fu*fu*fr
}

// Group merges the n ordered locations into blocks given their
// conditioning sets: row i of the flat sets (stride m, entries < i,
// nearest first, -1 after the last) is location i's set.
//
// The merge is greedy, in the ordering: location i joins the block of one
// of its Tries nearest conditioning points when that lowers the modelled
// cost (cost(U + U_i) <= cost(U) + cost(U_i), U_i = {i} and its set, the
// block with the largest saving wins, ties to the nearest point) and the
// block stays within MaxSize members; otherwise it starts a block. Blocks
// are numbered in the order of their first location. The result depends
// only on the sets: deterministic.
func Group(n, m int, sets []int32, g Grouping) (*Blocks, error) {
	if len(sets) != n*m {
		return nil, fmt.Errorf("vecchia: %d set entries for %d locations of %d neighbours", len(sets), n, m)
	}
	g = g.withDefaults()
	own := make([]int32, n) // block of each location
	var members [][]int32   // sorted members of each block (responses not marked)
	var resp []int32        // responses per block
	ui := make([]int32, 0, m+1)
	var best []int32
	for i := 0; i < n; i++ {
		row := sets[i*m : (i+1)*m]
		ui = append(ui[:0], int32(i))
		for _, j := range row {
			if j < 0 {
				break
			}
			if j >= int32(i) {
				return nil, fmt.Errorf("vecchia: the set of location %d holds %d, not an earlier location", i, j)
			}
			ui = append(ui, j)
		}
		slices.Sort(ui)
		target, gain := int32(-1), 0.0
		if !g.Off {
			ci := g.cost(len(ui), 1)
			for t := 0; t < g.Tries && t < m && row[t] >= 0; t++ {
				b := own[row[t]]
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
	return pack(n, own, members), nil
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

// pack flattens the blocks, marking each location as the response of
// its own block.
func pack(n int, own []int32, members [][]int32) *Blocks {
	total := 0
	for _, mb := range members {
		total += len(mb)
	}
	bl := &Blocks{Idx: make([]int32, 0, total), Start: make([]int64, 1, len(members)+1)}
	for b, mb := range members {
		for _, v := range mb {
			if own[v] == int32(b) {
				v = ^v
			}
			bl.Idx = append(bl.Idx, v)
		}
		bl.Start = append(bl.Start, int64(len(bl.Idx)))
	}
	_ = n
	return bl
}
