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
	var quiet, conditional bool
	cond := config.DefaultPredict() // --conditional: predict's draws
	cond.Draws = 1
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Draw a synthetic Gaussian field on ExaGeoStat's jittered grid",
		Long: `Draws N locations on ExaGeoStat's jittered grid in the unit square (Morton
ordered) and observations Z = L e, where Sigma(theta) = L L^T and e is standard
normal, both from --seed. Writes CSV with the header x,y,z.

Over MPI (mpirun), the tiles are spread over the ranks as in fit
(--distribution bc or 1d1d, --p, --q, --powers) and rank 0 writes the file:
the same bytes on any number of ranks. The need of each rank is checked
against its memory first (--memory-limit, or what the node has).

--conditional: K draws (--draws, from --seed) of the field at the locations
of --at given the observations of --data, at theta (--theta, or --theta-from
a fit's JSON): the kriging mean V^T w plus the Cholesky factor of the
conditional covariance Sigma22 - V^T V times standard normal vectors (V =
L^-1 Sigma12), as predict --draws computes them: the same file for the same
seed, x,y,z_hat,variance,draw_1..draw_K in the order of --at. Like the
unconditional draws (whose nugget is on the diagonal), they are draws of new
observations, the nugget included; --variance latent draws the field itself
(no nugget). The mean: with --theta-from, the fit's mean model (constant,
linear or covariates, its coefficients estimated by GLS from --data as
predict does); with --theta, zero.

--json FILE writes the summary (n, theta, seconds, and every rank's memory:
the tiles it owned, its peaks, its need and what it had); --trace T.json
traces the run as fit --trace does (docs/traces.md).`,
		Example: `  exageostat simulate --n 1600 --theta 1,0.1,0.5 --seed 1 --out data.csv
  mpirun -np 4 exageostat simulate --n 40000 --nb 800 --out big.csv --memory-limit 4GB
  exageostat simulate --conditional --data data.csv --theta-from result.json --at grid.csv --draws 10 --seed 3 --out draws.csv
  exageostat simulate --n 40000 --nb 1000 --computation tlr --out big.csv
  exageostat simulate --n 1000000 --theta 1,0.03,0.5,0.1 --computation vecchia --out million.csv
  exageostat simulate --n 1600 --out data.csv --json sim.json --trace sim-trace.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if conditional {
				return simulateConditional(c, w, cond, cfg, thetaS, powers, quiet)
			}
			for _, name := range []string{"data", "at", "draws", "theta-from", "variance", "distance"} {
				if c.Flags().Changed(name) {
					return badInput("simulate: --%s goes with --conditional", name)
				}
			}
			if cfg.Theta, err = parseFloats("simulate", "theta", thetaS); err != nil {
				return err
			}
			if powers != "" {
				if cfg.Powers, err = parseFloats("simulate", "powers", powers); err != nil {
					return err
				}
			}
			r, err := job.Simulate(cfg, job.Env{Comm: w, Log: os.Stderr, Quiet: quiet, Command: os.Args})
			if err != nil {
				return err
			}
			on := ""
			if cfg.Approximate() {
				on = " (z = L e with the " + cfg.Computation + " factor)"
			}
			fmt.Fprintf(os.Stderr, "wrote %d locations with %s theta=%s%s to %s\n", r.N, r.Kernel, thetaText(r.Theta, r.Nugget), on, outName(r.Out))
			return nil
		},
	}
	f := c.Flags()
	f.BoolVarP(&quiet, "quiet", "q", false, "keep stderr to warnings and the one-line summary")
	f.IntVar(&cfg.N, "n", cfg.N, "number of locations")
	f.StringVar(&thetaS, "theta", config.FormatFloats(cfg.Theta), "parameters: sigma2,beta,nu (matern) or sigma2,beta,delta (powexp), and tau2 (the nugget) as a 4th value")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (locations and field)")
	f.StringVar(&cfg.Kernel, "kernel", cfg.Kernel, kernelsHelp)
	f.IntVar(&cfg.Times, "times", 0, "spacetime-matern: N/times sites observed at times 1..times")
	c.Long += simulateColumnsHelp
	f.Float64Var(&cfg.Nugget, "nugget", 0, "nugget tau2 added to the diagonal")
	f.StringVar(&cfg.Out, "out", "", "output CSV: x,y,z (- for standard output), or a GeoPackage (.gpkg: GDAL) point layer with the field z (EPSG:4326 for lon,lat)")
	f.IntVar(&cfg.NB, "nb", 0, "tile size (0: automatic, about N/6 within [160, 960])")
	f.IntVar(&cfg.Workers, "workers", 0, "runtime workers (0: one per core the process may use: its CPU affinity mask, or SLURM_CPUS_PER_TASK if fewer)")
	f.StringVar(&cfg.MemoryLimit, "memory-limit", "", "memory one rank may use, e.g. 2GB (default: what the node has, shared by its ranks)")
	f.StringVar(&cfg.JSON, "json", "", "also write the summary (n, theta, seconds, every rank's memory) as JSON to this file")
	f.StringVar(&cfg.Trace, "trace", "", "trace of the run's tasks, as fit's: T.json (Perfetto) and T.paje (ViTE) at the end, each rank's T.rank<R>.paje as it goes (docs/traces.md)")
	f.BoolVar(&conditional, "conditional", false, "draw the field at --at given the observations of --data (conditional simulation)")
	f.StringVar(&cond.Data, "data", "", "--conditional: observed CSV (x,y,z or lon,lat,z)")
	f.StringVar(&cond.At, "at", "", "--conditional: CSV of the new locations (x,y or lon,lat)")
	f.IntVar(&cond.Draws, "draws", cond.Draws, "--conditional: number of draws")
	f.StringVar(&cond.ThetaFrom, "theta-from", "", "--conditional: take theta, kernel, nugget and distance from a fit's --json result")
	f.StringVar(&cond.Variance, "variance", cond.Variance, "--conditional: observation (draws of new observations, nugget included) or latent (of the field, without the nugget)")
	f.StringVar(&cond.Distance, "distance", cond.Distance, "--conditional: euclidean, great-circle, or auto")
	distributionFlags(c, &cfg.Phase, &powers)
	approxFlags(c, &cfg.Approx)
	f.IntVar(&cfg.Vecchia.M, "vecchia-m", cfg.Vecchia.M, "vecchia: each location drawn given its m nearest earlier ones")
	f.StringVar(&cfg.Vecchia.Order, "vecchia-order", cfg.Vecchia.Order, "vecchia: the ordering: maxmin, random, coord or middleout")
	c.Long += approxHelp + `Unconditional: z = L~ e with L~ that factor, a
draw of N(0, L~ L~^T) (the approximation of Sigma). --conditional: the
kriging and the draws' solves use it too. --computation vecchia draws the
field through the Vecchia conditionals instead (x_i = B_i x_c(i) + L_i e_i in
the --vecchia-order ordering, c(i) the --vecchia-m nearest earlier locations,
then z = x plus the nugget's independent noise: docs/vecchia.md), in
O(N m^3) time and O(N m) memory (N = 10^6 and more);
with --conditional each new location is drawn given its --vecchia-m nearest
among the observations and the earlier new locations.`
	return c
}

// simulateConditional runs simulate --conditional: predict's conditional
// draws (job.Predict with cond.Draws) with simulate's other settings.
func simulateConditional(c *cobra.Command, w comm.Comm, cond config.Predict, cfg config.Simulate, thetaS, powers string, quiet bool) error {
	set := c.Flags().Changed
	switch {
	case cond.Data == "" || cond.At == "":
		return badInput("simulate: --conditional needs --data (the observations) and --at (the new locations)")
	case cfg.Out == "":
		return badInput("simulate: --conditional needs --out (a CSV, or - for standard output)")
	case set("n") || set("times"):
		return badInput("simulate: --n and --times do nothing with --conditional (the locations are those of --at)")
	case cond.Draws < 1:
		return badInput("simulate: --conditional needs --draws >= 1, got %d", cond.Draws)
	case set("theta") == (cond.ThetaFrom != ""):
		return badInput("simulate: --conditional: give exactly one of --theta and --theta-from")
	}
	cond.Out, cond.Seed, cond.Kernel, cond.Nugget, cond.Cmd = cfg.Out, cfg.Seed, cfg.Kernel, cfg.Nugget, "simulate"
	cond.NB, cond.Workers, cond.MemoryLimit, cond.Phase = cfg.NB, cfg.Workers, cfg.MemoryLimit, cfg.Phase
	cond.Approx, cond.Vecchia, cond.JSON, cond.Trace = cfg.Approx, cfg.Vecchia, cfg.JSON, cfg.Trace
	var err error
	in := job.NewInputs(w, nil, nil) // rank 0 reads the inputs for every rank
	if cond.ThetaFrom != "" {
		r, err := job.ReadFitResultWith(in, "theta-from", cond.ThetaFrom)
		if err != nil {
			return fmt.Errorf("simulate: --theta-from %w", err)
		}
		if err := r.ApplyTo(&cond, cond.ThetaFrom, set); err != nil {
			return err
		}
	} else if cond.Theta, err = parseFloats("simulate", "theta", thetaS); err != nil {
		return err
	}
	if powers != "" {
		if cond.Powers, err = parseFloats("simulate", "powers", powers); err != nil {
			return err
		}
	}
	r, err := job.Predict(cond, job.Env{Comm: w, Log: os.Stderr, Quiet: quiet, Command: os.Args, Inputs: in})
	if err != nil {
		return err
	}
	which := "new observations (nugget included)"
	if cond.Variance == config.VarianceLatent {
		which = "the latent field (no nugget)"
	}
	fmt.Fprintf(os.Stderr, "drew %d conditional simulations of %s at %d locations given %d observations (%s theta=%s, seed %d) in %.3fs -> %s\n",
		cond.Draws, which, r.Predicted, r.Observed, r.Kernel, thetaText(r.Theta, r.Nugget), cond.Seed, r.Seconds, outName(r.Out))
	return nil
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

// thetaText is theta as the summaries print it: the kernel's parameters
// and, when there is one, the nugget tau2 as the last value (as --theta
// takes it).
func thetaText(theta []float64, nugget float64) string {
	if nugget != 0 {
		theta = append(theta[:len(theta):len(theta)], nugget)
	}
	return config.FormatFloats(theta)
}
