package bench

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/cputime"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/sim"
	"github.com/exageostat/exageostat/pkg/strategy"
	"github.com/exageostat/exageostat/pkg/trace"
)

// SimCheckOptions configure SimCheck.
type SimCheckOptions struct {
	N       []int // problem sizes (multiples of NB keep every tile full)
	NB      int   // tile size
	Workers int   // runtime workers per rank
	Reps    int   // timed evaluations per size, after one untimed (the median is kept)
	CalReps int   // calibration samples per task kind
	// HistoryReps untimed real evaluations per size, before the timed
	// ones, are recorded in a history-based performance model (the
	// runtime's History, perfmodel.Model: StarPU's history models,
	// calibrated by running the application).
	HistoryReps int
	Cold        bool      // calibrate with the caches evicted before each task (CalibrateOptions.Cold)
	Theta       []float64 // Matérn (sigma2, beta, nu)
	Seed        uint64    // locations and observations (dataset.Grid, StandardNormal)
	// Comm is the set of ranks the real runs use (comm.Self: one rank).
	// Every rank calls SimCheck with the same options.
	Comm comm.Comm
	// Network models the links between the ranks in the simulation;
	// NetworkMeasured says it came from PingPong.
	Network         config.Network
	NetworkMeasured bool
	// Progress, if not nil, receives a line per step (on every rank).
	Progress func(string)
}

// SimCheckRow compares one problem size's real evaluations with the
// simulated ones.
type SimCheckRow struct {
	N     int `json:"n"`
	Tiles int `json:"tiles"` // per side
	// Real is the median over the timed evaluations of the slowest rank's
	// wall time around one log-likelihood evaluation (submission, tasks,
	// messages, the agreement on the result); RealMin and RealMax bound
	// the samples.
	Real    float64 `json:"real_seconds"`
	RealMin float64 `json:"real_min_seconds"`
	RealMax float64 `json:"real_max_seconds"`
	// StartSkew is the median over the timed evaluations of the longest
	// time a rank waited, before the evaluation, for the other ranks to
	// end their calibration: what the evaluation's wall time would
	// include if the ranks did not start it together.
	StartSkew float64 `json:"start_skew_seconds"`
	// RealBusy is the fraction of the workers' time spent in tasks.
	RealBusy float64 `json:"real_busy"`
	// RealLoaded is Real less the time the OS kept the workers waiting
	// for a core (other processes on a loaded machine): the median over
	// the evaluations of the slowest rank's wall minus its workers' mean
	// run delay during the evaluation (cputime.RunDelay of their
	// threads): the run on a machine of its own, which the simulator
	// models.
	// ErrCalibratedLoaded and ErrTraceLoaded are the errors against it.
	RealLoaded          float64 `json:"real_unloaded_seconds"`
	ErrCalibratedLoaded float64 `json:"err_calibrated_unloaded"`
	ErrTraceLoaded      float64 `json:"err_trace_unloaded"`
	// OtherCPU is the CPU time of the process outside its workers'
	// threads during one evaluation (the submission, the progress
	// goroutine and MPI's copies, the Go runtime): the median over the
	// timed evaluations, averaged over the ranks. On a machine whose cores
	// all run workers it is taken from them.
	OtherCPU float64 `json:"other_cpu_seconds"`
	// WorkerCPU is the CPU time of the workers' threads during one
	// evaluation, summed over a rank's workers: the median over the timed
	// evaluations, averaged over the ranks; SimHistoryTasks is what sim
	// history gives a rank's tasks, the history's durations without the
	// runtime's CPU (averaged over the ranks). Where the real workers
	// spend more than that, their tasks cost more CPU than the history
	// says; where the real wall time exceeds both, the workers waited
	// for messages, for a core or for the machine.
	WorkerCPU       float64 `json:"worker_cpu_seconds"`
	SimHistoryTasks float64 `json:"sim_history_task_seconds"`
	// RuntimeCPU is the simulations' runtime CPU per graph node, the
	// group's task_cpu and the network's cpu_per_message (config.Group,
	// config.Network): over an evaluation before the timed ones (the
	// second: the first allocates the replicas), each rank's CPU outside
	// its workers over the tasks it ran and the messages it sent and
	// received, averaged over the ranks.
	RuntimeCPU float64 `json:"runtime_cpu_per_node_seconds"`
	// SimCalibratedFree is the simulated makespan with the calibrated
	// durations and a runtime that costs the workers nothing (the model
	// before RuntimeCPU), and ErrCalibratedFree its error.
	SimCalibratedFree float64 `json:"sim_calibrated_free_runtime_seconds"`
	ErrCalibratedFree float64 `json:"err_calibrated_free_runtime"`
	// SimCalibrated is the simulated makespan with the calibrated task
	// durations and RuntimeCPU, and ErrCalibrated = SimCalibrated / Real
	// - 1.
	SimCalibrated float64 `json:"sim_calibrated_seconds"`
	ErrCalibrated float64 `json:"err_calibrated"`
	// SimTrace is the simulated makespan with the mean duration of each
	// task kind in the timed real runs (full tiles only; their wall time:
	// the timed runtime does not read the CPU clock around each task,
	// runtime.Options.TaskCPU, as a fit without --trace does not), with
	// RuntimeCPU, and ErrTrace its error: what remains is
	// the simulator's model of scheduling and messages.
	SimTrace float64 `json:"sim_trace_seconds"`
	ErrTrace float64 `json:"err_trace"`
	// SimHistory is the simulated makespan with the durations of History
	// and RuntimeCPU, on several ranks MessageDelay's medians (its
	// Delay for every message, and BusyMedian after the first worker
	// frees for a message reaching a busy receiver, sim.Options
	// BusyReceives), and each rank's tasks stretched by 1 +
	// HistoryExcess (the workers' wait for a core beyond the rank's own
	// other CPU, which RuntimeCPU charges: what other processes took;
	// sim.Options.Stretch), and
	// ErrHistory = SimHistory / Real - 1: a prediction from real runs
	// made before the timed ones (not fitted to them).
	SimHistory float64 `json:"sim_history_seconds"`
	ErrHistory float64 `json:"err_history"`
	// HistoryFrom is the size whose history SimHistoryFrom used: the
	// first size's (the history of one N predicting another; same tile
	// size, so the same task footprints). 0 on the first size's row.
	HistoryFrom      int     `json:"history_from_n,omitempty"`
	SimHistoryFrom   float64 `json:"sim_history_from_seconds,omitempty"`
	ErrHistoryFrom   float64 `json:"err_history_from,omitempty"`
	ErrHistoryLoaded float64 `json:"err_history_unloaded"`
	// MessageDelay is what the messages that reached an idle receiver
	// took in the history's evaluations (on several ranks;
	// messageDelays): its Delay, the time beyond the modelled link, is
	// the message delay of the history simulations
	// (sim.Options.MessageDelay), measured under the run's own
	// conditions (the progress goroutines waiting for a core while the
	// workers compute) where the ping-pong measures idle ranks.
	MessageDelay MessageDelay `json:"message_delay"`
	// TimedDelay is the same measured on the timed evaluations
	// themselves (each rank's events put on rank 0's clock once their
	// runtime is closed): what the history's messages predicted.
	TimedDelay MessageDelay `json:"timed_message_delay"`
	// SimHistoryNoDelay is SimHistory without the message delay (the
	// links of Network alone); SimHistoryDrawn with each message's delay
	// drawn from MessageDelay's (at most their 95th percentile), and
	// SimHistoryBusy also with the receives reaching a busy receiver
	// completed a time drawn from MessageDelay.After (at most its 90th
	// percentile) after its first worker frees, each the mean over
	// historySims simulations; SimHistoryMedianDelay with the median
	// delay alone (the receives on a busy receiver completed when they
	// arrive: sim history before it took their median too);
	// SimHistoryTimedDelay with TimedDelay's median delay instead of the
	// history's (a fit to the timed runs, not a prediction). All 0 on
	// one rank.
	SimHistoryNoDelay     float64 `json:"sim_history_no_delay_seconds,omitempty"`
	SimHistoryDrawn       float64 `json:"sim_history_drawn_seconds,omitempty"`
	SimHistoryBusy        float64 `json:"sim_history_busy_receives_seconds,omitempty"`
	SimHistoryMedianDelay float64 `json:"sim_history_median_delay_seconds,omitempty"`
	SimHistoryTimedDelay  float64 `json:"sim_history_timed_delay_seconds,omitempty"`
	// HistoryWait and HistoryCPU are, per rank, the median over the
	// history's recorded evaluations of its workers' run delay in one
	// evaluation (the time their threads were runnable but not running:
	// the rank's other threads, its progress goroutine, MPI and Go's
	// runtime, and other processes on its cores) and of their CPU time,
	// each summed over the rank's workers; TimedWait is HistoryWait
	// over the timed evaluations (what the history predicted).
	// HistoryOther is, per rank, the median of the process's CPU
	// outside its workers' threads in one of the history's evaluations.
	// HistoryTaskStretch is, per rank, the history's tasks' wall time
	// over their CPU time, summed over its tasks.
	HistoryWait  []float64 `json:"history_core_wait_seconds,omitempty"`
	HistoryCPU   []float64 `json:"history_worker_cpu_seconds,omitempty"`
	HistoryOther []float64 `json:"history_other_cpu_seconds,omitempty"`
	// HistoryExcess is, per rank, the least over the history's recorded
	// evaluations of its workers' run delay beyond the process's other
	// CPU, over their CPU time: max(wait - other, 0) / CPU in the
	// calmest evaluation, the share of the workers' cores that other
	// processes took throughout the history.
	HistoryExcess      []float64 `json:"history_core_excess,omitempty"`
	HistoryTaskStretch []float64 `json:"history_task_stretch,omitempty"`
	TimedWait          []float64 `json:"timed_core_wait_seconds,omitempty"`
	// SimHistoryNoWait is sim history without the workers' wait for a
	// core (its tasks not stretched); SimHistoryStretch with each rank's
	// CPU tasks stretched by 1 + HistoryWait / HistoryCPU, the whole wait
	// (sim.Options.Stretch); SimHistoryTaskWait with HistoryWait over the
	// rank's tasks added to each of them (sim.Options.TaskWait: a wait
	// per task); SimHistoryWallStretch with the tasks stretched by
	// HistoryTaskStretch (coreModels).
	SimHistoryNoWait      float64 `json:"sim_history_no_wait_seconds,omitempty"`
	SimHistoryStretch     float64 `json:"sim_history_stretch_seconds,omitempty"`
	SimHistoryTaskWait    float64 `json:"sim_history_task_wait_seconds,omitempty"`
	SimHistoryWallStretch float64 `json:"sim_history_wall_stretch_seconds,omitempty"`
	// SimBusy is the fraction of the workers' time in tasks in the
	// simulation with the trace durations.
	SimBusy float64 `json:"sim_busy"`
	// Calibrated holds the task durations measured by Calibrate on every
	// worker of every rank at once (the machine as loaded as in the real
	// runs) before each timed evaluation: the median over the workers and
	// the evaluations, averaged over the ranks.
	Calibrated     config.Durations `json:"calibrated"`
	TraceDurations config.Durations `json:"trace_durations"`
	// History holds the mean duration of each task kind on full tiles in
	// HistoryReps untimed real evaluations before the timed ones, as the
	// runtime's History records them (the CPU time of the worker's thread
	// around the kernel, outliers left out: perfmodel.Model), averaged
	// over the ranks; a kind without a sample: its calibrated duration.
	History config.Durations `json:"history"`
	// Messages and bytes between the ranks in one evaluation, simulated
	// and real.
	Messages     int   `json:"sim_messages"`
	Bytes        int64 `json:"sim_bytes"`
	RealMessages int   `json:"real_messages"`
	RealBytes    int64 `json:"real_bytes"`
}

// SimCheckResult is what SimCheck measured.
type SimCheckResult struct {
	Ranks   int            `json:"ranks"`
	Workers int            `json:"workers"`
	NB      int            `json:"nb"`
	Reps    int            `json:"reps"`
	Theta   []float64      `json:"theta"`
	Network config.Network `json:"network"`
	// NetworkMeasured: Network was measured by ping-pong (PingPong).
	NetworkMeasured bool `json:"network_measured"`
	// Cold: the calibrations evicted the caches before each task.
	Cold    bool          `json:"cold_caches"`
	Kernels string        `json:"kernels"`
	Core    string        `json:"openblas_core"`
	Rows    []SimCheckRow `json:"rows"`
}

// SimCheck validates pkg/sim against real runs on this machine. For each N
// it times Reps real log-likelihood evaluations on Comm's ranks (2D
// block-cyclic over the ranks, Workers workers each), each after a
// calibration of the task durations, and simulates the same evaluation -
// the task graph recorded by the same submission code, on a cluster of
// Comm.Size() nodes with Workers CPU workers each and o.Network - with
// the calibrated durations, with the per-kind means of the timed real
// tasks, and with those of a history recorded over HistoryReps untimed
// real evaluations before the timed ones (the first size's history also
// predicts the later sizes).
// Every rank returns the same result.
func SimCheck(o SimCheckOptions) (*SimCheckResult, error) {
	if len(o.N) == 0 || o.NB < 1 || o.Workers < 1 || o.Reps < 1 || o.CalReps < 1 || o.HistoryReps < 1 || len(o.Theta) != 3 || o.Comm == nil {
		return nil, fmt.Errorf("bench: simulator check needs sizes, nb, workers, reps, calibration and history reps >= 1, 3 parameters and a communicator")
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	w := o.Comm
	res := &SimCheckResult{Ranks: w.Size(), Workers: o.Workers, NB: o.NB, Reps: o.Reps, Theta: o.Theta,
		Network: o.Network, NetworkMeasured: o.NetworkMeasured, Cold: o.Cold, Kernels: kernels.Default().Name(), Core: kernels.DefaultThreads().CoreName()}

	var first *SimCheckRow
	for _, n := range o.N {
		row, err := simCheckSize(o, n, first, progress)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, *row)
		if first == nil {
			first = row
		}
	}
	return res, nil
}

// loadedCalibration runs Calibrate on o.Workers goroutines of every rank at
// once and returns, per kind (config.TaskKinds order), the median over the
// goroutines.
func loadedCalibration(o SimCheckOptions) ([]float64, error) {
	_, local, err := calibrateGoroutines(CalibrateOptions{NB: o.NB, Reps: o.CalReps, Nu: o.Theta[2], Cold: o.Cold}, o.Workers)
	return local, err
}

// rankMean averages per-kind values over the ranks that have one (has[k]
// false or value <= 0: none; has nil: all ranks have every value), in
// nanoseconds.
func rankMean(w comm.Comm, kinds []string, v []float64, has []bool) (config.Durations, error) {
	buf := make([]int64, 2*len(kinds))
	for k := range kinds {
		if (has == nil || has[k]) && v[k] > 0 {
			buf[2*k] = int64(math.Round(v[k] * 1e9))
			buf[2*k+1] = 1
		}
	}
	if err := w.AllreduceSum(buf); err != nil {
		return nil, err
	}
	d := config.Durations{}
	for k, kind := range kinds {
		if buf[2*k+1] > 0 && buf[2*k] > 0 {
			d[kind] = float64(buf[2*k]) * 1e-9 / float64(buf[2*k+1])
		}
	}
	return d, nil
}

// simCheckSize measures and simulates one problem size; first, if not
// nil, is the first size's row (its history predicts this size too).
func simCheckSize(o SimCheckOptions, n int, first *SimCheckRow, progress func(string)) (*SimCheckRow, error) {
	w := o.Comm
	nt := (n + o.NB - 1) / o.NB
	cl := config.Cluster{Nodes: w.Size(), NB: o.NB, Network: o.Network, Groups: []config.Group{{
		Name: "this-machine", Nodes: w.Size(), CPUs: o.Workers,
	}}}
	plan, err := strategy.Build("bc", cl, nt, strategy.Options{})
	if err != nil {
		return nil, err
	}
	d := dataset.Grid(n, o.Seed)
	prob := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: dataset.StandardNormal(n, o.Seed), Model: likelihood.Matern}
	lo := likelihood.Options{NB: o.NB, KeepTrace: true}
	if w.Size() > 1 {
		lo.Owner = plan.Fact.Owner
	}
	progress(fmt.Sprintf("N=%d (%d x %d tiles): %d untimed evaluations, the last %d recorded in a history; then %d, each timed one after a calibration",
		n, nt, nt, o.HistoryReps+1, o.HistoryReps, o.Reps+2))
	hist, delay, use, err := simCheckHistory(o, prob, lo)
	if err != nil {
		return nil, err
	}
	rt := runtime.New(runtime.Options{Workers: o.Workers, Trace: true, Comm: w})
	rr, warmOther, err := simCheckTimed(o, rt, prob, lo)
	rt.Close()
	if err != nil {
		return nil, err
	}
	row := &SimCheckRow{N: n, Tiles: nt, Real: median(rr.walls), RealMin: slices.Min(rr.walls), RealMax: slices.Max(rr.walls),
		RealLoaded: median(rr.unloaded), StartSkew: median(rr.skew), RealMessages: rr.msgs, RealBytes: rr.bytes, MessageDelay: delay}
	if w.Size() > 1 {
		if row.TimedDelay, err = measureDelays(o, rt, rr.events); err != nil {
			return nil, err
		}
	}
	kinds := config.TaskKinds()
	calMed := make([]float64, len(kinds))
	for k := range kinds {
		calMed[k] = median(rr.cals[k])
	}
	cal, err := rankMean(w, kinds, calMed, nil)
	if err != nil {
		return nil, err
	}
	row.Calibrated = cal
	if row.TraceDurations, err = rr.traced(o, cal, row); err != nil {
		return nil, err
	}
	if row.History, err = historyDurations(w, o.NB, hist, cal); err != nil {
		return nil, err
	}
	if err := row.coreUse(w, use, rr); err != nil {
		return nil, err
	}
	other, err := rankMean(w, []string{"other", "workers"}, []float64{median(rr.other), median(rr.workers)}, nil)
	if err != nil {
		return nil, err
	}
	row.OtherCPU, row.WorkerCPU = other["other"], other["workers"]
	if err := simCheckSimulate(o, plan, n, cl, warmOther, first, row); err != nil {
		return nil, err
	}
	return row, nil
}

// simCheckTimed runs, on rt, two untimed evaluations of prob (the first
// allocates and touches the pages; the second measures the runtime's CPU
// outside the workers: warmOther) and the timed ones (simCheckReal).
func simCheckTimed(o SimCheckOptions, rt *runtime.Runtime, prob likelihood.Problem, lo likelihood.Options) (*simCheckRuns, float64, error) {
	ev, err := likelihood.NewWith(prob, rt, lo)
	if err != nil {
		return nil, 0, err
	}
	if _, _, err := ev.LogLik(o.Theta); err != nil { // warm-up: first allocations and page faults
		return nil, 0, err
	}
	warm := startCPU(rt.WorkerThreads())
	if _, _, err := ev.LogLik(o.Theta); err != nil { // the messages' CPU time
		return nil, 0, err
	}
	warmOther := warm.other(rt.WorkerThreads())
	rr, err := simCheckReal(o, rt, ev)
	return rr, warmOther, err
}

// simCheckRuns are the timed real evaluations of one size: the slowest
// rank's wall times (and less the run delay: unloaded), the task events, the calibrated durations per kind
// (config.TaskKinds order) and the last evaluation's messages.
type simCheckRuns struct {
	walls    []float64
	unloaded []float64
	events   []trace.Event
	cals     [][]float64
	other    []float64 // the process's CPU outside the workers' threads, s
	wait     []float64 // the workers' run delay, summed, s
	skew     []float64 // the longest wait of a rank for the others before the evaluation, s
	workers  []float64 // the workers' threads' CPU, summed, s
	msgs     int
	bytes    int64
}

// simCheckReal times o.Reps evaluations of ev on rt, each after a loaded
// calibration.
func simCheckReal(o SimCheckOptions, rt *runtime.Runtime, ev *likelihood.Evaluator) (*simCheckRuns, error) {
	kinds := config.TaskKinds()
	rr := &simCheckRuns{cals: make([][]float64, len(kinds))}
	for range o.Reps {
		// Calibrate next to each evaluation: the machine's speed drifts
		// (shared host), and both should see the same.
		c, err := loadedCalibration(o)
		if err != nil {
			return nil, err
		}
		for k := range kinds {
			rr.cals[k] = append(rr.cals[k], c[k])
		}
		// The ranks start the evaluation together, as the simulated ones
		// do (and the history's, each right after the previous one's
		// agreement on the result): the calibrations end at different
		// times on different ranks, and a rank that starts first waits
		// for the others' messages.
		b0 := time.Now()
		if _, err := o.Comm.AllreduceMin(0); err != nil {
			return nil, err
		}
		skew, err := o.Comm.AllreduceMin(-int64(time.Since(b0)))
		if err != nil {
			return nil, err
		}
		rr.skew = append(rr.skew, float64(-skew)*1e-9)
		skip := len(ev.Events())
		tids := rt.WorkerThreads()
		d0 := runDelay(tids)
		c0 := startCPU(tids)
		t0 := time.Now()
		_, st, err := ev.LogLik(o.Theta)
		wall := time.Since(t0).Seconds()
		delay := (runDelay(tids) - d0) / float64(max(len(tids), 1))
		rr.other = append(rr.other, c0.other(tids))
		rr.wait = append(rr.wait, delay*float64(max(len(tids), 1)))
		rr.workers = append(rr.workers, c0.workerCPU(tids))
		if err != nil {
			return nil, err
		}
		rr.msgs, rr.bytes = 0, 0
		for _, c := range st.Comm {
			rr.msgs += c.Messages
			rr.bytes += c.Bytes
		}
		// The evaluation lasts until its slowest rank is done.
		slowest, err := o.Comm.AllreduceMin(-int64(math.Round(wall * 1e9)))
		if err != nil {
			return nil, err
		}
		rr.walls = append(rr.walls, float64(-slowest)*1e-9)
		mine := ev.Events()[skip:]
		u, err := o.Comm.AllreduceMin(-int64(math.Round((wall - delay) * 1e9)))
		if err != nil {
			return nil, err
		}
		rr.unloaded = append(rr.unloaded, float64(-u)*1e-9)
		rr.events = append(rr.events, mine...)
	}
	return rr, nil
}

// coreUse sets row's HistoryWait, HistoryCPU, HistoryOther, HistoryExcess, HistoryTaskStretch (from
// use, this rank's history) and TimedWait (from rr) to every rank's.
func (row *SimCheckRow) coreUse(w comm.Comm, use coreUse, rr *simCheckRuns) error {
	stretch := 0.0
	if use.taskCPU > 0 {
		stretch = use.taskWall / use.taskCPU
	}
	for _, v := range []struct {
		to *[]float64
		x  float64
	}{
		{&row.HistoryWait, median(use.wait)}, {&row.HistoryCPU, median(use.cpu)}, {&row.HistoryOther, median(use.other)},
		{&row.HistoryTaskStretch, stretch}, {&row.TimedWait, median(rr.wait)}, {&row.HistoryExcess, use.excess()},
	} {
		var err error
		if *v.to, err = perRank(w, v.x); err != nil {
			return err
		}
	}
	return nil
}

// perRank returns every rank's x on every rank (to the nanosecond).
func perRank(w comm.Comm, x float64) ([]float64, error) {
	buf := make([]int64, w.Size())
	buf[w.Rank()] = int64(math.Round(x * 1e9))
	if err := w.AllreduceSum(buf); err != nil {
		return nil, err
	}
	out := make([]float64, len(buf))
	for r, v := range buf {
		out[r] = float64(v) * 1e-9
	}
	return out, nil
}

// traced sets row.RealBusy, the busy fraction of the real runs' workers
// over the ranks, and returns the per-kind mean durations of the real
// tasks on full tiles over the ranks (a kind too short to be timed: its
// calibrated duration in cal).
func (rr *simCheckRuns) traced(o SimCheckOptions, cal config.Durations, row *SimCheckRow) (config.Durations, error) {
	w, kinds, events := o.Comm, config.TaskKinds(), rr.events
	busy := []int64{0}
	maxFlops := map[string]float64{}
	for _, e := range events {
		if slices.Contains(kinds, e.Kind) { // not the messages' send and recv
			busy[0] += e.End - e.Start
		}
		maxFlops[e.Kind] = max(maxFlops[e.Kind], e.Flops)
	}
	if err := w.AllreduceSum(busy); err != nil {
		return nil, err
	}
	var wallSum float64
	for _, x := range rr.walls {
		wallSum += x
	}
	row.RealBusy = float64(busy[0]) * 1e-9 / (wallSum * float64(w.Size()*o.Workers))
	mean := make([]float64, len(kinds))
	has := make([]bool, len(kinds))
	for k, kind := range kinds {
		var sum float64
		var cnt int
		for _, e := range events {
			if e.Kind == kind && e.Flops == maxFlops[kind] {
				sum += taskSeconds(e)
				cnt++
			}
		}
		if cnt > 0 {
			mean[k], has[k] = sum/float64(cnt), true
		}
	}
	traced, err := rankMean(w, kinds, mean, has)
	if err != nil {
		return nil, err
	}
	for kind, v := range cal {
		if _, ok := traced[kind]; !ok {
			traced[kind] = v // a kind too short to be timed: the calibration's
		}
	}
	return traced, nil
}

// simCheckSimulate simulates the evaluation of plan at size n on cl with
// row's calibrated durations and a free runtime, then with the runtime's
// CPU time measured over an untimed evaluation (warmOther: this rank's
// CPU outside its workers), with the calibrated durations and with the
// trace durations, and sets row's simulated makespans, errors, busy
// fraction and messages.
func simCheckSimulate(o SimCheckOptions, plan *strategy.Plan, n int, cl config.Cluster, warmOther float64, first, row *SimCheckRow) error {
	g, err := strategy.Record(plan, n, o.NB)
	if err != nil {
		return err
	}
	cl.Groups[0].CPU = row.Calibrated
	simFree, err := sim.Run(g, cl, sim.Options{})
	if err != nil {
		return err
	}
	row.SimCalibratedFree, row.ErrCalibratedFree = simFree.Makespan, simFree.Makespan/row.Real-1
	rs := simFree.Ranks[o.Comm.Rank()]
	var local float64
	if nodes := rs.CPU.Tasks + rs.MessagesSent + rs.MessagesReceived; nodes > 0 {
		local = warmOther / float64(nodes)
	}
	per, err := rankMean(o.Comm, []string{"runtime_cpu"}, []float64{local}, nil)
	if err != nil {
		return err
	}
	row.RuntimeCPU = per["runtime_cpu"]
	cl.Groups[0].TaskCPU, cl.Network.CPUPerMessage = row.RuntimeCPU, row.RuntimeCPU
	simCal, err := sim.Run(g, cl, sim.Options{})
	if err != nil {
		return err
	}
	cl.Groups[0].CPU = row.TraceDurations
	simTr, err := sim.Run(g, cl, sim.Options{})
	if err != nil {
		return err
	}
	if err := simCheckHistorySims(g, cl, first, row); err != nil {
		return err
	}
	row.SimCalibrated, row.ErrCalibrated = simCal.Makespan, simCal.Makespan/row.Real-1
	row.SimTrace, row.ErrTrace = simTr.Makespan, simTr.Makespan/row.Real-1
	row.ErrCalibratedLoaded, row.ErrTraceLoaded = simCal.Makespan/row.RealLoaded-1, simTr.Makespan/row.RealLoaded-1
	var simBusy float64
	for _, k := range config.TaskKinds() { // in a fixed order: the same sum on every rank
		simBusy += simTr.Kinds[k].Busy
	}
	row.SimBusy = simBusy / (simTr.Makespan * float64(o.Comm.Size()*o.Workers))
	row.Messages, row.Bytes = simTr.Messages, simTr.Bytes
	return nil
}

// taskSeconds is a real task's duration as the calibration measures it:
// its kernel's CPU time where measured, else its wall time.
func taskSeconds(e trace.Event) float64 {
	if e.CPU > 0 {
		return float64(e.CPU) * 1e-9
	}
	return e.Duration()
}

// cpuMark is the process's CPU time and its workers' (per thread id) at
// some point, in nanoseconds.
type cpuMark struct {
	proc    int64
	workers map[int]int64
}

// startCPU reads the process's and the threads tids' CPU times.
func startCPU(tids []int) cpuMark {
	m := cpuMark{workers: map[int]int64{}}
	m.proc, _ = cputime.Process()
	for _, t := range tids {
		if c, ok := cputime.OfThread(t); ok {
			m.workers[t] = c
		}
	}
	return m
}

// other returns the seconds of CPU the process has spent since m outside
// the threads tids (a thread absent from m started since: all its CPU
// counts), 0 where the system cannot tell.
func (m cpuMark) other(tids []int) float64 {
	now := startCPU(tids)
	if now.proc == 0 || m.proc == 0 {
		return 0
	}
	d := now.proc - m.proc
	for t, c := range now.workers {
		d -= c - m.workers[t]
	}
	return max(float64(d)*1e-9, 0)
}

// workerCPU returns the seconds of CPU the threads tids have spent since
// m, summed (a thread absent from m: none).
func (m cpuMark) workerCPU(tids []int) float64 {
	var d int64
	for t, c := range startCPU(tids).workers {
		if c0, ok := m.workers[t]; ok {
			d += c - c0
		}
	}
	return float64(d) * 1e-9
}

// runDelay returns the seconds the threads tids have waited for a core so
// far, summed (0 where the system cannot tell).
func runDelay(tids []int) float64 {
	var s int64
	for _, t := range tids {
		if d, ok := cputime.RunDelay(t); ok {
			s += d
		}
	}
	return float64(s) * 1e-9
}
