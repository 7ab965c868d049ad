package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kernels"
)

func newBenchTracingCmd() *cobra.Command {
	var o bench.TraceCostOptions
	var thetaS string
	var asJSON bool
	ap := config.DefaultApprox()
	c := &cobra.Command{
		Use:   "tracing",
		Short: "The cost of the runtime's trace: evaluations with and without it, same run",
		Long: `Times --reps log-likelihood evaluations on two runtimes of --workers workers,
one recording the trace (an event per task and message with its submission,
ready, start and end times, memory samples) and one not, alternating which
runs first in each pair, and prints the medians with min and max, the
overhead of the medians and the median of the paired ratios. Both must
give the same log-likelihood, bitwise. --computation tlr, mp or dst times
evaluations of that approximate computation (its low-rank and float32
kernels traced by name).`,
		Example: `  exageostat bench tracing --n 3600 --nb 360 --workers 2 --reps 20
  exageostat bench tracing --n 8000 --nb 800 --workers 2 --reps 5 --computation tlr`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			th, err := parseMaternTheta("bench tracing", thetaS)
			if err != nil {
				return err
			}
			if err := checkInts("bench tracing", within("n", o.N, 3, 200000), within("nb", o.NB, 1, o.N), workersFlag(o.Workers), atLeast("reps", o.Reps, 1)); err != nil {
				return err
			}
			if err := ap.Check(func(key, format string, a ...any) error {
				return badInput("bench tracing: "+format, a...)
			}); err != nil {
				return err
			}
			o.Theta, o.Approx = th, job.ApproxOf(ap)
			kernels.DefaultThreads().SetThreads(1)
			r, err := bench.TraceCost(o)
			if err != nil {
				return err
			}
			return emitBench(asJSON, r, 1, o.Workers, func() error {
				fmt.Printf("trace cost, N=%d, nb=%d, %d workers, computation %s, %d pairs of evaluations (median, min and max)\n", r.N, r.NB, r.Workers, r.Computation, r.Reps)
				fmt.Printf("  traced (%d task events each): %.4f s (%.4f, %.4f)\n", r.Tasks, r.On.Median, r.On.Min, r.On.Max)
				fmt.Printf("  untraced:                     %.4f s (%.4f, %.4f)\n", r.Off.Median, r.Off.Min, r.Off.Max)
				fmt.Printf("  overhead: %+.2f %% of the medians, %+.2f %% median of the pairs; same l bitwise: %v\n",
					100*r.Overhead, 100*r.PairedOverhead, r.Same)
				if !r.Same {
					return fmt.Errorf("bench tracing: the traced and untraced evaluations differ")
				}
				return nil
			})
		},
	}
	f := c.Flags()
	problemFlags(f, &o.Problem, &thetaS, problemDefaults{n: 3600, nb: 360, reps: 10, theta: "1,0.1,0.5",
		nbHelp: "tile size", workersHelp: "runtime workers", repsHelp: "pairs of evaluations"})
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	approxFlags(c, &ap)
	return c
}
