package variogram

import (
	"math"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
)

// TestBinsByHand: four points on the x axis at 0, 1, 2, 4 with values
// 0, 1, 3, 7, cutoff 3, width 1. The pairs and their distances:
//
//	(0,1) 1 -> bin (0,1]  dz^2 1
//	(1,2) 1 -> bin (0,1]  dz^2 4
//	(0,2) 2 -> bin (1,2]  dz^2 9
//	(2,3) 2 -> bin (1,2]  dz^2 16
//	(1,3) 3 -> bin (2,3]  dz^2 36
//	(0,3) 4 -> beyond the cutoff
//
// so the bins (distance, gamma, pairs) are (1, 5/4, 2), (2, 25/4, 2),
// (3, 18, 1); the last is sparse with MinPairs 2.
func TestBinsByHand(t *testing.T) {
	p := matern.Points{X: []float64{0, 1, 2, 4}, Y: make([]float64, 4)}
	z := []float64{0, 1, 3, 7}
	want := []Bin{{0, 1, 1, 1.25, 2}, {1, 2, 2, 6.25, 2}, {2, 3, 3, 18, 1}}
	s, err := Omnidirectional(p, matern.Euclidean, z, Options{Cutoff: 3, Width: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bins) != 3 || len(s.Sparse) != 0 {
		t.Fatalf("bins %v sparse %v", s.Bins, s.Sparse)
	}
	for k, b := range s.Bins {
		if b != want[k] {
			t.Errorf("bin %d: %+v, want %+v", k, b, want[k])
		}
	}
	s, err = Omnidirectional(p, matern.Euclidean, z, Options{Cutoff: 3, Width: 1, MinPairs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bins) != 2 || len(s.Sparse) != 1 || s.Sparse[0] != want[2] {
		t.Errorf("MinPairs 2: bins %v sparse %v, want the last one sparse", s.Bins, s.Sparse)
	}
	// Rotated to the north: the direction 0 (north) within 10 degrees
	// keeps every pair, the direction 90 (east) none.
	q := matern.Points{X: make([]float64, 4), Y: p.X}
	for _, c := range []struct {
		alpha float64
		n     int
	}{{0, 3}, {180, 3}, {90, 0}} {
		s, err := Directional(q, z, c.alpha, 10, Options{Cutoff: 3, Width: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Bins) != c.n {
			t.Errorf("alpha %g: %d bins, want %d", c.alpha, len(s.Bins), c.n)
		}
	}
	// A NaN value leaves its pairs out: point 3's.
	s, _ = Omnidirectional(p, matern.Euclidean, []float64{0, 1, 3, math.NaN()}, Options{Cutoff: 3, Width: 1})
	if len(s.Bins) != 2 || s.Bins[1] != (Bin{1, 2, 2, 4.5, 1}) {
		t.Errorf("NaN: %v", s.Bins)
	}
}

// TestDirectionalWideIsOmnidirectional: a tolerance of 90 degrees keeps
// every pair, whatever the direction.
func TestDirectionalWideIsOmnidirectional(t *testing.T) {
	p, z, _ := meuse(t)
	a, _ := Omnidirectional(p, matern.Euclidean, z, Options{})
	b, err := Directional(p, z, 37, 90, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Bins) != len(b.Bins) {
		t.Fatalf("%d bins, omnidirectional %d", len(b.Bins), len(a.Bins))
	}
	for k := range a.Bins {
		if a.Bins[k] != b.Bins[k] {
			t.Errorf("bin %d: %+v, omnidirectional %+v", k, b.Bins[k], a.Bins[k])
		}
	}
}

// TestSampledPairs: with MaxPairs the estimate is a deterministic
// function of the seed, another seed gives other pairs, and it comes
// near the full estimate (100,000 pairs of 12,561, drawn with replacement:
// each bin's gamma within 10 %).
func TestSampledPairs(t *testing.T) {
	p, z, _ := meuse(t)
	o := Options{MaxPairs: 5000, Seed: 3}
	a, _ := Omnidirectional(p, matern.Euclidean, z, o)
	b, _ := Omnidirectional(p, matern.Euclidean, z, o)
	o.Seed = 4
	c, _ := Omnidirectional(p, matern.Euclidean, z, o)
	same, other := true, false
	for k := range a.Bins {
		same = same && a.Bins[k] == b.Bins[k]
		other = other || a.Bins[k] != c.Bins[k]
	}
	if !same || !other {
		t.Errorf("same seed same bins: %v; another seed other bins: %v", same, other)
	}
	full, _ := Omnidirectional(p, matern.Euclidean, z, Options{})
	many, _ := Omnidirectional(p, matern.Euclidean, z, Options{MaxPairs: 100000, Seed: 1})
	for k := range full.Bins {
		if r := many.Bins[k].Gamma / full.Bins[k].Gamma; math.Abs(r-1) > 0.1 {
			t.Errorf("bin %d: sampled gamma %g, all pairs %g", k, many.Bins[k].Gamma, full.Bins[k].Gamma)
		}
	}
}

// TestErrors: options out of their domain are errors naming them.
func TestErrors(t *testing.T) {
	p := matern.Points{X: []float64{0, 1, 2}, Y: []float64{0, 0, 1}}
	z := []float64{1, 2, 3}
	same := matern.Points{X: []float64{1, 1}, Y: []float64{2, 2}}
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"negative cutoff", func() error { _, err := Omnidirectional(p, matern.Euclidean, z, Options{Cutoff: -1}); return err }, "cutoff -1"},
		{"NaN width", func() error {
			_, err := Omnidirectional(p, matern.Euclidean, z, Options{Width: math.NaN()})
			return err
		}, "width NaN"},
		{"too many bins", func() error {
			_, err := Omnidirectional(p, matern.Euclidean, z, Options{Cutoff: 1, Width: 1e-9})
			return err
		}, "10^6 bins"},
		{"coincident", func() error {
			_, err := Omnidirectional(same, matern.Euclidean, []float64{1, 2}, Options{})
			return err
		}, "coincide"},
		{"tolerance", func() error { _, err := Directional(p, z, 0, 0, Options{}); return err }, "tolerance 0"},
		{"3D direction", func() error {
			_, err := Directional(matern.Points{X: p.X, Y: p.Y, Z: p.X}, z, 0, 10, Options{})
			return err
		}, "third coordinate"},
		{"map width", func() error { _, err := SemivariogramMap(p, z, 1, 0, 0); return err }, "width 0"},
		{"map cells", func() error { _, err := SemivariogramMap(p, z, 1000, 1, 0); return err }, "1001 cells"},
		{"rank", func() error { _, _, err := OLSResiduals(z, [][]float64{{1, 1, 1}, {2, 2, 2}}); return err }, "linearly dependent"},
		{"short", func() error { _, _, err := OLSResiduals(z[:1], [][]float64{{1}, {2}}); return err }, "1 observations for 2"},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestMapMinPairs: cells under MinPairs keep their count with a NaN
// semivariance; every ordered pair whose lag is within the map (|dx|,
// |dy| <= 1100) is counted once.
func TestMapMinPairs(t *testing.T) {
	p, z, _ := meuse(t)
	m, err := SemivariogramMap(p, z, 1000, 200, 30)
	if err != nil {
		t.Fatal(err)
	}
	inside := 0
	for i := range p.X {
		for j := range i {
			if math.Abs(p.X[i]-p.X[j]) <= 1100 && math.Abs(p.Y[i]-p.Y[j]) <= 1100 {
				inside += 2
			}
		}
	}
	total := 0
	for c, np := range m.Pairs {
		total += np
		if sparse := np < 30; sparse != math.IsNaN(m.Gamma[c]) {
			t.Errorf("cell %d: %d pairs, gamma %g", c, np, m.Gamma[c])
		}
	}
	if total != inside {
		t.Errorf("%d ordered pairs in the cells, %d with a lag inside the map", total, inside)
	}
}
