package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// newBenchVecchiaCmd is `exageostat bench vecchia`: one Vecchia
// evaluation against its floor measured in the same run.
func newBenchVecchiaCmd() *cobra.Command {
	o := bench.VecchiaOptions{N: 100000, M: 30, Workers: job.DefaultWorkers(), Reps: 3, Seed: 1}
	var thetaS, ord string
	var asJSON bool
	c := &cobra.Command{
		Use:   "vecchia",
		Short: "One Vecchia likelihood + gradient + information evaluation against its floor, same run",
		Long: `Prepares N uniform random points in the unit square (random values: the cost
does not depend on them) as fit --computation vecchia does (the ordering, the
--m nearest earlier locations by a k-d tree, the grouping into blocks), then
evaluates the Vecchia log-likelihood of the Matérn model with nu free, a
nugget and a constant mean (--theta sigma2,beta,nu,tau2), alone and with its
gradient and Fisher information, --reps times on --workers workers
(medians reported), then once more each with the phases timed (a clock
read between the phases of every block, which the timed walls above go
without: the worker seconds and the workers' busy share come from these).

The floor is measured in the same run: the blocks' Cholesky flops (u^3/3 for
a block of u points) at the rate of the blocks' own Cholesky factor (faster
than LAPACK dpotrf at these sizes), their solves and the gradient's
and information's products and solves (as the block kernel does them) at
the dgemm rate, both measured at the mean block's size, and the covariance
entries (u(u+1)/2 per block) at the Matérn generation rate (the covariance
alone, as l alone evaluates it, at the distances of a 256 x 256 tile, theta's
nu), each rate on --workers goroutines at once. Printed:
where the time goes (ordering, neighbours, grouping; generation,
factorisation, solves, derivatives in worker seconds), the floor and the
ratio of the evaluation to it (docs/vecchia.md).`,
		Example: `  exageostat bench vecchia --n 100000 --m 30 --workers 2
  exageostat bench vecchia --n 1000000 --m 30 --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkInts("bench vecchia", atLeast("n", o.N, 2), atLeast("m", o.M, 1), workersFlag(o.Workers), atLeast("reps", o.Reps, 1)); err != nil {
				return err
			}
			if !slices.Contains(config.VecchiaOrders, ord) {
				return badInput("bench vecchia: --order must be maxmin, random, coord or middleout (got %q)", ord)
			}
			theta, err := parseFloats("bench vecchia", "theta", thetaS)
			if err != nil {
				return err
			}
			if len(theta) != 4 || theta[0] <= 0 || theta[1] <= 0 || theta[2] <= 0 || theta[3] < 0 {
				return badInput("bench vecchia: --theta must be sigma2,beta,nu,tau2 with sigma2, beta, nu > 0 and tau2 >= 0 (got %s)", thetaS)
			}
			o.Theta, o.Order = theta, order.Method(ord)
			o.Progress = benchProgress(asJSON)
			r, err := bench.VecchiaBench(o)
			if err != nil {
				return err
			}
			return emitBench(asJSON, r, 1, r.Workers, func() error {
				printVecchiaBench(r)
				return nil
			})
		},
	}
	f := c.Flags()
	f.IntVar(&o.N, "n", o.N, "locations N")
	f.IntVar(&o.M, "m", o.M, "conditioning set size")
	f.IntVar(&o.Workers, "workers", o.Workers, "runtime workers (and goroutines of the rates)")
	f.IntVar(&o.Reps, "reps", o.Reps, "evaluations of each kind; medians are reported")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the random points and values")
	f.StringVar(&thetaS, "theta", "1,0.05,0.8,0.1", "sigma2,beta,nu,tau2 of the Matérn model")
	f.StringVar(&ord, "order", "maxmin", "the ordering: maxmin, random, coord or middleout")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of the table")
	return c
}

// printVecchiaBench prints the result as a table.
func printVecchiaBench(r *bench.VecchiaResult) {
	fmt.Printf("vecchia n=%d m=%d order=%s workers=%d blocks=%d (mean %.1f points, %.1f responses)\n",
		r.N, r.M, r.Order, r.Workers, r.Blocks, r.MeanU, r.MeanR)
	fmt.Printf("  preparation        ordering %.3f s  neighbours %.3f s  grouping %.3f s\n", r.OrderSeconds, r.SetsSeconds, r.PlanSeconds)
	fmt.Printf("  evaluation         %.3f s (l alone %.3f s), l = %.10g\n", r.Seconds, r.LSeconds, r.LogLik)
	fmt.Printf("  worker seconds     generation %.3f  factorisation %.3f  solves %.3f  derivatives %.3f  (busy %.0f %%, in tasks %.0f %%, of %.3f s timed)\n",
		r.Busy["generation"], r.Busy["factorisation"], r.Busy["solves"], r.Busy["derivatives"], 100*r.BusyShare, 100*r.TaskShare, r.TimedSeconds)
	fmt.Printf("    l alone          generation %.3f  factorisation %.3f  solves %.3f  (busy %.0f %%, in tasks %.0f %%, of %.3f s timed)\n",
		r.LBusy["generation"], r.LBusy["factorisation"], r.LBusy["solves"], 100*r.LBusyShare, 100*r.LTaskShare, r.LTimedSeconds)
	fmt.Printf("  counts             Cholesky %.3g flop  solves %.3g flop  derivatives %.3g flop  %.3g entries\n", r.CholFlops, r.SolveFlops, r.GradFlops, r.Entries)
	fmt.Printf("  rates (this run)   Cholesky %.2f GFLOP/s  dgemm %.2f GFLOP/s  Matérn %.1f M entries/s  (%d at once)\n",
		r.PotrfRate/1e9, r.GemmRate/1e9, r.GenRate/1e6, r.Workers)
	fmt.Printf("  floor              %.3f s (l alone %.3f s)\n", r.Floor, r.LFloor)
	fmt.Printf("  ratio to floor     %.2f (l alone %.2f)\n", r.Ratio, r.LRatio)
}
