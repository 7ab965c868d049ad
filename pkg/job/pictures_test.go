package job

import (
	"bytes"
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

// TestPictures: cv --plot and fit --plot write their pictures at --dpi
// (300 by default: a 6.5 x 5 inch map is 1950 x 1500 pixels), with the
// variable's name and units (--z-name, --units) on the colour bars, the
// sd map saying which variance it shows, and the cross-validation's
// residual map and QQ plot.
func TestPictures(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var sb strings.Builder
	sb.WriteString("x,y,z\n")
	for range 80 {
		fmt.Fprintf(&sb, "%v,%v,%v\n", rng.Float64(), rng.Float64(), rng.NormFloat64())
	}
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	type pic struct {
		name  string
		w, h  int
		texts []string
	}
	cases := []struct {
		name string
		run  func(plotDir string) error
		pics []pic
	}{
		{"cv k-fold 100 dpi", func(d string) error {
			p := config.DefaultPredict()
			p.Data, p.At, p.Out, p.CV, p.NB = data, data, filepath.Join(dir, "cv.csv"), true, 16
			p.Theta, p.Folds, p.Plot, p.DPI, p.ZName = []float64{1, 0.1, 0.5, 0.1}, 4, d, 100, "rain"
			_, err := Predict(p, Env{})
			return err
		}, []pic{
			{"cv_residuals", 650, 500, []string{"standardised residual of rain, (z - z_hat)/sd", "Standardised 4-fold cross-validation residuals (N=80)"}},
			{"cv_qq", 500, 500, []string{"standardised residual of rain", "standard normal quantile", "Normal QQ plot, 4-fold cross-validation (N=80)"}},
		}},
		{"cv leave one out default dpi", func(d string) error {
			p := config.DefaultPredict()
			p.Data, p.At, p.Out, p.CV, p.NB = data, data, filepath.Join(dir, "loo.csv"), true, 16
			p.Theta, p.Plot = []float64{1, 0.1, 0.5, 0.1}, d
			_, err := Predict(p, Env{})
			return err
		}, []pic{
			{"cv_residuals", 1950, 1500, []string{"standardised residual of z, (z - z_hat)/sd", "Standardised leave-one-out residuals (N=80)"}},
			{"cv_qq", 1500, 1500, []string{"standardised residual of z"}},
		}},
		{"fit 72 dpi with units", func(d string) error {
			f := config.DefaultFit()
			f.Data, f.Checkpoint, f.N, f.Theta, f.Seed, f.MaxEvals, f.NB = data, "none", 0, nil, 0, 5, 16
			f.Plot, f.Grid, f.DPI, f.ZName, f.Units = d, "12x10", 72, "rain", "mm"
			_, err := Fit(f, Env{})
			return err
		}, []pic{
			{"observations", 468, 360, []string{">rain (mm)<"}},
			{"prediction", 468, 360, []string{">kriging prediction of rain (mm)<"}},
			{"prediction_sd", 468, 360, []string{">sd of a new observation of rain (mm)<", "Prediction sd of a new observation (no nugget)"}},
			{"semivariogram", 432, 324, nil},
		}},
		{"fit tlr: the tile ranks", func(d string) error {
			f := config.DefaultFit()
			f.Data, f.Checkpoint, f.N, f.Theta, f.Seed, f.MaxEvals, f.NB = data, "none", 0, nil, 0, 3, 16
			f.Plot, f.DPI, f.Computation = d, 72, "tlr"
			_, err := Fit(f, Env{})
			return err
		}, []pic{
			{"tile_ranks", 468, 360, []string{"TLR factor: tile ranks (5 x 5; blank: diagonal, ", ">rank of tile (m, n) = U V^T<", ">tile row m<"}},
		}},
		{"fit with xy units and a conditional draw", func(d string) error {
			f := config.DefaultFit()
			f.Data, f.Checkpoint, f.N, f.Theta, f.Seed, f.MaxEvals, f.NB = data, "none", 0, nil, 0, 5, 16
			f.Plot, f.Grid, f.DPI, f.ZName, f.XYUnits, f.Draws = d, "12x10", 72, "rain", "km", 2
			_, err := Fit(f, Env{})
			return err
		}, []pic{
			{"prediction", 468, 360, []string{">x (km)<", ">y (km)<"}},
			{"semivariogram", 432, 324, []string{">distance (km)<"}},
			{"conditional_draw_1", 468, 360, []string{">rain<", "Conditional simulation 1 given the data (12x10 grid, seed 0)", ">x (km)<"}},
			{"conditional_draw_2", 468, 360, []string{"Conditional simulation 2 given the data"}},
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(dir, fmt.Sprint("plots", i))
			if err := c.run(d); err != nil {
				t.Fatal(err)
			}
			for _, p := range c.pics {
				f, err := os.Open(filepath.Join(d, p.name+".png"))
				if err != nil {
					t.Fatal(err)
				}
				cfg, err := png.DecodeConfig(f)
				f.Close()
				if err != nil || cfg.Width != p.w || cfg.Height != p.h {
					t.Errorf("%s.png: %d x %d (%v), want %d x %d", p.name, cfg.Width, cfg.Height, err, p.w, p.h)
				}
				svg, err := os.ReadFile(filepath.Join(d, p.name+".svg"))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range p.texts {
					if !bytes.Contains(svg, []byte(s)) {
						t.Errorf("%s.svg: no text %q", p.name, s)
					}
				}
			}
		})
	}
}
