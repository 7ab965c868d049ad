package job

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/matern"
)

// TestPredictAgainstR: predict with a zero, constant and linear mean
// (universal kriging, the variance of a new observation with the mean's
// uncertainty; or of the latent field, without the nugget) at 20 new
// locations of the 200 synthetic points gives the predictions and variances
// base R computed (testdata/r/references.R, kriging_synth.csv) to 1e-8.
func TestPredictAgainstR(t *testing.T) {
	rows := readRows(t, "../../testdata/r/kriging_synth.csv")
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	byMean := map[string][][]string{}
	var means []string
	for _, r := range rows[1:] {
		if byMean[r[4]] == nil {
			means = append(means, r[4])
		}
		byMean[r[4]] = append(byMean[r[4]], r)
	}
	if len(means) != 3 {
		t.Fatalf("means %v, want zero, constant and linear", means)
	}
	dir := t.TempDir()
	for _, mean := range means {
		rs := byMean[mean]
		var at strings.Builder
		at.WriteString("x,y\n")
		for _, r := range rs {
			fmt.Fprintf(&at, "%s,%s\n", r[5], r[6])
		}
		atPath := filepath.Join(dir, mean+"-at.csv")
		if err := os.WriteFile(atPath, []byte(at.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, variance := range []string{config.VarianceObservation, config.VarianceLatent} {
			p := config.DefaultPredict()
			p.Data, p.At, p.Out, p.Mean, p.NB = "../../testdata/r/synth_n200.csv", atPath, filepath.Join(dir, mean+"-"+variance+".csv"), mean, 48
			p.Theta, p.Variance = []float64{num(rs[0][0]), num(rs[0][1]), num(rs[0][2]), num(rs[0][3])}, variance
			if _, err := Predict(p, Env{}); err != nil {
				t.Fatalf("%s: %v", mean, err)
			}
			out, err := os.ReadFile(p.Out)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")[1:]
			if len(lines) != len(rs) {
				t.Fatalf("%s: %d predictions, want %d", mean, len(lines), len(rs))
			}
			vcol := 9 // R's var_obs; var_field for the latent variance
			if variance == config.VarianceLatent {
				vcol = 8
			}
			for i, line := range lines {
				v := strings.Split(line, ",")
				zhat, vr := num(v[2]), num(v[3])
				wz, wv := num(rs[i][7]), num(rs[i][vcol])
				if math.Abs(zhat-wz) > 1e-8*math.Max(1, math.Abs(wz)) || math.Abs(vr-wv) > 1e-8*math.Max(1, wv) {
					t.Errorf("%s, %s variance, location %d: z_hat %.12g variance %.12g; R %.12g %.12g", mean, variance, i+1, zhat, vr, wz, wv)
				}
			}
		}
	}
}

// TestRealFitsAgainstR: fits of the meuse data (155 points, constant mean,
// nugget estimated) reach the maxima R found by its own optimisation from
// several starts (testdata/r/fits_real.csv) within 1e-4 in l: ML with nu
// fixed at 0.5 and free, REML with nu free, in R's search box.
func TestRealFitsAgainstR(t *testing.T) {
	rows := readRows(t, "../../testdata/r/fits_real.csv")
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	want := map[string]float64{}
	for _, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[col["loglik_max"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		want[r[col["data"]]+"/"+r[col["method"]]+"/"+r[col["nu_fixed"]]] = v
	}
	cases := []struct {
		key    string
		lb, ub []float64
		reml   bool
	}{
		{"meuse/ml/0.5", []float64{1e-3, 1, 0.5, 1e-9}, []float64{1e3, 1e4, 0.5, 100}, false},
		{"meuse/ml/free", []float64{1e-3, 1, 0.05, 1e-9}, []float64{1e3, 1e4, 8, 100}, false},
		{"meuse/reml/free", []float64{1e-3, 1, 0.05, 1e-9}, []float64{1e3, 1e4, 8, 100}, true},
	}
	for _, c := range cases {
		w, ok := want[c.key]
		if !ok {
			t.Fatalf("%s: no reference row", c.key)
		}
		cfg := config.DefaultFit()
		cfg.Data, cfg.Mean, cfg.REML, cfg.Lower, cfg.Upper, cfg.Checkpoint = "../../testdata/real/meuse.csv", "constant", c.reml, c.lb, c.ub, "none"
		cfg.N, cfg.Theta, cfg.Seed = 0, nil, 0
		r, err := Fit(cfg, Env{})
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		if d := r.LogLik - w; !(math.Abs(d) <= 1e-4) {
			t.Errorf("%s: l = %.9f after %d evaluations, R's maximum %.9f (difference %.2g)", c.key, r.LogLik, r.Evaluations, w, d)
		}
	}
}

// readRows reads a committed reference CSV (its header is rows[0]).
func readRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCVFileOrder: cv writes each observation's leave-one-out residual on
// its own row of the data file (the evaluator works in Morton order),
// checked against dense kriging of each point from the 49 others.
func TestCVFileOrder(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	n := 50
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range n {
		x[i], y[i], z[i] = rng.Float64(), rng.Float64(), rng.NormFloat64()
		fmt.Fprintf(&b, "%v,%v,%v\n", x[i], y[i], z[i])
	}
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := config.DefaultPredict()
	p.Data, p.At, p.Out, p.CV, p.NB = data, data, filepath.Join(dir, "loo.csv"), true, 16
	p.Theta = []float64{1, 0.2, 0.5, 0.05}
	r, err := Predict(p, Env{})
	if err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, p.Out)
	if len(rows) != n+1 || strings.Join(rows[0], ",") != "x,y,z,z_loo,variance,residual,standardized" {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	th := matern.Theta{Sigma2: 1, Beta: 0.2, Nu: 0.5}
	pts := matern.Points{X: x, Y: y}
	var mspe float64
	for i := range n {
		s := mat.NewSymDense(n-1, nil)
		k := mat.NewVecDense(n-1, nil)
		zr := mat.NewVecDense(n-1, nil)
		var rest []int
		for j := range n {
			if j != i {
				rest = append(rest, j)
			}
		}
		for a, ja := range rest {
			k.SetVec(a, matern.Matern(th, matern.Distance(matern.Euclidean, pts, ja, pts, i)))
			zr.SetVec(a, z[ja])
			for c := 0; c <= a; c++ {
				v := matern.Matern(th, matern.Distance(matern.Euclidean, pts, ja, pts, rest[c]))
				if a == c {
					v += 0.05
				}
				s.SetSym(a, c, v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			t.Fatal("not SPD")
		}
		var sk mat.VecDense
		if err := ch.SolveVecTo(&sk, k); err != nil {
			t.Fatal(err)
		}
		e := z[i] - mat.Dot(&sk, zr)
		mspe += e * e / float64(n)
		got, err := strconv.ParseFloat(rows[i+1][5], 64)
		if err != nil || math.Abs(got-e) > 1e-10*math.Max(1, math.Abs(e)) {
			t.Fatalf("row %d: residual %v (%v), dense %v", i+1, got, err, e)
		}
	}
	if math.Abs(r.CV.MSPE-mspe) > 1e-10*mspe {
		t.Errorf("MSPE %v, dense %v", r.CV.MSPE, mspe)
	}
}

// TestProfileIntervalsAgainstR: fit --ci profile on 200 simulated points
// (zero mean, no nugget; sigma2, beta, nu free) gives each end of the 95 %
// profile-likelihood intervals, of the parameters and of the effective
// range beta c(nu), within 1e-3 (relative) of a dense R computation
// (testdata/r/profile_ci.R: optim over the other parameters from three
// starts, uniroot on the profile), and Wald intervals about the
// estimates.
func TestProfileIntervalsAgainstR(t *testing.T) {
	rows := readRows(t, "../../testdata/r/profile_ci.csv")
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cfg := config.DefaultFit()
	cfg.Data, cfg.CI, cfg.Checkpoint = "../../testdata/r/profile_n200.csv", "profile", "none"
	cfg.N, cfg.Theta, cfg.Seed = 0, nil, 0
	r, err := Fit(cfg, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Intervals) != 4 || len(rows) != 5 {
		t.Fatalf("%d intervals, %d reference rows", len(r.Intervals), len(rows)-1)
	}
	for k, row := range rows[1:] {
		iv := r.Intervals[k]
		lo, hi := num(row[2]), num(row[3])
		if iv.Param != row[0] || math.Abs(iv.Lower-lo) > 1e-3*lo || math.Abs(iv.Upper-hi) > 1e-3*hi || iv.LowerAtBound || iv.UpperAtBound {
			t.Errorf("%s: [%.6g, %.6g], R [%.6g, %.6g]", iv.Param, iv.Lower, iv.Upper, lo, hi)
		}
		if est := num(row[1]); math.Abs(iv.Estimate-est) > 1e-3*est || len(iv.Wald) != 2 || !(iv.Wald[0] < iv.Estimate && iv.Estimate < iv.Wald[1]) {
			t.Errorf("%s: estimate %.6g (R %.6g), Wald %v", iv.Param, iv.Estimate, est, iv.Wald)
		}
		t.Logf("%s: [%.8g, %.8g], R [%.8g, %.8g]; Wald %.6g", iv.Param, iv.Lower, iv.Upper, lo, hi, iv.Wald)
	}
}

// TestProfileIntervalsWithNugget: with the nugget estimated (4 bounds, nu
// fixed) and the variance profiled in the search, the constrained fits at
// a fixed tau2 cannot profile sigma2 out and search it instead. Each end
// of tau2's interval is where the profile crosses l_max - chi2_1(0.95)/2:
// a fit constrained there, run here without profiling (another search),
// reaches that level to 1e-4.
func TestProfileIntervalsWithNugget(t *testing.T) {
	cfg := config.DefaultFit()
	cfg.Data, cfg.CI, cfg.Checkpoint = "../../testdata/r/profile_n200.csv", "profile", "none"
	cfg.N, cfg.Theta, cfg.Seed = 0, nil, 0
	cfg.Lower, cfg.Upper = []float64{0.01, 0.005, 0.5, 1e-6}, []float64{10, 2, 0.5, 2}
	r, err := Fit(cfg, Env{})
	if err != nil {
		t.Fatal(err)
	}
	var tau *Interval
	for i := range r.Intervals {
		if r.Intervals[i].Param == "tau2" {
			tau = &r.Intervals[i]
		}
	}
	if tau == nil || !(tau.Lower < tau.Estimate && tau.Estimate < tau.Upper) {
		t.Fatalf("intervals %+v", r.Intervals)
	}
	target := r.LogLik - 3.841458820694124/2
	for _, end := range []float64{tau.Lower, tau.Upper} {
		if end == cfg.Lower[3] || end == cfg.Upper[3] {
			continue // at a bound: the profile does not cross there
		}
		c := cfg
		c.CI, c.Profile = "", "off"
		c.Lower, c.Upper = slices.Clone(cfg.Lower), slices.Clone(cfg.Upper)
		c.Lower[3], c.Upper[3] = end, end
		rc, err := Fit(c, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(rc.LogLik-target) > 1e-4 {
			t.Errorf("tau2 = %.6g: constrained l %.8f, target %.8f", end, rc.LogLik, target)
		}
	}
}
