package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kernels"
)

func newBenchTLRCmd() *cobra.Command {
	var o bench.TLRSweepOptions
	var sweep, thetaS string
	var asJSON bool
	c := &cobra.Command{
		Use:   "tlr",
		Short: "The TLR tile-size model (seed 002, equation 2) against a sweep of tile sizes, same run",
		Long: `Seed 002's Figure 5 check. The model's tile size for the tile low-rank
Cholesky, nb = sqrt(3 N k (3 + sqrt(9 + 32 P)) / (4 P)) on P = 1 node, with k
the mean rank of a sample of compressed off-diagonal tiles of size
4 sqrt(N), is timed beside every tile size of --nb-sweep: one TLR log-likelihood
evaluation each (--reps, after a warm-up) of N synthetic locations at the
accuracy --accuracy. It prints each size's median time and mean and largest
rank, the best, and the model's time over the best (within 10 % is the
goal).`,
		Example: `  exageostat bench tlr --n 8000 --nb-sweep 320,480,640,800,1000,1280 --workers 2
  exageostat bench tlr --n 16000 --nb-sweep 500,800,1200,1600 --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if o.NB, err = parseInts("bench tlr", "nb-sweep", sweep, "a tile size", 16, 8192); err != nil {
				return err
			}
			sort.Ints(o.NB)
			if o.Theta, err = parseMaternTheta("bench tlr", thetaS); err != nil {
				return err
			}
			if err := checkInts("bench tlr", within("n", o.N, 64, 1000000), workersFlag(o.Workers), within("reps", o.Reps, 1, 100)); err != nil {
				return err
			}
			if !(o.Accuracy > 0 && o.Accuracy < 1) {
				return badInput("bench tlr: --accuracy must be in (0, 1) (got %g)", o.Accuracy)
			}
			kernels.DefaultThreads().SetThreads(1)
			o.Progress = benchProgress(asJSON)
			r, err := bench.TLRSweep(o)
			if err != nil {
				return err
			}
			return emitBench(asJSON, r, 1, o.Workers, func() error {
				fmt.Printf("TLR tile size: model vs sweep, N=%d, accuracy %g, theta=%s, %d workers, median of %d\n",
					r.N, r.Accuracy, config.FormatFloats(r.Theta), r.Workers, o.Reps)
				fmt.Printf("  %6s %10s %21s %10s %8s\n", "nb", "seconds", "(min - max)", "mean rank", "max rank")
				for _, row := range r.Rows {
					mark := ""
					if row.Model {
						mark = "  <- model"
					}
					if row.NB == r.Best {
						mark += "  <- best"
					}
					fmt.Printf("  %6d %10.3f %10.3f - %8.3f %10.1f %8d%s\n", row.NB, row.Seconds, row.Spread.Min, row.Spread.Max, row.MeanRank, row.MaxRank, mark)
				}
				verdict := "within"
				if r.ModelRatio > 1.1 {
					verdict = "NOT within"
				}
				fmt.Printf("  model nb %d (sampled mean rank %.1f): %.2fx the best (nb %d), %s 10 %%\n", r.ModelNB, r.ModelRank, r.ModelRatio, r.Best, verdict)
				return nil
			})
		},
	}
	f := c.Flags()
	f.IntVar(&o.N, "n", 8000, "number of locations")
	f.StringVar(&sweep, "nb-sweep", "320,480,640,800,1000,1280", "tile sizes to time, comma-separated")
	f.IntVar(&o.Workers, "workers", job.DefaultWorkers(), "runtime workers")
	f.IntVar(&o.Reps, "reps", 1, "timed evaluations per tile size, after a warm-up (the median is kept)")
	f.Float64Var(&o.Accuracy, "accuracy", 1e-9, "TLR's absolute Frobenius accuracy per tile")
	f.StringVar(&thetaS, "theta", "1,0.1,0.5", "Matérn sigma2,beta,nu")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the locations, the observations and the sampled tiles")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	return c
}
