package vecchia

import (
	"fmt"
	"math"
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
		t0 := time.Now()
		if perm == nil {
			perm, err = order.Order(c, s.Order, s.Seed)
		} else if len(perm) != nl {
			err = fmt.Errorf("an ordering of %d for %d locations", len(perm), nl)
		}
		if err != nil {
			return nil, fmt.Errorf("vecchia: %v", err)
		}
		t1 := time.Now()
		m := min(s.M, max(nl-1, 1))
		wide := min(max(s.Wide, m), max(nl-1, 1))
		if sets, err = neighbors.Conditioning(c.Permute(perm), wide, max(s.Workers, 1)); err != nil {
			return nil, fmt.Errorf("vecchia: %v", err)
		}
		if wide > m {
			out.Wide, sets = sets, sets.Prefix(m)
		}
		out.OrderSeconds, out.SetsSeconds = t1.Sub(t0).Seconds(), time.Since(t1).Seconds()
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

// MemoryNeed returns an upper bound of the memory, in bytes, that a fit
// of n points with conditioning sets of m, ncov covariates and nparams
// parameters holds at once on workers workers: the input columns and
// their ordered copies and the evaluator's rows of them (block.NewData),
// the embedded coordinates (and their ordered copy),
// the ordering, the sets, the blocks' member lists (a location is in at
// most m+1 of them; twice while they are merged), one evaluation's partial
// sums (one task per 64 locations or fewer: a task is DefaultTaskWork
// of modelled work, hundreds of blocks) and, per worker, the work space
// of the largest block (2 DefaultMaxSize points: bivariate pairs); the
// blocks twice (the two stages of the search), and the total twice (the
// garbage collector's headroom). Nothing is N x N.
func MemoryNeed(n, m, ncov, nparams, workers int) int64 {
	nn, mm := int64(n), int64(m)
	input := 3 * 8 * nn * int64(4+ncov) // x, y, z or t, obs, covariates
	search := 2*8*nn*3 + 8*nn + 4*nn*mm // embedded coordinates, the ordering, the sets
	blocks := 2 * 4 * nn * (mm + 1)     // member lists while merged
	lay := block.Layout{P: nparams, NCov: ncov, Grad: true, Timing: true}
	sums := 8 * (nn/64 + 1) * int64(lay.Len())
	work := 8 * int64(max(workers, 1)) * int64(block.WorkBound(2*DefaultMaxSize, 2*DefaultMaxSize, ncov, nparams))
	// The fit holds two plans (the m = 10 stage's and the final one) and
	// Go's collector lets the heap grow to twice what is live.
	return 2 * (input + search + 2*blocks + sums + work)
}
