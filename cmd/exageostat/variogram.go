package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/variogram"
)

// newVariogramCmd is `exageostat variogram`: the sample semivariogram of
// a data file (or of its mean's residuals) with gstat's conventions, and
// the fitted model of a fit's JSON, as CSV, JSON and pictures.
func newVariogramCmd() *cobra.Command {
	cfg := config.DefaultPredict()
	cfg.Cmd = "variogram"
	var vo job.VariogramOptions
	var alpha string
	var quiet bool
	c := &cobra.Command{
		Use:   "variogram",
		Short: "Sample semivariogram (bins, directions, map) of the data or their mean's residuals, with the fitted model",
		Long: `The sample semivariogram of the observations of --data, with gstat's
conventions (R's variogram()): the pairs {i, j} at a distance d <= --cutoff,
in the bins (k w, (k+1) w] of width w = --width, each bin's mean distance,
semivariance gamma = sum (z_i - z_j)^2 / (2 pairs) and pair count.
Defaults: the cutoff a third of the diagonal of the data's bounding box,
the width cutoff/15 (gstat's). Bins with fewer than --min-pairs pairs
(default 30) are left out of the bins and listed apart (left_out in the
JSON; the summary line says how many).

With a mean model (--mean dist,elev, or the fit's from --theta-from) the
values binned are the residuals of the mean (--residuals): ols (default),
those of its ordinary least squares fit, gstat's variogram(z ~ dist +
elev); gls, z - X b with the fit's GLS coefficients b (--theta-from);
none, the observations as they are. --transform log bins log(z).

Directions (--alpha 0,45,90,135, gstat's alpha): degrees clockwise from
north (the +y axis: 0 north, 90 east); a pair counts in a direction when
its lag is within --tol-hor degrees of it, either way (default 90 divided
by the number of directions, as gstat). Planar x,y only. --map-out writes
the semivariogram map (gstat's map = TRUE): the ordered pairs by lag
(dx, dy), in square cells of side --width centred on multiples of it up to
--cutoff, as dx,dy,pairs,gamma (gamma NA under --min-pairs).

--theta-from a fit's JSON adds the fitted semivariogram gamma(h) =
sigma2 + tau2 - C(h) (h > 0; 0 at h = 0), in each direction for
aniso-matern: a column model at each bin's distance, and the curve at
101 distances over [0, cutoff] (--curve-out: direction,distance,gamma;
model_curve in the JSON). The fit's columns, transform, mean and distance
are used.

Outputs: --out bins as CSV (direction,lo,hi,distance,gamma,pairs[,model];
direction -1: all directions; - for standard output), --json the whole
result, --plot DIR the pictures semivariogram (points with their pair
counts, placed so that no two overlap, and the model's line) and, with
--map-out, semivariogram_map.`,
		Example: `  exageostat variogram --data meuse.csv --z zinc --transform log --mean dist,elev --out bins.csv
  exageostat variogram --data meuse.csv --theta-from fit.json --json v.json --curve-out curve.csv --plot figs
  exageostat variogram --data meuse.csv --theta-from fit.json --alpha 0,45,90,135 --map-out map.csv --plot figs`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			in := job.NewInputs(nil, nil, nil)
			if cfg.ThetaFrom != "" {
				r, err := job.ReadFitResultWith(in, "theta-from", cfg.ThetaFrom)
				if err != nil {
					return fmt.Errorf("variogram: --theta-from %w", err)
				}
				if err := r.ApplyTo(&cfg, cfg.ThetaFrom, c.Flags().Changed); err != nil {
					return err
				}
				vo.MeanCoef = r.MeanCoef
			}
			if alpha != "" {
				if vo.Alpha, err = parseFloats("variogram", "alpha", alpha); err != nil {
					return err
				}
			}
			r, err := job.Variogram(cfg, vo, job.Env{Log: os.Stderr, Quiet: quiet, Command: os.Args, Inputs: in})
			if err != nil {
				return err
			}
			left := ""
			if len(r.Sparse) > 0 {
				left = fmt.Sprintf(" (%d left out: fewer than %d pairs)", len(r.Sparse), r.MinPairs)
			}
			fmt.Fprintf(os.Stderr, "variogram: N=%d values=%s cutoff=%.6g width=%.6g: %d bins%s -> %s\n",
				r.N, r.Values, r.Cutoff, r.Width, len(r.Bins), left, outName(cfg.Out))
			for _, p := range r.Plots {
				fmt.Fprintf(os.Stderr, "  picture: %s\n", p)
			}
			return nil
		},
	}
	f := c.Flags()
	f.BoolVarP(&quiet, "quiet", "q", false, "keep stderr to warnings and the one-line summary")
	f.StringVar(&cfg.Data, "data", "", "observed CSV (x,y,z or lon,lat,z, covariates named by --mean)")
	f.StringVar(&cfg.Out, "out", "", "the bins as CSV: direction,lo,hi,distance,gamma,pairs (and model with --theta-from); - for standard output")
	f.StringVar(&cfg.JSON, "json", "", "the result as JSON: bins, left_out, model_curve, cutoff, width, what was binned")
	f.StringVar(&vo.CurveOut, "curve-out", "", "the fitted model's semivariogram at 101 distances as CSV: direction,distance,gamma (needs --theta-from)")
	f.StringVar(&vo.Map, "map-out", "", "the semivariogram map as CSV: dx,dy,pairs,gamma (cells of side --width up to --cutoff)")
	f.StringVar(&cfg.Plot, "plot", "", "write the pictures (SVG and PNG) into this directory")
	f.Float64Var(&cfg.DPI, "dpi", 0, "resolution of the PNG pictures in dots per inch (0: 300)")
	f.StringVar(&cfg.XYUnits, "xy-units", "", "the units of planar x and y on the pictures' axes (e.g. m)")
	f.StringVar(&cfg.ThetaFrom, "theta-from", "", "a fit's --json result: its model is drawn and written with the bins; its columns, transform, mean and distance are used")
	f.StringVar(&cfg.Mean, "mean", cfg.Mean, "mean model whose residuals are binned: zero, constant, linear (1,x,y) or covariate columns COL1,COL2")
	f.StringVar(&vo.Residuals, "residuals", job.ResidualsOLS, "with a mean: ols (least squares, as gstat), gls (the fit's coefficients, --theta-from) or none (the observations)")
	f.Float64Var(&vo.Bins.Cutoff, "cutoff", 0, "largest distance of a pair (0: a third of the bounding box's diagonal, gstat's default)")
	f.Float64Var(&vo.Bins.Width, "width", 0, "width of the distance bins (0: cutoff/15, gstat's default)")
	f.IntVar(&vo.Bins.MinPairs, "min-pairs", variogram.DefaultMinPairs, "bins with fewer pairs are left out (listed apart)")
	f.IntVar(&vo.Bins.MaxPairs, "max-pairs", 0, "bound the work: this many pairs drawn at random (--seed) when there are more (0: all pairs)")
	f.Uint64Var(&vo.Bins.Seed, "seed", 1, "seed of --max-pairs")
	f.StringVar(&alpha, "alpha", "", "directions in degrees clockwise from north (gstat's alpha), e.g. 0,45,90,135 (at most 4)")
	f.Float64Var(&vo.Tol, "tol-hor", 0, "tolerance of the directions in degrees (0: 90 / the number of directions)")
	f.StringVar(&cfg.Distance, "distance", cfg.Distance, "euclidean, great-circle, or auto")
	columnFlags(c, &cfg.Columns)
	return c
}
