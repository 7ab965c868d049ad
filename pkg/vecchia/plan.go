package vecchia

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// Plan is one data set prepared for the Vecchia likelihood: its locations
// in the Vecchia ordering with their observations and covariates, the
// conditioning sets grouped into blocks, and the blocks cut into tasks.
// It depends on the data only (not on theta): it is built once per fit.
//
// The bivariate Matérn has two values (points 2i and 2i+1) per location:
// the ordering, the sets and the grouping are those of the locations, and
// each block holds both points of each of its locations.
type Plan struct {
	Model  likelihood.Model
	Metric matern.Metric
	Nugget float64 // the fixed nugget (a theta that carries tau2 overrides it)
	REML   bool

	N    int     // points (observations)
	Perm []int32 // ordered location k is the problem's location Perm[k]
	Pts  matern.Points
	Obs  []float64
	X    []float64 // covariates, row-major, NCov per point
	NCov int
	M    int // conditioning set size the blocks were made from

	Blocks *Blocks // over points
	// Tasks cuts the blocks into tasks: task t runs blocks
	// Tasks[t] .. Tasks[t+1]-1, of modelled work TaskWork[t] (flops,
	// Grouping's cost model).
	Tasks    []int
	TaskWork []float64
	// Groups cuts the tasks into groups, whose partial sums one task
	// adds up before the ranks exchange them: group g is tasks
	// Groups[g] .. Groups[g+1]-1 (GroupTasks or fewer, within a region);
	// region c of the grouping (Group) is groups ChunkGroups[c] ..
	// ChunkGroups[c+1]-1. A rank owns whole regions.
	Groups      []int
	ChunkGroups []int
	ChunkLocs   []int // points of each region (for the ranks' shares)
	// RMin and RMax bound the distances between two points of a block:
	// RMin is the smallest nonzero distance from a location to its
	// nearest conditioning point (the closest pair of distinct
	// locations), RMax the diameter of the points' bounding box.
	RMin, RMax float64
	// UMax and RMaxResp are the largest block's members and responses.
	UMax, RespMax int

	// On a rank of a scattered plan (Scatter), Blocks, Pts, Obs, X and
	// Perm are nil: part holds the data of the rank's blocks, cut for
	// partSize ranks, and nblocks is the whole plan's number of blocks.
	part     *block.Data
	partSize int
	nblocks  int
}

// problem returns the likelihood problem of the plan's model (for the
// nugget and parameter conventions).
func (p *Plan) problem() likelihood.Problem {
	return likelihood.Problem{Model: p.Model, Metric: p.Metric, Nugget: p.Nugget, REML: p.REML}
}

// per returns the number of points per location.
func (p *Plan) per() int {
	if p.Model == likelihood.BivariateMatern {
		return 2
	}
	return 1
}

// NewPlan prepares problem pr for the Vecchia likelihood with the
// ordering perm (ordered location k is pr's location perm[k]; nil: pr's
// order) and the conditioning sets of the ordered locations (flat, stride
// m, entries < the row, nearest first, -1 padding), grouped by g. For the
// bivariate Matérn, perm and the sets are over locations (point pairs).
func NewPlan(pr likelihood.Problem, perm []int32, m int, sets []int32, g Grouping) (*Plan, error) {
	if err := pr.Model.Validate(); err != nil {
		return nil, err
	}
	p := &Plan{Model: pr.Model, Metric: pr.Metric, Nugget: pr.Nugget, REML: pr.REML, N: len(pr.Obs), NCov: len(pr.Covariates), M: m}
	if pr.Points.Len() != p.N {
		return nil, fmt.Errorf("vecchia: %d locations for %d observations", pr.Points.Len(), p.N)
	}
	per := p.per()
	if p.N%per != 0 {
		return nil, fmt.Errorf("vecchia: kernel %s needs %d values per location, got %d values", pr.Model, per, p.N)
	}
	nl := p.N / per
	if perm == nil {
		perm = make([]int32, nl)
		for i := range perm {
			perm[i] = int32(i)
		}
	}
	if len(perm) != nl {
		return nil, fmt.Errorf("vecchia: an ordering of %d locations for %d", len(perm), nl)
	}
	p.Perm = perm
	p.permute(pr, g.Workers)
	lb, err := Group(nl, m, sets, g)
	if err != nil {
		return nil, err
	}
	p.Blocks = expand(lb, per)
	p.RMin = closest(p.Metric, p.Pts, per, m, sets, g.Workers)
	p.RMax = matern.MaxDistance(p.Metric, p.Pts)
	for b := 0; b < p.Blocks.Len(); b++ {
		u, r := p.Blocks.Size(b)
		p.UMax, p.RespMax = max(p.UMax, u), max(p.RespMax, r)
	}
	p.setCuts(cutChunks(p.Blocks, g))
	return p, nil
}

// cuts returns the plan's task, group and region boundaries.
func (p *Plan) cuts() cuts {
	return cuts{Tasks: p.Tasks, TaskWork: p.TaskWork, Groups: p.Groups, ChunkGroups: p.ChunkGroups, ChunkLocs: p.ChunkLocs}
}

// setCuts sets the plan's task, group and region boundaries.
func (p *Plan) setCuts(c cuts) {
	p.Tasks, p.TaskWork, p.Groups, p.ChunkGroups, p.ChunkLocs = c.Tasks, c.TaskWork, c.Groups, c.ChunkGroups, c.ChunkLocs
}

// permute copies pr's points, observations and covariates in the
// Vecchia ordering, workers threads each a range of the ordering.
func (p *Plan) permute(pr likelihood.Problem, workers int) {
	per := p.per()
	const chunk = 1 << 15
	take := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(v))
		parallel((len(p.Perm)+chunk-1)/chunk, workers, func(c int) {
			for k := c * chunk; k < min(len(p.Perm), (c+1)*chunk); k++ {
				o := int(p.Perm[k])
				for s := 0; s < per; s++ {
					out[per*k+s] = v[per*o+s]
				}
			}
		})
		return out
	}
	p.Pts = matern.Points{X: take(pr.Points.X), Y: take(pr.Points.Y), Z: take(pr.Points.Z), T: take(pr.Points.T)}
	p.Obs = take(pr.Obs)
	if p.NCov > 0 {
		p.X = make([]float64, p.N*p.NCov)
		for c, col := range pr.Covariates {
			v := take(col)
			for i, x := range v {
				p.X[i*p.NCov+c] = x
			}
		}
	}
}

// expand turns blocks of locations into blocks of points, per points per
// location (location i: points per*i .. per*i+per-1).
func expand(b *Blocks, per int) *Blocks {
	if per == 1 {
		return b
	}
	out := &Blocks{Idx: make([]int32, 0, per*len(b.Idx)), Start: make([]int64, 1, len(b.Start)), Chunks: b.Chunks}
	for k := 0; k < b.Len(); k++ {
		for _, v := range b.Idx[b.Start[k]:b.Start[k+1]] {
			i, resp := v, false
			if v < 0 {
				i, resp = ^v, true
			}
			for s := 0; s < per; s++ {
				q := int32(per)*i + int32(s)
				if resp {
					q = ^q
				}
				out.Idx = append(out.Idx, q)
			}
		}
		out.Start = append(out.Start, int64(len(out.Idx)))
	}
	return out
}

// closest returns the smallest nonzero distance between a location and
// a member of its conditioning set (flat sets, stride m, over the ordered
// points pts, per a location): the closest pair of distinct locations
// when the sets hold the nearest earlier locations (the closest pair's
// later point has the other as its nearest earlier one). It returns 0
// when every distance is 0. workers threads share the locations (a
// minimum: the same value for any number).
//
// The rows are visited cell by cell of a grid over the locations' first
// two coordinates (spatialRows), not in the ordering: consecutive rows
// then read the same few points, where in a maxmin ordering each member
// of a set is a cache miss (at 10^6 points, m = 60, the ordering's rows
// took about 3 times as long on an Intel Xeon, 2026-11-27). The minimum
// does not depend on the order in which the rows are visited.
func closest(metric matern.Metric, pts matern.Points, per, m int, sets []int32, workers int) float64 {
	n := len(sets) / max(m, 1)
	rows := spatialRows(pts.X, pts.Y, per, n)
	if metric == matern.Euclidean && pts.Z == nil {
		return finite(math.Sqrt(closestPlanar(pts.X, pts.Y, per, m, sets, rows, workers)))
	}
	d, fin := pairDist(metric, pts, per, func(q int) int { return q })
	row := func(k int) (int, []int32) {
		i := int(rows[k])
		return i, sets[i*m : (i+1)*m]
	}
	return finite(fin(closestRows(n, row, d, workers)))
}

// closestPlanar is closestRows for planar Euclidean points (x, y),
// visiting rows rows[0], rows[1], ...: the smallest nonzero squared
// distance dx*dx + dy*dy (pairDist's), +Inf when there is none.
func closestPlanar(x, y []float64, per, m int, sets, rows []int32, workers int) float64 {
	return minChunks(len(rows), workers, func(k0, k1 int) float64 {
		best := math.Inf(1)
		for _, i := range rows[k0:k1] {
			a := per * int(i)
			xa, ya := x[a], y[a]
			for _, j := range sets[int(i)*m : (int(i)+1)*m] {
				if j < 0 {
					break
				}
				b := per * int(j)
				dx, dy := xa-x[b], ya-y[b]
				if d := dx*dx + dy*dy; d > 0 && d < best {
					best = d
				}
			}
		}
		return best
	})
}

// spatialRows returns the locations 0..n-1 (location i at point per*i
// of the coordinates x and y) cell by cell of a 2^b x 2^b grid over
// their bounding box (about 16 locations a cell, b <= 10), the cells in
// Morton (z-) order, each cell's locations in increasing order: a
// counting sort, 4 bytes a location.
func spatialRows(x, y []float64, per, n int) []int32 {
	b := 1
	for b < 10 && 1<<(2*b) < n/16 {
		b++
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range n {
		x0, x1 = min(x0, x[per*i]), max(x1, x[per*i])
		y0, y1 = min(y0, y[per*i]), max(y1, y[per*i])
	}
	side := float64(int(1) << b)
	cell := func(i int) int {
		q := func(v, lo, hi float64) uint32 {
			if !(hi > lo) {
				return 0
			}
			return uint32(min(max((v-lo)/(hi-lo)*side, 0), side-1))
		}
		return int(interleave(q(x[per*i], x0, x1)) | interleave(q(y[per*i], y0, y1))<<1)
	}
	start := make([]int32, 1<<(2*b)+1)
	for i := range n {
		start[cell(i)+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	rows := make([]int32, n)
	for i := range n {
		c := cell(i)
		rows[start[c]] = int32(i)
		start[c]++
	}
	return rows
}

// interleave spreads the low 16 bits of v to the even bits of the
// result (Morton code).
func interleave(v uint32) uint32 {
	v &= 0xffff
	v = (v | v<<8) & 0x00ff00ff
	v = (v | v<<4) & 0x0f0f0f0f
	v = (v | v<<2) & 0x33333333
	v = (v | v<<1) & 0x55555555
	return v
}

// closestRows returns the smallest nonzero d(i, j) between a location i
// and a member j of its set, over n rows, row(k) the location and set
// (nearest first, -1 after the last) of row k; +Inf when there is none.
// workers threads share the rows (a minimum: the same value for any
// number).
func closestRows(n int, row func(k int) (int, []int32), dist func(i, j int) float64, workers int) float64 {
	return minChunks(n, workers, func(k0, k1 int) float64 {
		best := math.Inf(1)
		for k := k0; k < k1; k++ {
			i, set := row(k)
			for _, j := range set {
				if j < 0 {
					break
				}
				if d := dist(i, int(j)); d > 0 && d < best {
					best = d
				}
			}
		}
		return best
	})
}

// minChunks returns the minimum of f(k0, k1) over the chunks [k0, k1) of
// 2^14 rows that cover 0..n-1, +Inf when n = 0; workers threads share
// the chunks (a minimum: the same value for any number).
func minChunks(n, workers int, f func(k0, k1 int) float64) float64 {
	const chunk = 1 << 14
	chunks := (n + chunk - 1) / chunk
	least := make([]float64, chunks)
	parallel(chunks, workers, func(c int) { least[c] = f(c*chunk, min(n, (c+1)*chunk)) })
	best := math.Inf(1)
	for _, d := range least {
		best = min(best, d)
	}
	return best
}

// finite returns x, or 0 when it is infinite (closest found no pair).
func finite(x float64) float64 {
	if math.IsInf(x, 0) {
		return 0
	}
	return x
}

// pairDist returns d(i, j) over ordered locations i and j (of per
// points each, ordered point q being pts's at(q)) and fin: fin of the
// smallest nonzero d over pairs is their smallest nonzero distance. For
// planar Euclidean points d is the squared distance and fin the square
// root (the same value: the root is correctly rounded and monotone, and
// matern.Distance is the root of the same sum), cheaper per pair.
func pairDist(metric matern.Metric, pts matern.Points, per int, at func(q int) int) (d func(i, j int) float64, fin func(float64) float64) {
	if metric == matern.Euclidean && pts.Z == nil {
		x, y := pts.X, pts.Y
		return func(i, j int) float64 {
			a, b := at(per*i), at(per*j)
			dx, dy := x[a]-x[b], y[a]-y[b]
			return dx*dx + dy*dy
		}, math.Sqrt
	}
	return func(i, j int) float64 { return matern.Distance(metric, pts, at(per*i), pts, at(per*j)) }, func(v float64) float64 { return v }
}

// parallel runs fn(0) .. fn(count-1) on workers threads (at least one),
// each taking the next index.
func parallel(count, workers int, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(workers, 1), count) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1)) - 1; k < count; k = int(next.Add(1)) - 1 {
				fn(k)
			}
		}()
	}
	wg.Wait()
}

// cuts are the task, group and region boundaries of a plan (Plan's
// Tasks, TaskWork, Groups and ChunkGroups).
type cuts struct {
	Tasks       []int
	TaskWork    []float64
	Groups      []int
	ChunkGroups []int
	ChunkLocs   []int // responses (points) of each region
}

// cutChunks cuts the blocks b, region by region (b.Chunks), into tasks
// of about g.TaskWork flops of modelled work (Grouping's cost model, at
// least one block each) and the tasks of each region into groups of
// GroupTasks; the indices are relative to b's first block.
func cutChunks(b *Blocks, g Grouping) cuts {
	g = g.withDefaults()
	c := cuts{Tasks: []int{0}, Groups: []int{0}, ChunkGroups: []int{0}}
	for ch := 0; ch+1 < len(b.Chunks); ch++ {
		first := len(c.Tasks) - 1
		work, locs := 0.0, 0
		for blk := b.Chunks[ch]; blk < b.Chunks[ch+1]; blk++ {
			u, r := b.Size(blk)
			work += g.cost(u, r)
			locs += r
			if work >= g.TaskWork || blk+1 == b.Chunks[ch+1] {
				c.Tasks = append(c.Tasks, blk+1)
				c.TaskWork = append(c.TaskWork, work)
				work = 0
			}
		}
		for t := first + GroupTasks; t < len(c.Tasks)-1; t += GroupTasks {
			c.Groups = append(c.Groups, t)
		}
		c.Groups = append(c.Groups, len(c.Tasks)-1)
		c.ChunkGroups = append(c.ChunkGroups, len(c.Groups)-1)
		c.ChunkLocs = append(c.ChunkLocs, locs)
	}
	return c
}
