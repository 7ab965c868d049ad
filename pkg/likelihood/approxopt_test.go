package likelihood

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestLookaheadSameL: seed 002's lookahead reorders tasks, not the
// operations on a tile: l is bitwise the one without it, for each
// computation, depths 1, 2 and 5, with 1 and 3 workers.
func TestLookaheadSameL(t *testing.T) {
	p := gridProblem(1200, 3)
	for _, a := range []Approx{{Computation: TLR, Accuracy: 1e-9}, {Computation: MP, Band: 1}, {Computation: DST, Band: 2}} {
		theta := []float64{1, 0.1, 0.5}
		if a.Computation == DST {
			theta = []float64{1, 0.02, 0.5}
		}
		want, _ := approxLogLik(t, p, 100, 2, a, theta)
		for _, d := range []int{1, 2, 5} {
			for _, w := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/lookahead=%d/workers=%d", a.Computation, d, w), func(t *testing.T) {
					b := a
					b.Lookahead = d
					got, _ := approxLogLik(t, p, 100, w, b, theta)
					if got != want {
						t.Errorf("l = %.17g, without lookahead %.17g", got, want)
					}
				})
			}
		}
	}
}

// TestHPotrfMatchesDense: with the hierarchical potrf, the diagonal
// super-tile computation holding every tile (band nt - 1: the exact
// Cholesky on the approximate path) gives the dense gonum l within 1e-10
// relative, and TLR at accuracy 1e-9 within 1e-6 of it (and within 1e-12
// of TLR without the hierarchical potrf); l is bitwise the same with 1
// and 3 workers, and with a lookahead.
func TestHPotrfMatchesDense(t *testing.T) {
	const n, nb = 1000, 100
	p := gridProblem(n, 7)
	theta := []float64{1, 0.1, 0.5}
	want := denseLogLik(t, p, theta)
	for _, c := range []struct {
		a   Approx
		tol float64
	}{
		{Approx{Computation: DST, Band: 9, HPotrf: 32}, 1e-10},
		{Approx{Computation: DST, Band: 9, HPotrf: 25}, 1e-10},
		{Approx{Computation: TLR, Accuracy: 1e-9, HPotrf: 32}, 1e-6},
		{Approx{Computation: TLR, Accuracy: 1e-9, HPotrf: 17}, 1e-6},
	} {
		t.Run(fmt.Sprintf("%s/hpotrf=%d", c.a.Computation, c.a.HPotrf), func(t *testing.T) {
			l1, _ := approxLogLik(t, p, nb, 1, c.a, theta)
			l3, hp := hierLogLik(t, p, nb, 3, c.a, theta)
			if l1 != l3 {
				t.Errorf("l = %.17g with 1 worker, %.17g with 3", l1, l3)
			}
			la := c.a
			la.Lookahead = 2
			if l, _ := approxLogLik(t, p, nb, 3, la, theta); l != l1 {
				t.Errorf("l = %.17g with lookahead 2, %.17g without", l, l1)
			}
			if rel := math.Abs(l1-want) / math.Abs(want); !(rel <= c.tol) {
				t.Errorf("l = %.15g, dense %.15g: relative error %.3g > %g", l1, want, rel, c.tol)
			}
			plain := c.a
			plain.HPotrf = 0
			l0, _ := approxLogLik(t, p, nb, 2, plain, theta)
			if rel := math.Abs(l1-l0) / math.Abs(l0); !(rel <= 1e-12) {
				t.Errorf("l = %.15g, without the hierarchical potrf %.15g: relative difference %.3g > 1e-12", l1, l0, rel)
			}
			// 10 diagonal tiles of 100 cut into ceil(100/s) sub-tiles.
			if ns := (nb + c.a.HPotrf - 1) / c.a.HPotrf; hp != 10*ns {
				t.Errorf("%d h-potrf tasks, want %d", hp, 10*ns)
			}
			t.Logf("l = %.15f, dense %.15f, plain potrf %.15f", l1, want, l0)
		})
	}
}

// hierLogLik is approxLogLik on a tracing runtime that also returns the
// number of h-potrf tasks that ran.
func hierLogLik(t *testing.T, p Problem, nb, workers int, a Approx, theta []float64) (float64, int) {
	t.Helper()
	rt := runtime.New(runtime.Options{Workers: workers, Trace: true})
	defer rt.Close()
	e, err := NewWith(p, rt, Options{NB: nb, Approx: a, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := e.LogLik(theta)
	if err != nil {
		t.Fatal(err)
	}
	hp := 0
	for _, ev := range e.Events() {
		if ev.Kind == kind.HPotrf {
			hp++
		}
	}
	return l, hp
}

// TestApproxOptionsDistributed: over 2 and 4 in-process ranks, the hybrid
// distribution (dense diagonal on a ranks x 1 grid, the low-rank tiles
// block-cyclic) with a lookahead and the hierarchical potrf gives the
// one-rank l with the same options bitwise, as the block-cyclic
// distribution does.
func TestApproxOptionsDistributed(t *testing.T) {
	p := gridProblem(1000, 5)
	const nb = 100
	nt := (len(p.Obs) + nb - 1) / nb
	theta := []float64{1, 0.1, 0.5}
	for _, a := range []Approx{
		{Computation: TLR, Accuracy: 1e-9, Lookahead: 1},
		{Computation: TLR, Accuracy: 1e-9, Lookahead: 2, HPotrf: 40},
		{Computation: MP, Band: 1, Lookahead: 1, HPotrf: 50},
	} {
		want, _ := approxLogLik(t, p, nb, 2, a, theta)
		for _, size := range []int{2, 4} {
			for _, dist := range []string{"bc", "hybrid"} {
				t.Run(fmt.Sprintf("%s/la=%d/hpotrf=%d/%s/ranks=%d", a.Computation, a.Lookahead, a.HPotrf, dist, size), func(t *testing.T) {
					d, err := distribution.NewBanded(dist, size, 0, 0, 0, nil, nt)
					if err != nil {
						t.Fatal(err)
					}
					g := comm.NewGroup(size)
					ls := make([]float64, size)
					errs := make([]error, size)
					var wg sync.WaitGroup
					for r := 0; r < size; r++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							rt := runtime.New(runtime.Options{Workers: 1, Comm: g.Endpoint(r)})
							defer rt.Close()
							ev, err := NewWith(p, rt, Options{NB: nb, Owner: d.Owner, Approx: a})
							if err != nil {
								errs[r] = err
								return
							}
							ls[r], _, errs[r] = ev.LogLik(theta)
						}()
					}
					wg.Wait()
					for r := range ls {
						if errs[r] != nil {
							t.Fatalf("rank %d: %v", r, errs[r])
						}
						if ls[r] != want {
							t.Errorf("rank %d: l = %.17g, one rank %.17g", r, ls[r], want)
						}
					}
				})
			}
		}
	}
}

// TestApproxOptionsBad: a negative lookahead or sub-tile size is refused
// with an error naming it.
func TestApproxOptionsBad(t *testing.T) {
	p := gridProblem(200, 1)
	for _, c := range []struct {
		a    Approx
		want string
	}{
		{Approx{Computation: TLR, Lookahead: -1}, "lookahead must be >= 0"},
		{Approx{Computation: MP, HPotrf: -3}, "sub-tile size must be >= 0"},
	} {
		rt := runtime.New(runtime.Options{Workers: 1})
		_, err := NewWith(p, rt, Options{NB: 50, Approx: c.a})
		rt.Close()
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.a, err, c.want)
		}
	}
}
