package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
)

func newPredictCmd(w comm.Comm) *cobra.Command { return newKrigeCmd(w, false) }

// newCVCmd is `exageostat cv`: predict's machinery on the data themselves,
// leave one out.
func newCVCmd(w comm.Comm) *cobra.Command { return newKrigeCmd(w, true) }

// krigeFlags are predict's and cv's flags that are not fields of
// config.Predict.
type krigeFlags struct {
	thetaS, powers string
	quiet          bool
}

// predictLong and cvLong are predict's and cv's --help (the flags' help
// paragraphs follow: krigeFlagSet).
const (
	predictLong = `Simple kriging with zero mean (universal kriging with --mean): from the observations in --data and theta
(--theta, or --theta-from a fit's JSON), predicts z at the locations of --at
(a CSV with a header x,y or lon,lat; a z column there is ignored) and writes
x,y,z_hat,variance in the order of --at. The variance is that of a new
observation (it includes the nugget). Runs as tile tasks: cross-covariance
generation, Cholesky, triangular solves.

Over MPI (mpirun), the tiles are spread over the ranks as in fit
(--distribution bc or 1d1d, --p, --q, --powers) and rank 0 writes the file,
the same as on one rank. The need of each rank is checked against its
memory first (--memory-limit, or what the node has).

Mean model (--mean, or the fit's from --theta-from): constant, linear (1, x,
y) or named covariate columns COL1,COL2 (an intercept and those columns of
--data, and of --at at the new locations: "x,y,COL1,COL2"): universal
kriging, the mean's coefficients estimated by generalised least squares from
the observations at theta, z_hat = x0'b + c'Sigma^-1 (z - X b), and the
variance includes the mean's uncertainty, + d'(X'Sigma^-1 X)^-1 d with
d = x0 - X'Sigma^-1 c.

GIS files (a binary built with GDAL: the gdal build tag, which make build
sets when libgdal-dev is installed): --at grid.tif (GeoTIFF, NetCDF, any
raster GDAL reads) predicts at the centres of the raster's cells that have
a value in every band the mean uses, the bands read as covariates by their
descriptions (--band 1=dist or --band NAME=COL to map them), in the
raster's CRS (a geographic CRS gives lon,lat and great-circle distances).
--out pred.tif or pred.nc then writes the predictions as a raster with the
same grid, CRS and geotransform: one band per output column (z_hat,
variance, sd = sqrt(variance), the transformed and back-transformed ones,
draw_k), NaN (the nodata value) at the other cells. A CSV --out still
writes the table at the cells' centres.

Block kriging: --blocks polygons.gpkg (or .shp, .geojson) predicts the
mean of the field over each polygon, discretised by the --at locations
(a raster's cells, or a CSV's points) inside it, with the mean's
covariates averaged the same way: z_B = mean of the point predictions and
var_B = C_BB - c_B' Sigma^-1 c_B + d_B'(X'Sigma^-1 X)^-1 d_B, with c_B and
C_BB the covariances averaged over the block's points (the latent field's:
no nugget), on the same tiled solve as point kriging. Writes
block,cells,z_hat,variance,sd, one row per polygon (named by its first
text field), on the transformed scale with --transform.

--json FILE writes the summary (counts, theta, seconds, and every rank's
memory: the tiles it owned, its peaks, its need and what it had); --trace
T.json traces the run as fit --trace does (docs/traces.md).`
	cvLong = `Leave-one-out cross-validation: every observation of --data predicted from
all the others at theta (--theta, or --theta-from a fit's JSON), in closed
form from one Cholesky factor L of Sigma (Dubrule 1983):
e_i = z_i - E[z_i | z_-i] = (Sigma^-1 z)_i / (Sigma^-1)_ii and
Var[z_i | z_-i] = 1/(Sigma^-1)_ii, with Sigma^-1's diagonal and Sigma^-1 z
from V = L^-1 as tile tasks (about the cost of one factorisation).

With a mean model (--mean, or the fit's from --theta-from) each point is
predicted by universal kriging from the others, the mean's coefficients
re-estimated by GLS without it: e_i = (P z)_i / P_ii and Var = 1/P_ii with
P = Sigma^-1 - Sigma^-1 X (X'Sigma^-1 X)^-1 X'Sigma^-1.

--folds K: K-fold cross-validation instead: the observations split at
random (--seed) into K folds of nearly equal size, each fold kriged at theta
from the other folds (its own Cholesky factorisation; with a mean model the
coefficients estimated from the other folds), adding a column fold (1..K).

Writes, in the order of --data, the columns
  x,y,z,z_loo,variance,residual,standardized
(lon,lat for lon,lat data): the observation z, its prediction z_loo from
the others, the prediction's variance (a new observation's), residual =
z - z_loo and standardized = residual/sqrt(variance). 3D and space-time
data too: their third coordinate and time are not repeated, row i is the
i-th row of --data read (after the rows dropped for a missing value, which
the run reports). With --folds
  x,y,z,z_cv,variance,residual,standardized,fold
and with --transform the observation and its prediction on the
transformed scale, prefixed with the transform's name (log, log1p, sqrt,
boxcox), the variance and residuals on that scale too; --transform log:
  x,y,log_z,log_z_loo,variance,residual,standardized
--out res.gpkg writes them as a GeoPackage point layer, in --crs: the
coordinates as the points, the other columns as fields (a binary built
with GDAL). Prints the MSPE, the mean logarithmic score and the share of
the observations inside their 95 % intervals (also written to --json).

--plot DIR draws, in DIR, cv_residuals (the standardised residuals at the
data locations on a diverging colour scale, blue below 0 and red above,
symmetric about 0) and cv_qq (their normal QQ plot with the line y = x),
each as SVG and PNG (--dpi, 300 by default), listed in --json's plots.`
)

// newKrigeCmd returns predict, or cv when cv is set (no --at: every
// observation is predicted from the others).
func newKrigeCmd(w comm.Comm, cv bool) *cobra.Command {
	cfg := config.DefaultPredict()
	var kf krigeFlags
	c := &cobra.Command{
		Use:   "predict",
		Short: "Krige values and prediction variances at new locations",
		Long:  predictLong,
		Example: `  exageostat predict --data observed.csv --theta 1,0.1,0.5 --at new.csv --out predictions.csv
  exageostat predict --data meuse.csv --z zinc --transform log --mean dist --theta-from fit.json --at meuse-grid.tif --out zinc.tif
  exageostat predict --data observed.csv --theta-from result.json --at new.csv --out predictions.csv
  exageostat predict --data observed.csv --theta 1,0.1,0.5,0.01 --mean linear --at new.csv --out predictions.csv
  exageostat predict --data big.csv --theta-from result.json --at new.csv --out predictions.csv --computation tlr --nb 800
  mpirun -np 2 exageostat predict --data observed.csv --theta-from result.json --at new.csv --out predictions.csv`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runKrige(c, w, cv, &cfg, &kf) },
	}
	if cv {
		c.Use = "cv"
		c.Short = "Leave-one-out or K-fold cross-validation of the observations at theta"
		c.Long = cvLong
		c.Example = `  exageostat cv --data data.csv --theta-from result.json --out loo.csv
  exageostat cv --data data.csv --theta-from result.json --folds 10 --seed 3 --out cv10.csv --json cv10.json
  exageostat cv --data data.csv --theta 1,0.1,0.5,0.01 --out -`
	}
	krigeFlagSet(c, cv, &cfg, &kf)
	return c
}

// krigeFlagSet adds predict's (or cv's) flags to c, and the help
// paragraphs of the data columns and the approximations to its --help.
func krigeFlagSet(c *cobra.Command, cv bool, cfg *config.Predict, kf *krigeFlags) {
	f := c.Flags()
	f.BoolVarP(&kf.quiet, "quiet", "q", false, "keep stderr to warnings and the one-line summary")
	f.StringVar(&cfg.Data, "data", "", "observed CSV (x,y,z or lon,lat,z)")
	if !cv {
		f.StringVar(&cfg.At, "at", "", "CSV of new locations (x,y or lon,lat), or a raster (.tif, .nc: GDAL) whose cell centres are the locations and whose bands are covariates")
		f.StringVar(&cfg.Blocks, "blocks", "", "polygons (GeoPackage, shapefile, GeoJSON: GDAL): write each polygon's mean (block kriging) over the --at locations inside it, as block,cells,z_hat,variance,sd")
		f.StringArrayVar(&cfg.Bands, "band", nil, "with a raster --at: BAND=COL reads band BAND (its number from 1 or its description) as the covariate COL (repeatable)")
	}
	f.StringVar(&cfg.Out, "out", "", "output CSV: x,y,z_hat,variance (- for standard output); with a raster --at, a .tif (GeoTIFF) or .nc (NetCDF) with the grid's CRS, one band per column and sd bands, NaN outside; a .gpkg (GeoPackage: GDAL) writes the table as a point layer in --crs")
	f.StringVar(&kf.thetaS, "theta", "", "parameters sigma2,beta,nu (or sigma2,beta,delta), and tau2 (the nugget) as a 4th value")
	f.StringVar(&cfg.ThetaFrom, "theta-from", "", "take theta, kernel, mean, nugget and distance from a fit's --json result")
	f.StringVar(&cfg.Kernel, "kernel", cfg.Kernel, kernelsHelp)
	if !cv {
		f.IntVar(&cfg.Draws, "draws", 0, "also write this many conditional simulations of the field at --at given the data (columns draw_1...; with the nugget unless --variance latent)")
		f.Uint64Var(&cfg.Seed, "seed", 1, "seed of --draws")
	} else {
		f.IntVar(&cfg.Folds, "folds", 0, "K-fold cross-validation with this many folds (0: leave one out)")
		f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the random split into --folds")
		f.StringVar(&cfg.Plot, "plot", "", "write pictures (SVG and PNG) into this directory: a map of the standardised residuals and their normal QQ plot")
		f.Float64Var(&cfg.DPI, "dpi", 0, "resolution of the PNG pictures in dots per inch (0: 300)")
		f.StringVar(&cfg.ZName, "z-name", "", "the observed variable's name on the pictures (default z)")
		f.StringVar(&cfg.Units, "units", "", "with --plot: the observed variable's units on the pictures (e.g. mm)")
		f.StringVar(&cfg.XYUnits, "xy-units", "", "with --plot: the units of planar x and y on the map axes (e.g. m)")
	}
	jsonHelp := "also write the summary (counts, theta, seconds, every rank's memory) as JSON to this file"
	if cv {
		jsonHelp = "also write the summary (MSPE, mean log score, coverage, every rank's memory) as JSON to this file"
	}
	f.StringVar(&cfg.JSON, "json", "", jsonHelp)
	f.StringVar(&cfg.Trace, "trace", "", "trace of the run's tasks, as fit's: T.json (Perfetto) and T.paje (ViTE) at the end, each rank's T.rank<R>.paje as it goes (docs/traces.md)")
	f.StringVar(&cfg.Variance, "variance", cfg.Variance, "the variance written: observation (of a new observation, nugget included) or latent (of the field, without the nugget)")
	c.Long += dataColumnsHelp
	f.StringVar(&cfg.Distance, "distance", cfg.Distance, "euclidean, great-circle, or auto")
	f.Float64Var(&cfg.Nugget, "nugget", 0, "nugget tau2")
	f.StringVar(&cfg.Mean, "mean", cfg.Mean, "mean model: zero, constant, linear (1,x,y) or covariate columns COL1,COL2 of --data and --at (universal kriging)")
	f.IntVar(&cfg.NB, "nb", 0, "tile size (0: automatic, about N/6 within [160, 960])")
	f.IntVar(&cfg.Workers, "workers", 0, "runtime workers (0: one per core the process may use: its CPU affinity mask, or SLURM_CPUS_PER_TASK if fewer)")
	f.StringVar(&cfg.MemoryLimit, "memory-limit", "", "memory one rank may use, e.g. 2GB (default: what the node has, shared by its ranks)")
	distributionFlags(c, &cfg.Phase, &kf.powers)
	columnFlags(c, &cfg.Columns)
	f.StringVar(&cfg.Scale, "scale", "", "with --transform: the scale of the predictions written: both (default), original (back-transformed) or transformed")
	approxFlags(c, &cfg.Approx)
	f.IntVar(&cfg.Vecchia.M, "vecchia-m", cfg.Vecchia.M, "vecchia: each location predicted from its m nearest observations")
	f.StringVar(&cfg.Vecchia.Order, "vecchia-order", cfg.Vecchia.Order, "vecchia: the ordering of the observations (for the GLS mean): maxmin, random, coord or middleout")
	c.Long += approxHelp + `The kriging solves with that factor (the
cross-covariance Sigma_{*o} stays exact): mu* = Sigma_{*o} Sigma~^-1 z and
var* = C(0) + tau2 - ||L~^-1 Sigma_{o*}||^2 with Sigma~ = L~ L~^T; the error
follows the accuracy (docs/approx.md).

--computation vecchia (docs/vecchia.md): no N x N matrix; each location is
predicted from its --vecchia-m nearest observations (a k-d tree), the
mean's coefficients by GLS under the Vecchia likelihood of the
observations (--vecchia-order): O(N m^3) time, O(N m) memory. --draws
condition each new location on its m nearest among the observations and
the earlier new locations (joint draws). cv: leave one out predicts each
observation from its m nearest others (the mean's coefficients from all
of them); --folds K from the other folds.`
}

// runKrige is predict (or cv): theta from --theta or --theta-from, the
// kriging (job.Predict), its summary line.
func runKrige(c *cobra.Command, w comm.Comm, cv bool, cfg *config.Predict, kf *krigeFlags) error {
	cfg.Cmd = cmdName(c)
	if cv {
		if cfg.Data == "" || cfg.Out == "" {
			return badInput("cv: --data and --out are required")
		}
		cfg.At, cfg.CV = cfg.Data, true
	}
	if cfg.Data == "" || cfg.At == "" || cfg.Out == "" {
		return badInput("predict: --data, --at and --out are required")
	}
	if (kf.thetaS == "") == (cfg.ThetaFrom == "") {
		return badInput("%s: give exactly one of --theta and --theta-from", cfg.Cmd)
	}
	var err error
	in := job.NewInputs(w, nil, nil) // rank 0 reads the inputs for every rank
	if cfg.ThetaFrom != "" {
		r, err := job.ReadFitResultWith(in, "theta-from", cfg.ThetaFrom)
		if err != nil {
			return fmt.Errorf("%s: --theta-from %w", cfg.Cmd, err)
		}
		if err := r.ApplyTo(cfg, cfg.ThetaFrom, c.Flags().Changed); err != nil {
			return err
		}
	} else if cfg.Theta, err = parseFloats(cfg.Cmd, "theta", kf.thetaS); err != nil {
		return err
	}
	if kf.powers != "" {
		if cfg.Powers, err = parseFloats(cfg.Cmd, "powers", kf.powers); err != nil {
			return err
		}
	}
	r, err := job.Predict(*cfg, job.Env{Comm: w, Log: os.Stderr, Quiet: kf.quiet, Command: os.Args, Inputs: in})
	if err != nil {
		return err
	}
	if cv {
		printCV(r, cfg.Seed)
		return nil
	}
	printPredicted(r, cfg)
	return nil
}

// printCV prints cv's summary line of r (seed: of the folds) and its
// pictures.
func printCV(r *job.PredictResult, seed uint64) {
	s := r.CV
	dst := os.Stdout
	if r.Out == job.StdoutPath {
		dst = os.Stderr // the CSV is on stdout
	}
	what := "leave-one-out"
	if s.Folds > 0 {
		what = fmt.Sprintf("%d-fold cross-validation (seed %d)", s.Folds, seed)
	}
	fmt.Fprintf(dst, "%s over %d observations (%s theta=%s): MSPE %.6g  mean log score %.6g  95%% interval coverage %.1f%%  (%.3fs) -> %s\n",
		what, s.N, r.Kernel, thetaText(r.Theta, r.Nugget), s.MSPE, s.LogScore, 100*s.Coverage, r.Seconds, outName(r.Out))
	for _, p := range r.Plots {
		fmt.Fprintf(dst, "  picture: %s\n", p)
	}
}

// printPredicted prints predict's summary line of r.
func printPredicted(r *job.PredictResult, cfg *config.Predict) {
	on := ""
	if cfg.Computation == "vecchia" {
		on = fmt.Sprintf(", Vecchia m=%d", cfg.Vecchia.M)
	} else if cfg.Approximate() {
		on = ", on the " + cfg.Computation + " factor"
	}
	fmt.Fprintf(os.Stderr, "predicted %d locations from %d observations (%s theta=%s%s) in %.3fs -> %s\n",
		r.Predicted, r.Observed, r.Kernel, thetaText(r.Theta, r.Nugget), on, r.Seconds, outName(r.Out))
}
