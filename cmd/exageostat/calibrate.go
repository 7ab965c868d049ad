package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

// Bounds of calibrate's flags.
const (
	maxCalibrateNB   = 4096
	maxCalibrateReps = 1000
	// maxCalibrateWorkers bounds --workers: each holds a few nb x nb tiles.
	maxCalibrateWorkers = 1024
)

type calibrateFlags struct {
	nbs       []int
	reps      int
	maxReps   int
	stable    float64
	gpus      int
	perfmodel string
	workers   int
	cold      bool
	nu        float64
	out       string
	asJSON    bool
}

func newCalibrateCmd(w comm.Comm) *cobra.Command {
	var cf calibrateFlags
	c := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the duration of one task of each kind with every worker busy, as a cluster file's [[group]]",
		Long: `Measures, on this machine's CPU, the median duration of one task of each kind of
a likelihood evaluation (dcmg, zcpy, potrf, trtri, trmm, syrk, gemm, det, trsv,
gemv, geadd, dot) on full --nb x --nb tiles, running the same tile kernels as
the real tasks (BLAS single-threaded, one task per worker): one untimed call,
then rounds of --reps timed samples until the median moves by at most
--stable (2 %) from one round to the next (at most --max-reps samples). A
sample is the CPU time of the worker's OS thread, so that other processes
on the cores do not lengthen it (the wall time is reported beside it); each
kind's spread (interquartile range over the median) is printed and in the
JSON. dcmg generates an off-diagonal Matérn tile with a
general smoothness --nu (no closed form, as in a fit that estimates nu).

The measurement runs on --workers goroutines at once (default: this rank's
cores), as loaded as a run is: with every core busy, tasks take 10-30 %
longer than on one idle core (shared caches and memory bandwidth, all-core
clocks), and a simulation calibrated on an idle core predicts runs that are
too fast. --workers 1 measures one idle core. Each kind's duration is the
median over the workers.

Under mpirun (2 ranks or more; one rank per node as in a run) every rank
measures at once, the durations are averaged over the ranks, and ranks 0
and 1 measure their link by ping-pong (latency: half the round trip of one
word; bandwidth: an 8 MiB message less that latency). On one rank the
[network] table holds the shared-memory figures of this machine kind (about
4 GB/s and 1.5 us between ranks).

The result is a cluster file (TOML) of one [[group]] "this-machine": nodes =
the ranks, cpus = --workers, gpus = 0, the durations in [group.cpu], nb, and
the [network] table. It loads like configs/cluster-*.toml, so the simulator
and the LP can model this machine. --json writes the same as JSON, with
every sample. A progress line per kind goes to stderr (rank 0).

--perfmodel FILE also writes the samples as a performance-model file
(pkg/perfmodel; JSON, arch "cpu", each kind at its footprint: nb*nb words, nb
for the vector kinds zcpy, geadd and dot) with their count, mean and standard
deviation; an existing FILE is merged into (its histories grow, as StarPU's
do). --nb takes a list (--nb 480,960,1440) with --perfmodel: each tile size
is measured in turn into the model, and no cluster file is written. A
cluster file's [[group]] loads such a file with perfmodel = "FILE".

--gpus 1 (with --perfmodel; the CUDA build, bin/exageostat-cuda, to which
the plain binary hands over) also measures potrf, trmm, syrk, gemm and gemv
on CUDA device 0 at each --nb, as arch "cuda" entries. Each call moves its
tiles to the device and back, but a sample is the device kernel's own time
(launch to completion, the copies excluded): what a task costs the GPU
worker of fit --gpus, whose tiles stay on the device.`,
		Example: `  exageostat calibrate --out cluster-here.toml       # nb = 960, 7 samples per kind, all cores busy
  exageostat calibrate --nb 512 --reps 11 --workers 1 --json
  mpirun -np 2 exageostat calibrate --nb 512 --workers 1 --out two-ranks.toml   # + the measured link
  exageostat calibrate --nb 480,960,1440 --perfmodel here.json   # durations at three tile sizes`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runCalibrate(c, &cf, w) },
	}
	f := c.Flags()
	f.IntSliceVar(&cf.nbs, "nb", []int{960}, "tile size of the measured tasks (a list with --perfmodel: 480,960)")
	f.StringVar(&cf.perfmodel, "perfmodel", "", "also write (or add to) a performance-model file FILE (JSON, arch cpu)")
	f.IntVar(&cf.gpus, "gpus", 0, "with --perfmodel: also measure the GPU kinds on CUDA device 0 (arch cuda; the CUDA build)")
	f.IntVar(&cf.reps, "reps", 7, "timed samples per task kind and round (the median of all is kept)")
	f.Float64Var(&cf.stable, "stable", 0.02, "take rounds of --reps samples until the median moves by at most this much (relative) from one round to the next (0: one round)")
	f.IntVar(&cf.maxReps, "max-reps", 0, "with --stable: at most this many samples per kind (0: 10 x --reps)")
	f.IntVar(&cf.workers, "workers", job.DefaultWorkers(), "workers measuring at once on each rank (1: one idle core)")
	f.BoolVar(&cf.cold, "cold", true, "evict the caches before each timed task, as in a run where tasks read tiles other cores wrote (--cold=false: hot caches)")
	f.Float64Var(&cf.nu, "nu", 0.73, "Matérn smoothness of the generated (dcmg) tiles")
	f.StringVar(&cf.out, "out", "", "write the result to FILE (default: stdout)")
	f.BoolVar(&cf.asJSON, "json", false, "write JSON instead of a TOML cluster file")
	return c
}

func runCalibrate(c *cobra.Command, cf *calibrateFlags, w comm.Comm) error {
	if err := checkCalibrateFlags(cf, w); err != nil {
		return err
	}
	model, err := calibrateOutputs(cf)
	if err != nil {
		return err
	}
	if cf.gpus > 0 {
		if err := prepareGPUCalibration(cf.gpus); err != nil {
			return err
		}
	}
	kernels.DefaultThreads().SetThreads(1)
	stderr := c.ErrOrStderr()
	if w.Rank() != 0 {
		stderr = io.Discard
	}
	coretypeNotes(stderr)
	fmt.Fprintf(stderr, "calibrate: nb=%s, rounds of %d samples per kind until the median moves by <= %g, CPU time per task, kernels %s (%s), %d workers busy on each of %d ranks\n",
		config.FormatInts(cf.nbs, ","), cf.reps, cf.stable, kernels.Default().Name(), kernels.DefaultThreads().CoreName(), cf.workers, w.Size())
	net, measured, err := bench.Link(w)
	if err != nil {
		return err
	}
	if measured {
		fmt.Fprintf(stderr, "  link between ranks 0 and 1 (ping-pong): latency %.3g us, bandwidth %.3g GB/s\n", net.Latency*1e6, net.Bandwidth*1e-9)
	}
	cal, err := measureCalibration(cf, model, w, stderr)
	if err != nil || w.Rank() != 0 {
		return err
	}
	if model != nil {
		if err := saveCalibration(cf, model, cal, w.Size(), stderr); err != nil || len(cf.nbs) > 1 {
			return err
		}
	}
	run := bench.ClusterRun{Network: net, Measured: measured, Workers: cf.workers, Ranks: w.Size(), Cold: cf.cold}
	write := func(w io.Writer) error {
		if cf.asJSON {
			return cal.WriteClusterJSON(w, run)
		}
		return cal.WriteClusterTOML(w, run)
	}
	if cf.out == "" {
		return write(c.OutOrStdout())
	}
	if err := atomicfile.Write(cf.out, write); err != nil {
		return badInput("calibrate: --out: %v", err)
	}
	fmt.Fprintf(stderr, "calibrate: wrote %s\n", cf.out)
	return nil
}

// checkCalibrateFlags checks calibrate's flags against their bounds and
// each other (rank count w.Size()).
func checkCalibrateFlags(cf *calibrateFlags, w comm.Comm) error {
	for _, nb := range cf.nbs {
		if nb < 1 || nb > maxCalibrateNB {
			return badInput("calibrate: --nb must be in [1, %d] (got %d)", maxCalibrateNB, nb)
		}
	}
	switch {
	case len(cf.nbs) == 0:
		return badInput("calibrate: --nb needs a tile size")
	case len(cf.nbs) > 1 && cf.perfmodel == "":
		return badInput("calibrate: --nb %s: several tile sizes need --perfmodel FILE (a cluster file holds one nb)", config.FormatInts(cf.nbs, ","))
	case len(cf.nbs) > 1 && (cf.out != "" || cf.asJSON):
		return badInput("calibrate: --nb %s: --out and --json write one tile size's cluster file; give one --nb", config.FormatInts(cf.nbs, ","))
	}
	switch {
	case cf.gpus < 0:
		return badInput("calibrate: --gpus must be >= 0 (got %d)", cf.gpus)
	case cf.gpus > 0 && cf.perfmodel == "":
		return badInput("calibrate: --gpus %d: the GPU durations go to a performance model: give --perfmodel FILE", cf.gpus)
	case cf.gpus > 0 && w.Size() > 1:
		return badInput("calibrate: --gpus %d: measure a GPU node on one rank", cf.gpus)
	}
	if cf.reps < 1 || cf.reps > maxCalibrateReps {
		return badInput("calibrate: --reps must be in [1, %d] (got %d)", maxCalibrateReps, cf.reps)
	}
	if !(cf.stable >= 0 && cf.stable < 1) || cf.maxReps < 0 || cf.maxReps > maxCalibrateReps {
		return badInput("calibrate: --stable must be in [0, 1) and --max-reps in [0, %d] (got %g, %d)", maxCalibrateReps, cf.stable, cf.maxReps)
	}
	if cf.workers < 1 || cf.workers > maxCalibrateWorkers {
		return badInput("calibrate: --workers must be in [1, %d] (got %d)", maxCalibrateWorkers, cf.workers)
	}
	if !(cf.nu > 0 && cf.nu <= 30) {
		return badInput("calibrate: --nu must be in (0, 30] (got %g)", cf.nu)
	}
	return nil
}

// calibrateOutputs checks that --out and --perfmodel can be written, and
// returns the performance model to add to (nil without --perfmodel; the
// existing file's, or a new one).
func calibrateOutputs(cf *calibrateFlags) (*perfmodel.Model, error) {
	var outs []job.File
	if cf.out != "" {
		outs = append(outs, job.File{Flag: "out", Path: cf.out})
	}
	var model *perfmodel.Model
	if cf.perfmodel != "" {
		outs = append(outs, job.File{Flag: "perfmodel", Path: cf.perfmodel})
		model = perfmodel.New()
		if _, err := os.Stat(cf.perfmodel); err == nil {
			if model, err = perfmodel.Load(cf.perfmodel); err != nil {
				return nil, badInput("calibrate: --perfmodel: %v", err)
			}
		}
	}
	if len(outs) > 0 {
		if err := checkOutputs("calibrate", outs); err != nil {
			return nil, err
		}
	}
	return model, nil
}

// measureCalibration measures each --nb in turn with every worker busy
// (bench.CalibrateLoaded), adding the samples to model (if not nil), and
// with --gpus the device kinds; it returns the last tile size's
// calibration. Progress goes to stderr.
func measureCalibration(cf *calibrateFlags, model *perfmodel.Model, w comm.Comm, stderr io.Writer) (*bench.Calibration, error) {
	var cal *bench.Calibration
	for _, nb := range cf.nbs {
		var err error
		cal, err = bench.CalibrateLoaded(bench.CalibrateOptions{NB: nb, Reps: cf.reps, Nu: cf.nu, Cold: cf.cold, Stable: cf.stable, MaxReps: cf.maxReps,
			Progress: func(s string) { fmt.Fprintln(stderr, "  "+s) }}, cf.workers, w)
		if err != nil {
			return nil, err
		}
		if model != nil {
			cal.AddTo(model, perfmodel.CPU)
		}
		if cf.gpus > 0 {
			if err := calibrateGPU(bench.CalibrateOptions{NB: nb, Reps: cf.reps, Nu: cf.nu,
				Progress: func(s string) { fmt.Fprintln(stderr, "  cuda "+s) }}, model); err != nil {
				return nil, err
			}
		}
	}
	return cal, nil
}

// saveCalibration writes model, measured on ranks ranks, to --perfmodel.
func saveCalibration(cf *calibrateFlags, model *perfmodel.Model, cal *bench.Calibration, ranks int, stderr io.Writer) error {
	host, _ := os.Hostname()
	model.SetHost(fmt.Sprintf("%s: kernels %s (OpenBLAS core %s), %d workers busy on each of %d ranks", host, cal.Kernels, cal.Core, cf.workers, ranks))
	if err := model.Save(cf.perfmodel); err != nil {
		return badInput("calibrate: --perfmodel: %v", err)
	}
	arch := "cpu"
	if cf.gpus > 0 {
		arch = "cpu and cuda"
	}
	fmt.Fprintf(stderr, "calibrate: wrote %s (arch %s, nb %s)\n", cf.perfmodel, arch, config.FormatInts(cf.nbs, ","))
	return nil
}
