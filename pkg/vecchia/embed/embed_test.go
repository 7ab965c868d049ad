package embed

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
)

// rankBy returns the indices 1..n-1 sorted by increasing key(0, j), ties
// by index.
func rankBy(n int, key func(j int) float64) []int {
	js := make([]int, 0, n-1)
	for j := 1; j < n; j++ {
		js = append(js, j)
	}
	sort.SliceStable(js, func(a, b int) bool { return key(js[a]) < key(js[b]) })
	return js
}

// TestFramesRankAsTheKernel checks, for each frame, that the squared
// frame distance orders the neighbours of a point as the kernel's own
// distance does (matern.Distance, matern.Aniso.Scaled), and for
// great-circle that the chord is 2 R sin(g / 2R).
func TestFramesRankAsTheKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const n = 400
	lonlat := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	plane := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range n {
		lonlat.X[i], lonlat.Y[i] = -180+360*r.Float64(), -89+178*r.Float64()
		plane.X[i], plane.Y[i] = r.Float64(), r.Float64()
	}
	gc, err := Embed(lonlat, matern.GreatCircle, Frame{})
	if err != nil {
		t.Fatal(err)
	}
	for j := 1; j < n; j++ {
		g := matern.Distance(matern.GreatCircle, lonlat, 0, lonlat, j)
		want := 2 * matern.EarthRadiusKm * math.Sin(g/(2*matern.EarthRadiusKm))
		if got := math.Sqrt(gc.Dist2(0, j)); math.Abs(got-want) > 1e-9*matern.EarthRadiusKm {
			t.Fatalf("chord to point %d: %g km, want %g", j, got, want)
		}
	}
	a := matern.Aniso{Sigma2: 1, Beta: 0.1, Nu: 0.5, Angle: 0.7, Ratio: 4}
	an, err := Embed(plane, matern.Euclidean, Frame{Angle: a.Angle, Ratio: a.Ratio})
	if err != nil {
		t.Fatal(err)
	}
	for j := 1; j < n; j++ {
		want := a.Scaled(plane.X[0]-plane.X[j], plane.Y[0]-plane.Y[j])
		if got := math.Sqrt(an.Dist2(0, j)); math.Abs(got-want) > 1e-12 {
			t.Fatalf("aniso lag to point %d: %g, want %g", j, got, want)
		}
	}
	for name, tc := range map[string]struct {
		c    Coords
		dist func(j int) float64
	}{
		"great-circle": {gc, func(j int) float64 { return matern.Distance(matern.GreatCircle, lonlat, 0, lonlat, j) }},
		"aniso":        {an, func(j int) float64 { return a.Scaled(plane.X[0]-plane.X[j], plane.Y[0]-plane.Y[j]) }},
	} {
		got := rankBy(n, func(j int) float64 { return tc.c.Dist2(0, j) })
		want := rankBy(n, tc.dist)
		for k := range got {
			if got[k] != want[k] {
				t.Fatalf("%s: neighbour %d of point 0 is %d, want %d", name, k, got[k], want[k])
			}
		}
	}
}

func TestSpaceTimeScale(t *testing.T) {
	for _, s := range []matern.SpaceTime{
		{Sigma2: 1, Beta: 0.1, Nu: 0.5, BetaT: 1, Alpha: 0.5, Sep: 0.5, Delta: 0.1},
		{Sigma2: 2, Beta: 3, Nu: 1.5, BetaT: 0.2, Alpha: 1, Sep: 0.1, Delta: 0},
	} {
		sc := SpaceTimeScale(s)
		ue := s.Beta / sc
		// The time lag u_e at h = 0 has the correlation of h = Beta at u = 0.
		if got, want := s.CovST(0, ue), s.CovST(s.Beta, 0); math.Abs(got-want) > 1e-12*want {
			t.Errorf("%+v: C(0, u_e = %g) = %g, want C(beta, 0) = %g", s, ue, got, want)
		}
		p := matern.Points{X: []float64{0, 1}, Y: []float64{0, 0}, T: []float64{0, 2}}
		c, err := Embed(p, matern.Euclidean, Frame{TimeScale: sc})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.Dist2(0, 1), 1+4*sc*sc; math.Abs(got-want) > 1e-12*want {
			t.Errorf("space-time distance^2 %g, want %g", got, want)
		}
	}
	if sc := SpaceTimeScale(matern.SpaceTime{Sigma2: 1, Beta: 1, Nu: 0.5, BetaT: 1, Alpha: 1}); sc != 0 {
		t.Errorf("no decay in time: scale %g, want 0", sc)
	}
}

func TestEmbedRefusals(t *testing.T) {
	p2 := matern.Points{X: []float64{0, 1}, Y: []float64{0, 1}}
	p3 := matern.Points{X: []float64{0, 1}, Y: []float64{0, 1}, Z: []float64{0, 1}}
	bad := matern.Points{X: []float64{0, math.NaN()}, Y: []float64{0, 1}}
	for name, tc := range map[string]struct {
		p matern.Points
		m matern.Metric
		f Frame
	}{
		"aniso 3D":            {p3, matern.Euclidean, Frame{Ratio: 2}},
		"aniso great-circle":  {p2, matern.GreatCircle, Frame{Ratio: 2}},
		"ratio below 1":       {p2, matern.Euclidean, Frame{Ratio: 0.5}},
		"time scale no times": {p2, matern.Euclidean, Frame{TimeScale: 1}},
		"negative time scale": {p2, matern.Euclidean, Frame{TimeScale: -1}},
		"NaN coordinate":      {bad, matern.Euclidean, Frame{}},
	} {
		if _, err := Embed(tc.p, tc.m, tc.f); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	c, err := Embed(p3, matern.Euclidean, Frame{})
	if err != nil || c.Dim != 3 || c.Dist2(0, 1) != 3 {
		t.Errorf("3D: %+v, %v", c, err)
	}
}

// TestPermuteInPlace: the in-place ordering of the coordinates gives
// bitwise Permute's copy, for permutations of one cycle,
// many cycles and fixed points, in 2 and 3 dimensions.
func TestPermuteInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 31))
	for _, tc := range []struct {
		name string
		dim  int
		perm []int32
	}{
		{"empty", 2, nil},
		{"one", 2, []int32{0}},
		{"identity", 3, []int32{0, 1, 2, 3}},
		{"reversal", 2, []int32{4, 3, 2, 1, 0}},
		{"one cycle", 3, []int32{1, 2, 3, 4, 0}},
		{"random", 2, func() []int32 {
			p := make([]int32, 1000)
			for k, v := range rng.Perm(len(p)) {
				p[k] = int32(v)
			}
			return p
		}()},
	} {
		c := Coords{Dim: tc.dim, V: make([]float64, tc.dim*len(tc.perm))}
		for k := range c.V {
			c.V[k] = rng.NormFloat64()
		}
		p := make([]int, len(tc.perm))
		for k, v := range tc.perm {
			p[k] = int(v)
		}
		want := c.Permute(p)
		PermuteInPlace(c, tc.perm)
		if !slices.Equal(c.V, want.V) {
			t.Errorf("%s: %v, want %v", tc.name, c.V, want.V)
		}
	}
}
