package main

import (
	"fmt"
	"os"
	goruntime "runtime"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

func newSimulateCmd() *cobra.Command {
	var (
		n, nb, workers int
		thetaS, kernel string
		seed           uint64
		nugget         float64
		out            string
	)
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Draw a synthetic Gaussian field on ExaGeoStat's jittered grid",
		Long: `Draws N locations on ExaGeoStat's jittered grid in the unit square (Morton
ordered) and observations Z = L e, where Sigma(theta) = L L^T and e is standard
normal, both from --seed. Writes CSV with the header x,y,z.`,
		Example: `  exageostat simulate --n 1600 --theta 1,0.1,0.5 --seed 1 --out data.csv`,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return badInput("simulate: --out is required")
			}
			if n < 3 {
				return badInput("simulate: --n must be >= 3 (got %d)", n)
			}
			if nb < 0 || workers < 0 {
				return badInput("simulate: --nb and --workers must be >= 0")
			}
			if nb == 0 {
				nb = tile.AutoNB(n)
			}
			theta, err := parseFloats("theta", thetaS)
			if err != nil {
				return err
			}
			model := likelihood.Model(kernel)
			if err := model.Validate(); err != nil {
				return badInput("simulate: --kernel: %v", err)
			}
			if _, err := model.Kernel(theta, 1); err != nil {
				return badInput("simulate: --theta: %v", err)
			}
			if nugget < 0 {
				return badInput("simulate: --nugget must be >= 0")
			}
			d := dataset.Grid(n, seed)
			rt := runtime.New(runtime.Options{Workers: workers})
			defer rt.Close()
			p := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Metric: matern.Euclidean, Model: model, Nugget: nugget}
			z, err := likelihood.Simulate(p, theta, dataset.StandardNormal(n, seed), rt, likelihood.Options{NB: nb}, 0)
			if err != nil {
				return err
			}
			d.Obs = z
			if err := dataset.WriteCSV(out, d); err != nil {
				return badInput("simulate: %v", err)
			}
			fmt.Fprintf(os.Stderr, "wrote %d locations with %s theta=%s to %s\n", n, kernel, formatFloats(theta), out)
			return nil
		},
	}
	f := c.Flags()
	f.IntVar(&n, "n", 1600, "number of locations")
	f.StringVar(&thetaS, "theta", "1,0.1,0.5", "parameters: sigma2,beta,nu (matern) or sigma2,beta,delta (powexp)")
	f.Uint64Var(&seed, "seed", 1, "random seed (locations and field)")
	f.StringVar(&kernel, "kernel", "matern", "covariance: matern or powexp")
	f.Float64Var(&nugget, "nugget", 0, "nugget tau2 added to the diagonal")
	f.StringVar(&out, "out", "", "output CSV (x,y,z)")
	f.IntVar(&nb, "nb", 0, "tile size (0: automatic, about N/6 within [160, 960])")
	f.IntVar(&workers, "workers", goruntime.NumCPU(), "runtime workers")
	return c
}
