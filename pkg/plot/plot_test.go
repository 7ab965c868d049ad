package plot

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
	"gonum.org/v1/gonum/mat"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }

// The hand-computed example: four points on a line at 0, 1.2, 2.5 and 10
// with values 1, 3, 0, 5. hmax = 10/2 = 5, and with 5 bins of width 1 the
// pairs within 5 are
//
//	(0,1): d 1.2, (z0-z1)^2 = 4   -> bin 1 (1, 2]
//	(1,2): d 1.3, (z1-z2)^2 = 9   -> bin 1
//	(0,2): d 2.5, (z0-z2)^2 = 1   -> bin 2 (2, 3]
//
// (the others, 10, 8.8 and 7.5, are beyond hmax), so bins 0, 3 and 4 are
// dropped and h = [1.25, 2.5], gamma = [13/4, 1/2], counts = [2, 1].
func TestEmpiricalSemivariogramByHand(t *testing.T) {
	pos := []float64{0, 1.2, 2.5, 10}
	z := []float64{1, 3, 0, 5}
	wantH := []float64{1.25, 2.5}
	wantG := []float64{3.25, 0.5}
	wantN := []int{2, 1}
	check := func(name string, h, g []float64, n []int, scale float64) {
		t.Helper()
		if len(h) != 2 || len(g) != 2 || !slices.Equal(n, wantN) {
			t.Fatalf("%s: got h %v gamma %v counts %v, want %v %v %v", name, h, g, n, wantH, wantG, wantN)
		}
		for k := range h {
			if !near(h[k], scale*wantH[k], 1e-12) || !near(g[k], wantG[k], 1e-12) {
				t.Errorf("%s: bin %d: got (%g, %g), want (%g, %g)", name, k, h[k], g[k], scale*wantH[k], wantG[k])
			}
		}
	}

	// Along the x axis.
	p := matern.Points{X: pos, Y: make([]float64, 4)}
	h, g, n := EmpiricalSemivariogram(p, matern.Euclidean, z, 5, 0, 0)
	check("x axis", h, g, n, 1)

	// The same line in the direction (0.6, 0.8): same distances.
	q := matern.Points{X: make([]float64, 4), Y: make([]float64, 4)}
	for i, s := range pos {
		q.X[i], q.Y[i] = 0.6*s, 0.8*s
	}
	h, g, n = EmpiricalSemivariogram(q, matern.Euclidean, z, 5, 0, 0)
	check("diagonal", h, g, n, 1)

	// In 3D along z, with maxPairs at the number of pairs (no sampling).
	r := matern.Points{X: make([]float64, 4), Y: make([]float64, 4), Z: pos}
	h, g, n = EmpiricalSemivariogram(r, matern.Euclidean, z, 5, 6, 0)
	check("3D", h, g, n, 1)

	// On the equator, longitudes in degrees: distances in km.
	h, g, n = EmpiricalSemivariogram(p, matern.GreatCircle, z, 5, 0, 0)
	check("great circle", h, g, n, matern.EarthRadiusKm*math.Pi/180)
}

func TestEmpiricalSemivariogramEdgeCases(t *testing.T) {
	p := matern.Points{X: []float64{0, 1, 1}, Y: []float64{0, 0, 0}}
	// The duplicate pair (1, 2) at distance 0 is left out; so is a NaN.
	h, g, n := EmpiricalSemivariogram(p, matern.Euclidean, []float64{0, 2, 4}, 1, 0, 0)
	if len(h) != 0 {
		// hmax = 0.5: the only other pairs are at distance 1.
		t.Errorf("got %v %v %v, want nothing", h, g, n)
	}
	p = matern.Points{X: []float64{0, 1, 2, 3}, Y: make([]float64, 4)}
	h, g, n = EmpiricalSemivariogram(p, matern.Euclidean, []float64{0, 2, math.NaN(), 5}, 1, 0, 0)
	// hmax 1.5: pairs (0,1) sq 4 and (2,3) with a NaN, (1,2) with a NaN.
	if !slices.Equal(n, []int{1}) || h[0] != 1 || g[0] != 2 {
		t.Errorf("NaN: got %v %v %v, want [1] [2] [1]", h, g, n)
	}
	for _, c := range []struct {
		p    matern.Points
		bins int
	}{
		{matern.Points{X: []float64{1}, Y: []float64{1}}, 3},
		{matern.Points{X: []float64{1, 1}, Y: []float64{1, 1}}, 3},
		{matern.Points{X: []float64{0, 1}, Y: []float64{0, 1}}, 0},
	} {
		if h, g, n := EmpiricalSemivariogram(c.p, matern.Euclidean, make([]float64, c.p.Len()), c.bins, 0, 0); h != nil || g != nil || n != nil {
			t.Errorf("%v with %d bins: got %v %v %v, want nil", c.p, c.bins, h, g, n)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("no panic for mismatched lengths")
			}
		}()
		EmpiricalSemivariogram(p, matern.Euclidean, []float64{1, 2}, 3, 0, 0)
	}()
}

// simulate returns n uniform points of the unit square and a draw of the
// zero-mean Gaussian process of covariance k at them.
func simulate(t *testing.T, n int, k matern.Kernel, seed uint64) (matern.Points, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range n {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
	}
	c := mat.NewSymDense(n, nil)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := k.Cov(matern.Distance(matern.Euclidean, p, i, p, j))
			if i == j {
				v += 1e-8
			}
			c.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(c) {
		t.Fatal("covariance not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	e := mat.NewVecDense(n, nil)
	for i := range n {
		e.SetVec(i, rng.NormFloat64())
	}
	var zv mat.VecDense
	zv.MulVec(&l, e)
	return p, zv.RawVector().Data
}

func variance(z []float64) float64 {
	m := 0.0
	for _, v := range z {
		m += v
	}
	m /= float64(len(z))
	s := 0.0
	for _, v := range z {
		s += (v - m) * (v - m)
	}
	return s / float64(len(z)-1)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// On data from an exponential covariance of range 0.1 in the unit square,
// the estimate rises from near 0 and levels off near the variance.
func TestEmpiricalSemivariogramExponential(t *testing.T) {
	k, err := matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(3) {
		p, z := simulate(t, 400, k, seed)
		h, g, n := EmpiricalSemivariogram(p, matern.Euclidean, z, 15, 0, 0)
		if len(h) != 15 {
			t.Fatalf("seed %d: %d bins, want 15 (counts %v)", seed, len(h), n)
		}
		if !slices.IsSorted(h) {
			t.Errorf("seed %d: distances not increasing: %v", seed, h)
		}
		v := variance(z)
		first, last := mean(g[:3]), mean(g[8:])
		t.Logf("seed %d: var %.3f, gamma %.3f", seed, v, g)
		if !(first < 0.8*last) {
			t.Errorf("seed %d: not increasing: first bins %.3f, last bins %.3f", seed, first, last)
		}
		if math.Abs(last-v) > 0.25*v {
			t.Errorf("seed %d: far lags %.3f, variance %.3f", seed, last, v)
		}
		total := 0
		for _, c := range n {
			total += c
		}
		if total >= 400*399/2 {
			t.Errorf("seed %d: %d pairs within hmax, all of them", seed, total)
		}
	}
}

func TestEmpiricalSemivariogramSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	z := make([]float64, n)
	for i := range n {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
		z[i] = math.Sin(6*p.X[i]) + 0.3*rng.NormFloat64()
	}
	h1, g1, n1 := EmpiricalSemivariogram(p, matern.Euclidean, z, 10, 5000, 42)
	h2, g2, n2 := EmpiricalSemivariogram(p, matern.Euclidean, z, 10, 5000, 42)
	if !slices.Equal(h1, h2) || !slices.Equal(g1, g2) || !slices.Equal(n1, n2) {
		t.Fatal("same seed, different results")
	}
	total := 0
	for _, c := range n1 {
		total += c
	}
	if total > 5000 || total < 2000 {
		t.Errorf("%d sampled pairs within hmax, want at most 5000 and most of them", total)
	}
	_, g3, _ := EmpiricalSemivariogram(p, matern.Euclidean, z, 10, 5000, 43)
	if slices.Equal(g1, g3) {
		t.Error("different seeds, same results")
	}
	// The sample estimates the full estimate.
	_, gAll, _ := EmpiricalSemivariogram(p, matern.Euclidean, z, 10, 0, 0)
	if len(gAll) != len(g1) {
		t.Fatalf("%d bins sampled, %d in full", len(g1), len(gAll))
	}
	for k := range gAll {
		if math.Abs(g1[k]-gAll[k]) > 0.35*gAll[k] {
			t.Errorf("bin %d: sampled %.3f, full %.3f", k, g1[k], gAll[k])
		}
	}
	// maxPairs at least the number of pairs: no sampling, seed irrelevant.
	_, gFull, _ := EmpiricalSemivariogram(p, matern.Euclidean, z, 10, n*(n-1)/2, 9)
	if !slices.Equal(gFull, gAll) {
		t.Error("maxPairs = N(N-1)/2 differs from no limit")
	}
}

func TestGridPoints(t *testing.T) {
	x, y := GridPoints(3, 2, 0, 3, 10, 14)
	wantX := []float64{0.5, 1.5, 2.5, 0.5, 1.5, 2.5}
	wantY := []float64{11, 11, 11, 13, 13, 13}
	if !slices.Equal(x, wantX) || !slices.Equal(y, wantY) {
		t.Errorf("got %v %v, want %v %v", x, y, wantX, wantY)
	}
	if x, y := GridPoints(0, 2, 0, 1, 0, 1); x != nil || y != nil {
		t.Errorf("nx = 0: got %v %v", x, y)
	}
}

func TestViridis(t *testing.T) {
	if c := viridis(0); c.R != 68 || c.G != 1 || c.B != 84 {
		t.Errorf("viridis(0) = %v", c)
	}
	if c := viridis(1); c.R != 253 || c.G != 231 || c.B != 37 {
		t.Errorf("viridis(1) = %v", c)
	}
	if viridis(-1) != viridis(0) || viridis(2) != viridis(1) || viridis(math.NaN()) != viridis(0) {
		t.Error("not clamped")
	}
	// Lightness (approximated by luma) increases monotonically.
	prev := -1.0
	for i := range 101 {
		c := viridis(float64(i) / 100)
		l := 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
		if l < prev {
			t.Errorf("luma decreases at %d: %g < %g", i, l, prev)
		}
		prev = l
	}
}

// checkFiles checks that dir holds exactly base.svg and base.png, an SVG
// and a PNG of w x h pixels.
func checkFiles(t *testing.T, dir, base string, w, h int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{base + ".png", base + ".svg"}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	svg, err := os.ReadFile(filepath.Join(dir, base+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("</svg>")) {
		t.Errorf("%s.svg is not an SVG file (%d bytes)", base, len(svg))
	}
	f, err := os.Open(filepath.Join(dir, base+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s.png: %v", base, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s.png is %d x %d, want %d x %d", base, b.Dx(), b.Dy(), w, h)
	}
}

// checkEmpty checks that dir holds no file.
func checkEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("%d files left behind, first %s", len(entries), entries[0].Name())
	}
}

func TestSemivariogramFiles(t *testing.T) {
	dir := t.TempDir()
	h := []float64{0.05, 0.1, 0.2, 0.3}
	g := []float64{0.3, 0.6, 0.85, 0.95}
	model := func(r float64) float64 { return 1.05 - math.Exp(-r/0.1) }
	if err := Semivariogram(filepath.Join(dir, "sv"), h, g, model, "semivariogram"); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "sv", 1800, 1350)
	// Overwriting, with the extension given and without a model.
	if err := Semivariogram(filepath.Join(dir, "sv.png"), h, g, nil, ""); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "sv", 1800, 1350)

	empty := t.TempDir()
	for name, err := range map[string]error{
		"missing dir": Semivariogram(filepath.Join(empty, "no", "sv"), h, g, model, "x"),
		"lengths":     Semivariogram(filepath.Join(empty, "sv"), h, g[:3], model, "x"),
		"empty":       Semivariogram(filepath.Join(empty, "sv"), nil, nil, model, "x"),
		"NaN":         Semivariogram(filepath.Join(empty, "sv"), h, []float64{1, math.NaN(), 1, 1}, model, "x"),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	checkEmpty(t, empty)
}

func TestMapFiles(t *testing.T) {
	dir := t.TempDir()
	x := []float64{0, 1, 2, 0.5, 1.5}
	y := []float64{0, 1, 0, 2, 1.5}
	v := []float64{1, 2, 3, math.NaN(), 5}
	opts := MapOptions{Title: "values", Label: "z"}
	if err := Map(filepath.Join(dir, "map"), x, y, v, opts); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "map", 1950, 1500)
	// One point, all values equal, fixed range, free aspect, sampling.
	for _, o := range []MapOptions{{}, {Min: 0, Max: 10, FreeAspect: true}, {MaxPoints: 2}, {MaxPoints: -1}} {
		if err := Map(filepath.Join(dir, "map"), x[:1], y[:1], v[:1], o); err != nil {
			t.Errorf("%+v: one point: %v", o, err)
		}
		if err := Map(filepath.Join(dir, "map"), x, y, []float64{2, 2, 2, 2, 2}, o); err != nil {
			t.Errorf("%+v: constant: %v", o, err)
		}
	}
	checkFiles(t, dir, "map", 1950, 1500)

	empty := t.TempDir()
	for name, err := range map[string]error{
		"missing dir": Map(filepath.Join(empty, "no", "map"), x, y, v, opts),
		"lengths":     Map(filepath.Join(empty, "map"), x, y[:4], v, opts),
		"values":      Map(filepath.Join(empty, "map"), x, y, v[:4], opts),
		"empty":       Map(filepath.Join(empty, "map"), nil, nil, nil, opts),
		"NaN x":       Map(filepath.Join(empty, "map"), []float64{math.NaN()}, []float64{1}, []float64{1}, opts),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	checkEmpty(t, empty)
}

func TestGridFiles(t *testing.T) {
	dir := t.TempDir()
	nx, ny := 30, 20
	x, y := GridPoints(nx, ny, -1, 2, 0, 1)
	v := make([]float64, len(x))
	for k := range v {
		v[k] = math.Sin(3*x[k]) * math.Cos(4*y[k])
	}
	v[7] = math.NaN()
	opts := MapOptions{Title: "prediction", Label: "z", XLabel: "lon", YLabel: "lat"}
	if err := Grid(filepath.Join(dir, "grid"), nx, ny, -1, 2, 0, 1, v, opts); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "grid", 1950, 1500)
	if err := Grid(filepath.Join(dir, "grid.svg"), 1, 1, 0, 1, 0, 1, []float64{3}, MapOptions{FreeAspect: true}); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "grid", 1950, 1500)

	empty := t.TempDir()
	for name, err := range map[string]error{
		"missing dir": Grid(filepath.Join(empty, "no", "grid"), nx, ny, -1, 2, 0, 1, v, opts),
		"length":      Grid(filepath.Join(empty, "grid"), nx, ny, -1, 2, 0, 1, v[1:], opts),
		"nx":          Grid(filepath.Join(empty, "grid"), 0, ny, -1, 2, 0, 1, nil, opts),
		"box":         Grid(filepath.Join(empty, "grid"), nx, ny, 2, -1, 0, 1, v, opts),
		"NaN box":     Grid(filepath.Join(empty, "grid"), nx, ny, -1, 2, 0, math.NaN(), v, opts),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	checkEmpty(t, empty)
}

// A failure at the last step (base.png is a directory) leaves no
// temporary file.
func TestNoTemporaryFilesLeft(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "m.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Map(filepath.Join(dir, "m"), []float64{0, 1}, []float64{0, 1}, []float64{0, 1}, MapOptions{}); err == nil {
		t.Fatal("no error writing over a directory")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
}

// TestSamplePictures draws realistic pictures, into $PLOT_SAMPLES_DIR if
// set (to look at them) or a temporary directory.
func TestSamplePictures(t *testing.T) {
	dir := os.Getenv("PLOT_SAMPLES_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	theta := matern.Theta{Sigma2: 1.2, Beta: 0.08, Nu: 1}
	k, err := matern.NewMatern(theta, 2)
	if err != nil {
		t.Fatal(err)
	}
	p, z := simulate(t, 500, k, 11)
	nugget := 0.05
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range z {
		z[i] += math.Sqrt(nugget) * rng.NormFloat64()
	}
	h, g, _ := EmpiricalSemivariogram(p, matern.Euclidean, z, 20, 0, 0)
	model := func(r float64) float64 {
		if r == 0 {
			return 0
		}
		return theta.Sigma2 + nugget - k.Cov(r)
	}
	if err := Semivariogram(filepath.Join(dir, "semivariogram"), h, g, model,
		"Matérn fit: σ² = 1.2, β = 0.08, ν = 1, nugget = 0.05"); err != nil {
		t.Fatal(err)
	}
	if err := Map(filepath.Join(dir, "map"), p.X, p.Y, z, MapOptions{Title: "observations", Label: "z"}); err != nil {
		t.Fatal(err)
	}
	nx, ny := 80, 50
	gx, gy := GridPoints(nx, ny, 0, 1.6, 0, 1)
	v := make([]float64, len(gx))
	for i := range v {
		v[i] = math.Sin(5*gx[i])*math.Cos(7*gy[i]) + gx[i]
		if math.Hypot(gx[i]-1.3, gy[i]-0.7) < 0.1 {
			v[i] = math.NaN()
		}
	}
	if err := Grid(filepath.Join(dir, "grid"), nx, ny, 0, 1.6, 0, 1, v, MapOptions{
		Title: "kriging prediction", Label: "predicted temperature (°C)", XLabel: "longitude", YLabel: "latitude",
	}); err != nil {
		t.Fatal(err)
	}
	// Lon/lat data over a wide region, many points, small values.
	n := 3000
	lon, lat, w := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		lon[i] = 30 + 20*rng.Float64()
		lat[i] = 10 + 12*rng.Float64()
		w[i] = 1e-3 * (math.Sin(lon[i]/3) + lat[i]/10)
	}
	if err := Map(filepath.Join(dir, "lonlat"), lon, lat, w, MapOptions{
		Title: "soil moisture", Label: "moisture", XLabel: "lon", YLabel: "lat",
	}); err != nil {
		t.Fatal(err)
	}
	hs, gs, _ := EmpiricalSemivariogram(matern.Points{X: lon, Y: lat}, matern.GreatCircle, w, 12, 100000, 1)
	if err := Semivariogram(filepath.Join(dir, "lonlat-semivariogram"), hs, gs, nil, "great-circle semivariogram (km)"); err != nil {
		t.Fatal(err)
	}
}

func TestNiceTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var l []string
		for _, tk := range (niceTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return l
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 1.3, "0.00 0.25 0.50 0.75 1.00 1.25"},
		{-2.8, 2.7, "-2 -1 0 1 2"},
		{0, 1.05e-6, "0 2e-7 4e-7 6e-7 8e-7 1e-6"},
		{0, 1.3e-6, "0 2.5e-7 5e-7 7.5e-7 1e-6 1.25e-6"},
		{0, 1260, "0 250 500 750 1000 1250"},
		{1e6, 3.5e6, "1e6 1.5e6 2e6 2.5e6 3e6 3.5e6"},
		{8, 24, "10.0 12.5 15.0 17.5 20.0 22.5"},
	} {
		if got := strings.Join(labels(c.lo, c.hi), " "); got != c.want {
			t.Errorf("[%g, %g]: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	if len((niceTicks{}).Ticks(1, 1)) != 0 || len((niceTicks{}).Ticks(0, math.Inf(1))) != 0 {
		t.Error("ticks for an empty or infinite range")
	}
}

// The drawing functions may run concurrently (go test -race).
func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	x, y := GridPoints(20, 10, 0, 2, 0, 1)
	v := make([]float64, len(x))
	for i := range v {
		v[i] = x[i] * y[i]
	}
	errs := make(chan error, 4)
	for k := range 4 {
		go func() {
			base := filepath.Join(dir, string(rune('a'+k)))
			if k%2 == 0 {
				errs <- Map(base, x, y, v, MapOptions{Title: "map"})
			} else {
				errs <- Grid(base, 20, 10, 0, 2, 0, 1, v, MapOptions{Title: "grid"})
			}
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
