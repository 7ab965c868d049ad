package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
)

// Bounds of bench simulator's flags.
const (
	maxSimCheckN    = 32768
	maxSimCheckReps = 100
)

// benchSimulatorLong is bench simulator's --help.
const benchSimulatorLong = `Validates the simulator of simulate-cluster on this machine. For each --n it
times --reps real log-likelihood evaluations, each right after a measurement
of the task durations (calibrate, run on every worker of every rank at once
so that the machine is as loaded as in the real runs: the shared host's speed
drifts, and both should see the same), (2D block-cyclic over the ranks, --workers
workers per rank) and simulates the same evaluation - the task graph recorded
by the same submission code - on a model of this machine: one node per rank,
--workers CPU workers each, links of --bandwidth and --latency between ranks
(under mpirun, unless given: measured by ping-pong between ranks 0 and 1).

Four simulations per size: with the calibrated durations and a runtime
that costs the cores nothing (the prediction 'exageostat calibrate' gave
before the runtime's CPU was modelled); the same with the CPU time the
runtime takes from the workers (with as many workers as cores, the
submission, the progress goroutine's calls and MPI's copies run on the
workers' cores: the process's CPU outside its workers' threads over one
untimed evaluation, per task run and message sent or received, as the
cluster file's task_cpu and cpu_per_message); and with that and the mean
duration of each task kind in the real runs (StarPU's history-based
models fed the timed runs themselves; what is left is the simulator's
model of scheduling and messages). The fourth, 'sim history', is the
prediction StarPU makes: before the timed runs, --history-reps untimed
real evaluations (after one that allocates) record each task's CPU time
in a history-based performance model, as 'fit --perfmodel' does, and the
simulation takes the mean of each kind on full tiles from it (with the
runtime's CPU time): calibrated by running the application, under the
run's own conditions (its messages, its progress goroutine, tiles that
other cores or MPI wrote), but not fitted to the timed runs. On several
ranks the same evaluations measure the messages' delay as the run sees
it: for each message whose receiving rank had an idle worker when its
data became ready at the sender, the time from then to the receive
completing (the ranks' clocks aligned by round trips after the runs);
the median of these delays less the modelled link time is added to
every message of sim history, without holding the links (the median:
a burst of load from other processes lengthens the tail), and a message
that arrives while every worker of its receiver runs a task completes
only once the first of them frees, plus the median of that wait in the
history's evaluations (the progress goroutine completes it on the
workers' cores). The ping-pong measures idle
ranks; in a run the progress goroutine posting and completing a message
waits for a core its worker is computing on. The same delays are
measured on the timed runs, and sim history is also printed without the
delay, with each message's delay drawn from the history's (at most their
95th percentile; the mean of 16 seeded simulations), with the receives
that reach a busy receiver also completed a drawn time after its worker
frees, with the median delay alone, and with the timed runs' median
delay (a fit, not a prediction). From the
second size on, 'hist of N' predicts that size from the first size's
history (same tile size, so the same task footprints). The errors are
simulated / real - 1; real is the median wall time of the slowest rank around
one evaluation, the ranks starting it together (after a collective that
waits for every rank's calibration to end: its longest wait is printed as
the ranks' start skew). The calibration's and the history's durations are CPU
times (each task on its OS thread), which a loaded machine does not
lengthen; trace-durs takes the timed tasks' wall times (the timed runs do
not read the CPU clock around each task, as a fit without --trace does
not); the last columns compare with the real wall time less
the time the workers waited for a core (their threads' run delay, from
/proc, averaged over the workers): the run on a machine of its own, which
the simulator models. The history's evaluations also measure, per rank,
its workers' wait for a core (their threads' run delay) and CPU, and the
process's CPU outside them: sim history stretches each rank's tasks by
the wait beyond the rank's own other CPU (which task_cpu and
cpu_per_message charge already: what other processes took) over the
workers' CPU, in the calmest of the history's evaluations (the load that
lasted through them, not a burst). It is also printed without the wait,
stretched by all of it (the median evaluation's), with the wait per task
added, and stretched by the tasks' own wall over CPU time.

Run it on one rank, or over MPI for several ranks (each its own cores).`

func newBenchSimulatorCmd(w comm.Comm) *cobra.Command {
	var o bench.SimCheckOptions
	var sizes, thetaS string
	var asJSON bool
	c := &cobra.Command{
		Use:   "simulator",
		Short: "The cluster simulator against real runs on this machine, same run",
		Long:  benchSimulatorLong,
		Example: `  exageostat bench simulator --n 4096,8192 --nb 512 --workers 2
  mpirun -np 2 exageostat bench simulator --n 4096,8192 --nb 512 --workers 1 --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if o.N, err = parseInts("bench simulator", "n", sizes, "a size", 3, maxSimCheckN); err != nil {
				return err
			}
			if o.Theta, err = parseMaternTheta("bench simulator", thetaS); err != nil {
				return err
			}
			if err := checkInts("bench simulator", within("nb", o.NB, 1, maxCalibrateNB), workersFlag(o.Workers),
				within("reps", o.Reps, 1, maxSimCheckReps), within("cal-reps", o.CalReps, 1, maxCalibrateReps),
				within("history-reps", o.HistoryReps, 1, maxSimCheckReps)); err != nil {
				return err
			}
			switch {
			case !(o.Network.Bandwidth > 0):
				return badInput("bench simulator: --bandwidth must be > 0 (got %g)", o.Network.Bandwidth)
			case !(o.Network.Latency >= 0):
				return badInput("bench simulator: --latency must be >= 0 (got %g)", o.Network.Latency)
			}
			kernels.DefaultThreads().SetThreads(1)
			o.Comm = w
			if w.Size() > 1 && !c.Flags().Changed("bandwidth") && !c.Flags().Changed("latency") {
				net, err := bench.PingPong(w, bench.PingPongOptions{})
				if err != nil {
					return err
				}
				o.Network, o.NetworkMeasured = net, true
			}
			o.Progress = benchProgress(asJSON)
			r, err := bench.SimCheck(o)
			if err != nil {
				return err
			}
			return emitBench(asJSON, r, w.Size(), o.Workers, func() error {
				printSimCheck(os.Stdout, r)
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&sizes, "n", "4096,8192", "problem sizes, comma-separated (multiples of --nb keep every tile full)")
	f.IntVar(&o.NB, "nb", 512, "tile size")
	f.IntVar(&o.Workers, "workers", job.DefaultWorkers(), "runtime workers per rank")
	f.IntVar(&o.Reps, "reps", 5, "timed evaluations per size (the median is reported)")
	f.IntVar(&o.CalReps, "cal-reps", 3, "calibration samples per task kind, before each timed evaluation")
	f.IntVar(&o.HistoryReps, "history-reps", 3, "untimed evaluations per size recorded in the history ('sim history': task durations and message delays), before the timed ones")
	f.BoolVar(&o.Cold, "cold", true, "calibrate with the caches evicted before each task, as in a run (--cold=false: hot caches)")
	f.StringVar(&thetaS, "theta", "1,0.1,0.73", "Matérn sigma2,beta,nu of the evaluations and of the calibrated dcmg")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the locations and observations")
	f.Float64Var(&o.Network.Bandwidth, "bandwidth", bench.SharedMemBandwidth, "modelled bandwidth between ranks, bytes/s (default under mpirun: measured by ping-pong)")
	f.Float64Var(&o.Network.Latency, "latency", bench.SharedMemLatency, "modelled latency between ranks, s (default under mpirun: measured by ping-pong)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}

// printSimCheck prints the comparison table.
func printSimCheck(w io.Writer, r *bench.SimCheckResult) {
	caches := "hot"
	if r.Cold {
		caches = "cold"
	}
	fmt.Fprintf(w, "simulator vs real runs: %d rank(s) x %d workers, nb=%d, theta=%s, kernels %s (%s), median of %d evaluations, calibrated on %s caches\n",
		r.Ranks, r.Workers, r.NB, config.FormatFloats(r.Theta), r.Kernels, r.Core, r.Reps, caches)
	if r.Ranks > 1 {
		how := "given"
		if r.NetworkMeasured {
			how = "measured by ping-pong between ranks 0 and 1"
		}
		fmt.Fprintf(w, "modelled links between ranks (%s): %.3g B/s, %.3g s per message\n", how, r.Network.Bandwidth, r.Network.Latency)
	}
	fmt.Fprintf(w, "%7s %6s %22s %9s %18s %18s %18s %18s %24s %14s %38s\n", "N", "tiles", "real s (min-max)", "busy", "sim cal, rt free", "sim calibrated", "sim trace-durs",
		"sim history", "sim hist of N", "sim busy", "real unloaded, errors cal/trace/hist")
	for _, row := range r.Rows {
		from := fmt.Sprintf("%24s", "-")
		if row.HistoryFrom > 0 {
			from = fmt.Sprintf("%6d: %9.3f %+6.1f%%", row.HistoryFrom, row.SimHistoryFrom, 100*row.ErrHistoryFrom)
		}
		fmt.Fprintf(w, "%7d %6d %8.3f (%.3f-%.3f) %8.0f%% %9.3f %+6.1f%% %9.3f %+6.1f%% %9.3f %+6.1f%% %9.3f %+6.1f%% %s %13.0f%% %9.3f %+6.1f%% %+6.1f%% %+6.1f%%\n",
			row.N, row.Tiles, row.Real, row.RealMin, row.RealMax, 100*row.RealBusy,
			row.SimCalibratedFree, 100*row.ErrCalibratedFree,
			row.SimCalibrated, 100*row.ErrCalibrated, row.SimTrace, 100*row.ErrTrace, row.SimHistory, 100*row.ErrHistory, from, 100*row.SimBusy,
			row.RealLoaded, 100*row.ErrCalibratedLoaded, 100*row.ErrTraceLoaded, 100*row.ErrHistoryLoaded)
	}
	fmt.Fprintln(w, "(durations: CPU time per task, trace-durs' wall time; sim history: recorded in untimed real evaluations before the timed ones; real unloaded: the wall time less the workers' mean wait for a core, their run delay)")
	fmt.Fprintln(w, "the runtime's CPU outside the workers, per evaluation and rank (timed runs), and per task or message in the model (an untimed run); the workers' CPU per evaluation and rank:")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%7d  other CPU %.3f s  task_cpu = cpu_per_message = %.1f us  workers' CPU %.3f s (wall x workers %.3f s; sim history's tasks %.3f s)  ranks' start skew %.1f ms\n",
			row.N, row.OtherCPU, 1e6*row.RuntimeCPU, row.WorkerCPU, row.Real*float64(r.Workers), row.SimHistoryTasks, 1e3*row.StartSkew)
	}
	printCoreWaits(w, r)
	if r.Ranks > 1 {
		printMessageDelays(w, r)
	}
	fmt.Fprintln(w, "task durations, ms (calibrated, CPU / history, CPU / mean of the timed real tasks, wall):")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%7d", row.N)
		for _, k := range []string{kind.Dcmg, kind.Potrf, kind.Trmm, kind.Syrk, kind.Gemm} {
			fmt.Fprintf(w, "  %s %.2f/%.2f/%.2f", k, 1e3*row.Calibrated[k], 1e3*row.History[k], 1e3*row.TraceDurations[k])
		}
		fmt.Fprintln(w)
	}
}

// printMessageDelays prints, per size, the messages' delays measured in
// the history's and the timed evaluations and the history simulations
// with other delay models.
func printMessageDelays(w io.Writer, r *bench.SimCheckResult) {
	fmt.Fprintln(w, "messages whose receiver had an idle worker when their data was ready at the sender, delay to received, in the history's evaluations and the timed ones;")
	fmt.Fprintln(w, "extra: the delay less the modelled link (its median is sim history's message delay); busy: messages reaching a busy receiver, received after its worker freed:")
	for _, row := range r.Rows {
		for _, x := range []struct {
			name string
			d    bench.MessageDelay
		}{{"history", row.MessageDelay}, {"timed", row.TimedDelay}} {
			d := x.d
			fmt.Fprintf(w, "%7d  %-7s %4d messages  median %.3f ms (mean %.3f)  link %.3f ms  extra median %.3f p90 %.3f p99 %.3f max %.3f ms  busy %d median %.3f ms\n",
				row.N, x.name, d.Messages, 1e3*d.Median, 1e3*d.Mean, 1e3*d.Link, 1e3*d.Delay, 1e3*d.P90, 1e3*d.P99, 1e3*d.Max, d.Busy, 1e3*d.BusyMedian)
		}
		pct := func(x float64) float64 { return 100 * (x/row.Real - 1) }
		fmt.Fprintf(w, "%7d  sim history without the delay %.3f s %+.1f%%, delays drawn %.3f s %+.1f%% (and busy receives drawn %.3f s %+.1f%%), the median delay alone %.3f s %+.1f%%, the timed runs' delay %.3f s %+.1f%%\n",
			row.N, row.SimHistoryNoDelay, pct(row.SimHistoryNoDelay), row.SimHistoryDrawn, pct(row.SimHistoryDrawn),
			row.SimHistoryBusy, pct(row.SimHistoryBusy), row.SimHistoryMedianDelay, pct(row.SimHistoryMedianDelay), row.SimHistoryTimedDelay, pct(row.SimHistoryTimedDelay))
	}
}

// printCoreWaits prints, per size and rank, the workers' wait for a core
// in the history's and the timed evaluations, and sim history with each
// model of it.
func printCoreWaits(w io.Writer, r *bench.SimCheckResult) {
	fmt.Fprintln(w, "the workers' wait for a core (run delay) and CPU per evaluation and rank, summed over its workers, in the history's evaluations (the tasks' wall / CPU) and the timed ones; sim history with it:")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%7d ", row.N)
		for rank := range row.HistoryWait {
			fmt.Fprintf(w, " rank %d: history %.1f ms of %.3f s CPU (other %.1f ms; beyond it, calmest %.1f%%; tasks' wall / CPU %.3f), timed %.1f ms;", rank, 1e3*row.HistoryWait[rank],
				at(row.HistoryCPU, rank), 1e3*at(row.HistoryOther, rank), 100*at(row.HistoryExcess, rank), at(row.HistoryTaskStretch, rank), 1e3*at(row.TimedWait, rank))
		}
		pct := func(x float64) float64 { return 100 * (x/row.Real - 1) }
		fmt.Fprintf(w, "  sim history (the wait beyond other) %+.1f%%, without the wait %.3f s %+.1f%%, stretched by all of it %.3f s %+.1f%%, a wait per task %.3f s %+.1f%%, the tasks' wall / CPU %.3f s %+.1f%%\n",
			100*row.ErrHistory, row.SimHistoryNoWait, pct(row.SimHistoryNoWait), row.SimHistoryStretch, pct(row.SimHistoryStretch), row.SimHistoryTaskWait, pct(row.SimHistoryTaskWait),
			row.SimHistoryWallStretch, pct(row.SimHistoryWallStretch))
	}
}

// at returns x[i], 0 out of range.
func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return 0
}
