package likelihood

import (
	"fmt"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// measuredPeak runs one evaluation and returns the runtime's measured
// peak of tile buffers (Mem().Peak) and the evaluation's mean rank.
func measuredPeak(t *testing.T, p Problem, o Options, workers int, theta []float64) (int64, float64) {
	t.Helper()
	rt := runtime.New(runtime.Options{Workers: workers})
	defer rt.Close()
	e, err := NewWith(p, rt, o)
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := e.LogLik(theta)
	if err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	if st.Approx != nil {
		mean = st.Approx.MeanRank
	}
	return rt.Mem().Peak, mean
}

// TestApproxNeedMeasured: ApproxNeed (less Overhead, which is not tile
// data) bounds the peak of tile buffers that the runtime measures in a real
// evaluation, and overestimates it by at most the given factor. For tlr
// the mean rank is tlr.SampleRank's estimate from 32 compressed tiles,
// as fit makes it; the reference is the run's measured peak.
func TestApproxNeedMeasured(t *testing.T) {
	for _, tc := range []struct {
		c       Computation
		theta   []float64
		n, nb   int
		band    int
		workers int
		factor  float64 // the estimate is within factor x the measured peak
	}{
		{TLR, []float64{1, 0.1, 0.5}, 4000, 400, 0, 2, 2.5},
		{TLR, []float64{1, 0.05, 1.5}, 3000, 300, 0, 2, 2.5},
		{MP, []float64{1, 0.1, 0.5}, 3000, 300, -1, 2, 1.5},
		{DST, []float64{1, 0.02, 0.5}, 3000, 300, 3, 2, 1.6},
	} {
		t.Run(fmt.Sprintf("%s/n=%d/nb=%d/w=%d", tc.c, tc.n, tc.nb, tc.workers), func(t *testing.T) {
			p := gridProblem(tc.n, 5)
			o := Options{NB: tc.nb, Approx: Approx{Computation: tc.c, Band: tc.band}}
			rank := 0.0
			if tc.c == TLR {
				k, err := Matern.Kernel(tc.theta, matern.MaxDistance(p.Metric, p.Points))
				if err != nil {
					t.Fatal(err)
				}
				rank = tlr.SampleRank(tlr.New(tlr.ACA, 1e-9), k, p.Metric, p.Points, tc.nb, 32, 1)
			}
			est := ApproxNeed(tc.n, o, 1, tc.workers, rank)[0] - Overhead
			peak, mean := measuredPeak(t, p, o, tc.workers, tc.theta)
			t.Logf("estimate %.1f MB (sampled rank %.1f), measured peak %.1f MB (mean rank %.1f): peak/estimate %.2f",
				float64(est)/1e6, rank, float64(peak)/1e6, mean, float64(peak)/float64(est))
			if peak > est || float64(est) > tc.factor*float64(peak) {
				t.Errorf("estimate %d bytes, measured peak %d: want peak <= estimate <= %.1f x peak", est, peak, tc.factor)
			}
		})
	}
}
