package job

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/plot"
	"github.com/exageostat/exageostat/pkg/variogram"
)

// Residual kinds of the variogram command: the values whose semivariogram
// is estimated.
const (
	// ResidualsOLS: the residuals of the mean's ordinary least squares
	// fit (gstat's variogram(z ~ covariates)); the observations for a
	// zero or constant mean.
	ResidualsOLS = "ols"
	// ResidualsGLS: z - X b with the fit's GLS coefficients b
	// (mean_coefficients of --theta-from).
	ResidualsGLS = "gls"
	// ResidualsNone: the observations as they are (on the --transform
	// scale), whatever the mean.
	ResidualsNone = "none"
)

// VariogramOptions are the settings of the variogram command besides the
// data's (config.Predict: data, columns, transform, mean, distance, and
// theta, kernel and nugget from --theta-from).
type VariogramOptions struct {
	Bins      variogram.Options
	Alpha     []float64 // directions, gstat's degrees clockwise from north (none: omnidirectional)
	Tol       float64   // their tolerance in degrees (0: 90 / len(Alpha))
	Residuals string    // ResidualsOLS (""), ResidualsGLS or ResidualsNone
	MeanCoef  []float64 // the fit's GLS coefficients (ResidualsGLS)
	CurveOut  string    // the model curve as CSV: direction,distance,gamma
	Map       string    // the semivariogram map as CSV: dx,dy,pairs,gamma
}

// VariogramResult is what the variogram command computed, as its JSON
// writes it.
type VariogramResult struct {
	N         int          `json:"n"`
	Values    string       `json:"values"` // what was binned: the observations or which residuals
	Distance  string       `json:"distance"`
	Cutoff    float64      `json:"cutoff"`
	Width     float64      `json:"width"`
	MinPairs  int          `json:"min_pairs"`
	Tolerance float64      `json:"tol_hor,omitempty"`
	Bins      []VarBin     `json:"bins"`
	Sparse    []VarBin     `json:"left_out"` // bins of fewer than MinPairs pairs
	Kernel    string       `json:"kernel,omitempty"`
	Theta     []float64    `json:"theta,omitempty"`
	Nugget    float64      `json:"nugget,omitempty"`
	Curve     []CurvePoint `json:"model_curve,omitempty"` // the fitted semivariogram
	Plots     []string     `json:"plots,omitempty"`
}

// VarBin is one bin of a sample semivariogram (or one point of a model
// curve) in a direction (degrees clockwise from north; -1: all).
type VarBin struct {
	Direction float64 `json:"direction"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Dist      float64 `json:"distance"`
	Gamma     float64 `json:"gamma"`
	Pairs     int     `json:"pairs,omitempty"`
	Model     float64 `json:"model,omitempty"` // the fitted semivariogram at Dist
}

// CurvePoint is a point of the fitted semivariogram in a direction
// (degrees clockwise from north; -1: all).
type CurvePoint struct {
	Direction float64 `json:"direction"`
	Dist      float64 `json:"distance"`
	Gamma     float64 `json:"gamma"`
}

// variogramFit is the fitted model of the variogram command: the
// semivariogram gamma(r, dir) of the kernel at theta with the nugget
// tau2, in the direction dir (degrees clockwise from north; the isotropic
// kernels ignore it), 0 at r = 0.
type variogramFit func(r, dir float64) float64

// fittedSemivariogram returns the fitted semivariogram of cfg's kernel,
// theta and nugget (nil without theta): sigma2 + tau2 - C(r) for r > 0,
// the anisotropic Matérn's in the direction asked.
func fittedSemivariogram(cfg config.Predict) (variogramFit, error) {
	if cfg.Theta == nil {
		return nil, nil
	}
	model := likelihood.Model(cfg.Kernel)
	tau2 := cfg.Nugget
	if model == likelihood.AnisoMatern {
		a, err := matern.NewAnisoTheta(cfg.Theta[:5])
		if err != nil {
			return nil, badInput("%s: theta: %v", cfg.ThetaFrom, err)
		}
		return func(r, dir float64) float64 {
			if r == 0 {
				return 0
			}
			return a.Sigma2 + tau2 - a.CovDir(r, (90-dir)*math.Pi/180)
		}, nil
	}
	k, err := model.Kernel(cfg.Theta, math.Inf(1))
	if err != nil {
		return nil, badInput("%s: theta: %v", cfg.ThetaFrom, err)
	}
	c0 := k.Cov(0) + tau2
	return func(r, _ float64) float64 {
		if r == 0 {
			return 0
		}
		return c0 - k.Cov(r)
	}, nil
}

// variogramValues returns the values the variogram command bins and what
// they are (VariogramOptions.Residuals).
func variogramValues(cfg config.Predict, vo VariogramOptions, d *dataset.Data) ([]float64, string, error) {
	switch vo.Residuals {
	case "", ResidualsOLS:
		v, what, err := semivariogramValues(d, cfg.Mean, obsLabel(d, cfg.Columns))
		return v, strings.TrimPrefix(what, "points: "), err
	case ResidualsNone:
		return d.Obs, "the observations " + obsLabel(d, cfg.Columns), nil
	case ResidualsGLS:
		names, cols, err := dataset.Design(d, cfg.Mean)
		if err != nil {
			return nil, "", badInput("%s: --mean %s: %v", cfg.Data, cfg.Mean, err)
		}
		if len(cols) == 0 || len(vo.MeanCoef) != len(cols) {
			return nil, "", badInput("variogram: --residuals gls needs the mean_coefficients of a fit with a mean (--theta-from): %d for the %d columns of the mean %q", len(vo.MeanCoef), len(cols), cfg.Mean)
		}
		return variogram.Residuals(d.Obs, cols, vo.MeanCoef), "GLS residuals of " + obsLabel(d, cfg.Columns) + " ~ " + strings.Join(names[1:], " + ") + " (the fit's coefficients)", nil
	}
	return nil, "", badInput("variogram: --residuals %s: want ols, gls or none", vo.Residuals)
}

// samples returns the sample semivariograms of v at d's points: one
// omnidirectional, or one per direction of vo.Alpha.
func variogramSamples(d *dataset.Data, metric matern.Metric, v []float64, vo VariogramOptions) ([]*variogram.Sample, error) {
	p := points(d)
	if len(vo.Alpha) == 0 {
		s, err := variogram.Omnidirectional(p, metric, v, vo.Bins)
		if err != nil {
			return nil, badInput("variogram: %v", err)
		}
		return []*variogram.Sample{s}, nil
	}
	if metric != matern.Euclidean {
		return nil, badInput("variogram: --alpha: directions need planar x,y coordinates (the data are lon,lat: project them first)")
	}
	tol := vo.Tol
	if tol == 0 {
		tol = 90 / float64(len(vo.Alpha))
	}
	var out []*variogram.Sample
	for _, a := range vo.Alpha {
		s, err := variogram.Directional(p, v, a, tol, vo.Bins)
		if err != nil {
			return nil, badInput("variogram: --alpha %g --tol-hor %g: %v", a, tol, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// direction returns a sample's direction for the outputs: its alpha, or
// -1 when it holds every direction.
func direction(s *variogram.Sample) float64 {
	if s.Tol >= 90 {
		return -1
	}
	return s.Alpha
}

// variogramResult gathers the samples and the model curve (101 points
// over [0, cutoff] per direction) as the outputs write them.
func variogramResult(cfg config.Predict, metric matern.Metric, n int, what string, ss []*variogram.Sample, fit variogramFit) *VariogramResult {
	s0 := ss[0]
	r := &VariogramResult{N: n, Values: what, Distance: metric.String(), Cutoff: s0.Cutoff, Width: s0.Width, MinPairs: s0.MinPairs,
		Bins: []VarBin{}, Sparse: []VarBin{}}
	if s0.Tol < 90 {
		r.Tolerance = s0.Tol
	}
	if fit != nil {
		r.Kernel, r.Theta, r.Nugget = cfg.Kernel, cfg.Theta, cfg.Nugget
	}
	for _, s := range ss {
		dir := direction(s)
		conv := func(bins []variogram.Bin) []VarBin {
			var out []VarBin
			for _, b := range bins {
				vb := VarBin{Direction: dir, Lo: b.Lo, Hi: b.Hi, Dist: b.Dist, Gamma: b.Gamma, Pairs: b.Pairs}
				if fit != nil {
					vb.Model = fit(b.Dist, s.Alpha)
				}
				out = append(out, vb)
			}
			return out
		}
		r.Bins = append(r.Bins, conv(s.Bins)...)
		r.Sparse = append(r.Sparse, conv(s.Sparse)...)
		if fit != nil {
			const m = 100
			for k := range m + 1 {
				h := s.Cutoff * float64(k) / m
				r.Curve = append(r.Curve, CurvePoint{Direction: dir, Dist: h, Gamma: fit(h, s.Alpha)})
			}
		}
	}
	return r
}

// variogramPlots draws the semivariogram (by direction with --alpha) with
// the fitted model, and the semivariogram map when there is one, into
// cfg.Plot; it returns the PNGs written.
func variogramPlots(cfg config.Predict, r *VariogramResult, ss []*variogram.Sample, fit variogramFit, m *variogram.Map) ([]string, error) {
	unit := "distance (units of x and y)"
	if cfg.XYUnits != "" {
		unit = "distance (" + cfg.XYUnits + ")"
	}
	if r.Distance == matern.GreatCircle.String() {
		unit = "great-circle distance (km)"
	}
	title := "Sample semivariogram: " + r.Values + "\n"
	if fit != nil {
		var th []string
		for _, v := range r.Theta {
			th = append(th, fmt.Sprintf("%.4g", v))
		}
		title += fmt.Sprintf("line: the fit's %s, theta=%s, nugget=%.3g", r.Kernel, strings.Join(th, ","), r.Nugget)
	}
	if len(ss) > 1 || ss[0].Tol < 90 {
		title += "; directions clockwise from north"
	}
	if len(r.Sparse) > 0 {
		title += fmt.Sprintf("; %d bins of < %d pairs left out", len(r.Sparse), r.MinPairs)
	}
	opts := plot.SemivariogramOptions{Title: title, XLabel: unit, DPI: cfg.DPI}
	var series []plot.SemivariogramSeries
	for _, s := range ss {
		se := plot.SemivariogramSeries{Label: "all directions", H: binDist(s.Bins), Gamma: binGamma(s.Bins), Counts: binPairs(s.Bins)}
		if s.Tol < 90 {
			se.Label = fmt.Sprintf("%g° ± %g°", s.Alpha, s.Tol)
		}
		if fit != nil {
			alpha := s.Alpha
			se.Model = func(h float64) float64 { return fit(h, alpha) }
		}
		series = append(series, se)
	}
	base := filepath.Join(cfg.Plot, "semivariogram")
	if err := plot.SemivariogramDirections(base, series, opts); err != nil {
		return nil, badInput("variogram: --plot: %v", err)
	}
	pngs := []string{base + ".png"}
	if m != nil {
		base := filepath.Join(cfg.Plot, "semivariogram_map")
		s := m.Side()
		half := (float64(m.K) + 0.5) * m.Width
		if err := plot.Grid(base, s, s, -half, half, -half, half, m.Gamma, plot.MapOptions{
			Title:  fmt.Sprintf("Semivariogram map: %s\n(cells of %.4g; blank: fewer than %d pairs)", r.Values, m.Width, m.MinPairs),
			Label:  "semivariance",
			XLabel: "lag dx" + strings.TrimPrefix(unit, "distance"), YLabel: "lag dy" + strings.TrimPrefix(unit, "distance"), DPI: cfg.DPI,
		}); err != nil {
			return nil, badInput("variogram: --plot: %v", err)
		}
		pngs = append(pngs, base+".png")
	}
	return pngs, nil
}

// Variogram is the variogram command: the sample semivariogram of the
// observations of cfg.Data (or of the residuals of their mean:
// vo.Residuals) in gstat's bins, omnidirectional or by direction, with the
// fitted model of cfg's theta (from --theta-from) when given; it writes
// the bins to cfg.Out (CSV: direction,lo,hi,distance,gamma,pairs and
// model with a fit), the whole result to cfg.JSON, the model curve to
// vo.CurveOut, the semivariogram map to vo.Map and the pictures into
// cfg.Plot. One rank only.
func Variogram(cfg config.Predict, vo VariogramOptions, env Env) (*VariogramResult, error) {
	env.Inputs = env.inputs()
	if err := checkVariogramFlags(cfg, vo); err != nil {
		return nil, err
	}
	outs := Outputs{Cmd: "variogram", Inputs: []File{{Flag: "data", Path: cfg.Data}, {Flag: "theta-from", Path: cfg.ThetaFrom}},
		Outputs: []File{{Flag: "out", Path: cfg.Out}, {Flag: "json", Path: cfg.JSON}, {Flag: "curve-out", Path: vo.CurveOut},
			{Flag: "map-out", Path: vo.Map}, {Flag: "plot", Path: cfg.Plot, Dir: true}}}
	if err := outs.Check(); err != nil {
		return nil, err
	}
	if cfg.Plot != "" {
		if err := os.MkdirAll(cfg.Plot, 0o755); err != nil {
			return nil, badInput("variogram: --plot: %v", err)
		}
	}
	d, err := readPredictObs(env.Inputs, &cfg, env)
	if err != nil {
		return nil, err
	}
	metric, err := Metric(cfg.Distance, d.Coords)
	if err != nil {
		return nil, badInput("variogram: %v", err)
	}
	v, what, err := variogramValues(cfg, vo, d)
	if err != nil {
		return nil, err
	}
	ss, err := variogramSamples(d, metric, v, vo)
	if err != nil {
		return nil, err
	}
	fit, err := fittedSemivariogram(cfg)
	if err != nil {
		return nil, err
	}
	r := variogramResult(cfg, metric, d.Len(), what, ss, fit)
	var m *variogram.Map
	if vo.Map != "" {
		if metric != matern.Euclidean {
			return nil, badInput("variogram: --map-out: a semivariogram map needs planar x,y coordinates (the data are lon,lat)")
		}
		if m, err = variogram.SemivariogramMap(points(d), v, r.Cutoff, r.Width, r.MinPairs); err != nil {
			return nil, badInput("variogram: --map-out: %v", err)
		}
	}
	if cfg.Plot != "" {
		if r.Plots, err = variogramPlots(cfg, r, ss, fit, m); err != nil {
			return nil, err
		}
	}
	return r, writeVariogram(cfg, vo, r, m, env)
}

// checkVariogramFlags refuses the settings of the variogram command that
// are out of their domain, each naming its flag.
func checkVariogramFlags(cfg config.Predict, vo VariogramOptions) error {
	switch {
	case cfg.Data == "":
		return badInput("variogram: --data is required")
	case cfg.Out == "" && cfg.JSON == "" && cfg.Plot == "" && vo.CurveOut == "" && vo.Map == "":
		return badInput("variogram: no output: give --out, --json, --plot, --curve-out or --map-out")
	case vo.CurveOut != "" && cfg.Theta == nil:
		return badInput("variogram: --curve-out needs a fitted model (--theta-from)")
	case vo.Residuals == ResidualsGLS && cfg.ThetaFrom == "":
		return badInput("variogram: --residuals gls needs the coefficients of a fit (--theta-from)")
	case likelihood.Model(cfg.Kernel) == likelihood.BivariateMatern || likelihood.Model(cfg.Kernel) == likelihood.SpaceTimeMatern:
		return badInput("variogram: --kernel %s: the semivariogram is of one variable in space (matern, powexp or aniso-matern fits)", cfg.Kernel)
	case len(vo.Alpha) > 4:
		return badInput("variogram: --alpha: %d directions (at most 4)", len(vo.Alpha))
	case vo.Tol != 0 && len(vo.Alpha) == 0:
		return badInput("variogram: --tol-hor needs directions (--alpha)")
	case vo.Tol < 0 || vo.Tol > 90 || math.IsNaN(vo.Tol):
		return badInput("variogram: --tol-hor %g: want degrees in (0, 90]", vo.Tol)
	}
	o := vo.Bins
	for _, c := range []struct {
		flag string
		v    float64
	}{{"cutoff", o.Cutoff}, {"width", o.Width}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return badInput("variogram: --%s %g: want a positive distance (0: gstat's default)", c.flag, c.v)
		}
	}
	if o.MinPairs < 0 {
		return badInput("variogram: --min-pairs %d: want >= 0", o.MinPairs)
	}
	for _, a := range vo.Alpha {
		if !(a >= 0 && a < 360) {
			return badInput("variogram: --alpha %g: want degrees in [0, 360) clockwise from north", a)
		}
	}
	return nil
}

// writeVariogram writes the outputs of the variogram command.
func writeVariogram(cfg config.Predict, vo VariogramOptions, r *VariogramResult, m *variogram.Map, env Env) error {
	fit := r.Theta != nil
	hdr := []string{"direction", "lo", "hi", "distance", "gamma", "pairs"}
	if fit {
		hdr = append(hdr, "model")
	}
	var rows [][]float64
	for _, b := range r.Bins {
		row := []float64{b.Direction, b.Lo, b.Hi, b.Dist, b.Gamma, float64(b.Pairs)}
		if fit {
			row = append(row, b.Model)
		}
		rows = append(rows, row)
	}
	var curve [][]float64
	for _, b := range r.Curve {
		curve = append(curve, []float64{b.Direction, b.Dist, b.Gamma})
	}
	var cells [][]float64
	if m != nil {
		for c, np := range m.Pairs {
			if np > 0 {
				dx, dy := m.Centre(c)
				cells = append(cells, []float64{dx, dy, float64(np), m.Gamma[c]})
			}
		}
	}
	for _, f := range []struct {
		flag, path string
		hdr        []string
		rows       [][]float64
	}{
		{"out", cfg.Out, hdr, rows},
		{"curve-out", vo.CurveOut, []string{"direction", "distance", "gamma"}, curve},
		{"map-out", vo.Map, []string{"dx", "dy", "pairs", "gamma"}, cells},
	} {
		if f.path == "" {
			continue
		}
		write := func(w io.Writer) error { return rowTable(w, f.hdr, f.rows) }
		var err error
		if f.path == StdoutPath {
			err = write(env.stdout())
		} else {
			err = atomicfile.Write(f.path, write)
		}
		if err != nil {
			return badInput("variogram: --%s: %v", f.flag, err)
		}
	}
	if cfg.JSON != "" {
		if err := WriteJSON(cfg.JSON, r); err != nil {
			return badInput("variogram: --json: %v", err)
		}
	}
	return nil
}

// rowTable writes a CSV of the rows under hdr (shortest decimals that
// read back exactly; NaN as NA).
func rowTable(w io.Writer, hdr []string, rows [][]float64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(hdr); err != nil {
		return err
	}
	for _, r := range rows {
		rec := make([]string, len(r))
		for j, v := range r {
			rec[j] = strconv.FormatFloat(v, 'g', -1, 64)
			if math.IsNaN(v) {
				rec[j] = "NA"
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
