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
//
// It also returns what the recorded evaluations' workers did with their
// cores on this rank (coreUse: their wait for a core, their CPU, and
// their tasks' wall and CPU times).
func simCheckHistory(o SimCheckOptions, prob likelihood.Problem, lo likelihood.Options) (*perfmodel.Model, MessageDelay, coreUse, error) {
	h := &gatedHistory{m: perfmodel.New()}
	ranks := o.Comm.Size()
	rt := runtime.New(runtime.Options{Workers: o.Workers, Comm: o.Comm, History: h, Trace: true})
	lo.KeepTrace = true
	events, use, err := historyRuns(o, rt, h, prob, lo)
	rt.Close()
	if err != nil || ranks == 1 {
		return h.m, MessageDelay{}, use, err
	}
	d, err := measureDelays(o, rt, events)
	return h.m, d, use, err
}

// coreUse is what a rank's workers did with their cores over
// evaluations: per evaluation, their threads' run delay (the time they
// were runnable but not running: the rank's other threads and other
// processes on their cores) and their CPU time, each summed over the
// workers; and over all the evaluations, the wall and the CPU times of
// their tasks (trace events), summed.
type coreUse struct {
	wait, cpu, other  []float64
	taskWall, taskCPU float64
}

// measure runs f (an evaluation on rt) and appends the run delay and the
// CPU time of rt's workers during it, and the process's CPU outside them.
func (u *coreUse) measure(rt *runtime.Runtime, f func() error) error {
	tids := rt.WorkerThreads()
	d0, c0 := runDelay(tids), startCPU(tids)
	err := f()
	u.wait = append(u.wait, runDelay(tids)-d0)
	u.cpu = append(u.cpu, c0.workerCPU(tids))
	u.other = append(u.other, c0.other(tids))
	return err
}

// excess returns the least over the evaluations of the workers' wait
// beyond the process's other CPU, over their CPU: max(wait - other, 0) /
// cpu (0 without an evaluation or CPU).
func (u *coreUse) excess() float64 {
	x := math.Inf(1)
	for i, c := range u.cpu {
		if c > 0 {
			x = min(x, max(u.wait[i]-u.other[i], 0)/c)
		}
	}
	if math.IsInf(x, 1) {
		return 0
	}
	return x
}

// tasks adds the wall and CPU times of the tasks among ev that have both.
func (u *coreUse) tasks(ev []trace.Event) {
	kinds := config.TaskKinds()
	for _, e := range ev {
		if e.CPU > 0 && slices.Contains(kinds, e.Kind) {
			u.taskWall += e.Duration()
			u.taskCPU += float64(e.CPU) * 1e-9
		}
	}
}

// measureDelays returns, on every rank, messageDelays over every rank's
// events (each on its rank's clock rt.Now, rt closed): gathered on rank
// 0 and put on its clock by clockOffsets. Every rank must call it.
func measureDelays(o SimCheckOptions, rt *runtime.Runtime, events []trace.Event) (MessageDelay, error) {
	off, err := clockOffsets(o.Comm, rt.Now)
	if err != nil {
		return MessageDelay{}, err
	}
	all, err := rt.GatherEvents(events, 0)
	if err != nil {
		return MessageDelay{}, err
	}
	var d MessageDelay
	if o.Comm.Rank() == 0 {
		if err := onClock(all, off); err != nil {
			return MessageDelay{}, err
		}
		d = messageDelays(all, o.Network)
	}
	return shareDelay(o.Comm, d)
}

// historyRuns runs simCheckHistory's evaluations on rt and returns the
// events of the recorded ones (with lo.KeepTrace).
func historyRuns(o SimCheckOptions, rt *runtime.Runtime, h *gatedHistory, prob likelihood.Problem, lo likelihood.Options) ([]trace.Event, coreUse, error) {
	var use coreUse
	ev, err := likelihood.NewWith(prob, rt, lo)
	if err != nil {
		return nil, use, err
	}
	defer ev.Release() // before Close: the tiles' memory goes back to the system for the timed runs
	// The first evaluation allocates and touches the pages: not recorded.
	if _, _, err := ev.LogLik(o.Theta); err != nil {
		return nil, use, err
	}
	skip := len(ev.Events())
	h.on.Store(true)
	for range o.HistoryReps {
		if err := use.measure(rt, func() error { _, _, err := ev.LogLik(o.Theta); return err }); err != nil {
			return nil, use, err
		}
	}
	use.tasks(ev.Events()[skip:])
	return ev.Events()[skip:], use, nil
}

// shareDelay returns rank 0's d on every rank (to the nanosecond).
func shareDelay(w comm.Comm, d MessageDelay) (MessageDelay, error) {
	buf := make([]int64, 10)
	if w.Rank() == 0 {
		for i, x := range []float64{float64(d.Messages), float64(d.Busy), d.Median, d.Mean, d.Link, d.Delay, d.P90, d.P99, d.Max, d.BusyMedian} {
			buf[i] = int64(math.Round(x * 1e9))
		}
	}
	if err := w.AllreduceSum(buf); err != nil {
		return MessageDelay{}, err
	}
	s := func(i int) float64 { return float64(buf[i]) * 1e-9 }
	out := MessageDelay{Messages: int(math.Round(s(0))), Busy: int(math.Round(s(1))), Median: s(2), Mean: s(3), Link: s(4), Delay: s(5),
		P90: s(6), P99: s(7), Max: s(8), BusyMedian: s(9)}
	var err error
	if out.Extra, err = shareSamples(w, d.Extra, out.Messages); err != nil {
		return MessageDelay{}, err
	}
	out.After, err = shareSamples(w, d.After, out.Busy)
	return out, err
}

// shareSamples returns rank 0's n values x on every rank (to the
// nanosecond; nil for n = 0).
func shareSamples(w comm.Comm, x []float64, n int) ([]float64, error) {
	if n == 0 {
		return nil, nil
	}
	buf := make([]int64, n)
	if w.Rank() == 0 {
		for i, v := range x {
			buf[i] = int64(math.Round(v * 1e9))
		}
	}
	if err := w.AllreduceSum(buf); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i, v := range buf {
		out[i] = float64(v) * 1e-9
	}
	return out, nil
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

// historySims is the number of simulations sim history averages, each
// drawing the messages' delays from the measured ones with its own seed
// (1, 2, ..., historySims).
const historySims = 16

// delayModel says how a history simulation models the messages beyond
// their links, from a MessageDelay: its median delay for every message
// (Median), or delays drawn from its distribution trimmed at the Trim
// quantile; with BusyTrim > 0, also the receives completing on a busy
// receiver, drawn from After trimmed at that quantile; with BusyMedian,
// those receives take After's median.
type delayModel struct {
	Median     bool
	Trim       float64
	BusyTrim   float64
	BusyMedian bool
	// Stretch and TaskWait, per rank, model the workers' wait for a
	// core (sim.Options; nil: none).
	Stretch, TaskWait []float64
}

// The delay models of the history simulations. sim history takes the
// medians (historyModel: the median delay, and the receives on a busy
// receiver completed their median after its worker frees; medianDelay
// without the latter): drawing the delays (drawnDelays) follows their
// tail, which the load of other processes makes long in some history
// runs and not in the timed ones (trimmed at the 95th percentile, it
// still moved sim history by up to 16 points under load 3-6, where the
// medians moved it by 0-4), and so do the busy receives drawn
// (withBusyReceives, trimmed at the 90th percentile: +3 to +180 points).
var (
	historyModel     = delayModel{Median: true, BusyMedian: true}
	medianDelay      = delayModel{Median: true}
	drawnDelays      = delayModel{Trim: 0.95}
	withBusyReceives = delayModel{Trim: 0.95, BusyTrim: 0.9}
)

// simDelayed returns the mean makespan of g on cl over historySims
// simulations with the messages' delays of d as m says (sim.Options'
// MessageDelays and BusyReceives, seeds 1 ... historySims), or the one
// makespan where nothing is drawn.
func simDelayed(g *runtime.Graph, cl config.Cluster, d MessageDelay, m delayModel) (float64, error) {
	opt := sim.Options{MessageDelay: d.Delay, Stretch: m.Stretch, TaskWait: m.TaskWait}
	if !m.Median {
		opt.MessageDelay, opt.MessageDelays = 0, trimmed(d.Extra, m.Trim)
	}
	switch {
	case m.BusyMedian && d.Busy > 0:
		opt.BusyReceives = []float64{d.BusyMedian}
	case m.BusyTrim > 0:
		opt.BusyReceives = trimmed(d.After, m.BusyTrim)
	}
	runs := historySims
	if len(opt.MessageDelays) == 0 && len(opt.BusyReceives) <= 1 {
		runs = 1 // nothing drawn
	}
	var sum float64
	for seed := range uint64(runs) {
		opt.Seed = seed + 1
		s, err := sim.Run(g, cl, opt)
		if err != nil {
			return 0, err
		}
		sum += s.Makespan
	}
	return sum / float64(runs), nil
}

// simCheckHistorySims simulates g on cl (its runtime CPU already set) with
// row.History, row.MessageDelay's medians (historyModel) and each rank's
// tasks stretched by its workers' wait for a core beyond its own other
// CPU (coreModels.Excess); also without a delay, SimHistoryNoDelay; with
// the delays drawn, drawnDelays and withBusyReceives; with the median
// delay alone, medianDelay; with the timed runs' own median delay,
// row.TimedDelay; without the wait for a core and with its other models
// (simCoreWaits); and with first's history, delay and stretch where
// first is another size's row, and sets row's history makespans and
// errors against row.Real and row.RealLoaded.
func simCheckHistorySims(g *runtime.Graph, cl config.Cluster, first, row *SimCheckRow) error {
	cl.Groups = slices.Clone(cl.Groups)
	cl.Groups[0].CPU = row.History
	var tasks []int
	var err error
	if row.SimHistoryTasks, tasks, err = simTaskSeconds(g, cl); err != nil {
		return err
	}
	cm := coreWaits(row, tasks)
	hm := historyModel
	hm.Stretch = cm.Excess
	m, err := simDelayed(g, cl, row.MessageDelay, hm)
	if err != nil {
		return err
	}
	row.SimHistory, row.ErrHistory, row.ErrHistoryLoaded = m, m/row.Real-1, m/row.RealLoaded-1
	if err := simCoreWaits(g, cl, cm, row); err != nil {
		return err
	}
	if row.MessageDelay.Messages > 0 {
		timed := row.MessageDelay
		timed.Delay = row.TimedDelay.Delay
		for _, v := range []struct {
			to *float64
			d  MessageDelay
			m  delayModel
		}{
			{&row.SimHistoryNoDelay, MessageDelay{}, medianDelay},
			{&row.SimHistoryDrawn, row.MessageDelay, drawnDelays},
			{&row.SimHistoryBusy, row.MessageDelay, withBusyReceives},
			{&row.SimHistoryMedianDelay, row.MessageDelay, medianDelay},
			{&row.SimHistoryTimedDelay, timed, historyModel},
		} {
			v.m.Stretch = cm.Excess // the same cores as sim history's
			if *v.to, err = simDelayed(g, cl, v.d, v.m); err != nil {
				return err
			}
		}
	}
	if first == nil || first.N == row.N {
		return nil
	}
	cl.Groups[0].CPU = first.History
	hm.Stretch = coreWaits(first, tasks).Excess // a ratio: it carries over to another size
	if m, err = simDelayed(g, cl, first.MessageDelay, hm); err != nil {
		return err
	}
	row.HistoryFrom, row.SimHistoryFrom, row.ErrHistoryFrom = first.N, m, m/row.Real-1
	return nil
}

// simTaskSeconds returns the seconds the tasks of g take on cl (no
// message delay) without the runtime's CPU, per rank: the simulated busy
// time less the runtime's CPU charged to the tasks, over the ranks; and
// the number of tasks each rank runs.
func simTaskSeconds(g *runtime.Graph, cl config.Cluster) (float64, []int, error) {
	s, err := sim.Run(g, cl, sim.Options{})
	if err != nil {
		return 0, nil, err
	}
	var busy float64
	for _, k := range config.TaskKinds() { // a fixed order: the same sum on every rank
		busy += s.Kinds[k].Busy
	}
	tasks := make([]int, len(s.Ranks))
	for r, rs := range s.Ranks {
		busy -= rs.RuntimeCPU
		tasks[r] = rs.CPU.Tasks + rs.GPU.Tasks
	}
	return busy / float64(len(s.Ranks)), tasks, nil
}

// coreModels are the per-rank models of the workers' wait for a core
// (sim.Options' Stretch and TaskWait; nil where the history has none).
// sim history takes Excess. On a quiet machine a rank's workers wait
// for their core about as long as its own other threads run (the
// progress goroutine, MPI, Go's runtime: 10.8-21.7 ms against 15.4-26.5
// ms of other CPU per evaluation at N = 4096, 2 x 1), and that CPU is charged
// already (task_cpu, cpu_per_message): stretching by the whole wait
// counted it twice (+5 to +7 points on such runs). What is beyond it is
// other processes' time on the rank's cores; it is taken per unit of the
// workers' CPU (a time slice shared with them), not per task, though
// the two differ by 0-4 points on these graphs; and from the calmest of
// the history's evaluations (HistoryExcess), the load that lasted
// through the history, not a burst in one of them: with the median over
// the evaluations, sim history was +29 to +108 % in four cells where the
// history met more load than the timed runs.
type coreModels struct {
	// Stretch[r] = 1 + HistoryWait[r] / HistoryCPU[r]: the wait grows
	// with the workers' CPU time.
	Stretch []float64
	// Excess[r] = 1 + HistoryExcess[r]: the wait beyond the rank's own
	// other threads' CPU, which task_cpu and cpu_per_message already
	// charge (other processes), in the history's calmest evaluation.
	Excess []float64
	// PerTask[r] = HistoryWait[r] / tasks[r]: one wait per task.
	PerTask []float64
	// Wall[r] = HistoryTaskStretch[r], at least 1: the tasks' own wall
	// time over their CPU time.
	Wall []float64
}

// coreWaits returns the models of the workers' wait for a core measured
// in the history (row's HistoryWait, HistoryCPU, HistoryOther,
// HistoryExcess and HistoryTaskStretch; tasks: each rank's tasks in one
// evaluation).
func coreWaits(row *SimCheckRow, tasks []int) coreModels {
	n := len(tasks)
	var m coreModels
	if len(row.HistoryWait) != n || len(row.HistoryCPU) != n || len(row.HistoryOther) != n {
		return m
	}
	m.Stretch, m.PerTask = make([]float64, n), make([]float64, n)
	if len(row.HistoryExcess) == n {
		m.Excess = make([]float64, n)
		for r, x := range row.HistoryExcess {
			m.Excess[r] = 1 + max(x, 0)
		}
	}
	for r := range n {
		m.Stretch[r] = 1
		if c := row.HistoryCPU[r]; c > 0 {
			m.Stretch[r] += row.HistoryWait[r] / c
		}
		if tasks[r] > 0 {
			m.PerTask[r] = row.HistoryWait[r] / float64(tasks[r])
		}
	}
	if len(row.HistoryTaskStretch) == n {
		m.Wall = make([]float64, n)
		for r, x := range row.HistoryTaskStretch {
			m.Wall[r] = max(x, 1)
		}
	}
	return m
}

// simCoreWaits sets row's SimHistoryNoWait, SimHistoryStretch,
// SimHistoryTaskWait and SimHistoryWallStretch: sim history
// (historyModel) without a wait for a core and with each of cm's other
// models.
func simCoreWaits(g *runtime.Graph, cl config.Cluster, cm coreModels, row *SimCheckRow) error {
	for _, v := range []struct {
		to *float64
		m  delayModel
	}{
		{&row.SimHistoryNoWait, delayModel{}},
		{&row.SimHistoryStretch, delayModel{Stretch: cm.Stretch}},
		{&row.SimHistoryTaskWait, delayModel{TaskWait: cm.PerTask}},
		{&row.SimHistoryWallStretch, delayModel{Stretch: cm.Wall}},
	} {
		if cm.Stretch == nil { // no history of the waits: no models of them
			*v.to = 0
			continue
		}
		v.m.Median, v.m.BusyMedian = historyModel.Median, historyModel.BusyMedian
		var err error
		if *v.to, err = simDelayed(g, cl, row.MessageDelay, v.m); err != nil {
			return err
		}
	}
	return nil
}
