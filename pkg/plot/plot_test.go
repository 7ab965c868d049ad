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
	"github.com/exageostat/exageostat/pkg/variogram"
	"gonum.org/v1/gonum/mat"
)

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
	sv, err := variogram.Omnidirectional(p, matern.Euclidean, z, variogram.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var h, g []float64
	for _, b := range sv.Bins {
		h, g = append(h, b.Dist), append(g, b.Gamma)
	}
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
	sv, err = variogram.Omnidirectional(matern.Points{X: lon, Y: lat}, matern.GreatCircle, w, variogram.Options{MaxPairs: 100000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var hs, gs []float64
	for _, b := range sv.Bins {
		hs, gs = append(hs, b.Dist), append(gs, b.Gamma)
	}
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
