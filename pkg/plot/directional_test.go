package plot

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
)

// TestDirectionalSemivariogramBruteForce compares with the classical
// estimate computed here over all pairs whose lag makes an angle of at
// most 22.5 degrees with the sector's axis, tested by the dot product
// |lag . e| >= cos(22.5 deg) |lag| with e the axis' unit vector (no
// atan2, no reduction modulo pi), in the same bins. A sector at angle + pi
// is the same sector.
func TestDirectionalSemivariogramBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 120
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	z := make([]float64, n)
	for i := range n {
		p.X[i], p.Y[i], z[i] = 2*rng.Float64(), rng.Float64(), rng.NormFloat64()
	}
	const bins = 7
	hmax := math.Hypot(spanOf(p.X), spanOf(p.Y)) * (1 + 0x1p-50) / 2
	w := hmax / bins
	for _, angle := range []float64{0, 0.6, math.Pi / 2, 2.9} {
		ex, ey := math.Cos(angle), math.Sin(angle)
		var sumD, sumSq [bins]float64
		var cnt [bins]int
		for i := range n {
			for j := range i {
				dx, dy := p.X[i]-p.X[j], p.Y[i]-p.Y[j]
				d := math.Hypot(dx, dy)
				if d > hmax || math.Abs(dx*ex+dy*ey) < math.Cos(math.Pi/8)*d {
					continue
				}
				k := min(int(math.Ceil(d/w))-1, bins-1)
				sumD[k] += d
				sumSq[k] += (z[i] - z[j]) * (z[i] - z[j])
				cnt[k]++
			}
		}
		for _, a := range []float64{angle, angle + math.Pi} {
			h, g, c := DirectionalSemivariogram(p, z, a, math.Pi/8, bins, 0, 1)
			var k2 int
			for k := range bins {
				if cnt[k] == 0 {
					continue
				}
				if k2 >= len(h) {
					t.Fatalf("angle %v: %d bins returned, more expected", a, len(h))
				}
				wantH, wantG := sumD[k]/float64(cnt[k]), sumSq[k]/(2*float64(cnt[k]))
				if c[k2] != cnt[k] || math.Abs(h[k2]-wantH) > 1e-12*wantH || math.Abs(g[k2]-wantG) > 1e-12*wantG {
					t.Errorf("angle %v bin %d: (%v, %v, %d), want (%v, %v, %d)", a, k, h[k2], g[k2], c[k2], wantH, wantG, cnt[k])
				}
				k2++
			}
			if k2 != len(h) {
				t.Errorf("angle %v: %d bins, want %d", a, len(h), k2)
			}
		}
	}
	// Sampling: deterministic in the seed.
	h1, g1, _ := DirectionalSemivariogram(p, z, 0.3, math.Pi/8, 5, 500, 9)
	h2, g2, _ := DirectionalSemivariogram(p, z, 0.3, math.Pi/8, 5, 500, 9)
	if len(h1) == 0 || len(h1) != len(h2) || h1[0] != h2[0] || g1[0] != g2[0] {
		t.Errorf("sampled estimates differ: %v %v", h1, h2)
	}
}

func spanOf(v []float64) float64 {
	lo, hi := bounds(v)
	return hi - lo
}

// TestSemivariogramDirectionsFiles: the directional figure is written
// (1800 x 1350 PNG at 300 dpi, SVG with the legend's texts), and refused for bad
// series.
func TestSemivariogramDirectionsFiles(t *testing.T) {
	dir := t.TempDir()
	series := []SemivariogramSeries{
		{Label: "major axis 30±22.5°", H: []float64{0.05, 0.1, 0.2}, Gamma: []float64{0.2, 0.4, 0.8}, Counts: []int{10, 20, 30},
			Model: func(r float64) float64 { return 1 - math.Exp(-r/0.2) }},
		{Label: "minor axis 120±22.5°", H: []float64{0.05, 0.1, 0.2}, Gamma: []float64{0.5, 0.8, 0.95},
			Model: func(r float64) float64 { return 1 - math.Exp(-r/0.05) }},
	}
	if err := SemivariogramDirections(filepath.Join(dir, "sv"), series, SemivariogramOptions{Title: "t", XLabel: "distance (m)"}); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "sv", 1800, 1350)
	b, err := os.ReadFile(filepath.Join(dir, "sv.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"major axis 30±22.5°", "minor axis 120±22.5°", "distance (m)", ">30<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	empty := t.TempDir()
	for name, err := range map[string]error{
		"none":    SemivariogramDirections(filepath.Join(empty, "sv"), nil, SemivariogramOptions{}),
		"lengths": SemivariogramDirections(filepath.Join(empty, "sv"), []SemivariogramSeries{{H: []float64{1, 2}, Gamma: []float64{1}}}, SemivariogramOptions{}),
		"NaN":     SemivariogramDirections(filepath.Join(empty, "sv"), []SemivariogramSeries{{H: []float64{1}, Gamma: []float64{math.NaN()}}}, SemivariogramOptions{}),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	checkEmpty(t, empty)
}
