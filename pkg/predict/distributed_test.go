package predict

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// assessed is what one rank computes after a fit.
type assessed struct {
	krige  *Result
	fisher *Fisher
	eff    *Efficiency
}

// assessOnRanks runs Krige, FisherInfo and MLOEMMOM on size in-process
// ranks with the tiles distributed by kind and returns each rank's results.
func assessOnRanks(t *testing.T, p likelihood.Problem, at matern.Points, nb, size int, kind string, theta, truth []float64) []assessed {
	return assessOnRanksWith(t, p, at, nb, size, kind, theta, truth, likelihood.Approx{})
}

// assessOnRanksWith is assessOnRanks with the approximate computation a.
func assessOnRanksWith(t *testing.T, p likelihood.Problem, at matern.Points, nb, size int, kind string, theta, truth []float64, ap likelihood.Approx) []assessed {
	t.Helper()
	nt := tile.NewLayout(len(p.Obs), nb).NT
	d, err := distribution.New(kind, size, 0, 0, nil, nt)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]assessed, size)
	g := comm.NewGroup(size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt := runtime.New(runtime.Options{Workers: 2, Comm: g.Endpoint(r)})
			defer rt.Close()
			ev, err := likelihood.NewWith(p, rt, likelihood.Options{NB: nb, Owner: d.Owner, Approx: ap})
			if err != nil {
				t.Error(err)
				return
			}
			var a assessed
			if a.krige, err = krige(ev, theta, at, nil, nb); err != nil {
				t.Errorf("rank %d: krige: %v", r, err)
				return
			}
			a.krige.Seconds = 0
			if a.fisher, err = FisherInfo(ev, theta, []bool{true, true, false}); err != nil {
				t.Errorf("rank %d: fisher: %v", r, err)
				return
			}
			if a.eff, err = MLOEMMOM(ev, at, truth, theta); err != nil {
				t.Errorf("rank %d: mloe: %v", r, err)
				return
			}
			out[r] = a
		}()
	}
	wg.Wait()
	return out
}

// TestDistributedAssessment: predictions, the Fisher information and
// MLOE/MMOM on 2 and 3 ranks, block-cyclic and 1D-1D, are bitwise those of
// one rank on every rank.
func TestDistributedAssessment(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n1, n2, nb = 150, 37, 20
	p := likelihood.Problem{Points: randomPoints(n1, rng), Obs: make([]float64, n1), Model: likelihood.Matern, Nugget: 0.01}
	for i := range p.Obs {
		p.Obs[i] = rng.NormFloat64()
	}
	at := randomPoints(n2, rng)
	theta, truth := []float64{1.1, 0.09, 0.6}, []float64{1, 0.1, 0.5}
	want := assessOnRanks(t, p, at, nb, 1, "bc", theta, truth)[0]
	for _, tc := range []struct {
		kind string
		size int
	}{{"bc", 2}, {"bc", 3}, {"1d1d", 3}} {
		for r, got := range assessOnRanks(t, p, at, nb, tc.size, tc.kind, theta, truth) {
			if !reflect.DeepEqual(got.krige.Z, want.krige.Z) || !reflect.DeepEqual(got.krige.Var, want.krige.Var) {
				t.Errorf("%s %d ranks, rank %d: predictions differ from one rank", tc.kind, tc.size, r)
			}
			if !reflect.DeepEqual(got.fisher, want.fisher) {
				t.Errorf("%s %d ranks, rank %d: Fisher information %v, one rank %v", tc.kind, tc.size, r, got.fisher.Info, want.fisher.Info)
			}
			if *got.eff != *want.eff {
				t.Errorf("%s %d ranks, rank %d: MLOE/MMOM %+v, one rank %+v", tc.kind, tc.size, r, *got.eff, *want.eff)
			}
		}
	}
}

// TestDistributedAssessmentApprox: on the TLR and mixed-precision
// factors too, predictions, the Fisher information and MLOE/MMOM on 2 and
// 3 ranks are bitwise those of one rank on every rank (the low-rank tiles
// travel at their rank).
func TestDistributedAssessmentApprox(t *testing.T) {
	p := gridProblem(400, 9)
	p.Nugget = 0.01
	at := randomPoints(23, rand.New(rand.NewPCG(9, 9)))
	theta, truth := []float64{1.1, 0.09, 0.6}, []float64{1, 0.1, 0.5}
	for _, ap := range []likelihood.Approx{{Computation: likelihood.TLR}, {Computation: likelihood.MP, Band: 1}} {
		want := assessOnRanksWith(t, p, at, 50, 1, "bc", theta, truth, ap)[0]
		for _, tc := range []struct {
			kind string
			size int
		}{{"bc", 2}, {"1d1d", 3}} {
			for r, got := range assessOnRanksWith(t, p, at, 50, tc.size, tc.kind, theta, truth, ap) {
				if got.krige == nil {
					t.Fatalf("%s %s %d ranks, rank %d: failed", ap.Computation, tc.kind, tc.size, r)
				}
				if !reflect.DeepEqual(got.krige.Z, want.krige.Z) || !reflect.DeepEqual(got.krige.Var, want.krige.Var) {
					t.Errorf("%s %s %d ranks, rank %d: predictions differ from one rank", ap.Computation, tc.kind, tc.size, r)
				}
				if !reflect.DeepEqual(got.fisher, want.fisher) {
					t.Errorf("%s %s %d ranks, rank %d: Fisher information %v, one rank %v", ap.Computation, tc.kind, tc.size, r, got.fisher.Info, want.fisher.Info)
				}
				if *got.eff != *want.eff {
					t.Errorf("%s %s %d ranks, rank %d: MLOE/MMOM %+v, one rank %+v", ap.Computation, tc.kind, tc.size, r, *got.eff, *want.eff)
				}
			}
		}
	}
}
