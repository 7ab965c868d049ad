package main

import (
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

func newPredictCmd() *cobra.Command {
	var (
		data, at, out, thetaS, thetaFrom, kernel, distance string
		nugget                                             float64
		nb, workers                                        int
	)
	c := &cobra.Command{
		Use:   "predict",
		Short: "Krige values and prediction variances at new locations",
		Long: `Simple kriging with zero mean: from the observations in --data and theta
(--theta, or --theta-from a fit's JSON), predicts z at the locations of --at
(a CSV with a header x,y or lon,lat; a z column there is ignored) and writes
x,y,z_hat,variance in the order of --at. The variance is that of a new
observation (it includes the nugget). Runs as tile tasks: cross-covariance
generation, Cholesky, triangular solves.`,
		Example: `  exageostat predict --data observed.csv --theta 1,0.1,0.5 --at new.csv --out predictions.csv
  exageostat predict --data observed.csv --theta-from result.json --at new.csv --out predictions.csv`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if data == "" || at == "" || out == "" {
				return badInput("predict: --data, --at and --out are required")
			}
			if (thetaS == "") == (thetaFrom == "") {
				return badInput("predict: give exactly one of --theta and --theta-from")
			}
			var theta []float64
			var err error
			if thetaFrom != "" {
				var r struct {
					Kernel   string    `json:"kernel"`
					Theta    []float64 `json:"theta"`
					Nugget   float64   `json:"nugget"`
					Distance string    `json:"distance"`
				}
				b, err := os.ReadFile(thetaFrom)
				if err != nil {
					return badInput("predict: --theta-from: %v", err)
				}
				if err := json.Unmarshal(b, &r); err != nil || r.Theta == nil {
					return badInput("predict: %s is not a fit result (no theta)", thetaFrom)
				}
				if c.Flags().Changed("kernel") && r.Kernel != kernel {
					return badInput("predict: %s holds a %s fit, not %s", thetaFrom, r.Kernel, kernel)
				}
				if r.Kernel != "" && r.Kernel != kernel {
					kernel = r.Kernel
				}
				theta = r.Theta
				if !c.Flags().Changed("nugget") {
					nugget = r.Nugget
				}
				if !c.Flags().Changed("distance") && r.Distance != "" {
					distance = r.Distance
				}
			} else if theta, err = parseFloats("theta", thetaS); err != nil {
				return err
			}
			model := likelihood.Model(kernel)
			if err := model.Validate(); err != nil {
				return badInput("predict: %v", err)
			}
			if _, err := model.Kernel(theta, 1); err != nil {
				return badInput("predict: theta: %v", err)
			}
			if nb < 0 || workers < 0 || nugget < 0 {
				return badInput("predict: need --nb >= 0, --workers >= 0, --nugget >= 0")
			}
			obs, err := dataset.ReadCSV(data)
			if err != nil {
				return &inputError{err}
			}
			if obs.Obs == nil {
				return badInput("predict: %s has no observations (need a z column)", data)
			}
			if err := dataset.Validate(obs, 3); err != nil {
				return badInput("%s: %v", data, err)
			}
			nw, err := dataset.ReadCSV(at)
			if err != nil {
				return &inputError{err}
			}
			if nw.Len() == 0 {
				return badInput("%s: no locations", at)
			}
			nw.Obs = nil
			if err := dataset.Validate(nw, 1); err != nil {
				return badInput("%s: %v", at, err)
			}
			metric, err := parseDistance("predict", distance, obs.Coords)
			if err != nil {
				return err
			}
			if obs.Coords != nw.Coords {
				return badInput("predict: %s and %s use different coordinates (%s vs %s)", data, at, obs.Coords, nw.Coords)
			}
			if nb == 0 {
				nb = tile.AutoNB(obs.Len())
			}
			sorted := dataset.Permute(obs, dataset.MortonOrder(obs))
			rt := runtime.New(runtime.Options{Workers: workers})
			defer rt.Close()
			ev, err := likelihood.New(likelihood.Problem{Points: points(sorted), Metric: metric, Obs: sorted.Obs,
				Model: model, Nugget: nugget}, nb, rt, false)
			if err != nil {
				return err
			}
			r, err := predict.Krige(ev, theta, points(nw))
			if err != nil {
				return err
			}
			hdr := []string{"x", "y", "z_hat", "variance"}
			if nw.Coords == dataset.Geographic {
				hdr[0], hdr[1] = "lon", "lat"
			}
			if err := dataset.WriteTable(out, hdr, [][]float64{nw.X, nw.Y, r.Z, r.Var}); err != nil {
				return badInput("predict: %v", err)
			}
			fmt.Fprintf(os.Stderr, "predicted %d locations from %d observations (%s theta=%s) in %.3fs -> %s\n",
				nw.Len(), obs.Len(), model, formatFloats(theta), r.Seconds, out)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&data, "data", "", "observed CSV (x,y,z or lon,lat,z)")
	f.StringVar(&at, "at", "", "CSV of new locations (x,y or lon,lat)")
	f.StringVar(&out, "out", "", "output CSV: x,y,z_hat,variance")
	f.StringVar(&thetaS, "theta", "", "parameters sigma2,beta,nu (or sigma2,beta,delta)")
	f.StringVar(&thetaFrom, "theta-from", "", "take theta, kernel, nugget and distance from a fit's --json result")
	f.StringVar(&kernel, "kernel", "matern", "covariance: matern or powexp")
	f.StringVar(&distance, "distance", "auto", "euclidean, great-circle, or auto")
	f.Float64Var(&nugget, "nugget", 0, "nugget tau2")
	f.IntVar(&nb, "nb", 0, "tile size (0: automatic, about N/6 within [160, 960])")
	f.IntVar(&workers, "workers", goruntime.NumCPU(), "runtime workers")
	return c
}
