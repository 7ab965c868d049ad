package vecchia

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// Setup says how Prepare orders a problem's locations and finds their
// conditioning sets.
type Setup struct {
	M        int          // conditioning set size (the m nearest earlier locations)
	Order    order.Method // the ordering ("" = maxmin)
	Seed     uint64       // the random ordering's seed
	Workers  int          // threads of the neighbour search
	Grouping Grouping
	// Perm and Sets, when Sets is not nil, are the ordering and the
	// conditioning sets to use as they are (a sets file's): M, Order and
	// Seed are then ignored. Perm alone is the ordering to find the M
	// nearest earlier locations in (Order and Seed ignored; Prepare only).
	Perm []int
	Sets *neighbors.Sets
	// Wide, when larger than M (and no Sets are given), is the size of
	// the sets the search finds: the plan is built from their first M
	// entries (neighbors.Sets.Prefix: bitwise the sets of a search at
	// M), and Prepared.Wide keeps the wide ones for a later plan with
	// them (the approximation check's), so that one search serves both.
	Wide int
}

// Prepared is a problem's plan with the ordering and sets it was made
// from (for --vecchia-sets-out).
type Prepared struct {
	Plan *Plan
	Perm []int
	Sets *neighbors.Sets
	// Wide are the sets of Setup.Wide nearest that Sets are the prefix
	// of (nil without Setup.Wide).
	Wide *neighbors.Sets
	// Seconds spent ordering, finding the sets and grouping (the plan).
	OrderSeconds, SetsSeconds, PlanSeconds float64
}

// FrameOf returns the frame in which model measures distance at theta:
// the anisotropic Matérn's rotated and scaled plane, the space-time
// Matérn's time scale (embed.SpaceTimeScale), the metric alone for the
// others. The ordering and the neighbours are computed in it.
func FrameOf(model likelihood.Model, theta []float64) embed.Frame {
	switch {
	case model == likelihood.AnisoMatern && len(theta) >= 5:
		return embed.Frame{Angle: theta[3], Ratio: math.Max(1, theta[4])}
	case model == likelihood.SpaceTimeMatern && len(theta) >= 7:
		return embed.Frame{TimeScale: embed.SpaceTimeScale(matern.SpaceTime{Sigma2: theta[0], Beta: theta[1], Nu: theta[2],
			BetaT: theta[3], Alpha: theta[4], Sep: theta[5], Delta: theta[6]})}
	}
	return embed.Frame{}
}

// Prepare builds the plan of problem pr: its locations embedded in the
// frame of the model at theta (FrameOf), ordered by s.Order, each
// conditioned on its s.M nearest earlier locations (a k-d tree search),
// grouped by s.Grouping; or with the ordering and sets of s.Sets. With
// s.Wide > s.M the search finds the s.Wide nearest and the plan is made
// from their first s.M (Prepared.Wide keeps the wide sets). For the
// bivariate Matérn the locations are the point pairs.
func Prepare(pr likelihood.Problem, theta []float64, s Setup) (*Prepared, error) {
	per := 1
	if pr.Model == likelihood.BivariateMatern {
		per = 2
	}
	locs := everyOther(pr.Points, per)
	nl := locs.Len()
	perm, sets := s.Perm, s.Sets
	out := &Prepared{}
	if sets == nil {
		if s.M < 1 {
			return nil, fmt.Errorf("vecchia: conditioning set size %d, want >= 1", s.M)
		}
		c, err := embed.Embed(locs, pr.Metric, FrameOf(pr.Model, theta))
		if err != nil {
			return nil, fmt.Errorf("vecchia: %v", err)
		}
		m := min(s.M, max(nl-1, 1))
		wide := min(max(s.Wide, m), max(nl-1, 1))
		if perm, sets, err = orderAndSearch(c, s, perm, wide, out); err != nil {
			return nil, fmt.Errorf("vecchia: %v", err)
		}
		if wide > m {
			out.Wide, sets = sets, sets.Prefix(m)
		}
	}
	if len(perm) != nl || sets.N != nl {
		return nil, fmt.Errorf("vecchia: sets of %d locations (an ordering of %d) for %d locations", sets.N, len(perm), nl)
	}
	p32 := make([]int32, nl)
	for k, i := range perm {
		p32[k] = int32(i)
	}
	t0 := time.Now()
	g := s.Grouping
	if g.Workers <= 0 {
		g.Workers = s.Workers
	}
	plan, err := NewPlan(pr, p32, sets.M, sets.Idx, g)
	if err != nil {
		return nil, err
	}
	out.Plan, out.Perm, out.Sets, out.PlanSeconds = plan, perm, sets, time.Since(t0).Seconds()
	return out, nil
}

// orderAndSearch orders the embedded locations c by s.Order (or takes
// perm), puts c in the ordering in place and finds the conditioning sets
// of size wide, and records the seconds of each in out. The maxmin
// ordering on two workers or more is sequential: the search then runs
// beside it (order.MaxminEmit writes each point into its place of c as
// it is ordered, neighbors.ConditioningWhile searches the rows of each
// prefix of the ordering once it is complete, on the other workers), and
// SetsSeconds is the search's time after the ordering. The ordering and
// the sets are those of the ordering followed by the search, bitwise.
func orderAndSearch(c embed.Coords, s Setup, perm []int, wide int, out *Prepared) ([]int, *neighbors.Sets, error) {
	workers := max(s.Workers, 1)
	t0 := time.Now()
	if perm == nil && (s.Order == "" || s.Order == order.MaxMin) && workers > 1 {
		return maxminAndSearch(c, wide, workers, out)
	}
	var err error
	if perm == nil {
		perm, err = order.OrderOn(c, s.Order, s.Seed, workers)
	} else if len(perm) != c.Len() {
		err = fmt.Errorf("an ordering of %d for %d locations", len(perm), c.Len())
	}
	if err != nil {
		return nil, nil, err
	}
	t1 := time.Now()
	embed.PermuteInPlace(c, perm) // in place: one copy of the coordinates, not two
	sets, err := neighbors.Conditioning(c, wide, workers)
	out.OrderSeconds, out.SetsSeconds = t1.Sub(t0).Seconds(), time.Since(t1).Seconds()
	return perm, sets, err
}

// maxminAndSearch is orderAndSearch's maxmin ordering with the search
// beside it: the ordering on this goroutine, the search on another,
// waiting for each prefix of the ordering (a mutex and a condition: the
// coordinates written before a prefix is announced are seen by the
// search).
func maxminAndSearch(c embed.Coords, wide, workers int, out *Prepared) ([]int, *neighbors.Sets, error) {
	n, dim := c.Len(), c.Dim
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	written := 0 // positions of c in the ordering
	done := make(chan struct{})
	var sets *neighbors.Sets
	var err error
	searched := make(chan struct{})
	go func() {
		defer close(searched)
		sets, err = neighbors.ConditioningWhile(c, wide, workers, func(hi int) {
			mu.Lock()
			defer mu.Unlock()
			for written < hi {
				cond.Wait()
			}
		}, done)
	}()
	t0 := time.Now()
	perm := order.MaxminEmit(c, workers, func(k, _ int, x []float64) {
		copy(c.V[k*dim:(k+1)*dim], x)
		if k+1 == n || (k+1)&k == 0 { // the search's prefixes end at powers of two and n
			mu.Lock()
			written = k + 1
			mu.Unlock()
			cond.Broadcast()
		}
	})
	tOrdered := time.Now()
	close(done)
	<-searched
	out.OrderSeconds, out.SetsSeconds = tOrdered.Sub(t0).Seconds(), time.Since(tOrdered).Seconds()
	return perm, sets, err
}

// everyOther returns point per*i of pts for each location i (pts itself
// for per = 1).
func everyOther(pts matern.Points, per int) matern.Points {
	if per == 1 {
		return pts
	}
	take := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(v)/per)
		for i := range out {
			out[i] = v[per*i]
		}
		return out
	}
	return matern.Points{X: take(pts.X), Y: take(pts.Y), Z: take(pts.Z), T: take(pts.T)}
}

// Bytes returns the memory the plan holds: the ordered points,
// observations and covariates, the blocks and the tasks.
func (p *Plan) Bytes() int64 {
	n := int64(p.N)
	coords := int64(2)
	if p.Pts.Z != nil {
		coords++
	}
	if p.Pts.T != nil {
		coords++
	}
	return 8*n*(coords+1+int64(p.NCov)) + 4*int64(len(p.Perm)) + p.Blocks.Bytes() + 8*int64(len(p.Tasks))
}

// MemoryNeed returns an upper bound of the memory, in bytes, that a
// simulation or prediction of n points with conditioning sets of m,
// ncov covariates and nparams parameters holds at once on workers
// workers: the input columns and their ordered copies and the
// evaluator's rows of them (block.NewData), the embedded coordinates
// (and their ordered copy), the ordering, the sets, the blocks' member
// lists (a location is in at most m+1 of them; twice while they are
// merged), one evaluation's partial sums (one task per 64 locations or
// fewer: a task is DefaultTaskWork of modelled work, hundreds of blocks)
// and, per worker, the work space of the largest block (blockBound); the
// blocks twice, and the total twice (the
// garbage collector's headroom, without a heap limit). Nothing is N x N.
// A fit's bound is FitNeed's.
func MemoryNeed(n, m, ncov, nparams, workers int) int64 {
	nn, mm := int64(n), int64(m)
	input := 3 * 8 * nn * int64(4+ncov) // x, y, z or t, obs, covariates
	search := 2*8*nn*3 + 8*nn + 4*nn*mm // embedded coordinates, the ordering, the sets
	blocks := 2 * 4 * nn * (mm + 1)     // member lists while merged
	return 2 * (input + search + 2*blocks + evalBytes(nn, m, ncov, nparams, workers))
}

// evalBytes is one evaluation's memory beyond a plan with sets of m: the
// tasks' partial sums (one task per 64 points or fewer) and, per worker,
// the work space of the largest block (blockBound).
func evalBytes(n int64, m, ncov, nparams, workers int) int64 {
	lay := block.Layout{P: nparams, NCov: ncov, Grad: true, Timing: true}
	sums := 8 * (n/64 + 1) * int64(lay.Len())
	u := blockBound(m)
	return sums + 8*int64(max(workers, 1))*int64(block.WorkBound(u, u, ncov, nparams))
}

// blockBound bounds the positions of a block of a plan with sets of m:
// a merge keeps a block within DefaultMaxSize members, but a location
// whose own set is larger (m+1 > DefaultMaxSize) starts a block of m+1;
// twice that for the bivariate Matérn's pairs of positions.
func blockBound(m int) int { return 2 * max(DefaultMaxSize, m+1) }

// HeapHeadroom is the factor by which the heap limit of a fit
// (FitMemory.Heap) exceeds its live bound: Go's collector, held to the
// limit (runtime/debug.SetMemoryLimit), starts a cycle at the latest
// when a tenth of the bound has been allocated since the last one. The
// fit's heap is mostly pointer-free slices: at GOGC=5 (a cycle every 5 %
// of the live heap) the 10^6 fit ran 132 cycles of 3-45 ms, under 1 %
// of its CPU time (Intel Xeon, 2026-11-27).
const HeapHeadroom = 1.1

// OutsideHeap is the memory a fit process holds outside Go's heap and
// its limit: the binary and its C libraries (OpenBLAS, Open MPI, GDAL,
// GSL). Measured on an Intel Xeon (2026-11-27): 47 MB resident for
// --version, 55-58 MB for a fit of 1000 points, 63-67 MB a rank for the
// same fit on 2 ranks under mpirun (their heaps 2-4 MB).
const OutsideHeap = 80 << 20

// heapFloor is the live heap of a fit apart from its O(N) terms: the
// runtime, its task queues, the configuration (a fit of 1000 points
// holds 1-3 MB).
const heapFloor = 16 << 20

// FitShape is what a Vecchia fit's memory bound (FitNeed) depends on.
type FitShape struct {
	N      int // points (bivariate: twice the locations)
	M      int // the search's final conditioning set size
	Coarse int // the coarse stage's (0: none)
	// Wide is the size of the sets the fit's neighbour search finds for
	// the approximation check (its m2; <= M: no check).
	Wide int
	// Candidates is the greedy selection's K (0: the nearest sets): the
	// fit's neighbour search finds the max(Wide, Candidates) nearest, and
	// the selection holds SelectScratch a worker thread.
	Candidates int
	NCov       int // covariates
	Params     int // parameters of theta
	Workers    int // worker threads
	// Held is the number of held-out points (--holdout) the fit
	// predicts after its search.
	Held int
}

// FitMemory is the memory bound of a Vecchia fit (FitNeed).
type FitMemory struct {
	// Live bounds what the fit's Go heap holds live at once: the
	// largest of its phases' sums (FitNeed).
	Live int64
	// Heap is Live times HeapHeadroom: the limit the fit command holds
	// Go's collector to.
	Heap int64
	// Need is Heap plus OutsideHeap: the process's peak resident memory.
	Need int64
}

// FitNeed returns the memory bound of a fit of shape f. In bytes a
// point, with c = 8 (4 + NCov) one copy of the columns (x, y, z or t,
// the observation, the covariates):
//
//   - input: c (the data read and the mean's columns; the bivariate
//     Matérn's interleaved points are within it), c more with a hold-out
//     (its split copies the data), and the ordering, 8;
//   - a plan at k: c (its ordered copy), 4 (its ordering), blocks(k) =
//     4 (k + 1) + 8 (the member lists: a location is the response of
//     one block whose members are at most its responses and their sets;
//     one offset a block, at most a block a location);
//   - grouping at k, while it runs: group(k) = 9 (k + 1) + 124 (each
//     block's member list with append's slack, at most 2.25 times
//     4 (k + 1) a location; its record, 48 bytes in a slice that
//     doubles; its responses, the regions and the owners, 20; the
//     offsets' order, 8);
//   - sets(k) = 4 k;
//   - an evaluator: c (its rows, block.NewData), and per evaluation
//     evalBytes at its plan's k (not a point's).
//
// The phases: grouping the final plan (input, sets(Wide), sets(M), a
// plan at M, group(M)); grouping the coarse plan (the same with the
// final plan made, sets(Coarse), a plan at Coarse, group(Coarse)); the
// search (input, the three sets, both plans, two evaluators, an
// evaluation); and, with the check, once the fit's plans are let go, its
// grouping (input, sets(Wide), a plan at Wide, group(Wide)) and its
// evaluation (the same with an evaluator and an evaluation instead of
// group(Wide)); with a hold-out, its kriging after the search (the
// search's phase, 72 a point for the training points' embedded
// coordinates, their k-d tree and a column, and 4 M + c + 64 a held-out
// point for its set, its coordinates, covariates and results). Live is
// the largest phase plus heapFloor. The neighbour search's own memory
// (the embedded coordinates, put in the ordering in place, and the k-d
// tree: at most about 100 a point beside sets(Wide)) is below the
// grouping's. With Candidates (the greedy selection) the sets found are
// sets(max(Wide, Candidates)), held until the check, and every phase
// before the check counts the selection's scratch (SelectScratch a
// worker).
func FitNeed(f FitShape) FitMemory {
	nn := int64(f.N)
	c := 8 * int64(4+f.NCov)
	sets := func(k int) int64 { return 4 * int64(k) }
	blocks := func(k int) int64 { return 4*int64(k+1) + 8 }
	group := func(k int) int64 { return 9*int64(k+1) + 124 }
	plan := func(k int) int64 { return c + 4 + blocks(k) }
	input := c + 8
	if f.Held > 0 {
		input += c
	}
	wide := int64(0)
	if w := max(f.Wide, f.Candidates); w > f.M {
		wide = sets(w)
	}
	eval := evalBytes(nn, f.M, f.NCov, f.Params, f.Workers)
	if f.Candidates > 0 { // the selection's scratch, counted with each phase's work space before the check
		eval += int64(max(f.Workers, 1)) * SelectScratch(f.Candidates, f.M)
	}
	fit := input + wide + sets(f.M) + plan(f.M)
	live := nn * (fit + group(f.M))
	search := nn*(fit+c) + eval
	if f.Coarse > 0 && f.Coarse < f.M {
		coarse := fit + sets(f.Coarse) + plan(f.Coarse)
		search = nn*(coarse+2*c) + eval
		live = max(live, nn*(coarse+group(f.Coarse)))
	}
	live = max(live, search)
	if f.Held > 0 {
		live = max(live, search+72*nn+int64(f.Held)*(sets(f.M)+c+64))
	}
	if f.Wide > f.M {
		check := input + sets(f.Wide) + plan(f.Wide)
		live = max(live, nn*(check+group(f.Wide)), nn*(check+c)+evalBytes(nn, f.Wide, f.NCov, f.Params, f.Workers))
	}
	live += heapFloor
	heap := int64(float64(live) * HeapHeadroom)
	return FitMemory{Live: live, Heap: heap, Need: heap + OutsideHeap}
}
