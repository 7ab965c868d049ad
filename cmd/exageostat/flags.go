package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/config"
)

// parseFloats parses a comma-separated list such as "1,0.1,0.5" given to
// --flag of cmd (config.ParseFloats); an error is bad input naming both.
func parseFloats(cmd, flag, s string) ([]float64, error) {
	v, err := config.ParseFloats(s)
	if err != nil {
		return nil, badInput("%s: --%s: %v", cmd, flag, err)
	}
	return v, nil
}

// parseInts parses a comma-separated list of integers such as
// "320,480,640" given to --flag of the command cmd, each what (e.g. "a
// tile size") in [lo, hi] (hi = math.MaxInt: no upper bound); an error
// is bad input naming the command, the flag and the item. Every
// integer-list flag goes through it.
func parseInts(cmd, flag, s, what string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err == nil && v >= lo && v <= hi {
			out = append(out, v)
			continue
		}
		bounds := fmt.Sprintf("in [%d, %d]", lo, hi)
		if hi == math.MaxInt {
			bounds = fmt.Sprintf("(an integer >= %d)", lo)
		}
		return nil, badInput("%s: --%s: %q is not %s %s", cmd, flag, f, what, bounds)
	}
	return out, nil
}

// intFlag is an integer flag's value and the values it may take, for
// checkInts: [lo, hi] (hi = math.MaxInt: no upper bound) and, if auto
// is not "", 0 too, meaning auto (e.g. "the automatic tile size").
type intFlag struct {
	name      string
	v, lo, hi int
	auto      string
}

// atLeast is --name = v, which must be >= lo.
func atLeast(name string, v, lo int) intFlag {
	return intFlag{name: name, v: v, lo: lo, hi: math.MaxInt}
}

// within is --name = v, which must be in [lo, hi].
func within(name string, v, lo, hi int) intFlag { return intFlag{name: name, v: v, lo: lo, hi: hi} }

// workersFlag is --workers = w, in [1, config.MaxWorkers].
func workersFlag(w int) intFlag { return within("workers", w, 1, config.MaxWorkers) }

// autoNBFlag is --nb = nb: a tile size >= 1, or 0 for the automatic one.
func autoNBFlag(nb int) intFlag {
	return intFlag{name: "nb", v: nb, lo: 1, hi: math.MaxInt, auto: "the automatic tile size"}
}

// checkInts returns bad input naming cmd and the first flag of fs out of
// its bounds ("bench tlr: --reps must be in [1, 100] (got 0)", "bench
// likelihood: --n must be >= 3 (got 2)"), or nil.
func checkInts(cmd string, fs ...intFlag) error {
	for _, f := range fs {
		bounds := fmt.Sprintf("in [%d, %d]", f.lo, f.hi)
		if f.hi == math.MaxInt {
			bounds = fmt.Sprintf(">= %d", f.lo)
		}
		switch {
		case f.v >= f.lo && f.v <= f.hi, f.auto != "" && f.v == 0:
		case f.auto != "":
			return badInput("%s: --%s must be %s, or 0 for %s (got %d)", cmd, f.name, bounds, f.auto, f.v)
		default:
			return badInput("%s: --%s must be %s (got %d)", cmd, f.name, bounds, f.v)
		}
	}
	return nil
}

// approxHelp is the --help paragraph of the approximate computations
// (predict, simulate; fit has its own).
const approxHelp = `

Approximate factor (--computation, default exact; docs/approx.md): tlr holds
every off-diagonal tile of the Cholesky factor as U V^T, compressed to
--tlr-accuracy (absolute Frobenius error per tile, default 1e-9) with rank at
most --max-rank (default nb/2; from nb/2 up a tile that needs more stays dense,
below it such a tile stops the run naming it), so memory
grows with the ranks; mp holds the tiles beyond --mp-band of the diagonal in
float32; dst drops them. `

// approxFlags adds --computation, --tlr-accuracy, --max-rank and
// --mp-band (the keys computation, tlr_accuracy, max_rank, mp_band).
func approxFlags(c *cobra.Command, a *config.Approx) {
	f := c.Flags()
	f.StringVar(&a.Computation, "computation", a.Computation, "the Cholesky factor: exact, tlr (tile low-rank: off-diagonal tiles U V^T), mp (mixed precision: tiles off the band in float32) or dst (tiles off the band dropped)")
	f.Float64Var(&a.TLRAccuracy, "tlr-accuracy", a.TLRAccuracy, "tlr: absolute Frobenius accuracy of each compressed tile (as HiCMA)")
	f.IntVar(&a.MaxRank, "max-rank", a.MaxRank, "tlr: largest rank of a tile held as U V^T (0: nb/2); from nb/2 up a tile that needs more stays dense, below nb/2 it is an error naming the tile (exit status 2)")
	f.IntVar(&a.MPBand, "mp-band", a.MPBand, "mp, dst: tile sub-diagonals kept in float64 (-1: the band holding 10 % of the tiles)")
}

// columnsHelp is the --help paragraph of the column, missing-value and
// transform flags (fit, predict, cv).
const columnsHelp = `

Columns by role (keys z, coords, time; names or numbers from 1): --z COL is
the observation (two, --z A,B, for bivariate data), --coords X,Y the
coordinates (X,Y,Z: 3D Euclidean locations; a third coordinate is never
guessed), --time COL the time; --mean names the covariates. Left out, they
are guessed from the header: x,y, lon,lat (longitude,latitude: great-circle
distances), easting,northing or coords.x1,coords.x2; the observation z,
value or obs, else the one column named as observations usually are (precip,
rain, temp, zinc, ...); the time t. Every other column is not read (text and
NA there are fine) and one note lists them. A file without a header (its
first line numbers) names its columns by number: --coords 1,2 --z 3. --dec ,
reads decimal commas (separator ; or tab). A missing value (NA, NaN, N/A,
null, empty) in a column read drops its row with a note (--na drop), or
refuses the file (--na error); prediction locations with a missing
coordinate or covariate are refused by line.

Transform (--transform log|log1p|sqrt|boxcox:LAMBDA): the model is fitted
to g(z); predict writes the transformed scale's P_z_hat, P_variance (P the
transform's name) and the original scale's z_hat = E[g^-1(Y)] and its
variance, for Y ~ N(z_hat, variance) on the transformed scale (--scale
both, the default; or original, or transformed): lognormal (log) exp(m +
v/2) and (exp(v) - 1) exp(2m + v); sqrt m^2 + v and 4 m^2 v + 2 v^2;
Box-Cox by Gauss-Hermite quadrature; draws are taken back one by one.`

// columnFlags adds --z, --coords, --time, --na, --dec and --transform
// (the keys of config.Columns).
func columnFlags(c *cobra.Command, k *config.Columns) {
	f := c.Flags()
	f.StringVar(&k.Z, "z", "", "the observation column, by name or number from 1 (default: z, value or obs; two for bivariate data)")
	f.StringVar(&k.Coords, "coords", "", "the coordinate columns X,Y, or X,Y,Z for 3D locations (default: x,y, lon,lat, easting,northing ...)")
	f.StringVar(&k.Time, "time", "", "the time column (default: t or time)")
	f.StringVar(&k.NA, "na", "", "a missing value (NA, NaN, empty) in a column read: drop (its row, with a note; the default) or error")
	f.StringVar(&k.Dec, "dec", "", "the decimal mark: . (default) or , (columns then separated by ; or tabs)")
	f.StringVar(&k.Transform, "transform", "", "fit the model to a transform of the observations: log, log1p, sqrt or boxcox:LAMBDA")
	f.StringVar(&k.CRS, "crs", "", "the coordinates' reference system (EPSG:28992, WKT or PROJ), written into a GeoPackage --out (default: a raster --at's; EPSG:4326 for lon,lat)")
	c.Long += columnsHelp
}
