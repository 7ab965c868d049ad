package variogram

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
)

// meuse reads R's write.csv(meuse) (testdata/real/meuse-raw.csv): the
// points, log(zinc) and the design (1, dist, elev).
func meuse(t *testing.T) (p matern.Points, z []float64, cols [][]float64) {
	t.Helper()
	rows := readCSV(t, "../../testdata/real/meuse-raw.csv")
	one, dist, elev := []float64{}, []float64{}, []float64{}
	for _, r := range rows {
		p.X = append(p.X, num(t, r["x"]))
		p.Y = append(p.Y, num(t, r["y"]))
		z = append(z, math.Log(num(t, r["zinc"])))
		one = append(one, 1)
		dist = append(dist, num(t, r["dist"]))
		elev = append(elev, num(t, r["elev"]))
	}
	return p, z, [][]float64{one, dist, elev}
}

// readCSV returns the rows of a CSV file with a header, each as a map
// from the column's name to the field.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %d records, %v", path, len(recs), err)
	}
	rows := make([]map[string]string, len(recs)-1)
	for i := range rows {
		rows[i] = make(map[string]string, len(recs[0]))
		for j, field := range recs[i+1] {
			rows[i][recs[0][j]] = field
		}
	}
	return rows
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMatchesGstat compares the sample semivariograms of log(zinc) on
// meuse with gstat's variogram() (testdata/r/variogram.R): the residual
// one of log(zinc) ~ dist + elev (OLS residuals) with gstat's default
// cutoff and width, by direction (alpha 0, 45, 90, 135, tol.hor 22.5),
// with a given cutoff and width, and that of log(zinc) ~ 1: the same bins,
// pair counts exactly, distances and semivariances to 1e-9 (relative for
// the distances, in metres; absolute for the semivariances, about 0.2).
func TestMatchesGstat(t *testing.T) {
	p, z, cols := meuse(t)
	res, _, err := OLSResiduals(z, cols)
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string][]map[string]string{}
	for _, r := range readCSV(t, "../../testdata/r/variogram_meuse.csv") {
		ref[r["case"]] = append(ref[r["case"]], r)
	}
	omni := func(v []float64, o Options) []*Sample {
		s, err := Omnidirectional(p, matern.Euclidean, v, o)
		if err != nil {
			t.Fatal(err)
		}
		return []*Sample{s}
	}
	var dirs []*Sample
	for _, a := range []float64{0, 45, 90, 135} {
		s, err := Directional(p, res, a, 22.5, Options{})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, s)
	}
	cases := []struct {
		name string
		got  []*Sample
	}{
		{"resid", omni(res, Options{})},
		{"resid_dir", dirs},
		{"raw", omni(z, Options{Cutoff: 1500, Width: 100})},
		{"resid_cw", omni(res, Options{Cutoff: 1200, Width: 90})},
	}
	worstD, worstG := 0.0, 0.0
	for _, c := range cases {
		var bins []Bin
		var alphas []float64
		for _, s := range c.got {
			if len(s.Sparse) != 0 {
				t.Errorf("%s: %d sparse bins with MinPairs 0", c.name, len(s.Sparse))
			}
			for _, b := range s.Bins {
				bins = append(bins, b)
				alphas = append(alphas, s.Alpha)
			}
		}
		want := ref[c.name]
		if len(bins) != len(want) {
			t.Fatalf("%s: %d bins, gstat %d", c.name, len(bins), len(want))
		}
		for k, w := range want {
			b := bins[k]
			if b.Pairs != int(num(t, w["np"])) || alphas[k] != num(t, w["dir.hor"]) {
				t.Errorf("%s bin %d: %d pairs at alpha %g, gstat %s at %s", c.name, k, b.Pairs, alphas[k], w["np"], w["dir.hor"])
			}
			dd := math.Abs(b.Dist-num(t, w["dist"])) / num(t, w["dist"])
			dg := math.Abs(b.Gamma - num(t, w["gamma"]))
			worstD, worstG = max(worstD, dd), max(worstG, dg)
			if dd > 1e-9 || dg > 1e-9 {
				t.Errorf("%s bin %d: dist %.17g gamma %.17g, gstat %s %s", c.name, k, b.Dist, b.Gamma, w["dist"], w["gamma"])
			}
		}
	}
	t.Logf("against gstat: distances to %.2g relative, semivariances to %.2g absolute", worstD, worstG)
}

// TestOLSResidualsMatchLm compares the residuals of log(zinc) ~ dist +
// elev with R's lm (testdata/r/variogram_meuse_resid.csv) to 1e-12.
func TestOLSResidualsMatchLm(t *testing.T) {
	_, z, cols := meuse(t)
	res, b, err := OLSResiduals(z, cols)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 3 {
		t.Fatalf("%d coefficients", len(b))
	}
	want := readCSV(t, "../../testdata/r/variogram_meuse_resid.csv")
	if len(want) != len(res) {
		t.Fatalf("%d residuals, lm %d", len(res), len(want))
	}
	for i, w := range want {
		if d := math.Abs(res[i] - num(t, w["resid"])); d > 1e-12 {
			t.Errorf("residual %d: %.17g, lm %s", i+1, res[i], w["resid"])
		}
	}
}

// TestMapMatchesGstat compares SemivariogramMap with gstat's
// variogram(log(zinc) ~ dist + elev, map = TRUE, cutoff = 1000, width =
// 200) (testdata/r/variogram_map_meuse.csv): the cells holding pairs,
// their counts exactly and semivariances to 1e-9; every other cell empty.
func TestMapMatchesGstat(t *testing.T) {
	p, z, cols := meuse(t)
	res, _, err := OLSResiduals(z, cols)
	if err != nil {
		t.Fatal(err)
	}
	m, err := SemivariogramMap(p, res, 1000, 200, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Side() != 11 {
		t.Fatalf("%d cells a side, want 11", m.Side())
	}
	seen := map[int]bool{}
	for _, w := range readCSV(t, "../../testdata/r/variogram_map_meuse.csv") {
		dx, dy := num(t, w["dx"]), num(t, w["dy"])
		c := (int(math.Round(dy/200))+m.K)*m.Side() + int(math.Round(dx/200)) + m.K
		if cx, cy := m.Centre(c); cx != dx || cy != dy {
			t.Fatalf("cell %d centred at (%g, %g), want (%g, %g)", c, cx, cy, dx, dy)
		}
		seen[c] = true
		if m.Pairs[c] != int(num(t, w["np"])) || math.Abs(m.Gamma[c]-num(t, w["gamma"])) > 1e-9 {
			t.Errorf("cell (%g, %g): %d pairs, gamma %.17g; gstat %s, %s", dx, dy, m.Pairs[c], m.Gamma[c], w["np"], w["gamma"])
		}
	}
	for c, np := range m.Pairs {
		if !seen[c] && (np != 0 || !math.IsNaN(m.Gamma[c])) {
			cx, cy := m.Centre(c)
			t.Errorf("cell (%g, %g): %d pairs, gamma %g; gstat none", cx, cy, np, m.Gamma[c])
		}
	}
}
