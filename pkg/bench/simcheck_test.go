package bench

import (
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/cputime"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
)

// TestSimCheckRanks runs the simulator check on 1 and on 2 in-process
// ranks: every rank returns the same result, the simulated evaluation
// sends exactly the messages and bytes the real one sent (the recorded
// graph is the real run's), one rank sends none, and the reported errors
// are those of the reported times.
func TestSimCheckRanks(t *testing.T) {
	kernels.DefaultThreads().SetThreads(1)
	for _, ranks := range []int{1, 2} {
		g := comm.NewGroup(ranks)
		res := make([]*SimCheckResult, ranks)
		errs := make([]error, ranks)
		var wg sync.WaitGroup
		for r := range ranks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[r], errs[r] = SimCheck(SimCheckOptions{N: []int{192, 250}, NB: 64, Workers: 1, Reps: 2, CalReps: 1, HistoryReps: 1,
					Theta: []float64{1, 0.1, 0.73}, Seed: 3, Comm: g.Endpoint(r),
					Network: config.Network{Bandwidth: 4e9, Latency: 1.5e-6}})
			}()
		}
		wg.Wait()
		for r, err := range errs {
			if err != nil {
				t.Fatalf("%d ranks, rank %d: %v", ranks, r, err)
			}
		}
		for r := 1; r < ranks; r++ {
			if !reflect.DeepEqual(res[r], res[0]) {
				t.Errorf("%d ranks: rank %d's result differs from rank 0's:\n%+v\n%+v", ranks, r, res[r], res[0])
			}
		}
		rs := res[0]
		if rs.Ranks != ranks || len(rs.Rows) != 2 || rs.Rows[0].Tiles != 3 || rs.Rows[1].Tiles != 4 {
			t.Fatalf("%d ranks: result %+v", ranks, rs)
		}
		for _, row := range rs.Rows {
			if row.Messages != row.RealMessages || row.Bytes != row.RealBytes {
				t.Errorf("%d ranks, N=%d: simulated %d messages %d bytes, real %d messages %d bytes",
					ranks, row.N, row.Messages, row.Bytes, row.RealMessages, row.RealBytes)
			}
			// The messages' delay in the history runs: none on one rank;
			// on two, a median delay less the link's, at least 0 and at
			// most the median (the delay is the history simulations').
			if d := row.MessageDelay; (ranks == 1 && !reflect.DeepEqual(d, MessageDelay{})) || d.Messages < 0 || (d.Messages > 0 && !(d.Median > 0 && d.Mean > 0 && d.Link > 0)) ||
				!(d.Delay >= 0 && d.Delay <= d.Median) || (d.Messages > 0) != (row.SimHistoryNoDelay > 0 && row.SimHistoryDrawn > 0 && row.SimHistoryBusy > 0 && row.SimHistoryMedianDelay > 0 && row.SimHistoryTimedDelay > 0) {
				t.Errorf("%d ranks, N=%d: message delay %+v, sim history without it %g s", ranks, row.N, d, row.SimHistoryNoDelay)
			}
			if (row.Bytes > 0) != (ranks > 1) {
				t.Errorf("%d ranks, N=%d: %d bytes sent", ranks, row.N, row.Bytes)
			}
			if !(row.RealMin <= row.Real && row.Real <= row.RealMax && row.RealMin > 0) {
				t.Errorf("N=%d: real %g not within [%g, %g]", row.N, row.Real, row.RealMin, row.RealMax)
			}
			if !(row.RealBusy > 0 && row.RealBusy <= 1+1e-9 && row.SimBusy > 0 && row.SimBusy <= 1+1e-9) {
				t.Errorf("N=%d: busy fractions real %g, simulated %g", row.N, row.RealBusy, row.SimBusy)
			}
			for _, c := range []struct{ sim, err float64 }{{row.SimCalibrated, row.ErrCalibrated}, {row.SimTrace, row.ErrTrace}} {
				if !(c.sim > 0) || math.Abs(c.err-(c.sim/row.Real-1)) > 1e-12 {
					t.Errorf("N=%d: simulated %g s, error %g, real %g s", row.N, c.sim, c.err, row.Real)
				}
			}
			// The runtime's CPU outside the workers is charged (the
			// process has some: at least the submission), where the
			// system tells the process's CPU time.
			if _, ok := cputime.Process(); ok && !(row.WorkerCPU > 0 && row.SimHistoryTasks > 0) {
				t.Errorf("%d ranks, N=%d: the workers' CPU %g s, sim history's tasks %g s", ranks, row.N, row.WorkerCPU, row.SimHistoryTasks)
			}
			// The workers' wait for a core, per rank, and sim history
			// with it.
			if len(row.HistoryWait) != ranks || len(row.HistoryCPU) != ranks || len(row.HistoryOther) != ranks || len(row.HistoryTaskStretch) != ranks || len(row.TimedWait) != ranks ||
				!(row.SimHistoryStretch > 0 && row.SimHistoryTaskWait > 0 && row.SimHistoryWallStretch > 0 && row.SimHistoryNoWait > 0) {
				t.Errorf("%d ranks, N=%d: waits %v %v %v %v, sim history %g, stretched %g, a wait per task %g, wall / CPU %g", ranks, row.N, row.HistoryWait, row.HistoryCPU,
					row.HistoryTaskStretch, row.TimedWait, row.SimHistory, row.SimHistoryStretch, row.SimHistoryTaskWait, row.SimHistoryWallStretch)
			}
			if _, ok := cputime.Process(); ok && !(row.RuntimeCPU > 0 && row.OtherCPU > 0 && math.Abs(row.ErrCalibratedFree-(row.SimCalibratedFree/row.Real-1)) <= 1e-12) {
				t.Errorf("%d ranks, N=%d: runtime CPU %g s per node, other CPU %g s, simulated free %g s, error %g",
					ranks, row.N, row.RuntimeCPU, row.OtherCPU, row.SimCalibratedFree, row.ErrCalibratedFree)
			}
			for _, k := range []string{kind.Dcmg, kind.Potrf, kind.Trmm, kind.Syrk, kind.Gemm} {
				if !(row.TraceDurations[k] > 0) || !(row.Calibrated[k] > 0) || !(row.History[k] > 0) {
					t.Errorf("N=%d: %s durations traced %g, calibrated %g, history %g", row.N, k, row.TraceDurations[k], row.Calibrated[k], row.History[k])
				}
			}
			// The second size is also predicted from the first's history.
			if wantFrom := map[int]int{192: 0, 250: 192}[row.N]; row.HistoryFrom != wantFrom || (wantFrom > 0) != (row.SimHistoryFrom > 0) ||
				!(row.SimHistory > 0) || math.Abs(row.ErrHistory-(row.SimHistory/row.Real-1)) > 1e-12 {
				t.Errorf("N=%d: history %g s (error %g), from N=%d %g s", row.N, row.SimHistory, row.ErrHistory, row.HistoryFrom, row.SimHistoryFrom)
			}
		}
	}
	if _, err := SimCheck(SimCheckOptions{N: []int{100}, NB: 0, Workers: 1, Reps: 1, CalReps: 1, HistoryReps: 1, Theta: []float64{1, 0.1, 0.5}, Comm: comm.Self{}}); err == nil {
		t.Error("nb = 0 accepted")
	}
}
