package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/provenance"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

func newBenchCmd(w comm.Comm) *cobra.Command {
	c := &cobra.Command{
		Use:   "bench",
		Short: "Measure kernels and the runtime against references in the same run",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return badInput("%sname a benchmark: cholesky, grain, likelihood, overlap, runtime, simulator, tlr, tlr-opt, tracing, vecchia or vecchia-kl (see '%s --help')", cmdPrefix(c), c.CommandPath())
		},
	}
	c.AddCommand(newBenchCholeskyCmd(), newBenchLikelihoodCmd(), newBenchRuntimeCmd(), newBenchSimulatorCmd(w), newBenchOverlapCmd(w), newBenchTracingCmd(), newBenchTLRCmd(), newBenchGrainCmd(), newBenchTLROptCmd(), newBenchVecchiaCmd(), newBenchVecchiaKLCmd())
	return c
}

func newBenchCholeskyCmd() *cobra.Command {
	var o bench.CholeskyOptions
	var pf placeFlags
	var asJSON, reference bool
	var tracePath string
	c := &cobra.Command{
		Use:   "cholesky",
		Short: "Tiled Cholesky on the runtime versus LAPACK dpotrf, same matrix, same run",
		Long: `Factorises one SPD matrix (the exponential covariance of N random points) with
the tiled Cholesky on exageostat's runtime and with LAPACK dpotrf using as many
threads as workers, alternating the two --reps times, and reports the median
GFLOP/s of each, their ratio, the dgemm rate with that many threads (the
practical ceiling), the residual ||A - L L^T||_F / ||A||_F and the OpenBLAS
kernels in use. Without --nb the tile size is fit's automatic one (about
N/6, a multiple of 16 within [160, 960]); the nb printed is the one used.`,
		Example: `  exageostat bench cholesky --n 8192 --workers 2
  exageostat bench cholesky --n 8192 --nb 1024 --workers 2
  exageostat bench cholesky --n 4096 --nb 384 --json --trace chol.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkInts("bench cholesky", atLeast("n", o.N, 1), autoNBFlag(o.NB), workersFlag(o.Workers), atLeast("reps", o.Reps, 1)); err != nil {
				return err
			}
			o.Trace, o.NoReference = tracePath != "", !reference
			if o.NB == 0 {
				o.NB = tile.AutoNB(o.N)
			}
			place, save, err := pf.options("bench cholesky", o.NB)
			if err != nil {
				return err
			}
			o.Place = place
			o.Progress = benchProgress(asJSON)
			if !asJSON {
				coretypeNotes(os.Stderr)
			}
			r, err := bench.CholeskyBench(o)
			if err != nil {
				return err
			}
			if err := save(); err != nil {
				return err
			}
			if tracePath != "" {
				if err := trace.WriteFile(tracePath, r.Events); err != nil {
					return err
				}
			}
			return emitBench(asJSON, r, 1, r.Workers, func() error {
				fmt.Printf("cholesky n=%d nb=%d workers=%d reps=%d kernels=%s core=%s tasks=%d\n",
					r.N, r.NB, r.Workers, r.Reps, r.Kernels, r.Core, r.Tasks)
				tiled, lapack := bench.SpreadOf(r.Seconds, 1), bench.SpreadOf(r.LapackSecs, 1)
				fmt.Printf("  tiled (runtime)   %8.1f GFLOP/s  median %.3f s (min %.3f, max %.3f)\n", r.Gflops, tiled.Median, tiled.Min, tiled.Max)
				if !o.NoReference {
					fmt.Printf("  LAPACK dpotrf     %8.1f GFLOP/s  median %.3f s (min %.3f, max %.3f)  (%d threads)\n", r.LapackGflops, lapack.Median, lapack.Min, lapack.Max, r.Workers)
				}
				fmt.Printf("  dgemm n=%-5d     %8.1f GFLOP/s  (%d threads)\n", r.DgemmN, r.DgemmGflops, r.Workers)
				if !o.NoReference {
					fmt.Printf("  ratio tiled/LAPACK %.3f   tiled/dgemm %.3f\n", r.Ratio, r.DgemmRatio)
				} else {
					fmt.Printf("  ratio tiled/dgemm %.3f (no LAPACK reference: --reference=false)\n", r.DgemmRatio)
				}
				switch {
				case o.Check && o.NoReference:
					fmt.Printf("  residual ||A-LL^T||/||A||: tiled %.2e\n", r.Residual)
				case o.Check:
					fmt.Printf("  residual ||A-LL^T||/||A||: tiled %.2e  LAPACK %.2e\n", r.Residual, r.LapackResid)
				}
				printDevices(r.Devices)
				return nil
			})
		},
	}
	f := c.Flags()
	f.IntVar(&o.N, "n", 4096, "matrix order N")
	f.IntVar(&o.NB, "nb", 0, "tile size (0: automatic, as fit: about N/6, a multiple of 16 within [160, 960])")
	f.IntVar(&o.Workers, "workers", job.DefaultWorkers(), "runtime workers (and LAPACK threads)")
	f.IntVar(&o.Reps, "reps", 3, "repetitions of each factorisation; medians are reported")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the random points")
	f.BoolVar(&o.Check, "check", true, "compute the residual ||A - L L^T||_F / ||A||_F (on one core: O(N^3), minutes at N = 32768)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of the table")
	f.StringVar(&tracePath, "trace", "", "write a Chrome trace-event JSON (or .csv) of the last tiled run")
	f.BoolVar(&reference, "reference", true, "also time LAPACK dpotrf on as many threads (false: the tiled run alone, e.g. on a GPU at a large N)")
	pf.add(f)
	return c
}

func choleskyFlops(n int) float64 {
	x := float64(n)
	return x*x*x/3 + x*x/2 + x/6
}

func newBenchRuntimeCmd() *cobra.Command {
	var tasks, workers int
	var asJSON bool
	c := &cobra.Command{
		Use:     "runtime",
		Short:   "Runtime overhead: microseconds per empty task, as a chain and independent",
		Example: `  exageostat bench runtime --tasks 100000 --workers 2`,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkInts("bench runtime", atLeast("tasks", tasks, 1), workersFlag(workers)); err != nil {
				return err
			}
			r := bench.RuntimeOverhead(tasks, workers, 5)
			return emitBench(asJSON, r, 1, workers, func() error {
				fmt.Printf("runtime overhead, %d empty tasks, %d workers (median of %d runs, min and max)\n", r.Tasks, r.Workers, r.Runs)
				fmt.Printf("  chain (each RW on one handle): %6.2f us/task (%.2f, %.2f)\n", r.ChainMicros, r.Chain.Min, r.Chain.Max)
				fmt.Printf("  independent (own handles):     %6.2f us/task (%.2f, %.2f)\n", r.IndependentMicros, r.Independent.Min, r.Independent.Max)
				return nil
			})
		},
	}
	c.Flags().IntVar(&tasks, "tasks", 100000, "number of tasks")
	c.Flags().IntVar(&workers, "workers", job.DefaultWorkers(), "runtime workers")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}

// benchLikFlags are bench likelihood's flags that are not fields of
// bench.LikelihoodOptions.
type benchLikFlags struct {
	pf                   placeFlags
	thetaS, overlapS     string
	asJSON, ref          bool
	comps, comp, pinMode string
}

// benchLikelihoodLong is bench likelihood's --help.
const benchLikelihoodLong = `Times l(theta) (median over --reps evaluations) on N synthetic locations with
the five-phase task graph, prints the busy time of each phase, the generation
rate per core (fast Matérn evaluator vs the direct Bessel function), and the
same value computed densely (direct Bessel generation, LAPACK dpotrf with as
many threads as workers) with the speed-up. Each evaluation is printed beside
its floor, the time under which it cannot run: the Cholesky's flops at the
rate of one dgemm (n = 2048) on as many threads as workers, measured in the
same run, plus the generation's busy time spread over the workers; and
seed 000's utilisation (time in tasks / (workers x wall)). --overlap switches
the phase-overlap optimisations as fit's flag does. The default --theta's
nu = 0.73 exercises the general-nu path of the Matérn generation.

--computation C (or --computations C1,C2,...: tlr, mp, dst) also times the
approximate computations after the exact one, each on its own evaluator of
the same data: wall, busy time per phase, l and its error against the exact
l, the runtime's peak of tile memory, and (tlr) the ranks. With --predict K,
the kriging of the K new locations is also timed on each approximate factor,
with its largest differences from the exact factor's prediction. (bench
cholesky factors a dense matrix given in advance; the approximate Cholesky
compresses inside the generation tasks, so it is timed here, generation and
factorisation busy times apart.)

--pin auto (the default), on or off pins each worker to a core as fit's
--pin does; both times --reps pairs of evaluations on two
runtimes of the same data, one pinned and one not, alternating which goes
first, and prints the median of the pairs' pinned / unpinned ratios (the
exact computation only, no reference).`

func newBenchLikelihoodCmd() *cobra.Command {
	var o bench.LikelihoodOptions
	var bf benchLikFlags
	c := &cobra.Command{
		Use:   "likelihood",
		Short: "One log-likelihood evaluation on the runtime versus a dense reference, same run",
		Long:  benchLikelihoodLong,
		Example: `  exageostat bench likelihood --n 1600 --nb 320 --workers 2
  exageostat bench likelihood --n 3600 --theta 1,0.1,0.73 --json
  exageostat bench likelihood --n 3600 --nb 608 --mean constant
  exageostat bench likelihood --n 3600 --nb 608 --overlap all=off
  exageostat bench likelihood --n 16000 --nb 400 --computations tlr,mp,dst --reference=false
  exageostat bench likelihood --n 8000 --nb 800 --computation tlr --predict 500 --reps 3 --reference=false
  exageostat bench likelihood --n 8192 --pin both --reps 6`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runBenchLikelihood(&o, &bf) },
	}
	f := c.Flags()
	problemFlags(f, &o.Problem, &bf.thetaS, problemDefaults{n: 1600, nb: 320, reps: 10, theta: "1,0.1,0.73",
		nbHelp: "tile size", workersHelp: "runtime workers (and reference threads)", repsHelp: "evaluations timed; the median is reported"})
	f.BoolVar(&bf.ref, "reference", true, "also time the dense reference")
	f.IntVar(&o.Predict, "predict", 0, "also time kriging at this many new locations")
	f.StringVar(&bf.overlapS, "overlap", "", config.OverlapHelp)
	f.StringVar(&o.Mean, "mean", "zero", "mean model: zero, constant or linear; with one, the zero-mean evaluation is timed alternately for the overhead (no dense reference)")
	f.StringVar(&bf.comps, "computations", "", "also time these approximate computations after the exact one: tlr,mp,dst")
	f.StringVar(&bf.comp, "computation", "", "also time this approximate computation after the exact one: tlr, mp or dst (one name of --computations)")
	f.Float64Var(&o.Approx.Accuracy, "tlr-accuracy", 1e-9, "tlr: absolute Frobenius accuracy per tile")
	f.IntVar(&o.Approx.MaxRank, "max-rank", 0, "tlr: largest rank of a U V^T tile (0: nb/2)")
	f.IntVar(&o.Approx.Band, "mp-band", -1, "mp, dst: tile sub-diagonals in float64 (-1: 10 % of the tiles)")
	f.IntVar(&o.Approx.Lookahead, "lookahead", 0, "tlr, mp, dst: lookahead depth of the Cholesky (0: off; see bench tlr-opt)")
	f.IntVar(&o.Approx.HPotrf, "hpotrf", 0, "tlr, mp, dst: hierarchical potrf sub-tile size (0: off; see bench tlr-opt)")
	f.StringVar(&bf.pinMode, "pin", "auto", "auto, on, off: workers pinned to cores as fit's --pin; both: pinned and unpinned evaluations alternated, with their ratio")
	f.BoolVar(&bf.asJSON, "json", false, "print one JSON object")
	bf.pf.add(f)
	return c
}

// runBenchLikelihood is bench likelihood: its flags checked into o, the
// evaluations timed (pinned, unpinned or both), the table (or JSON)
// printed.
func runBenchLikelihood(o *bench.LikelihoodOptions, bf *benchLikFlags) error {
	if err := benchLikelihoodOptions(o, bf); err != nil {
		return err
	}
	place, save, err := bf.pf.options("bench likelihood", o.NB)
	if err != nil {
		return err
	}
	if bf.pinMode != "auto" && bf.pinMode != "on" && bf.pinMode != "off" && bf.pinMode != "both" {
		return badInput("bench likelihood: --pin must be auto, on, off or both, got %q", bf.pinMode)
	}
	if bf.pinMode == "both" {
		pin, note := job.Pinning("on", o.Workers)
		return pinBench(*o, place, pin, note, bf.asJSON)
	}
	pin, note := job.Pinning(bf.pinMode, o.Workers)
	o.Place = func(ro *runtime.Options) {
		place(ro)
		pin(ro)
	}
	fmt.Fprintf(os.Stderr, "bench likelihood: %s\n", note)
	r, err := bench.LikelihoodBench(*o)
	if err != nil {
		return err
	}
	if err := save(); err != nil {
		return err
	}
	return emitBench(bf.asJSON, r, 1, o.Workers, func() error { printLikelihoodBench(r, bf.ref); return nil })
}

// benchLikelihoodOptions parses and checks bench likelihood's flags into
// o (a mean model turns the dense reference off: bf.ref).
func benchLikelihoodOptions(o *bench.LikelihoodOptions, bf *benchLikFlags) error {
	th, err := parseMaternTheta("bench likelihood", bf.thetaS)
	if err != nil {
		return err
	}
	if o.Mean != "zero" && o.Mean != "constant" && o.Mean != "linear" {
		return badInput("bench likelihood: --mean must be zero, constant or linear, got %q", o.Mean)
	}
	if o.Mean != "zero" {
		bf.ref = false // the dense reference is of the zero-mean l
	}
	o.Theta, o.Reference = th, bf.ref
	co := config.AllOverlap()
	if err := co.Apply(bf.overlapS); err != nil {
		return badInput("bench likelihood: --overlap: %v", err)
	}
	ov := job.OverlapOf(co)
	o.Overlap = &ov
	if err := checkInts("bench likelihood", atLeast("n", o.N, 3), atLeast("nb", o.NB, 1), workersFlag(o.Workers), atLeast("reps", o.Reps, 1)); err != nil {
		return err
	}
	compFlag := "computations"
	if bf.comp != "" {
		if bf.comps != "" {
			return badInput("bench likelihood: give --computation or --computations, not both")
		}
		bf.comps, compFlag = bf.comp, "computation"
	}
	for _, s := range strings.Split(bf.comps, ",") {
		if s = strings.TrimSpace(s); s == "" || s == "exact" {
			continue
		}
		c, err := likelihood.ParseComputation(s)
		if err != nil {
			return badInput("bench likelihood: --%s: %v", compFlag, err)
		}
		o.Computations = append(o.Computations, c)
	}
	if !(o.Approx.Accuracy > 0) || o.Approx.MaxRank < 0 || o.Approx.Band < -1 || o.Approx.Lookahead < 0 || o.Approx.HPotrf < 0 {
		return badInput("bench likelihood: --tlr-accuracy must be > 0, --max-rank, --lookahead and --hpotrf >= 0 and --mp-band >= -1")
	}
	return nil
}

// printLikelihoodBench prints bench likelihood's table of r, with the
// dense reference's lines when ref.
func printLikelihoodBench(r *bench.LikelihoodResult, ref bool) {
	fmt.Printf("likelihood n=%d nb=%d workers=%d theta=%s (median of %d)\n", r.N, r.NB, r.Workers, config.FormatFloats(r.Theta), r.Reps)
	fmt.Printf("  runtime DAG   %.4f s per evaluation (min %.4f, max %.4f)  l=%.10f\n", r.Seconds, r.Wall.Min, r.Wall.Max, r.LogLik)
	fmt.Printf("  overlap %s\n", r.Overlap)
	fmt.Printf("  floor (Cholesky flops at dgemm %.1f GFLOP/s on %d threads + generation busy / %d workers): median %.4f s, wall/floor %.2fx\n",
		r.Dgemm, r.Workers, r.Workers, r.Floor, r.FloorRatio)
	for i, e := range r.Evals {
		fmt.Printf("    eval %2d  %.4f s  floor %.4f s  %.2fx  util %.1f%%\n", i+1, e.Seconds, e.Floor, e.Ratio, 100*e.Utilization)
	}
	fmt.Printf("  busy (summed over workers): generation %.4f s  cholesky %.4f s (%.1f GFLOP/s wall)  solve+det+dot %.4f s\n",
		r.Gen, r.Chol, r.Gflops, r.Solve)
	fmt.Printf("  generation rate, one core: fast %.1f M entries/s, direct Bessel %.1f M entries/s (x%.1f)\n",
		r.GenRate/1e6, r.DirectRate/1e6, r.GenRate/r.DirectRate)
	if r.Mean != "" {
		fmt.Printf("  mean %s (GLS, profiled): %.4f s per evaluation vs %.4f s with zero mean, alternated: overhead %+.1f%% wall, %+.1f%% busy\n",
			r.Mean, r.Seconds, r.ZeroSecs, 100*r.MeanOverhead, 100*r.BusyOverhead)
		fmt.Printf("  the mean's tasks (solves, inner products): %.4f s busy = %.2f%% of the zero-mean evaluation's %.4f s\n",
			r.Solve-r.ZeroSolve, 100*(r.Solve-r.ZeroSolve)/r.ZeroBusy, r.ZeroBusy)
	}
	if r.PredictN > 0 {
		fmt.Printf("  prediction of %d new locations (cross-covariance, solves; factor reused): %.4f s = %.2f x one evaluation\n",
			r.PredictN, r.PredictSecs, r.PredictRatio)
	}
	for _, a := range r.Approx {
		if a.Error != "" {
			fmt.Printf("  %-5s failed: %s\n", a.Computation, a.Error)
			continue
		}
		t := a.Tiles
		fmt.Printf("  %-5s %.4f s per evaluation (x%.2f vs exact %.4f s)  l=%.10f  rel err %.2e  busy gen %.3f chol %.3f solve %.3f  peak tiles %.1f MB (exact %.1f)",
			a.Computation, a.Seconds, a.Speedup, r.Seconds, a.LogLik, a.RelErr, a.Gen, a.Chol, a.Solve, float64(a.PeakBytes)/1e6, float64(r.PeakBytes)/1e6)
		if t != nil && t.LowRank > 0 {
			fmt.Printf("  rank mean %.1f max %d, %d dense off-diagonal, %.1f MB packed", t.MeanRank, t.MaxRank, t.DenseOff, float64(t.Bytes)/1e6)
		}
		if t != nil && t.Computation != likelihood.TLR {
			fmt.Printf("  band %d", t.Band)
		}
		fmt.Println()
		if r.PredictN > 0 {
			fmt.Printf("        prediction of %d locations on the %s factor: %.4f s (exact %.4f s)  max |z_hat - exact| %.2e  max |var - exact| %.2e\n",
				r.PredictN, a.Computation, a.PredictSecs, r.PredictSecs, a.PredictZErr, a.PredictVarErr)
		}
	}
	if ref {
		fmt.Printf("  dense reference %.4f s = generation %.4f s (direct Bessel) + factorisation, solve and dot %.4f s (LAPACK, %d threads)  l=%.10f  rel diff %.1e\n",
			r.RefSecs, r.RefGen, r.RefFactor, r.Workers, r.RefLogLik, r.RelDiff)
		fmt.Printf("  speed-up x%.1f over the whole reference, most of it its Bessel generation; x%.2f over its factorisation, solve and dot alone\n",
			r.Speedup, r.FactorSpeedup)
	}
	printDevices(r.Devices)
}

// emitBench prints a bench's result: with asJSON one JSON object, the
// result's fields and "run" (its provenance: version, command line, CPU,
// host, ranks, workers, date); else the provenance's header line, then
// the table that table prints.
func emitBench(asJSON bool, res any, ranks, workers int, table func() error) error {
	run := provenance.New(os.Args, ranks, workers)
	if !asJSON {
		fmt.Println(run.Header())
		return table()
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	rb, err := json.Marshal(run)
	if err != nil {
		return err
	}
	if len(b) < 2 || b[0] != '{' {
		return fmt.Errorf("bench: the result is not a JSON object")
	}
	out := append(b[:len(b)-1:len(b)-1], []byte(`,"run":`)...)
	if len(b) == 2 { // {}
		out = []byte(`{"run":`)
	}
	out = append(append(out, rb...), '}', '\n')
	_, err = os.Stdout.Write(out)
	return err
}

// pinBench runs and prints bench likelihood --pin both.
func pinBench(o bench.LikelihoodOptions, place, pin func(*runtime.Options), note string, asJSON bool) error {
	o.Place = place
	r, err := bench.PinBench(o, pin, note)
	if err != nil {
		return err
	}
	return emitBench(asJSON, r, 1, o.Workers, func() error {
		fmt.Printf("likelihood n=%d nb=%d workers=%d theta=%s, pinned (%s) vs not, %d pairs alternated\n",
			r.N, r.NB, r.Workers, config.FormatFloats(r.Theta), r.PinNote, r.Reps)
		fmt.Printf("  pinned   %.4f s per evaluation (min %.4f, max %.4f)\n", r.Pinned.Median, r.Pinned.Min, r.Pinned.Max)
		fmt.Printf("  unpinned %.4f s per evaluation (min %.4f, max %.4f)\n", r.Unpinned.Median, r.Unpinned.Min, r.Unpinned.Max)
		pairs := make([]string, len(r.Ratios))
		for i, x := range r.Ratios {
			pairs[i] = fmt.Sprintf("%.3f", x)
		}
		fmt.Printf("  pinned / unpinned: %.3f (median of the pairs' ratios %s); busy CPU time %.3f; l=%.10f both\n",
			r.Ratio, strings.Join(pairs, " "), r.CPU, r.LogLik)
		return nil
	})
}
