package plot

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestNormalQuantiles: the quantile pairs equal R's
// qnorm((1:n - 0.5)/n) (printed with 17 digits by R 4.2.2) against the
// sorted finite values; NaN and Inf are dropped.
func TestNormalQuantiles(t *testing.T) {
	cases := []struct {
		v, wantQ, wantS []float64
	}{
		{[]float64{3, -1, math.NaN(), 2, 0}, []float64{-1.15034938037600787, -0.31863936396437514, 0.31863936396437514, 1.15034938037600787}, []float64{-1, 0, 2, 3}},
		{[]float64{7, 6, 5, math.Inf(1), 4, 3, 2, 1}, []float64{-1.46523379268552234, -0.79163860774337458, -0.36610635680056969, 0,
			0.36610635680056969, 0.79163860774337458, 1.46523379268552234}, []float64{1, 2, 3, 4, 5, 6, 7}},
	}
	for _, c := range cases {
		q, s := NormalQuantiles(c.v)
		if len(q) != len(c.wantQ) || len(s) != len(c.wantS) {
			t.Fatalf("%v: %d quantiles, %d values", c.v, len(q), len(s))
		}
		for i := range q {
			if math.Abs(q[i]-c.wantQ[i]) > 1e-14 || s[i] != c.wantS[i] {
				t.Errorf("%v: point %d (%.17g, %g), want (%.17g, %g)", c.v, i, q[i], s[i], c.wantQ[i], c.wantS[i])
			}
		}
	}
	if err := NormalQQ(filepath.Join(t.TempDir(), "qq"), []float64{math.NaN()}, QQOptions{}); err == nil {
		t.Error("NormalQQ of no finite value: no error")
	}
}

// TestDPI: each drawing function writes a PNG of round(inches * dpi)
// pixels a side: 300 dpi by default, or what its options say.
func TestDPI(t *testing.T) {
	dir := t.TempDir()
	x, y, v := []float64{0, 1, 0.5}, []float64{0, 0.2, 1}, []float64{-1, 0.5, 2}
	cases := []struct {
		name string
		draw func(base string) error
		w, h int
	}{
		{"map default", func(b string) error { return Map(b, x, y, v, MapOptions{}) }, 1950, 1500},
		{"map 300", func(b string) error { return Map(b, x, y, v, MapOptions{DPI: 300}) }, 1950, 1500},
		{"map 100", func(b string) error { return Map(b, x, y, v, MapOptions{DPI: 100}) }, 650, 500},
		{"grid 72", func(b string) error { return Grid(b, 2, 2, 0, 1, 0, 1, []float64{1, 2, 3, 4}, MapOptions{DPI: 72}) }, 468, 360},
		{"qq default", func(b string) error { return NormalQQ(b, v, QQOptions{}) }, 1500, 1500},
		{"qq 120", func(b string) error { return NormalQQ(b, v, QQOptions{DPI: 120}) }, 600, 600},
		{"semivariogram 200", func(b string) error {
			return SemivariogramWith(b, []float64{0.1, 0.2}, []float64{0.5, 0.7}, nil, SemivariogramOptions{DPI: 200})
		}, 1200, 900},
	}
	for _, c := range cases {
		base := filepath.Join(dir, c.name)
		if err := c.draw(base); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f, err := os.Open(base + ".png")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Width != c.w || cfg.Height != c.h {
			t.Errorf("%s: %d x %d pixels, want %d x %d", c.name, cfg.Width, cfg.Height, c.w, c.h)
		}
	}
}

// TestDivergingScale: a diverging map's range is symmetric about 0 (the
// largest |value|) unless Min and Max fix it, 0 is white (#f7f7f7), the
// ends ColorBrewer's RdBu dark blue #2166ac and dark red #b2182b, a
// quarter and three quarters of the way #67a9cf and #ef8a62.
func TestDivergingScale(t *testing.T) {
	cases := []struct {
		v      []float64
		opts   MapOptions
		lo, hi float64
	}{
		{[]float64{-2, 1, 0.5}, MapOptions{Diverging: true}, -2, 2},
		{[]float64{-0.5, 3}, MapOptions{Diverging: true}, -3, 3},
		{[]float64{0, 0}, MapOptions{Diverging: true}, -1, 1},
		{[]float64{-0.5, 3}, MapOptions{Diverging: true, Min: -1, Max: 4}, -1, 4},
		{[]float64{-0.5, 3}, MapOptions{}, -0.5, 3},
	}
	for _, c := range cases {
		s := newScale(c.v, c.opts)
		if s.lo != c.lo || s.hi != c.hi || s.div != c.opts.Diverging {
			t.Errorf("%v %+v: scale %+v, want [%g, %g]", c.v, c.opts, s, c.lo, c.hi)
		}
	}
	s := newScale([]float64{-2, 2}, MapOptions{Diverging: true})
	for _, c := range []struct {
		v    float64
		want color.NRGBA
	}{
		{0, color.NRGBA{247, 247, 247, 255}}, {-2, color.NRGBA{33, 102, 172, 255}}, {2, color.NRGBA{178, 24, 43, 255}},
		{-5, color.NRGBA{33, 102, 172, 255}}, {-1, color.NRGBA{103, 169, 207, 255}}, {1, color.NRGBA{239, 138, 98, 255}},
	} {
		if got, ok := s.at(c.v); !ok || got != c.want {
			t.Errorf("colour of %g: %v, want %v", c.v, got, c.want)
		}
	}
}

// TestLabelsInSVG: the colour bar's label, the axis labels and the QQ
// plot's texts are in the SVG files.
func TestLabelsInSVG(t *testing.T) {
	dir := t.TempDir()
	x, y, v := []float64{0, 1, 0.5}, []float64{0, 0.2, 1}, []float64{-1, 0.5, 2}
	cases := []struct {
		name string
		draw func(base string) error
		want []string
	}{
		{"map", func(b string) error {
			return Map(b, x, y, v, MapOptions{Label: "rainfall (mm)", XLabel: "easting (km)", YLabel: "northing (km)"})
		}, []string{"rainfall (mm)", "easting (km)", "northing (km)"}},
		{"grid", func(b string) error {
			return Grid(b, 2, 1, 0, 1, 0, 1, []float64{1, 2}, MapOptions{Label: "sd of the latent field of rain (mm)"})
		}, []string{"sd of the latent field of rain (mm)"}},
		{"qq", func(b string) error {
			return NormalQQ(b, v, QQOptions{Title: "Normal QQ plot", YLabel: "standardised residual"})
		}, []string{"Normal QQ plot", "standardised residual", "standard normal quantile", "y = x (standard normal)"}},
	}
	for _, c := range cases {
		base := filepath.Join(dir, c.name)
		if err := c.draw(base); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(base + ".svg")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !bytes.Contains(b, []byte(">"+w+"<")) {
				t.Errorf("%s.svg: no text %q", c.name, w)
			}
		}
	}
}
