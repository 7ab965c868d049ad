package job

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// TestGstatAnis: gstat's anisotropic Matérn models vgm(psill, "Mat",
// range, kappa, anis = c(p, s)) and their covariances at lag vectors, as
// gstat computes them (testdata/r/gstat_anis.csv, made by
// testdata/r/gstat_anis.R: 5 models, 90 lags), converted to the
// aniso-matern's theta by the formula of fit --help and docs/gis.md (angle
// = (90 - p) pi/180, ratio = 1/s, beta = range, nu = kappa, sigma2 =
// psill): the kernel the likelihood fits gives gstat's covariance at each
// lag to 1e-10 relative, and GstatAnis turns the angle and ratio back into
// gstat's (p, s); the vgm written in a fit's result names them.
func TestGstatAnis(t *testing.T) {
	recs := readRows(t, "../../testdata/r/gstat_anis.csv")
	if len(recs) != 91 || strings.Join(recs[0], ",") != "psill,range,kappa,p,s,dx,dy,cov" {
		t.Fatalf("gstat_anis.csv: %d rows, header %q", len(recs), recs[0])
	}
	worst := 0.0
	for k, rec := range recs[1:] {
		v := make([]float64, len(rec))
		for i, s := range rec {
			var err error
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("row %d: %v", k+2, err)
			}
		}
		psill, rng, kappa, p, s, dx, dy, want := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		angle, ratio := (90-p)*math.Pi/180, 1/s
		theta := []float64{psill, rng, kappa, angle, ratio}
		kern, err := likelihood.AnisoMatern.Kernel(theta, 3*rng)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, 1)
		kern.(matern.PairKernel).Fill(matern.Euclidean, matern.Points{X: []float64{dx}, Y: []float64{dy}}, 0, 1,
			matern.Points{X: []float64{0}, Y: []float64{0}}, 0, 1, got, 1)
		rel := math.Abs(got[0]-want) / want
		worst = math.Max(worst, rel)
		if !(rel <= 1e-10) {
			t.Errorf("row %d: anis = c(%g, %g), lag (%g, %g): covariance %.15g, gstat %.15g (%.2g relative)", k+2, p, s, dx, dy, got[0], want, rel)
		}
		// GstatAnis of the angle reduced to [0, pi) and of the angle as is.
		for _, a := range []float64{angle, math.Mod(angle+math.Pi, math.Pi)} {
			gp, gs := GstatAnis(a, ratio)
			if math.Abs(gp-p) > 1e-9 || math.Abs(gs-s) > 1e-15 {
				t.Errorf("row %d: GstatAnis(%g, %g) = (%g, %g), want gstat's (%g, %g)", k+2, a, ratio, gp, gs, p, s)
			}
		}
	}
	t.Logf("largest relative difference from gstat's covariance: %.2g", worst)
	vgm, anis := gstatVgm(likelihood.AnisoMatern, []float64{1, 0.2, 0.5, math.Pi / 3, 2}, 0.01)
	if want := `vgm(psill = 1, model = "Mat", range = 0.2, nugget = 0.01, kappa = 0.5, anis = c(30, 0.5))`; vgm != want || len(anis) != 2 {
		t.Errorf("gstatVgm: %q %v, want %q", vgm, anis, want)
	}
	if vgm, anis := gstatVgm(likelihood.PowExp, []float64{1, 0.2, 1}, 0); vgm != "" || anis != nil {
		t.Errorf("gstatVgm of powexp: %q %v, want none", vgm, anis)
	}
}
