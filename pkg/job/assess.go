package job

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/plot"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/variogram"
)

// Assessment is what a fit computes after the search: predictions of the
// held-out locations and their scores, standard errors, MLOE/MMOM, and
// the pictures it wrote.
type Assessment struct {
	Holdout  int       `json:"holdout,omitempty"`
	MSPE     *float64  `json:"mspe,omitempty"`
	Coverage *float64  `json:"coverage_95,omitempty"`
	PredSecs float64   `json:"prediction_seconds,omitempty"`
	StdErr   []float64 `json:"stderr,omitempty"` // per parameter, in theta order; 0 for a fixed one
	// StdErrNote says why the standard errors are missing (the Fisher
	// information could not be computed or inverted) or which of them
	// are not meaningful (estimates at a bound).
	StdErrNote string      `json:"stderr_note,omitempty"`
	FisherSecs float64     `json:"fisher_seconds,omitempty"` // wall time of the Fisher information
	Fisher     [][]float64 `json:"fisher_information,omitempty"`
	FisherOf   []string    `json:"fisher_parameters,omitempty"`
	MLOE       *float64    `json:"mloe,omitempty"`
	MMOM       *float64    `json:"mmom,omitempty"`
	Plots      []string    `json:"plots,omitempty"`
	// ApproxNote says, for --computation tlr, mp or dst, which of these
	// results use the approximate factor and what stays exact.
	ApproxNote string `json:"approx_note,omitempty"`
}

type assessOptions struct {
	test      *dataset.Data // held-out data, or nil
	train     *dataset.Data
	free      []bool
	stderr    bool
	trueTheta []float64
	plotDir   string
	gridX     int
	gridY     int
	metric    matern.Metric
	seed      uint64
	write     bool   // this rank writes files (rank 0); the others only take part in the task graphs
	mean      string // the mean model (its covariates at new locations: dataset.Design)
	pics      pictures
	draws     int // maps of this many conditional simulations on the grid (a coarser one above maxDrawPoints)
}

// maxDrawPoints bounds the grid of the conditional simulations' maps: rank
// 0 factors their n x n conditional covariance (4900 points: 192 MB).
const maxDrawPoints = 4900

// drawGrid is the grid of the conditional simulations' maps: the
// prediction grid, or a coarser one of about maxDrawPoints points over the
// same box with the same aspect.
func drawGrid(nx, ny int) (int, int) {
	if nx*ny <= maxDrawPoints {
		return nx, ny
	}
	f := math.Sqrt(float64(maxDrawPoints) / float64(nx*ny))
	return max(2, int(float64(nx)*f)), max(2, int(float64(ny)*f))
}

// pictures are the settings of the pictures a command writes: the PNG's
// resolution (0: plot.DPI), the observed variable's name ("" : z) and its
// units.
type pictures struct {
	dpi          float64
	zname, units string
	xyunits      string // units of planar x and y ("": none given)
}

// label returns what, the variable's name and its units: "rain (mm)",
// "kriging prediction of rain (mm)".
func (p pictures) label(what string) string {
	s := p.zname
	if s == "" {
		s = "z"
	}
	if what != "" {
		s = what + " of " + s
	}
	if p.units != "" {
		s += " (" + p.units + ")"
	}
	return s
}

// axes returns the names of the map axes: x and y, or longitude and
// latitude in degrees.
func axes(c dataset.Coords, xyunits string) (x, y string) {
	if c == dataset.Geographic {
		return "longitude (degrees)", "latitude (degrees)"
	}
	if xyunits != "" {
		return "x (" + xyunits + ")", "y (" + xyunits + ")"
	}
	return "x", "y"
}

// krigeAt predicts at the locations of d (simple kriging, or universal
// kriging with the mean model's covariates at d).
func krigeAt(ev *likelihood.Evaluator, theta []float64, d *dataset.Data, mean string) (*predict.Result, error) {
	if len(ev.Problem().Covariates) == 0 {
		return predict.Krige(ev, theta, predictAt(d, ev.Problem().Model))
	}
	_, x0, err := dataset.Design(d, mean)
	if err != nil {
		return nil, err
	}
	return predict.KrigeUniversal(ev, theta, points(d), x0)
}

// drawsAt draws k conditional simulations at the locations of d (with the
// mean model's covariates at d: universal kriging's predictive law).
func drawsAt(ev *likelihood.Evaluator, theta []float64, d *dataset.Data, mean string, k int, seed uint64, observation bool) (*predict.Draws, error) {
	var x0 [][]float64
	if len(ev.Problem().Covariates) > 0 {
		var err error
		if _, x0, err = dataset.Design(d, mean); err != nil {
			return nil, err
		}
	}
	return predict.ConditionalDrawsUniversal(ev, theta, predictAt(d, ev.Problem().Model), x0, k, seed, observation)
}

// assess runs after the fit with the evaluator alive (its factor reused),
// on every rank: each phase is a collective task graph. The pool's free
// buffers go back to the system after each phase, whose buffer sizes do
// not come back (what the memory check assumes).
func assess(ev *likelihood.Evaluator, theta []float64, o assessOptions, out *Assessment) error {
	p := ev.Problem()
	defer ev.Runtime().Trim()
	names := p.Model.ParamNamesFor(len(theta))
	var zhat, pvar []float64
	if o.test != nil {
		r, err := krigeAt(ev, theta, o.test, o.mean)
		if err != nil {
			return err
		}
		ev.Runtime().Trim()
		zhat, pvar = r.Z, r.Var
		mspe, cov := predict.Score(o.test.Obs, r.Z, r.Var)
		out.Holdout, out.MSPE, out.Coverage, out.PredSecs = o.test.Len(), &mspe, &cov, r.Seconds
	}
	if o.stderr {
		// A standard-error step that fails for a numerical reason (every
		// parameter fixed, a singular information matrix, a covariance not
		// positive definite at a derivative's step) leaves the fit's
		// result intact: the standard errors are missing, with the reason.
		t0 := time.Now()
		f, err := predict.FisherInfo(ev, theta, o.free)
		out.FisherSecs = time.Since(t0).Seconds()
		switch {
		case err == nil:
			out.StdErr = make([]float64, len(names))
			for a, j := range f.Index {
				out.StdErr[j] = f.StdErr[a]
			}
			out.Fisher, out.FisherOf = f.Info, f.Params
		case stdErrFailure(err):
			out.StdErrNote = "not computed: " + err.Error()
		default:
			return fmt.Errorf("standard errors: %w", err)
		}
	}
	if o.trueTheta != nil && o.test != nil {
		e, err := predict.MLOEMMOM(ev, points(o.test), o.trueTheta, theta)
		if err != nil {
			return fmt.Errorf("MLOE/MMOM: %w", err)
		}
		out.MLOE, out.MMOM = &e.MLOE, &e.MMOM
	}
	if o.plotDir != "" {
		return makePlots(ev, theta, o, zhat, pvar, out)
	}
	return nil
}

// stdErrFailure reports an error of the Fisher information that is a
// property of the estimate or the data (no parameter estimated, a singular
// information matrix, a covariance matrix that is not positive definite
// or a theta the model cannot take at a derivative's step), not of the
// run (a failed task or message), which still ends the fit.
func stdErrFailure(err error) bool {
	return errors.Is(err, predict.ErrNoEstimate) || errors.Is(err, predict.ErrSingularInfo) ||
		errors.Is(err, likelihood.ErrNotPosDef) || errors.Is(err, likelihood.ErrBadTheta)
}

// makePlots krigs the --grid-x x --grid-y grid and draws its conditional
// simulations (every rank: task graphs), then, where o.write, writes the
// fit's pictures into o.plotDir: the semivariogram, the TLR tile ranks,
// the observations and the prediction maps (zhat and pvar: the held-out
// predictions, mapped without a grid).
func makePlots(ev *likelihood.Evaluator, theta []float64, o assessOptions, zhat, pvar []float64, out *Assessment) error {
	pl := &plotter{o: o, out: out}
	pl.minx, pl.maxx, pl.miny, pl.maxy = bbox(o.train)
	// The grid prediction is a task graph of every rank: first, so that a
	// failure of rank 0's pictures cannot leave the others waiting in it.
	var grid *predict.Result
	if o.gridX > 0 {
		gx, gy := plot.GridPoints(o.gridX, o.gridY, pl.minx, pl.maxx, pl.miny, pl.maxy)
		var err error
		if grid, err = krigeAt(ev, theta, &dataset.Data{X: gx, Y: gy, Coords: o.train.Coords}, o.mean); err != nil {
			return err
		}
		ev.Runtime().Trim()
	}
	var draws *predict.Draws
	pl.dx, pl.dy = drawGrid(o.gridX, o.gridY)
	if o.gridX > 0 && o.draws > 0 {
		gx, gy := plot.GridPoints(pl.dx, pl.dy, pl.minx, pl.maxx, pl.miny, pl.maxy)
		var err error
		if draws, err = drawsAt(ev, theta, &dataset.Data{X: gx, Y: gy, Coords: o.train.Coords}, o.mean, o.draws, o.seed, false); err != nil {
			return fmt.Errorf("conditional simulations: %w", err)
		}
		ev.Runtime().Trim()
	}
	if !o.write {
		return nil
	}
	pl.xl, pl.yl = axes(o.train.Coords, o.pics.xyunits)
	if err := pl.semivariogram(ev.Problem(), theta); err != nil {
		return err
	}
	if err := pl.tileRanks(ev); err != nil {
		return err
	}
	pl.colourScale(grid, draws)
	if err := pl.observations(); err != nil {
		return err
	}
	if grid != nil {
		return pl.gridMaps(grid, draws)
	}
	if zhat != nil {
		return pl.heldOutMaps(zhat, pvar)
	}
	return nil
}

// plotter writes a fit's pictures (makePlots): the data's box, the draws'
// grid (dx x dy), the axes' labels, the nugget and one colour scale
// [lo, hi] for the observations, the predictions and the draws.
type plotter struct {
	o                      assessOptions
	out                    *Assessment
	minx, maxx, miny, maxy float64
	dx, dy                 int
	xl, yl                 string
	tau2, lo, hi           float64
}

// add records the picture name.png of the plot directory as written.
func (pl *plotter) add(name string) {
	pl.out.Plots = append(pl.out.Plots, filepath.Join(pl.o.plotDir, name+".png"))
}

// semivariogram writes the sample semivariogram of the training data (or
// of its residuals from the mean model: semivariogramValues) with the
// fitted model's (sets pl.tau2).
func (pl *plotter) semivariogram(p likelihood.Problem, theta []float64) error {
	o, dpi := pl.o, pl.o.pics.dpi
	k, err := p.Model.Kernel(theta, math.Inf(1))
	if err != nil {
		return err
	}
	z := o.pics.zname
	if z == "" {
		z = "z"
	}
	resid, what, err := semivariogramValues(o.train, o.mean, z)
	if err != nil {
		return err
	}
	pl.tau2 = p.Tau2(theta)
	tau2 := pl.tau2
	c0 := k.Cov(0) + tau2
	names := p.Model.ParamNamesFor(len(theta))
	var est []string
	for i, v := range theta {
		est = append(est, fmt.Sprintf("%s=%.3g", names[i], v))
	}
	if !p.Model.HasTau2(len(theta)) && tau2 > 0 {
		est = append(est, fmt.Sprintf("nugget=%.3g", tau2))
	}
	unit := "distance (units of x and y)"
	if o.pics.xyunits != "" {
		unit = "distance (" + o.pics.xyunits + ")"
	}
	if o.metric == matern.GreatCircle {
		unit = "great-circle distance (km)"
	}
	title := fmt.Sprintf("Fitted %s: %s", p.Model, strings.Join(est, " "))
	if p.Model == likelihood.AnisoMatern {
		if err := anisoSemivariogram(filepath.Join(o.plotDir, "semivariogram"), o, resid, what, theta, tau2, unit, dpi); err != nil {
			return err
		}
	} else {
		s, err := variogram.Omnidirectional(points(o.train), o.metric, resid, fitVariogramOptions(o.seed))
		if err != nil {
			return err
		}
		if err := plot.SemivariogramWith(filepath.Join(o.plotDir, "semivariogram"), binDist(s.Bins), binGamma(s.Bins), func(r float64) float64 { return c0 - k.Cov(r) },
			plot.SemivariogramOptions{Title: title + "\n" + what + sparseNote(s), XLabel: unit, Counts: binPairs(s.Bins), DPI: dpi}); err != nil {
			return err
		}
	}
	pl.add("semivariogram")
	return nil
}

// tileRanks writes, for a TLR factor, the ranks of its tiles: tile (m, n)
// in the cell [n, n+1] x [m, m+1].
func (pl *plotter) tileRanks(ev *likelihood.Evaluator) error {
	nt, ranks := ev.TileRanks()
	if ranks == nil {
		return nil
	}
	v := make([]float64, nt*nt)
	dense := 0
	for m := range nt {
		for c := range nt {
			r := ranks[m*nt+c]
			val := math.NaN()
			switch {
			case r >= 0:
				val = float64(r)
			case r == -1:
				dense++
			}
			v[m*nt+c] = val
		}
	}
	if err := plot.Grid(filepath.Join(pl.o.plotDir, "tile_ranks"), nt, nt, 0, float64(nt), 0, float64(nt), v,
		plot.MapOptions{Title: fmt.Sprintf("TLR factor: tile ranks (%d x %d; blank: diagonal, %d dense)", nt, nt, dense),
			Label: "rank of tile (m, n) = U V^T", XLabel: "tile column n", YLabel: "tile row m", DPI: pl.o.pics.dpi}); err != nil {
		return err
	}
	pl.add("tile_ranks")
	return nil
}

// colourScale masks the grid's predictions and the draws outside the
// data's convex hull (the maps show only those inside) and sets one
// colour scale [lo, hi] over the observations, the predictions and the
// draws.
func (pl *plotter) colourScale(grid *predict.Result, draws *predict.Draws) {
	o := pl.o
	pl.lo, pl.hi = math.Inf(1), math.Inf(-1)
	for _, v := range o.train.Obs {
		pl.lo, pl.hi = min(pl.lo, v), max(pl.hi, v)
	}
	if grid != nil {
		gx, gy := plot.GridPoints(o.gridX, o.gridY, pl.minx, pl.maxx, pl.miny, pl.maxy)
		plot.MaskOutsideHull(o.train.X, o.train.Y, gx, gy, grid.Z)
		plot.MaskOutsideHull(o.train.X, o.train.Y, gx, gy, grid.Var)
		for _, v := range grid.Z {
			if !math.IsNaN(v) {
				pl.lo, pl.hi = min(pl.lo, v), max(pl.hi, v)
			}
		}
	}
	if draws != nil { // the draws share the scale too
		gx, gy := plot.GridPoints(pl.dx, pl.dy, pl.minx, pl.maxx, pl.miny, pl.maxy)
		for _, z := range draws.Z {
			plot.MaskOutsideHull(o.train.X, o.train.Y, gx, gy, z)
			for _, v := range z {
				if !math.IsNaN(v) {
					pl.lo, pl.hi = min(pl.lo, v), max(pl.hi, v)
				}
			}
		}
	}
}

// observations writes the map of the training observations.
func (pl *plotter) observations() error {
	o := pl.o
	if err := plot.Map(filepath.Join(o.plotDir, "observations"), o.train.X, o.train.Y, o.train.Obs,
		plot.MapOptions{Title: fmt.Sprintf("Observations (N=%d)", o.train.Len()), Label: o.pics.label(""), XLabel: pl.xl, YLabel: pl.yl, Min: pl.lo, Max: pl.hi, DPI: o.pics.dpi}); err != nil {
		return err
	}
	pl.add("observations")
	return nil
}

// gridMaps writes the grid's prediction and its sd, and each conditional
// draw.
func (pl *plotter) gridMaps(grid *predict.Result, draws *predict.Draws) error {
	o, dir, dpi := pl.o, pl.o.plotDir, pl.o.pics.dpi
	minx, maxx, miny, maxy := pl.minx, pl.maxx, pl.miny, pl.maxy
	if err := plot.Grid(filepath.Join(dir, "prediction"), o.gridX, o.gridY, minx, maxx, miny, maxy, grid.Z,
		plot.MapOptions{Title: fmt.Sprintf("Kriging prediction (%dx%d grid, inside the data's hull; dots: data)", o.gridX, o.gridY),
			Label: o.pics.label("kriging prediction"), XLabel: pl.xl, YLabel: pl.yl, Min: pl.lo, Max: pl.hi, PointsX: o.train.X, PointsY: o.train.Y, DPI: dpi}); err != nil {
		return err
	}
	pl.add("prediction")
	which := "of a new observation (nugget included)"
	if pl.tau2 == 0 {
		which = "of a new observation (no nugget)"
	}
	if err := plot.Grid(filepath.Join(dir, "prediction_sd"), o.gridX, o.gridY, minx, maxx, miny, maxy, sqrtAll(grid.Var),
		plot.MapOptions{Title: "Prediction sd " + which, Label: o.pics.label("sd of a new observation"), XLabel: pl.xl, YLabel: pl.yl,
			PointsX: o.train.X, PointsY: o.train.Y, DPI: dpi}); err != nil {
		return err
	}
	pl.add("prediction_sd")
	if draws == nil {
		return nil
	}
	for i, z := range draws.Z {
		name := fmt.Sprintf("conditional_draw_%d", i+1)
		if err := plot.Grid(filepath.Join(dir, name), pl.dx, pl.dy, minx, maxx, miny, maxy, z,
			plot.MapOptions{Title: fmt.Sprintf("Conditional simulation %d given the data (%dx%d grid, seed %d)", i+1, pl.dx, pl.dy, o.seed),
				Label: o.pics.label(""), XLabel: pl.xl, YLabel: pl.yl, Min: pl.lo, Max: pl.hi, PointsX: o.train.X, PointsY: o.train.Y, DPI: dpi}); err != nil {
			return err
		}
		pl.add(name)
	}
	return nil
}

// heldOutMaps writes the prediction and its sd at the held-out locations.
func (pl *plotter) heldOutMaps(zhat, pvar []float64) error {
	o, dir, dpi := pl.o, pl.o.plotDir, pl.o.pics.dpi
	if err := plot.Map(filepath.Join(dir, "prediction"), o.test.X, o.test.Y, zhat,
		plot.MapOptions{Title: fmt.Sprintf("Kriging prediction at %d held-out locations", o.test.Len()), Label: o.pics.label("kriging prediction"), XLabel: pl.xl, YLabel: pl.yl, DPI: dpi}); err != nil {
		return err
	}
	pl.add("prediction")
	if err := plot.Map(filepath.Join(dir, "prediction_sd"), o.test.X, o.test.Y, sqrtAll(pvar),
		plot.MapOptions{Title: "Prediction sd of a new observation (held-out locations)", Label: o.pics.label("sd of a new observation"), XLabel: pl.xl, YLabel: pl.yl, DPI: dpi}); err != nil {
		return err
	}
	pl.add("prediction_sd")
	return nil
}

func sqrtAll(v []float64) []float64 {
	s := make([]float64, len(v))
	for i, x := range v {
		s[i] = math.Sqrt(x)
	}
	return s
}

func bbox(d *dataset.Data) (minx, maxx, miny, maxy float64) {
	minx, maxx, miny, maxy = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range d.X {
		minx, maxx = math.Min(minx, d.X[i]), math.Max(maxx, d.X[i])
		miny, maxy = math.Min(miny, d.Y[i]), math.Max(maxy, d.Y[i])
	}
	return
}

// anisoSemivariogram draws the semivariogram of an anisotropic Matérn fit
// by direction: the sample semivariograms of the values v (what they are:
// what) in the pairs within 22.5 degrees of the major axis and of the
// minor axis (variogram.Directional, gstat's default bins, at most
// 2,000,000 pairs drawn, bins of fewer than 30 pairs left out), each with
// the fitted model in its direction, sigma2 + tau2 - C(r cos phi, r sin
// phi). The title gives the estimates (the angle in radians and degrees)
// and says what the points and lines are.
func anisoSemivariogram(base string, o assessOptions, v []float64, what string, theta []float64, tau2 float64, unit string, dpi float64) error {
	a, err := matern.NewAnisoTheta(theta[:5])
	if err != nil {
		return err
	}
	const half = 22.5
	deg := func(r float64) float64 { return r * 180 / math.Pi }
	var series []plot.SemivariogramSeries
	sparse := 0
	for _, d := range []struct {
		name string
		phi  float64
	}{{"major axis", a.Angle}, {"minor axis", a.Angle + math.Pi/2}} {
		phi := d.phi
		// gstat's alpha: degrees clockwise from north, phi counter-clockwise from east.
		s, err := variogram.Directional(points(o.train), v, 90-deg(phi), half, fitVariogramOptions(o.seed))
		if err != nil {
			return err
		}
		sparse += len(s.Sparse)
		series = append(series, plot.SemivariogramSeries{
			Label: fmt.Sprintf("%s, %.0f° ± 22.5°", d.name, math.Mod(deg(phi), 180)),
			H:     binDist(s.Bins), Gamma: binGamma(s.Bins), Counts: binPairs(s.Bins),
			Model: func(r float64) float64 { return a.Sigma2 + tau2 - a.CovDir(r, phi) },
		})
	}
	note := ""
	if sparse > 0 {
		note = fmt.Sprintf("; %d bins of < %d pairs left out", sparse, variogram.DefaultMinPairs)
	}
	title := fmt.Sprintf("Fitted aniso-matern: sigma2=%.3g beta=%.3g nu=%.3g nugget=%.3g\nangle=%.3g rad (%.0f°) ratio=%.3g; %s (pairs), lines: model%s",
		a.Sigma2, a.Beta, a.Nu, tau2, a.Angle, deg(a.Angle), a.Ratio, what, note)
	return plot.SemivariogramDirections(base, series, plot.SemivariogramOptions{Title: title, XLabel: unit, DPI: dpi})
}
