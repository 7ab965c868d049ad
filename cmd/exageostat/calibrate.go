package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
)

// The network between ranks on one machine (shared memory), from
// shared/FACTS.md: a 960 x 960 tile (7.4 MB) moves in 0.8-4 ms, 2-9 GB/s
// (about 4 GB/s typical); small messages take 1-2 us.
const (
	sharedMemBandwidth = 4e9
	sharedMemLatency   = 1.5e-6
)

// Bounds of calibrate's flags.
const (
	maxCalibrateNB   = 4096
	maxCalibrateReps = 1000
)

type calibrateFlags struct {
	nb, reps int
	nu       float64
	out      string
	asJSON   bool
}

func newCalibrateCmd() *cobra.Command {
	var cf calibrateFlags
	c := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the duration of one task of each kind on one core, as a cluster file's [[group]]",
		Long: `Measures, on this machine's CPU, the median duration of one task of each kind of
a likelihood evaluation (dcmg, zcpy, potrf, trtri, trmm, syrk, gemm, det, trsv,
gemv, geadd, dot) on full --nb x --nb tiles, running the same tile kernels as
the real tasks on one thread (BLAS single-threaded, one task per worker): one
untimed call, then --reps timed samples. dcmg generates an off-diagonal Matérn
tile with a general smoothness --nu (no closed form, as in a fit that
estimates nu).

The result is a cluster file (TOML) of one [[group]] "this-machine": nodes = 1,
cpus = the number of cores, gpus = 0, the durations in [group.cpu], nb, and a
[network] table with the shared-memory figures of this machine kind (about
4 GB/s and 1.5 us between ranks). It loads like configs/cluster-*.toml, so
the simulator and the LP can model this machine. --json writes the same as
JSON, with every sample. A progress line per kind goes to stderr.`,
		Example: `  exageostat calibrate --out cluster-here.toml       # nb = 960, 7 samples per kind
  exageostat calibrate --nb 512 --reps 11 --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runCalibrate(c, &cf) },
	}
	f := c.Flags()
	f.IntVar(&cf.nb, "nb", 960, "tile size of the measured tasks")
	f.IntVar(&cf.reps, "reps", 7, "timed samples per task kind (the median is kept)")
	f.Float64Var(&cf.nu, "nu", 0.73, "Matérn smoothness of the generated (dcmg) tiles")
	f.StringVar(&cf.out, "out", "", "write the result to FILE (default: stdout)")
	f.BoolVar(&cf.asJSON, "json", false, "write JSON instead of a TOML cluster file")
	return c
}

// calibrateGroup is the [[group]] of the result, as JSON.
type calibrateGroup struct {
	Name  string             `json:"name"`
	Nodes int                `json:"nodes"`
	CPUs  int                `json:"cpus"`
	GPUs  int                `json:"gpus"`
	CPU   map[string]float64 `json:"cpu"`
}

// calibrateJSON is the --json output: the cluster file's keys, plus the
// measurements behind them.
type calibrateJSON struct {
	NB      int              `json:"nb"`
	Network calibrateNetwork `json:"network"`
	Group   []calibrateGroup `json:"group"`
	*bench.Calibration
}

type calibrateNetwork struct {
	Bandwidth float64 `json:"bandwidth"`
	Latency   float64 `json:"latency"`
}

func runCalibrate(c *cobra.Command, cf *calibrateFlags) error {
	if cf.nb < 1 || cf.nb > maxCalibrateNB {
		return badInput("calibrate: --nb must be in [1, %d] (got %d)", maxCalibrateNB, cf.nb)
	}
	if cf.reps < 1 || cf.reps > maxCalibrateReps {
		return badInput("calibrate: --reps must be in [1, %d] (got %d)", maxCalibrateReps, cf.reps)
	}
	if !(cf.nu > 0 && cf.nu <= 30) {
		return badInput("calibrate: --nu must be in (0, 30] (got %g)", cf.nu)
	}
	if cf.out != "" {
		if err := checkOutputs("calibrate", []job.File{{Flag: "out", Path: cf.out}}); err != nil {
			return err
		}
	}
	kernels.DefaultThreads().SetThreads(1)
	stderr := c.ErrOrStderr()
	if ct := os.Getenv(droppedCoretypeEnv); ct != "" {
		fmt.Fprintf(stderr, "note: ignored OPENBLAS_CORETYPE=%s (set %s=1 to keep it)\n", ct, keepCoretypeEnv)
	}
	cpus := goruntime.NumCPU()
	fmt.Fprintf(stderr, "calibrate: nb=%d, %d samples per kind, kernels %s (%s), %d cores\n",
		cf.nb, cf.reps, kernels.Default().Name(), kernels.DefaultThreads().CoreName(), cpus)
	cal, err := bench.Calibrate(bench.CalibrateOptions{NB: cf.nb, Reps: cf.reps, Nu: cf.nu,
		Progress: func(s string) { fmt.Fprintln(stderr, "  "+s) }})
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		if cf.asJSON {
			out := calibrateJSON{NB: cal.NB, Network: calibrateNetwork{sharedMemBandwidth, sharedMemLatency},
				Group:       []calibrateGroup{{Name: "this-machine", Nodes: 1, CPUs: cpus, CPU: cal.Durations()}},
				Calibration: cal}
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}
		_, err := io.WriteString(w, calibrationTOML(cal, cpus, cf))
		return err
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

// calibrationTOML returns the cluster file of one group "this-machine" with
// the measured durations, commented.
func calibrationTOML(cal *bench.Calibration, cpus int, cf *calibrateFlags) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# exageostat calibrate --nb %d --reps %d --nu %s\n", cf.nb, cf.reps, strconv.FormatFloat(cf.nu, 'g', -1, 64))
	fmt.Fprintf(&b, "# Median seconds of one task on one worker (kernels %s, OpenBLAS core %s,\n", cal.Kernels, cal.Core)
	b.WriteString("# BLAS single-threaded), on full nb x nb tiles. Load with config.LoadCluster.\n\n")
	fmt.Fprintf(&b, "nb = %d\n\n", cal.NB)
	b.WriteString("# Between ranks on this machine: shared memory (shared/FACTS.md).\n")
	b.WriteString("[network]\n")
	fmt.Fprintf(&b, "bandwidth = %s   # bytes/s\n", tomlFloat(sharedMemBandwidth))
	fmt.Fprintf(&b, "latency = %s   # s per message\n\n", tomlFloat(sharedMemLatency))
	b.WriteString("[[group]]\n")
	b.WriteString("name = \"this-machine\"\n")
	b.WriteString("nodes = 1\n")
	fmt.Fprintf(&b, "cpus = %d\n", cpus)
	b.WriteString("gpus = 0\n\n")
	b.WriteString("[group.cpu]\n")
	for _, k := range cal.Kinds {
		var note string
		switch {
		case k.Kind == kind.Dcmg:
			note = fmt.Sprintf("%.0f entries, %.1f M entries/s", k.Flops, k.Flops/k.Seconds*1e-6)
		case k.Gflops > 0:
			note = fmt.Sprintf("%.2f GFLOP/s", k.Gflops)
		}
		line := fmt.Sprintf("%s = %s", k.Kind, tomlFloat(k.Seconds))
		if note != "" {
			line = fmt.Sprintf("%-22s # %s", line, note)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// tomlFloat formats v as a TOML float with 5 significant digits.
func tomlFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', 5, 64)
	if !strings.ContainsAny(s, ".eEni") {
		s += ".0"
	}
	return s
}
