package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/plot"
	"github.com/exageostat/exageostat/pkg/predict"
)

// assessment is what fit computes after the search: predictions of the
// held-out locations and their scores, standard errors, MLOE/MMOM.
type assessment struct {
	Holdout  int         `json:"holdout,omitempty"`
	MSPE     *float64    `json:"mspe,omitempty"`
	Coverage *float64    `json:"coverage_95,omitempty"`
	PredSecs float64     `json:"prediction_seconds,omitempty"`
	StdErr   []float64   `json:"stderr,omitempty"` // per parameter; null for fixed ones as NaN -> omitted below
	Fisher   [][]float64 `json:"fisher_information,omitempty"`
	FisherOf []string    `json:"fisher_parameters,omitempty"`
	MLOE     *float64    `json:"mloe,omitempty"`
	MMOM     *float64    `json:"mmom,omitempty"`
	Plots    []string    `json:"plots,omitempty"`
}

// subset returns the rows idx of d.
func subset(d *dataset.Data, idx []int) *dataset.Data {
	s := &dataset.Data{Coords: d.Coords}
	for _, i := range idx {
		s.X = append(s.X, d.X[i])
		s.Y = append(s.Y, d.Y[i])
		if d.Obs != nil {
			s.Obs = append(s.Obs, d.Obs[i])
		}
	}
	return s
}

func points(d *dataset.Data) matern.Points { return matern.Points{X: d.X, Y: d.Y} }

// parseGrid parses "NxM".
func parseGrid(s string) (nx, ny int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		nx, err = strconv.Atoi(a)
		if err == nil {
			ny, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || nx < 2 || ny < 2 || nx*ny > 1_000_000 {
		return 0, 0, badInput("--grid must be NxM with 2 <= N, M and N*M <= 1e6, got %q", s)
	}
	return nx, ny, nil
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
	workers   int
	metric    matern.Metric
	seed      uint64
	write     bool // this rank writes files (rank 0); the others only take part in the task graphs
}

// assess runs after the fit with the evaluator alive (its factor reused).
func assess(ev *likelihood.Evaluator, theta []float64, o assessOptions, out *assessment) error {
	p := ev.Problem()
	names := p.Model.ParamNames()
	var zhat, pvar []float64
	if o.test != nil {
		r, err := predict.Krige(ev, theta, points(o.test))
		if err != nil {
			return err
		}
		zhat, pvar = r.Z, r.Var
		mspe, cov := predict.Score(o.test.Obs, r.Z, r.Var)
		out.Holdout, out.MSPE, out.Coverage, out.PredSecs = o.test.Len(), &mspe, &cov, r.Seconds
	}
	if o.stderr {
		f, err := predict.FisherInfo(ev, theta, o.free)
		if err != nil {
			return fmt.Errorf("standard errors: %w", err)
		}
		out.StdErr = make([]float64, len(names))
		for i := range out.StdErr {
			out.StdErr[i] = 0
		}
		for a, j := range f.Index {
			out.StdErr[j] = f.StdErr[a]
		}
		out.Fisher, out.FisherOf = f.Info, f.Params
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

func makePlots(ev *likelihood.Evaluator, theta []float64, o assessOptions, zhat, pvar []float64, out *assessment) error {
	p := ev.Problem()
	dir := o.plotDir
	if !o.write {
		// Other ranks take part in the grid prediction's task graph only.
		if o.gridX > 0 {
			minx, maxx, miny, maxy := bbox(o.train)
			gx, gy := plot.GridPoints(o.gridX, o.gridY, minx, maxx, miny, maxy)
			_, err := predict.Krige(ev, theta, matern.Points{X: gx, Y: gy})
			return err
		}
		return nil
	}
	k, err := p.Model.Kernel(theta, math.Inf(1))
	if err != nil {
		return err
	}
	xl, yl := "x", "y"
	if o.train.Coords == dataset.Geographic {
		xl, yl = "longitude", "latitude"
	}
	add := func(name string) { out.Plots = append(out.Plots, filepath.Join(dir, name+".png")) }
	h, g, _ := plot.EmpiricalSemivariogram(points(o.train), o.metric, o.train.Obs, 25, 2_000_000, o.seed)
	c0 := k.Cov(0) + p.Nugget
	if err := plot.Semivariogram(filepath.Join(dir, "semivariogram"), h, g,
		func(r float64) float64 { return c0 - k.Cov(r) }, fmt.Sprintf("Semivariogram: data vs fitted %s", p.Model)); err != nil {
		return err
	}
	add("semivariogram")
	if err := plot.Map(filepath.Join(dir, "observations"), o.train.X, o.train.Y, o.train.Obs,
		plot.MapOptions{Title: fmt.Sprintf("Observations (N=%d)", o.train.Len()), Label: "z", XLabel: xl, YLabel: yl}); err != nil {
		return err
	}
	add("observations")
	if o.gridX > 0 {
		minx, maxx, miny, maxy := bbox(o.train)
		gx, gy := plot.GridPoints(o.gridX, o.gridY, minx, maxx, miny, maxy)
		r, err := predict.Krige(ev, theta, matern.Points{X: gx, Y: gy})
		if err != nil {
			return err
		}
		sd := sqrtAll(r.Var)
		if err := plot.Grid(filepath.Join(dir, "prediction"), o.gridX, o.gridY, minx, maxx, miny, maxy, r.Z,
			plot.MapOptions{Title: fmt.Sprintf("Kriging prediction on a %dx%d grid", o.gridX, o.gridY), Label: "z_hat", XLabel: xl, YLabel: yl}); err != nil {
			return err
		}
		add("prediction")
		if err := plot.Grid(filepath.Join(dir, "prediction_sd"), o.gridX, o.gridY, minx, maxx, miny, maxy, sd,
			plot.MapOptions{Title: "Prediction standard deviation", Label: "sd", XLabel: xl, YLabel: yl}); err != nil {
			return err
		}
		add("prediction_sd")
	} else if zhat != nil {
		if err := plot.Map(filepath.Join(dir, "prediction"), o.test.X, o.test.Y, zhat,
			plot.MapOptions{Title: fmt.Sprintf("Kriging prediction at %d held-out locations", o.test.Len()), Label: "z_hat", XLabel: xl, YLabel: yl}); err != nil {
			return err
		}
		add("prediction")
		if err := plot.Map(filepath.Join(dir, "prediction_sd"), o.test.X, o.test.Y, sqrtAll(pvar),
			plot.MapOptions{Title: "Prediction standard deviation (held-out locations)", Label: "sd", XLabel: xl, YLabel: yl}); err != nil {
			return err
		}
		add("prediction_sd")
	}
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

func printAssessment(w io.Writer, names []string, a *assessment) {
	if a.MSPE != nil {
		fmt.Fprintf(w, "holdout %d: MSPE %.6g  95%% interval coverage %.1f%%  (prediction %.3fs)\n", a.Holdout, *a.MSPE, 100**a.Coverage, a.PredSecs)
	}
	if a.StdErr != nil {
		var parts []string
		for i, n := range names {
			if a.StdErr[i] > 0 {
				parts = append(parts, fmt.Sprintf("%s %.4g", n, a.StdErr[i]))
			}
		}
		fmt.Fprintf(w, "standard errors (Fisher information): %s\n", strings.Join(parts, "  "))
	}
	if a.MLOE != nil {
		fmt.Fprintf(w, "MLOE %.6g  MMOM %.6g\n", *a.MLOE, *a.MMOM)
	}
	for _, p := range a.Plots {
		fmt.Fprintf(os.Stderr, "wrote %s (and .svg)\n", p)
	}
}
