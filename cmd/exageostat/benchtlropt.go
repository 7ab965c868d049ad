package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
)

// parseCounts reads a comma-separated list of integers in [lo, hi] for
// flag ("" or "none": an empty list).
func parseCounts(flag, s string, lo, hi int) ([]int, error) {
	if s = strings.TrimSpace(s); s == "" || s == "none" {
		return nil, nil
	}
	return parseInts("bench tlr-opt", flag, s, "an integer", lo, hi)
}

// tlrOptFlags are bench tlr-opt's flags that are not fields of
// bench.TLROptOptions.
type tlrOptFlags struct {
	thetaS, laS, hpS, swS, srS, dbS, compS string
	asJSON                                 bool
}

// tlrOptLong is bench tlr-opt's --help.
const tlrOptLong = `Times one TLR log-likelihood evaluation (N synthetic points, tile size --nb,
accuracy --accuracy) without seed 002's optimisations (the baseline), with each
lookahead depth of --lookahead, with each hierarchical potrf sub-tile size of
--hpotrf, and with the first of each together: one evaluator per variant, a
warm-up each, then --reps rounds over all variants (the median is kept), so
that load on the machine falls on all of them alike. Prints each variant's
time and ratio to the baseline, l and its difference from the baseline's,
the workers' utilisation and the time spent in the diagonal potrfs.

Then replays with pkg/sim each variant's graph, every task at the duration
measured here and every low-rank message at its tile's actual rank: on one
node of each --sim-workers count (what the optimisations give on many
cores), and the baseline's and the last variant's on --sim-ranks nodes of
--sim-cores workers each under the 2D block-cyclic and the hybrid
distribution with each band of --dist-bands (messages, bytes, the busiest
node over the mean, makespan). Each variant's work (the sum of its measured
task durations) and critical path (its longest chain of dependent tasks)
bound what any number of workers can do.`

func newBenchTLROptCmd() *cobra.Command {
	var o bench.TLROptOptions
	var tf tlrOptFlags
	c := &cobra.Command{
		Use:   "tlr-opt",
		Short: "Seed 002's optimisations of the TLR Cholesky (lookahead, hierarchical potrf, hybrid distribution) against the baseline, same run",
		Long:  tlrOptLong,
		Example: `  exageostat bench tlr-opt --n 16000 --nb 800 --workers 2
  exageostat bench tlr-opt --n 8000 --nb 400 --lookahead 1 --hpotrf 100 --sim-ranks 4,16 --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runBenchTLROpt(&o, &tf) },
	}
	f := c.Flags()
	problemFlags(f, &o.Problem, &tf.thetaS, problemDefaults{n: 16000, nb: 800, reps: 2, theta: "1,0.1,0.5",
		nbHelp: "tile size", workersHelp: "runtime workers", repsHelp: "timed rounds over the variants, after a warm-up (the median is kept)"})
	f.Float64Var(&o.Accuracy, "accuracy", 1e-9, "TLR's absolute Frobenius accuracy per tile")
	f.StringVar(&tf.compS, "computation", "tlr", "the approximation: tlr, mp or dst (dst with --mp-band >= NT-1: the exact Cholesky on the approximate path)")
	f.IntVar(&o.Band, "mp-band", -1, "mp, dst: tile sub-diagonals kept in float64 (-1: 10 % of the tiles)")
	f.StringVar(&tf.laS, "lookahead", "1,2", "lookahead depths to time, comma-separated (none: skip)")
	f.StringVar(&tf.hpS, "hpotrf", "200,400", "hierarchical potrf sub-tile sizes to time, comma-separated (none: skip)")
	f.StringVar(&tf.swS, "sim-workers", "2,16", "replay each variant on one node of these many workers (none: skip)")
	f.StringVar(&tf.srS, "sim-ranks", "4,16", "replay the baseline and the last variant on these many nodes, bc against hybrid (none: skip)")
	f.StringVar(&tf.dbS, "dist-bands", "0,1", "bands of the hybrid distributions replayed (sub-diagonals on the nodes x 1 grid)")
	f.IntVar(&o.SimCores, "sim-cores", 4, "workers per node in the distributed replays")
	f.Float64Var(&o.Bandwidth, "bandwidth", 1.25e10, "distributed replays: bytes/s of each node's link (default 100 Gb/s)")
	f.Float64Var(&o.Latency, "latency", 2e-6, "distributed replays: seconds per message")
	f.BoolVar(&tf.asJSON, "json", false, "print one JSON object")
	return c
}

// runBenchTLROpt is bench tlr-opt: its flags checked into o, the variants
// timed and replayed, the table (or JSON) printed.
func runBenchTLROpt(o *bench.TLROptOptions, tf *tlrOptFlags) error {
	if err := tlrOptOptions(o, tf); err != nil {
		return err
	}
	kernels.DefaultThreads().SetThreads(1)
	o.Progress = benchProgress(tf.asJSON)
	r, err := bench.TLROpt(*o)
	if err != nil {
		return err
	}
	return emitBench(tf.asJSON, r, 1, o.Workers, func() error { printTLROpt(r, o); return nil })
}

// tlrOptOptions parses and checks bench tlr-opt's flags into o.
func tlrOptOptions(o *bench.TLROptOptions, tf *tlrOptFlags) error {
	th, err := parseMaternTheta("bench tlr-opt", tf.thetaS)
	if err != nil {
		return err
	}
	o.Theta = th
	comp, err := likelihood.ParseComputation(tf.compS)
	if err != nil || comp == likelihood.Exact {
		return badInput("bench tlr-opt: --computation must be tlr, mp or dst, got %q", tf.compS)
	}
	o.Computation = comp
	if o.Lookahead, err = parseCounts("lookahead", tf.laS, 1, 1000); err != nil {
		return err
	}
	if o.HPotrf, err = parseCounts("hpotrf", tf.hpS, 1, 8192); err != nil {
		return err
	}
	if o.SimWorkers, err = parseCounts("sim-workers", tf.swS, 1, 4096); err != nil {
		return err
	}
	if o.SimRanks, err = parseCounts("sim-ranks", tf.srS, 2, 4096); err != nil {
		return err
	}
	if o.DistBands, err = parseCounts("dist-bands", tf.dbS, 0, 1000); err != nil {
		return err
	}
	if err := checkInts("bench tlr-opt", within("n", o.N, 64, 1000000), within("nb", o.NB, 16, 8192), workersFlag(o.Workers),
		within("reps", o.Reps, 1, 100), atLeast("sim-cores", o.SimCores, 1)); err != nil {
		return err
	}
	switch {
	case !(o.Accuracy > 0 && o.Accuracy < 1):
		return badInput("bench tlr-opt: --accuracy must be in (0, 1) (got %g)", o.Accuracy)
	case !(o.Bandwidth > 0) || !(o.Latency >= 0):
		return badInput("bench tlr-opt: --bandwidth must be > 0 and --latency >= 0")
	}
	return nil
}

// printTLROpt prints bench tlr-opt's table of r (o: the options it ran).
func printTLROpt(r *bench.TLROptResult, o *bench.TLROptOptions) {
	fmt.Printf("%s optimisations (seed 002), N=%d nb=%d (NT=%d), accuracy %g, theta=%s, %d workers, median of %d; rank mean %.1f max %d\n",
		r.Computation, r.N, r.NB, r.NT, r.Accuracy, config.FormatFloats(r.Theta), r.Workers, r.Reps, r.MeanRank, r.MaxRank)
	fmt.Printf("  %-26s %9s %21s %8s %20s %10s %6s %9s %9s %9s %9s", "variant", "seconds", "(min - max)", "speedup", "l", "rel diff", "util", "chol busy", "potrf s", "work s", "crit path")
	for _, w := range o.SimWorkers {
		fmt.Printf("  sim %2dw (x)", w)
	}
	fmt.Println()
	for _, v := range r.Variants {
		fmt.Printf("  %-26s %9.3f %10.3f - %8.3f %8.3f %20.10f %10.1e %5.1f%% %9.2f %9.3f %9.2f %9.3f",
			v.Name, v.Seconds, v.Spread.Min, v.Spread.Max, v.Speedup, v.LogLik, v.RelDiff, 100*v.Utilization, v.Chol, v.PotrfPath, v.Work, v.CritPath)
		for _, s := range v.Sim {
			fmt.Printf("  %6.3f x%.2f", s.Seconds, s.Speedup)
		}
		fmt.Println()
	}
	fmt.Println("  critical path by kind (seconds, measured durations):")
	for _, v := range r.Variants {
		ks := make([]string, 0, len(v.PathKinds))
		for k := range v.PathKinds {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool { return v.PathKinds[ks[i]] > v.PathKinds[ks[j]] })
		fmt.Printf("  %-26s", v.Name)
		for _, k := range ks {
			fmt.Printf(" %s %.3f", k, v.PathKinds[k])
		}
		fmt.Println()
	}
	if len(r.Dist) > 0 {
		fmt.Printf("  replayed on nodes of %d workers, links %.3g B/s, latency %.3g s:\n", o.SimCores, r.Bandwidth, r.Latency)
		fmt.Printf("  %-26s %5s %-36s %9s %8s %10s %10s %10s %8s\n", "variant", "nodes", "distribution", "seconds", "vs bc", "messages", "MB", "imbalance", "diag on")
		for _, d := range r.Dist {
			fmt.Printf("  %-26s %5d %-36s %9.3f %8.3f %10d %10.1f %10.3f %8d\n",
				d.Variant, d.Ranks, d.Dist, d.Seconds, d.Speedup, d.Messages, float64(d.Bytes)/1e6, d.Imbalance, d.DiagNodes)
		}
	}
}
