package likelihood

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestAgainstR: the log-likelihood of the Matérn with a nugget and a mean
// (zero, constant, linear, named covariates), profiled over the GLS mean and
// restricted (REML), equals the values base R computed (besselK, chol) in
// testdata/r/references.R, committed in testdata/r/loglik_mean.csv, to 1e-9
// relative: on 200 synthetic points and on the meuse data (155 points,
// metres, log zinc; covariates dist and elev).
func TestAgainstR(t *testing.T) {
	f, err := os.Open("../../testdata/r/loglik_mean.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"synth": "../../testdata/r/synth_n200.csv", "meuse": "../../testdata/real/meuse.csv"}
	data := map[string]*dataset.Data{}
	for name, path := range files {
		// meuse's covariates are read when named (as fit --mean dist,elev does).
		if data[name], err = dataset.ReadCSVWith(path, dataset.Options{Covariates: []string{"dist", "elev"}}); err != nil {
			t.Fatal(err)
		}
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(r []string, name string) float64 {
		v, err := strconv.ParseFloat(r[col[name]], 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	checked, worst := 0, 0.0
	for _, r := range rows[1:] {
		d := data[r[col["data"]]]
		mean := r[col["mean"]]
		if mean == "covariates:dist+elev" {
			mean = "dist,elev"
		}
		_, x, err := dataset.Design(d, mean)
		if err != nil {
			t.Fatal(err)
		}
		theta := []float64{num(r, "sigma2"), num(r, "beta"), num(r, "nu"), num(r, "tau2")}
		for _, reml := range []bool{false, true} {
			want := num(r, "loglik")
			if reml {
				if len(x) == 0 {
					continue
				}
				want = num(r, "loglik_reml")
			}
			p := Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: d.Obs, Model: Matern, Covariates: x, REML: reml}
			ev, err := NewWith(p, rt, Options{NB: 48})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := ev.LogLik(theta)
			ev.Release()
			if err != nil {
				t.Fatalf("%s %s theta %v: %v", r[col["data"]], mean, theta, err)
			}
			e := math.Abs(got-want) / math.Abs(want)
			if !(e <= 1e-9) {
				t.Errorf("%s mean %s reml %v theta %v: l = %.12g, R %.12g (rel %.2g)", r[col["data"]], mean, reml, theta, got, want, e)
			}
			worst = max(worst, e)
			checked++
		}
	}
	t.Logf("%d values, largest relative difference %.2g", checked, worst)
	if checked != 48 { // 28 rows: 8 zero-mean (l), 20 with a mean (l and l_R)
		t.Errorf("%d values checked, want 48", checked)
	}
}

// TestModelsAgainstR: the space-time Matérn (Gneiting's non-separable form,
// ExaGeoStat's univariate_spacetime_matern_stationary) and the parsimonious
// bivariate Matérn (bivariate_matern_parsimonious, the 2N vector
// interleaved per location) give the log-likelihoods base R computed with
// its own code of the same formulas (testdata/r/references.R:
// loglik_spacetime.csv on 20 locations x 5 times, loglik_bivariate.csv on
// 80 locations x 2 variables), to 1e-9 relative.
func TestModelsAgainstR(t *testing.T) {
	read := func(path string) [][]float64 {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, r := range rows[1:] {
			v := make([]float64, len(r))
			for i, s := range r {
				if v[i], err = strconv.ParseFloat(s, 64); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, v)
		}
		return out
	}
	st, err := dataset.ReadCSV("../../testdata/r/st_n100.csv")
	if err != nil {
		t.Fatal(err)
	}
	bv, err := dataset.ReadCSV("../../testdata/r/biv_n80.csv")
	if err != nil {
		t.Fatal(err)
	}
	if st.T == nil || bv.Obs2 == nil {
		t.Fatalf("time column %v, second variable %v: not read", st.T != nil, bv.Obs2 != nil)
	}
	z2 := make([]float64, 0, 2*bv.Len())
	for i := range bv.Obs {
		z2 = append(z2, bv.Obs[i], bv.Obs2[i])
	}
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	cases := []struct {
		name string
		p    Problem
		rows [][]float64 // case, theta..., [rho_colocated], loglik
		nth  int
	}{
		{"spacetime", Problem{Points: matern.Points{X: st.X, Y: st.Y, T: st.T}, Obs: st.Obs, Model: SpaceTimeMatern}, read("../../testdata/r/loglik_spacetime.csv"), 7},
		{"bivariate", Problem{Points: matern.Interleave(matern.Points{X: bv.X, Y: bv.Y}), Obs: z2, Model: BivariateMatern}, read("../../testdata/r/loglik_bivariate.csv"), 6},
	}
	for _, c := range cases {
		if len(c.rows) != 3 {
			t.Fatalf("%s: %d reference rows, want 3", c.name, len(c.rows))
		}
		ev, err := NewWith(c.p, rt, Options{NB: 40})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range c.rows {
			theta, want := r[1:1+c.nth], r[len(r)-1]
			got, _, err := ev.LogLik(theta)
			if err != nil {
				t.Fatalf("%s theta %v: %v", c.name, theta, err)
			}
			e := math.Abs(got-want) / math.Abs(want)
			if !(e <= 1e-9) {
				t.Errorf("%s theta %v: l = %.12g, R %.12g (rel %.2g)", c.name, theta, got, want, e)
			}
			t.Logf("%s theta %v: relative difference %.2g", c.name, theta, e)
		}
		ev.Release()
	}
}

// TestAnisoAgainstR: the anisotropic Matérn (aniso-matern) gives the
// log-likelihoods base R computed densely with its own code of the model
// (testdata/r/aniso.R: loglik_aniso.csv on the 150 points of
// aniso_n150.csv, five theta with and without a nugget), with a zero and
// a constant (GLS-profiled) mean, to 1e-9 relative, on 1 and 2 workers
// (bitwise the same), the nugget given as Problem.Nugget or as theta's
// sixth value (bitwise the same).
func TestAnisoAgainstR(t *testing.T) {
	f, err := os.Open("../../testdata/r/loglik_aniso.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d reference rows, want 5", len(rows)-1)
	}
	d, err := dataset.ReadCSV("../../testdata/r/aniso_n150.csv")
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]float64, d.Len())
	for i := range ones {
		ones[i] = 1
	}
	first := map[string]float64{}
	for _, workers := range []int{1, 2} {
		rt := runtime.New(runtime.Options{Workers: workers})
		for _, mean := range []struct {
			name string
			cov  [][]float64
			col  int
		}{{"zero", nil, 7}, {"constant", [][]float64{ones}, 8}} {
			for _, r := range rows[1:] {
				v := make([]float64, len(r))
				for i, s := range r {
					if v[i], err = strconv.ParseFloat(s, 64); err != nil {
						t.Fatal(err)
					}
				}
				p := Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: d.Obs, Model: AnisoMatern, Nugget: v[6], Covariates: mean.cov}
				ev, err := NewWith(p, rt, Options{NB: 40})
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := ev.LogLik(v[1:6])
				if err != nil {
					t.Fatalf("theta %v: %v", v[1:6], err)
				}
				key := mean.name + r[0]
				if workers == 1 {
					first[key] = got
				} else if got != first[key] {
					t.Errorf("%s mean, case %s: l = %v on 2 workers, %v on 1", mean.name, r[0], got, first[key])
				}
				// The nugget as theta's sixth value: the same l, bit for bit.
				ev6, err := NewWith(Problem{Points: p.Points, Obs: p.Obs, Model: AnisoMatern, Covariates: mean.cov}, rt, Options{NB: 40})
				if err != nil {
					t.Fatal(err)
				}
				if got6, _, err := ev6.LogLik(v[1:7]); err != nil || got6 != got {
					t.Errorf("%s mean, theta %v: l = %v with tau2 in theta, %v with Problem.Nugget (%v)", mean.name, v[1:7], got6, got, err)
				}
				ev6.Release()
				want := v[mean.col]
				if e := math.Abs(got-want) / math.Abs(want); !(e <= 1e-9) {
					t.Errorf("%s mean, theta %v tau2 %v: l = %.12g, R %.12g (rel %.2g)", mean.name, v[1:6], v[6], got, want, e)
				} else if workers == 1 {
					t.Logf("%s mean, theta %v tau2 %v: relative difference %.2g", mean.name, v[1:6], v[6], e)
				}
				ev.Release()
			}
		}
		rt.Close()
	}
}

// TestAnisoRefusals: the anisotropic Matérn refuses great-circle
// distances, 3D locations and times.
func TestAnisoRefusals(t *testing.T) {
	rt := runtime.New(runtime.Options{Workers: 1})
	defer rt.Close()
	xy := []float64{0, 1}
	for _, tc := range []struct {
		name string
		p    Problem
		want string
	}{
		{"great-circle", Problem{Points: matern.Points{X: xy, Y: xy}, Metric: matern.GreatCircle, Obs: xy, Model: AnisoMatern}, "Euclidean"},
		{"3D", Problem{Points: matern.Points{X: xy, Y: xy, Z: xy}, Obs: xy, Model: AnisoMatern}, "planar 2D"},
		{"times", Problem{Points: matern.Points{X: xy, Y: xy, T: xy}, Obs: xy, Model: AnisoMatern}, "planar 2D"},
	} {
		_, err := NewWith(tc.p, rt, Options{NB: 2})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
