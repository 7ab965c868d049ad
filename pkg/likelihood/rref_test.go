package likelihood

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
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
		if data[name], err = dataset.ReadCSV(path); err != nil {
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
	checked := 0
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
			if e := math.Abs(got-want) / math.Abs(want); !(e <= 1e-9) {
				t.Errorf("%s mean %s reml %v theta %v: l = %.12g, R %.12g (rel %.2g)", r[col["data"]], mean, reml, theta, got, want, e)
			}
			checked++
		}
	}
	if checked != 48 { // 28 rows: 8 zero-mean (l), 20 with a mean (l and l_R)
		t.Errorf("%d values checked, want 48", checked)
	}
}
