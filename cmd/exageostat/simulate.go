package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
)

func newSimulateCmd(w comm.Comm) *cobra.Command {
	cfg := config.DefaultSimulate()
	var thetaS, powers string
	var quiet bool
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Draw a synthetic Gaussian field on ExaGeoStat's jittered grid",
		Long: `Draws N locations on ExaGeoStat's jittered grid in the unit square (Morton
ordered) and observations Z = L e, where Sigma(theta) = L L^T and e is standard
normal, both from --seed. Writes CSV with the header x,y,z.

Over MPI (mpirun), the tiles are spread over the ranks as in fit
(--distribution bc or 1d1d, --p, --q, --powers) and rank 0 writes the file:
the same bytes on any number of ranks. The need of each rank is checked
against its memory first (--memory-limit, or what the node has).`,
		Example: `  exageostat simulate --n 1600 --theta 1,0.1,0.5 --seed 1 --out data.csv
  mpirun -np 4 exageostat simulate --n 40000 --nb 800 --out big.csv --memory-limit 4GB`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if cfg.Theta, err = parseFloats("theta", thetaS); err != nil {
				return err
			}
			if powers != "" {
				if cfg.Powers, err = parseFloats("powers", powers); err != nil {
					return err
				}
			}
			r, err := job.Simulate(cfg, job.Env{Comm: w, Log: os.Stderr, Quiet: quiet})
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "wrote %d locations with %s theta=%s to %s\n", r.N, r.Kernel, formatFloats(r.Theta), outName(r.Out))
			return nil
		},
	}
	f := c.Flags()
	f.BoolVarP(&quiet, "quiet", "q", false, "keep stderr to warnings and the one-line summary")
	f.IntVar(&cfg.N, "n", cfg.N, "number of locations")
	f.StringVar(&thetaS, "theta", formatFloats(cfg.Theta), "parameters: sigma2,beta,nu (matern) or sigma2,beta,delta (powexp), and tau2 (the nugget) as a 4th value")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (locations and field)")
	f.StringVar(&cfg.Kernel, "kernel", cfg.Kernel, kernelsHelp)
	f.IntVar(&cfg.Times, "times", 0, "spacetime-matern: N/times sites observed at times 1..times")
	c.Long += simulateColumnsHelp
	f.Float64Var(&cfg.Nugget, "nugget", 0, "nugget tau2 added to the diagonal")
	f.StringVar(&cfg.Out, "out", "", "output CSV: x,y,z (- for standard output)")
	f.IntVar(&cfg.NB, "nb", 0, "tile size (0: automatic, about N/6 within [160, 960])")
	f.IntVar(&cfg.Workers, "workers", 0, "runtime workers (0: one per core the process may use: its CPU affinity mask, or SLURM_CPUS_PER_TASK if fewer)")
	f.StringVar(&cfg.MemoryLimit, "memory-limit", "", "memory one rank may use, e.g. 2GB (default: what the node has, shared by its ranks)")
	distributionFlags(c, &cfg.Phase, &powers)
	return c
}

// distributionFlags adds the flags of the tiles' distribution over MPI
// ranks (simulate, predict; fit has its own with --cluster).
func distributionFlags(c *cobra.Command, p *config.Phase, powers *string) {
	f := c.Flags()
	f.StringVar(&p.Distribution, "distribution", p.Distribution, "MPI runs: tile distribution, bc or 1d1d")
	f.IntVar(&p.P, "p", 0, "MPI runs, bc: process grid rows (0: the most square grid, p >= q)")
	f.IntVar(&p.Q, "q", 0, "MPI runs, bc: process grid columns (0: the most square grid, p >= q)")
	f.StringVar(powers, "powers", "", "MPI runs, 1d1d: relative power of each rank, e.g. 1,1,4,4 (default equal)")
}
