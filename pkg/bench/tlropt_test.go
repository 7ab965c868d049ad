package bench

import (
	"fmt"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestReplayBytes: the bytes bench tlr-opt's replay sends (the recorded
// graph of 4 ranks, each low-rank message at the rank its tile had in a
// one-rank run) are the bytes 4 in-process ranks send in a real TLR
// evaluation (Stats.SentBytes summed), under the block-cyclic and the
// hybrid distributions, with and without the lookahead and the
// hierarchical potrf.
func TestReplayBytes(t *testing.T) {
	const n, nb, ranks = 900, 100, 4
	d := dataset.Grid(n, 3)
	p := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: dataset.StandardNormal(n, 3), Model: likelihood.Matern}
	theta := []float64{1, 0.1, 0.5}
	nt := (n + nb - 1) / nb
	for _, a := range []likelihood.Approx{
		{Computation: likelihood.TLR, Accuracy: 1e-9},
		{Computation: likelihood.TLR, Accuracy: 1e-9, Lookahead: 1, HPotrf: 30},
	} {
		rt := runtime.New(runtime.Options{Workers: 2, Trace: true})
		e, err := likelihood.NewWith(p, rt, likelihood.Options{NB: nb, Approx: a, KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := e.LogLik(theta)
		if err != nil {
			t.Fatal(err)
		}
		m := measureTLR(iterEvents(e.Events(), st.Evaluate), e)
		rt.Close()
		for _, c := range []struct {
			dist string
			band int
		}{{"bc", 0}, {"hybrid", 0}, {"hybrid", 1}} {
			t.Run(fmt.Sprintf("la=%d/hpotrf=%d/%s/band=%d", a.Lookahead, a.HPotrf, c.dist, c.band), func(t *testing.T) {
				dd, err := distribution.NewBanded(c.dist, ranks, 0, 0, c.band, nil, nt)
				if err != nil {
					t.Fatal(err)
				}
				r, _, err := replay(p, nb, a, theta, ranks, dd.Owner, m, 2, 1e10, 1e-6)
				if err != nil {
					t.Fatal(err)
				}
				g := comm.NewGroup(ranks)
				sent := make([]int64, ranks)
				errs := make([]error, ranks)
				var wg sync.WaitGroup
				for q := 0; q < ranks; q++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rt := runtime.New(runtime.Options{Workers: 1, Comm: g.Endpoint(q)})
						defer rt.Close()
						ev, err := likelihood.NewWith(p, rt, likelihood.Options{NB: nb, Owner: dd.Owner, Approx: a})
						if err != nil {
							errs[q] = err
							return
						}
						var st likelihood.Stats
						_, st, errs[q] = ev.LogLik(theta)
						sent[q] = st.SentBytes
					}()
				}
				wg.Wait()
				var total int64
				for q := range sent {
					if errs[q] != nil {
						t.Fatalf("rank %d: %v", q, errs[q])
					}
					total += sent[q]
				}
				if r.Bytes != total {
					t.Errorf("replay sends %d bytes, the 4 ranks sent %d", r.Bytes, total)
				}
				t.Logf("%d bytes, %d messages", total, r.Messages)
			})
		}
	}
}
