package mle

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestProfiledFitReachesScipyOptimum: the profiled search (sigma2 in
// closed form) reaches scipy's optimum of the N = 1600 reference data
// (testdata/reference, computed outside Go) within 1e-4 in l, in fewer
// evaluations than the full search's; the reported l is the full l at
// the reported theta (a separate evaluation); every step holds a full
// theta whose l is the full l there. With nu fixed at 0.5 it needs even
// fewer.
func TestProfiledFitReachesScipyOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("fits N = 1600")
	}
	var ref map[string]string
	for _, row := range readRows(t, "fits.csv") {
		if row["file"] == "fit_n1600.csv" {
			ref = row
		}
	}
	d, err := dataset.ReadCSV(filepath.Join(refDir, "fit_n1600.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := num(t, ref["loglik"])
	opts := func(lower, upper []float64) FitOptions {
		return FitOptions{Model: likelihood.Matern, NB: 320, Workers: 2, Profile: true,
			Opt: Options{Lower: lower, Upper: upper, Start: StartData, LogScale: true, FtolAbs: 1e-5}}
	}
	res, err := Fit(d, opts([]float64{0.001, 0.001, 0.001}, []float64{5, 5, 5}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("profiled: l=%.6f (scipy %.6f) theta=%v evaluations=%d %.1fs", res.LogLik, want, res.Theta, res.Evaluations, res.Seconds)
	if math.Abs(res.LogLik-want) > 1e-4 || res.Evaluations > 60 {
		t.Fatalf("profiled fit: l=%.6f (scipy %.6f) in %d evaluations", res.LogLik, want, res.Evaluations)
	}
	// The full evaluation at the reported theta gives the reported l.
	sd := dataset.Permute(d, dataset.MortonOrder(d))
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	ev, err := likelihood.New(likelihood.Problem{Points: Points(sd), Obs: sd.Obs, Model: likelihood.Matern}, 320, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := ev.LogLik(res.Theta)
	if err != nil || math.Abs(l-res.LogLik) > 1e-10*math.Abs(l) {
		t.Fatalf("full l at the estimate %.12f (%v), reported %.12f", l, err, res.LogLik)
	}
	for _, s := range res.Steps[:3] {
		l, _, err := ev.LogLik(s.Theta)
		if err != nil || math.Abs(l-s.LogLik) > 1e-10*math.Abs(l) || s.Search == nil || s.Search[0] != 1 {
			t.Fatalf("step %d: theta %v l %.12f, full l there %.12f (%v)", s.N, s.Theta, s.LogLik, l, err)
		}
	}
	fixed, err := Fit(d, opts([]float64{0.001, 0.001, 0.5}, []float64{5, 5, 0.5}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("profiled, nu = 0.5: l=%.6f theta=%v evaluations=%d %.1fs", fixed.LogLik, fixed.Theta, fixed.Evaluations, fixed.Seconds)
	if fixed.Evaluations > 30 || fixed.LogLik > res.LogLik+1e-6 || fixed.LogLik < want-0.05 {
		t.Fatalf("nu fixed: l=%.6f in %d evaluations", fixed.LogLik, fixed.Evaluations)
	}
}

// TestProfilable: the cases where sigma2 cannot be profiled, for the
// Matérn (tau2 the 4th parameter) and the anisotropic Matérn (tau2 the
// 6th; a fixed angle, the 4th, is no fixed nugget).
func TestProfilable(t *testing.T) {
	m, a := likelihood.Matern, likelihood.AnisoMatern
	lb, ub := []float64{0.1, 0.1, 0.1}, []float64{1, 1, 1}
	alb, aub := []float64{0.1, 0.1, 0.1, 0, 1}, []float64{1, 1, 1, 3, 5}
	for _, c := range []struct {
		model  likelihood.Model
		lb, ub []float64
		nugget float64
		ok     bool
	}{
		{m, lb, ub, 0, true},
		{m, []float64{0.1, 0.1, 0.1, 0.1}, []float64{1, 1, 1, 1}, 0, true},
		{m, []float64{1, 0.1, 0.1}, []float64{1, 1, 1}, 0, false},
		{m, lb, ub, 0.1, false},
		{m, []float64{0.1, 0.1, 0.1, 0.1}, []float64{1, 1, 1, 0.1}, 0, false},
		{a, alb, aub, 0, true},
		{a, []float64{0.1, 0.1, 0.1, 1, 1}, []float64{1, 1, 1, 1, 5}, 0, true}, // angle fixed
		{a, append(alb, 0.01), append(aub, 1), 0, true},
		{a, alb, aub, 0.1, false},
		{a, append(alb, 0.1), append(aub, 0.1), 0, false},
		{a, lb, ub, 0, false},
	} {
		if err := Profilable(c.model, c.lb, c.ub, c.nugget); (err == nil) != c.ok {
			t.Errorf("%s %v %v nugget %g: err %v, want ok %v", c.model, c.lb, c.ub, c.nugget, err, c.ok)
		}
	}
}

// TestFitMeanReplay: a profiled REML fit with a constant mean, then the
// same fit replayed from its own evaluations (a resumed checkpoint that
// had finished): the same theta, l and mean coefficients, the
// coefficients' covariance recomputed at the estimate (the best
// evaluation was replayed, not computed), equal to the first run's scaled
// one to round-off.
func TestFitMeanReplay(t *testing.T) {
	d := dataset.Grid(150, 3)
	d.Obs = dataset.StandardNormal(150, 3)
	one := make([]float64, 150)
	for i := range one {
		one[i] = 1
		d.Obs[i] += 2
	}
	o := FitOptions{Model: likelihood.Matern, NB: 40, Workers: 2, Profile: true, Covariates: [][]float64{one}, REML: true,
		Opt: Options{Lower: []float64{0.01, 0.01, 0.5}, Upper: []float64{5, 2, 0.5}, Start: StartData, LogScale: true, FtolAbs: 1e-5}}
	a, err := Fit(d, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for _, s := range a.Steps {
		recs = append(recs, s.Eval.Record())
	}
	o.Opt.Replay = NewCache(recs)
	b, err := Fit(d, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Replayed != b.Evaluations || b.LogLik != a.LogLik || b.Theta[1] != a.Theta[1] || len(b.Beta) != 1 ||
		math.Abs(b.Beta[0]-a.Beta[0]) > 1e-12*math.Abs(a.Beta[0]) || math.Abs(b.BetaCov[0][0]-a.BetaCov[0][0]) > 1e-10*a.BetaCov[0][0] {
		t.Fatalf("first %v l %v b %v cov %v; replayed (%d of %d) %v l %v b %v cov %v", a.Theta, a.LogLik, a.Beta, a.BetaCov,
			b.Replayed, b.Evaluations, b.Theta, b.LogLik, b.Beta, b.BetaCov)
	}
}
