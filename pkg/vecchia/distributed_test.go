package vecchia

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// onRanks evaluates theta (with the gradient and information) on size
// in-process ranks and returns each rank's result and error.
func onRanks(t *testing.T, plan *Plan, size, workers int, thetas [][]float64) ([][]*Result, [][]error) {
	return onRanksWith(t, plan, size, workers, thetas, nil)
}

// onRanksWith is onRanks with each rank's plan from scatter (nil: every
// rank has plan), called with the rank's endpoint before the evaluator
// is made.
func onRanksWith(t *testing.T, plan *Plan, size, workers int, thetas [][]float64, scatter func(c comm.Comm) *Plan) ([][]*Result, [][]error) {
	t.Helper()
	g := comm.NewGroup(size)
	res := make([][]*Result, size)
	errs := make([][]error, size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := g.Endpoint(r)
			p := plan
			if scatter != nil {
				p = scatter(c)
			}
			rt := runtime.New(runtime.Options{Workers: workers, Comm: c})
			defer rt.Close()
			e := NewEvaluator(p, len(thetas[0]), rt, kernels.Default())
			for _, th := range thetas {
				x, err := e.Eval(th, Want{Grad: true})
				res[r] = append(res[r], x)
				errs[r] = append(errs[r], err)
			}
		}()
	}
	wg.Wait()
	return res, errs
}

// sameBits reports whether two results have bitwise the same l,
// gradient, information and mean.
func sameBits(a, b *Result) bool {
	eq := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	if math.Float64bits(a.L) != math.Float64bits(b.L) || !eq(a.Grad, b.Grad) || !eq(a.Beta, b.Beta) {
		return false
	}
	for j := range a.Info {
		if !eq(a.Info[j], b.Info[j]) {
			return false
		}
	}
	return true
}

// TestDeterminism checks that l, the gradient, the information and the
// mean are bitwise the same on 1, 2 and 4 workers and on 1, 2, 4 and 8
// in-process ranks, and that a theta whose blocks are not positive
// definite fails as ErrNotPosDef on every rank without breaking the next
// evaluation.
func TestDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	// A duplicated location: singular blocks without a nugget.
	plan := spreadPlan(t, rng, 6000, 20, func(pts matern.Points) { pts.X[4000], pts.Y[4000] = pts.X[17], pts.Y[17] })
	if len(plan.Tasks)-1 < 2*GroupTasks {
		t.Fatalf("%d tasks: too few to spread over ranks", len(plan.Tasks)-1)
	}
	good := []float64{1, 0.05, 0.9, 0.05}
	bad := []float64{1, 0.05, 0.9, 0}
	var want *Result
	for _, w := range []int{1, 2, 4} {
		got := eval(t, plan, good, Want{Grad: true}, w)
		if want == nil {
			want = got
		} else if !sameBits(got, want) {
			t.Errorf("%d workers: l %.17g, 1 worker %.17g (or the gradient, information, mean differ)", w, got.L, want.L)
		}
	}
	for _, size := range []int{2, 4, 8} {
		res, errs := onRanks(t, plan, size, 1, [][]float64{good, bad, good})
		for r := 0; r < size; r++ {
			for k := range []int{0, 2} {
				k *= 2
				if errs[r][k] != nil {
					t.Fatalf("%d ranks, rank %d: %v", size, r, errs[r][k])
				}
				if !sameBits(res[r][k], want) {
					t.Errorf("%d ranks, rank %d, evaluation %d: l %.17g, 1 rank %.17g (or the gradient, information, mean differ)", size, r, k, res[r][k].L, want.L)
				}
			}
			if !errors.Is(errs[r][1], likelihood.ErrNotPosDef) {
				t.Errorf("%d ranks, rank %d: duplicate location without nugget gave %v, want ErrNotPosDef", size, r, errs[r][1])
			}
		}
	}
}

// TestScatter checks that a plan that rank 0 scatters (Scatter) gives on
// 2, 3 and 4 in-process ranks bitwise the l, gradient, information and
// mean of the whole plan on one rank, that every rank holds only its
// blocks (at most twice its share of the plan's block members) and their
// points, and that a part evaluated on another number of ranks is
// refused.
func TestScatter(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 29))
	n := 5000
	plan := spreadPlan(t, rng, n, 15, nil)
	theta := []float64{1.1, 0.06, 0.8, 0.07}
	want := eval(t, plan, theta, Want{Grad: true}, 1)
	for _, size := range []int{2, 3, 4} {
		parts := make([]*Plan, size)
		res, errs := onRanksWith(t, plan, size, 1, [][]float64{theta}, func(c comm.Comm) *Plan {
			var mine *Plan
			if c.Rank() == 0 {
				mine = plan
			}
			got, err := Scatter(c, mine)
			if err != nil {
				t.Errorf("%d ranks, rank %d: %v", size, c.Rank(), err)
			}
			parts[c.Rank()] = got
			return got
		})
		for r := 0; r < size; r++ {
			if errs[r][0] != nil {
				t.Fatalf("%d ranks, rank %d: %v", size, r, errs[r][0])
			}
			if !sameBits(res[r][0], want) {
				t.Errorf("%d ranks, rank %d: l %.17g, whole plan on 1 rank %.17g (or the gradient, information, mean differ)", size, r, res[r][0].L, want.L)
			}
		}
		for r := 0; r < size; r++ {
			d := parts[r].part
			if parts[r].Obs != nil || parts[r].Blocks != nil || d == nil {
				t.Fatalf("%d ranks, rank %d: the scattered plan holds the whole data", size, r)
			}
			if lim := 2 * len(plan.Blocks.Idx) / size; len(d.Idx) > lim || len(d.Idx) == 0 || d.Points() > n {
				t.Errorf("%d ranks, rank %d holds %d block members (the plan %d) and %d points (of %d), want 1 to %d members",
					size, r, len(d.Idx), len(plan.Blocks.Idx), d.Points(), n, lim)
			}
		}
		if size == 2 {
			_, errs := onRanks(t, parts[1], 3, 1, [][]float64{theta})
			for r := range errs {
				if errs[r][0] == nil {
					t.Errorf("a part cut for 2 ranks evaluated on 3: rank %d gave no error", r)
				}
			}
		}
	}
}

// spreadPlan returns the plan of n random points in the unit square
// (edited by edit, when not nil) with standard normal values, a constant
// mean and the Matérn kernel, conditioned on m grid-ordered neighbours,
// cut into tasks and chunks small enough to spread over ranks.
func spreadPlan(t *testing.T, rng *rand.Rand, n, m int, edit func(matern.Points)) *Plan {
	t.Helper()
	pts := randomPoints(rng, n, false)
	if edit != nil {
		edit(pts)
	}
	obs, one := make([]float64, n), make([]float64, n)
	for i := range obs {
		obs[i], one[i] = rng.NormFloat64(), 1
	}
	p := likelihood.Problem{Points: pts, Obs: obs, Model: likelihood.Matern, Covariates: [][]float64{one}}
	plan, err := NewPlan(p, nil, m, gridSets(pts.X, pts.Y, m), Grouping{TaskWork: 2e5, Region: 512})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
