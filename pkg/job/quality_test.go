package job

import (
	"github.com/exageostat/exageostat/pkg/config"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestFlagFit(t *testing.T) {
	base := func() *FitResult {
		return &FitResult{
			Params: []string{"sigma2", "beta", "nu"}, Theta: []float64{1.2, 0.3, 0.5},
			Lower: []float64{0.001, 0.001, 0.5}, Upper: []float64{5, 0.3, 0.5}, Start: []float64{1, 0.1, 0.5},
			Status: "FTOL_REACHED", Evaluations: 40,
			Steps: []Step{{N: 1, Theta: []float64{1, 0.1, 0.5}}},
		}
	}
	obs := []float64{1, -0.5, 0.25, 2}
	// nugget adds an estimated tau2 (estimate, bounds; with standard
	// errors when se) to base's, beta free.
	nugget := func(tau2, lb, ub float64, se bool) func(*FitResult) {
		return func(r *FitResult) {
			r.Upper[1] = 5
			r.Params, r.Theta = append(r.Params, "tau2"), append(r.Theta, tau2)
			r.Lower, r.Upper, r.Start = append(r.Lower, lb), append(r.Upper, ub), append(r.Start, tau2)
			r.Steps[0].Theta = append(r.Steps[0].Theta, tau2)
			if se {
				r.StdErr = []float64{0.1, 0.02, 0, 0.003}
			}
		}
	}
	cases := []struct {
		name      string
		edit      func(*FitResult)
		obs       []float64
		converged bool
		atBound   []string
		warnings  []string // substrings, one per warning, in order
		note      string   // substring of StdErrNote ("" none)
	}{
		{"at upper bound", func(r *FitResult) {}, obs, true, []string{"", "upper", "fixed"},
			[]string{"beta = 0.3 is at its upper bound 0.3"}, ""},
		{"at a bound with standard errors", func(r *FitResult) { r.StdErr = []float64{0.1, 0.02, 0} }, obs, true, []string{"", "upper", "fixed"},
			[]string{"beta = 0.3 is at its upper bound"}, "not meaningful for beta"},
		{"not converged", func(r *FitResult) { r.Upper[1] = 5; r.Status = "MAXEVAL_REACHED" }, obs, false, []string{"", "", "fixed"},
			[]string{"stopped after 40 evaluations with status MAXEVAL_REACHED, before converging"}, ""},
		{"interrupted", func(r *FitResult) { r.Upper[1] = 5; r.Status = "interrupted" }, obs, false, []string{"", "", "fixed"},
			[]string{"continue it with --resume"}, ""},
		{"constant data", func(r *FitResult) { r.Upper[1] = 5 }, []float64{3, 3, 3, 3}, true, []string{"", "", "fixed"},
			[]string{"the observations are constant"}, ""},
		{"moved start", func(r *FitResult) { r.Upper[1] = 5; r.Steps[0].Theta = []float64{1, 2.5, 0.5} }, obs, true, []string{"", "", "fixed"},
			[]string{"moved the start of beta from 0.1 to 2.5"}, ""},
		{"clean", func(r *FitResult) { r.Upper[1] = 5 }, obs, true, []string{"", "", "fixed"}, nil, ""},
		// An estimated nugget that ends a step short of 0 (meuse: 4.9e-7).
		{"negligible nugget", nugget(4.9e-7, 0, 5, true), obs, true, []string{"", "", "fixed", ""},
			[]string{"tau2 = 4.9e-07 is negligible against sigma2 = 1.2 (tau2/sigma2 = 4.08e-07, below 0.0001) and next to its lower bound 0 (within 0.0001 of the bounds' width 5)"},
			"not meaningful for tau2"},
		{"nugget next to its bound", nugget(0.01005, 0.01, 1, false), obs, true, []string{"", "", "fixed", ""},
			[]string{"tau2 = 0.01005 is next to its lower bound 0.01 (within 0.0001 of the bounds' width 0.99)"}, ""},
		{"nugget at its bound", nugget(0, 0, 5, false), obs, true, []string{"", "", "fixed", "lower"},
			[]string{"tau2 = 0 is at its lower bound 0"}, ""},
		{"nugget estimated", nugget(0.1, 0, 5, false), obs, true, []string{"", "", "fixed", ""}, nil, ""},
		{"nugget small but a bound apart", nugget(1e-5, 1e-6, 1e-5*1.5, false), obs, true, []string{"", "", "fixed", ""},
			[]string{"tau2 = 1e-05 is negligible against sigma2 = 1.2 (tau2/sigma2 = 8.33e-06, below 0.0001): "}, ""},
	}
	for _, c := range cases {
		r := base()
		c.edit(r)
		flagFit(r, c.obs, 0)
		if r.Converged != c.converged {
			t.Errorf("%s: converged %v, want %v", c.name, r.Converged, c.converged)
		}
		if !slices.Equal(r.AtBound, c.atBound) {
			t.Errorf("%s: at_bound %q, want %q", c.name, r.AtBound, c.atBound)
		}
		if len(r.Warnings) != len(c.warnings) {
			t.Errorf("%s: warnings %q, want %d", c.name, r.Warnings, len(c.warnings))
			continue
		}
		for i, w := range c.warnings {
			if !strings.Contains(r.Warnings[i], w) {
				t.Errorf("%s: warning %q lacks %q", c.name, r.Warnings[i], w)
			}
		}
		if (c.note == "") != (r.StdErrNote == "") || !strings.Contains(r.StdErrNote, c.note) {
			t.Errorf("%s: stderr note %q, want %q", c.name, r.StdErrNote, c.note)
		}
	}
}

func TestCheckPrediction(t *testing.T) {
	cases := []struct {
		z, v []float64
		want string // "" accepted
	}{
		{[]float64{0.1, -2}, []float64{0.5, 1e300}, ""},
		{[]float64{0.1, -2}, []float64{0.5, math.Inf(1)}, "the prediction at row 2 of at.csv is not finite (z_hat -2, variance +Inf)"},
		{[]float64{math.NaN(), 1}, []float64{0.5, 1}, "row 1 of at.csv"},
	}
	for _, c := range cases {
		err := checkPrediction("predict", c.z, c.v, "at.csv")
		if c.want == "" {
			if err != nil {
				t.Errorf("%v %v: %v", c.z, c.v, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !IsInput(err) {
			t.Errorf("%v %v: error %v, want an input error with %q", c.z, c.v, err, c.want)
		}
	}
}

// TestFitEffectiveRange: the fit reports the distance where its fitted
// correlation falls to 0.05: beta ln 20 for the exponential (nu fixed at
// 0.5), an independent closed form.
func TestFitEffectiveRange(t *testing.T) {
	cfg := config.DefaultFit()
	cfg.N, cfg.NB, cfg.Lower, cfg.Upper, cfg.MaxEvals = 100, 50, []float64{0.01, 0.01, 0.5}, []float64{5, 5, 0.5}, 30
	r, err := Fit(cfg, Env{})
	if err != nil {
		t.Fatal(err)
	}
	want := r.Theta[1] * math.Log(20)
	if r.EffectiveRange == nil || math.Abs(*r.EffectiveRange-want) > 1e-9*want {
		t.Errorf("effective range %v, want beta ln 20 = %v", r.EffectiveRange, want)
	}
}
