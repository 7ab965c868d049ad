package job

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

// gstatBins returns the bins of one case of testdata/r/variogram_meuse.csv
// (gstat's variogram() on meuse, testdata/r/variogram.R).
func gstatBins(t *testing.T, name string) (dist, gamma []float64, np []int) {
	t.Helper()
	b, err := os.ReadFile("../../testdata/r/variogram_meuse.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] { // case,dir.hor,np,dist,gamma
		r := strings.Split(line, ",")
		if r[0] != name {
			continue
		}
		n, err1 := strconv.Atoi(r[2])
		d, err2 := strconv.ParseFloat(r[3], 64)
		g, err3 := strconv.ParseFloat(r[4], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		dist, gamma, np = append(dist, d), append(gamma, g), append(np, n)
	}
	return dist, gamma, np
}

// TestVariogramMatchesGstat runs the variogram command's job on R's
// write.csv(meuse) as it is (--z zinc --transform log --mean dist,elev)
// and compares the bins of its CSV with gstat's variogram(log(zinc) ~ dist
// + elev, meuse) (testdata/r/variogram_meuse.csv, case resid): the same
// bins and pair counts, distances and semivariances to 1e-9; with a
// model (theta 0.2, 220, 0.5, nugget 0.03: exponential), the model column
// and the JSON's curve are 0.03 + 0.2 (1 - exp(-h/220)) computed here.
func TestVariogramMatchesGstat(t *testing.T) {
	dir := t.TempDir()
	cfg := config.DefaultPredict()
	cfg.Cmd, cfg.Data, cfg.Mean = "variogram", "../../testdata/real/meuse-raw.csv", "dist,elev"
	cfg.Columns = config.Columns{Z: "zinc", Transform: "log"}
	cfg.Theta, cfg.Nugget, cfg.Kernel = []float64{0.2, 220, 0.5}, 0.03, "matern"
	cfg.Out, cfg.JSON = filepath.Join(dir, "v.csv"), filepath.Join(dir, "v.json")
	vo := VariogramOptions{}
	vo.Bins.MinPairs = 30
	r, err := Variogram(cfg, vo, Env{})
	if err != nil {
		t.Fatal(err)
	}
	got := readTable(t, cfg.Out)
	wd, wg, wn := gstatBins(t, "resid")
	if len(got["distance"]) != len(wd) || len(r.Sparse) != 0 {
		t.Fatalf("%d bins (%d left out), gstat %d", len(got["distance"]), len(r.Sparse), len(wd))
	}
	model := func(h float64) float64 { return 0.03 + 0.2*(1-math.Exp(-h/220)) }
	worst := 0.0
	for k := range wd {
		d, g := got["distance"][k], got["gamma"][k]
		worst = max(worst, math.Abs(g-wg[k]), math.Abs(d-wd[k])/wd[k])
		if got["pairs"][k] != float64(wn[k]) || math.Abs(d-wd[k]) > 1e-9*wd[k] || math.Abs(g-wg[k]) > 1e-9 {
			t.Errorf("bin %d: %g pairs at %g, gamma %.17g; gstat %d at %g, %.17g", k, got["pairs"][k], d, g, wn[k], wd[k], wg[k])
		}
		if m := got["model"][k]; math.Abs(m-model(d)) > 1e-12 {
			t.Errorf("bin %d: model %.17g, want %.17g", k, m, model(d))
		}
	}
	t.Logf("the variogram command against gstat: %.2g at most (semivariance absolute, distance relative)", worst)
	b, err := os.ReadFile(cfg.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var js VariogramResult
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Curve) != 101 || js.Curve[0].Gamma != 0 || len(js.Bins) != len(wd) || js.MinPairs != 30 {
		t.Fatalf("JSON: %d curve points (first %v), %d bins, min pairs %d", len(js.Curve), js.Curve[0], len(js.Bins), js.MinPairs)
	}
	for _, c := range js.Curve[1:] {
		if math.Abs(c.Gamma-model(c.Dist)) > 1e-12 {
			t.Errorf("curve at %g: %.17g, want %.17g", c.Dist, c.Gamma, model(c.Dist))
		}
	}
}

// TestVariogramResidualKinds: with --residuals none the bins are those of
// log(zinc) itself (gstat's variogram(log(zinc) ~ 1), case raw, cutoff
// 1500, width 100); gls with the mean's coefficients (here 7, 0, 0: a
// constant) bins log(zinc) - 7, the same semivariances; bins of fewer
// than --min-pairs pairs are left out and listed.
func TestVariogramResidualKinds(t *testing.T) {
	_, gamma, pairs := gstatBins(t, "raw")
	for _, kind := range []string{ResidualsNone, ResidualsGLS} {
		cfg := config.DefaultPredict()
		cfg.Cmd, cfg.Data, cfg.Mean = "variogram", "../../testdata/real/meuse-raw.csv", "dist,elev"
		cfg.Columns = config.Columns{Z: "zinc", Transform: "log"}
		cfg.ThetaFrom = "fit.json" // named only: gls needs one
		vo := VariogramOptions{Residuals: kind, MeanCoef: []float64{7, 0, 0}}
		vo.Bins.Cutoff, vo.Bins.Width, vo.Bins.MinPairs = 1500, 100, 100
		cfg.JSON = filepath.Join(t.TempDir(), "v.json")
		r, err := Variogram(cfg, vo, Env{})
		if err != nil {
			t.Fatal(err)
		}
		all := append(append([]VarBin{}, r.Sparse...), r.Bins...)
		if len(all) != len(gamma) {
			t.Fatalf("%s: %d bins, gstat %d", kind, len(all), len(gamma))
		}
		for _, b := range r.Sparse {
			if b.Pairs >= 100 {
				t.Errorf("%s: a bin of %d pairs left out", kind, b.Pairs)
			}
		}
		for _, b := range r.Bins {
			k := int(b.Lo/100 + 0.5)
			if b.Pairs < 100 || b.Pairs != pairs[k] || math.Abs(b.Gamma-gamma[k]) > 1e-9 {
				t.Errorf("%s: bin %d: %d pairs, gamma %.17g; gstat %d, %.17g", kind, k, b.Pairs, b.Gamma, pairs[k], gamma[k])
			}
		}
	}
}
