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
	"github.com/exageostat/exageostat/pkg/runtime"
)

// onRanks evaluates theta (with the gradient and information) on size
// in-process ranks and returns each rank's result and error.
func onRanks(t *testing.T, plan *Plan, size, workers int, thetas [][]float64) ([][]*Result, [][]error) {
	t.Helper()
	g := comm.NewGroup(size)
	res := make([][]*Result, size)
	errs := make([][]error, size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt := runtime.New(runtime.Options{Workers: workers, Comm: g.Endpoint(r)})
			defer rt.Close()
			e := NewEvaluator(plan, len(thetas[0]), rt, kernels.Default())
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
	n := 6000
	pts := randomPoints(rng, n, false)
	// A duplicated location: singular blocks without a nugget.
	pts.X[4000], pts.Y[4000] = pts.X[17], pts.Y[17]
	obs, one := make([]float64, n), make([]float64, n)
	for i := range obs {
		obs[i], one[i] = rng.NormFloat64(), 1
	}
	p := likelihood.Problem{Points: pts, Obs: obs, Model: likelihood.Matern, Covariates: [][]float64{one}}
	plan, err := NewPlan(p, nil, 20, gridSets(pts.X, pts.Y, 20), Grouping{TaskWork: 2e5})
	if err != nil {
		t.Fatal(err)
	}
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
