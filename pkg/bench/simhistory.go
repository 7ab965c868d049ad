package bench

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/perfmodel"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/sim"
	"github.com/exageostat/exageostat/pkg/trace"
)

// gatedHistory passes the runtime's measurements to a performance model
// while on: the evaluation that allocates the replicas and touches the
// pages first is left out of the history.
type gatedHistory struct {
	m  *perfmodel.Model
	on atomic.Bool
}

// Record implements runtime.History.
func (h *gatedHistory) Record(arch, kind string, size int, seconds float64) {
	if h.on.Load() {
		h.m.Record(arch, kind, size, seconds)
	}
}

// simCheckHistory runs o.HistoryReps + 1 untimed evaluations of prob on a
// runtime of its own (the same ranks, workers and distribution lo as the
// timed runs; closed before they start, so they find the machine as this
// left it, its tiles' memory released) with the runtime's History recording every task but in the
// first evaluation, and returns the history: StarPU's history-based model,
// calibrated by running the application. The timed runs' runtime records
// no history, so they are timed as before. On several ranks it also
// returns, as every rank's, the delay of the messages in the recorded
// evaluations (messageDelays against o.Network: the events of every rank
// gathered on rank 0 and put on its clock by clockOffsets, measured once
// the runtime is closed).
func simCheckHistory(o SimCheckOptions, prob likelihood.Problem, lo likelihood.Options) (*perfmodel.Model, MessageDelay, error) {
	h := &gatedHistory{m: perfmodel.New()}
	ranks := o.Comm.Size()
	rt := runtime.New(runtime.Options{Workers: o.Workers, Comm: o.Comm, History: h, Trace: ranks > 1})
	lo.KeepTrace = ranks > 1
	events, err := historyRuns(o, rt, h, prob, lo)
	rt.Close()
	if err != nil || ranks == 1 {
		return h.m, MessageDelay{}, err
	}
	off, err := clockOffsets(o.Comm, rt.Now)
	if err != nil {
		return nil, MessageDelay{}, err
	}
	all, err := rt.GatherEvents(events, 0)
	if err != nil {
		return nil, MessageDelay{}, err
	}
	var d MessageDelay
	if o.Comm.Rank() == 0 {
		if err := onClock(all, off); err != nil {
			return nil, MessageDelay{}, err
		}
		d = messageDelays(all, o.Network)
	}
	d, err = shareDelay(o.Comm, d)
	return h.m, d, err
}

// historyRuns runs simCheckHistory's evaluations on rt and returns the
// events of the recorded ones (with lo.KeepTrace).
func historyRuns(o SimCheckOptions, rt *runtime.Runtime, h *gatedHistory, prob likelihood.Problem, lo likelihood.Options) ([]trace.Event, error) {
	ev, err := likelihood.NewWith(prob, rt, lo)
	if err != nil {
		return nil, err
	}
	defer ev.Release() // before Close: the tiles' memory goes back to the system for the timed runs
	skip := 0
	for i := range o.HistoryReps + 1 {
		h.on.Store(i > 0)
		if _, _, err := ev.LogLik(o.Theta); err != nil {
			return nil, err
		}
		if i == 0 {
			skip = len(ev.Events())
		}
	}
	return ev.Events()[skip:], nil
}

// shareDelay returns rank 0's d on every rank (to the nanosecond).
func shareDelay(w comm.Comm, d MessageDelay) (MessageDelay, error) {
	buf := make([]int64, 5)
	if w.Rank() == 0 {
		buf[0] = int64(d.Messages)
		for i, x := range []float64{d.Median, d.Mean, d.Link, d.Delay} {
			buf[i+1] = int64(math.Round(x * 1e9))
		}
	}
	if err := w.AllreduceSum(buf); err != nil {
		return MessageDelay{}, err
	}
	return MessageDelay{Messages: int(buf[0]), Median: float64(buf[1]) * 1e-9, Mean: float64(buf[2]) * 1e-9,
		Link: float64(buf[3]) * 1e-9, Delay: float64(buf[4]) * 1e-9}, nil
}

// historyDurations returns, per duration kind (config.TaskKinds), the mean
// over the ranks of each rank's history at full tiles of nb (m.Durations);
// a kind no rank ran on a full tile takes its calibrated duration in cal.
func historyDurations(w comm.Comm, nb int, m *perfmodel.Model, cal config.Durations) (config.Durations, error) {
	kinds := config.TaskKinds()
	local := m.Durations(perfmodel.CPU, nb)
	v := make([]float64, len(kinds))
	has := make([]bool, len(kinds))
	for k, kind := range kinds {
		v[k], has[k] = local[kind]
	}
	d, err := rankMean(w, kinds, v, has)
	if err != nil {
		return nil, err
	}
	for kind, c := range cal {
		if _, ok := d[kind]; !ok {
			d[kind] = c
		}
	}
	return d, nil
}

// simCheckHistorySims simulates g on cl (its runtime CPU already set) with
// row.History and row.MessageDelay.Delay (and without the delay, for
// SimHistoryNoDelay), and with first's history and delay where first is
// another size's row, and sets row's history makespans and errors against
// row.Real and row.RealLoaded.
func simCheckHistorySims(g *runtime.Graph, cl config.Cluster, first, row *SimCheckRow) error {
	cl.Groups = slices.Clone(cl.Groups)
	cl.Groups[0].CPU = row.History
	s, err := sim.Run(g, cl, sim.Options{MessageDelay: row.MessageDelay.Delay})
	if err != nil {
		return err
	}
	row.SimHistory, row.ErrHistory, row.ErrHistoryLoaded = s.Makespan, s.Makespan/row.Real-1, s.Makespan/row.RealLoaded-1
	if row.MessageDelay.Delay > 0 {
		if s, err = sim.Run(g, cl, sim.Options{}); err != nil {
			return err
		}
		row.SimHistoryNoDelay = s.Makespan
	}
	if first == nil || first.N == row.N {
		return nil
	}
	cl.Groups[0].CPU = first.History
	if s, err = sim.Run(g, cl, sim.Options{MessageDelay: first.MessageDelay.Delay}); err != nil {
		return err
	}
	row.HistoryFrom, row.SimHistoryFrom, row.ErrHistoryFrom = first.N, s.Makespan, s.Makespan/row.Real-1
	return nil
}
