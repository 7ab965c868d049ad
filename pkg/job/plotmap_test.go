package job

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/gdal"
)

// plotGrid writes a CSV of a 10 x 10 grid of 1-unit cells whose centres
// are (x0 + i + 0.5, y0 + j + 0.5), with columns named xn,yn and z_hat =
// (i + j)/18 in [0, 1], variance, and draw_1 in [-5, 5].
func plotGrid(t *testing.T, dir, name, xn, yn string, x0, y0 float64) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s,%s,z_hat,variance,draw_1\n", xn, yn)
	for j := range 10 {
		for i := range 10 {
			fmt.Fprintf(&b, "%v,%v,%v,%v,%v\n", x0+float64(i)+0.5, y0+float64(j)+0.5, float64(i+j)/18, 0.1+float64(i)/100, -5+10*float64(i*10+j)/99)
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mapPixels decodes a PNG and returns the bounding box and the number of
// the coloured pixels (chroma above 40: the viridis cells, not the black
// and grey axes, text and dots) of the map, the first run of columns
// holding any (the colour bar is the second).
func mapPixels(t *testing.T, path string) (box image.Rectangle, count int, img image.Image) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err = png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	coloured := func(x, y int) bool {
		r, g, bl, _ := img.At(x, y).RGBA()
		hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
		return hi-lo > 40
	}
	box = image.Rectangle{Min: b.Max, Max: b.Min} // not image.Rect: it would swap them
	started := false
	for x := b.Min.X; x < b.Max.X; x++ {
		any := false
		for y := b.Min.Y; y < b.Max.Y; y++ {
			if coloured(x, y) {
				any = true
				count++
				box.Min.Y, box.Max.Y = min(box.Min.Y, y), max(box.Max.Y, y+1)
			}
		}
		if any && !started {
			started, box.Min.X = true, x
		}
		if started && !any {
			box.Max.X = x
			break
		}
	}
	return box, count, img
}

// TestPlotLonLatAspect: a 10 x 10 degree grid centred at 40N is drawn
// with the height of its cells over their width 1/cos(40 deg) = 1.3054
// (measured on the PNG: the heat map's pixels, to 1 %), the same grid in
// planar x,y square (1.000); 100 cells, none masked: every cell drawn.
func TestPlotLonLatAspect(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, xn, yn string
		x0, y0, want float64
	}{
		{"lonlat", "lon", "lat", -105, 35, 1 / math.Cos(40*math.Pi/180)},
		{"planar", "x", "y", 0, 0, 1},
	} {
		in := plotGrid(t, dir, c.name+".csv", c.xn, c.yn, c.x0, c.y0)
		out := filepath.Join(dir, c.name)
		if _, err := Plot(PlotConfig{In: in, Out: out, Layers: []string{"z_hat"}, DPI: 100}, Env{}); err != nil {
			t.Fatal(err)
		}
		box, _, _ := mapPixels(t, filepath.Join(out, "z_hat.png"))
		got := float64(box.Dy()) / float64(box.Dx())
		t.Logf("%s: the map's cells span %d x %d pixels: height/width %.4f, want %.4f", c.name, box.Dx(), box.Dy(), got, c.want)
		if math.Abs(got/c.want-1) > 0.01 {
			t.Errorf("%s: height/width %.4f (%v), want %.4f", c.name, got, box, c.want)
		}
	}
}

// TestPlotLayerScale: each layer's colour bar spans its own values:
// z_hat's range is [0, 1], its cells reach viridis' ends (#440154 and
// #fde725 are drawn); with --shared-scale z_hat and draw_1 share
// [-5, 5], so z_hat's largest cell (1: 0.6 of the range) is no longer
// yellow; variance and sd keep their own ranges either way.
func TestPlotLayerScale(t *testing.T) {
	dir := t.TempDir()
	in := plotGrid(t, dir, "g.csv", "x", "y", 0, 0)
	hasColour := func(img image.Image, box image.Rectangle, want [3]uint32) bool {
		for x := box.Min.X; x < box.Max.X; x++ {
			for y := box.Min.Y; y < box.Max.Y; y++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if [3]uint32{r >> 8, g >> 8, b >> 8} == want {
					return true
				}
			}
		}
		return false
	}
	for _, shared := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint(shared))
		r, err := Plot(PlotConfig{In: in, Out: out, SharedScale: shared, DPI: 100}, Env{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][2]float64{"z_hat": {0, 1}, "variance": {0.1, 0.19}, "sd": {math.Sqrt(0.1), math.Sqrt(0.19)}, "draw_1": {-5, 5}}
		if shared {
			want["z_hat"] = want["draw_1"]
		}
		if strings.Join(r.Layers, ",") != "z_hat,variance,sd,draw_1" {
			t.Fatalf("layers %v", r.Layers)
		}
		for k, name := range r.Layers {
			w := want[name]
			if math.Abs(r.Ranges[k][0]-w[0]) > 1e-12 || math.Abs(r.Ranges[k][1]-w[1]) > 1e-12 {
				t.Errorf("shared %v: %s's colour bar %v, want %v", shared, name, r.Ranges[k], w)
			}
		}
		box, _, img := mapPixels(t, filepath.Join(out, "z_hat.png"))
		yellow, purple := hasColour(img, box, [3]uint32{253, 231, 37}), hasColour(img, box, [3]uint32{68, 1, 84})
		if yellow == shared || !purple && !shared {
			t.Errorf("shared %v: z_hat's map has viridis' top colour %v, its bottom %v", shared, yellow, purple)
		}
	}
}

// TestPlotMask: cells outside the mask are not drawn. With --data at
// three corners of the 10 x 10 grid, the cells whose centres lie in
// their triangle (x + y <= 10: 55 of 100) are drawn: the coloured pixels
// are 55 % of the unmasked map's (to 2 %: the cells' edges). With GDAL,
// a GeoJSON polygon over the western half (x < 5) keeps 50 %, and a
// GeoTIFF of the same grid with 30 nodata cells draws 70 %.
func TestPlotMask(t *testing.T) {
	dir := t.TempDir()
	in := plotGrid(t, dir, "g.csv", "x", "y", 0, 0)
	draw := func(name string, cfg PlotConfig) int {
		t.Helper()
		cfg.Out, cfg.Layers, cfg.DPI = filepath.Join(dir, name), []string{"z_hat"}, 100
		if cfg.In == "" {
			cfg.In = in
		}
		if _, err := Plot(cfg, Env{}); err != nil {
			t.Fatal(err)
		}
		_, n, _ := mapPixels(t, filepath.Join(cfg.Out, "z_hat.png"))
		return n
	}
	full := draw("full", PlotConfig{})
	data := filepath.Join(dir, "obs.csv")
	if err := os.WriteFile(data, []byte("x,y,z\n0,0,1\n10,0,2\n0,10,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(name string, n int, want float64) {
		t.Helper()
		got := float64(n) / float64(full)
		t.Logf("%s: %d coloured pixels of %d: %.4f, want %.2f", name, n, full, got, want)
		if math.Abs(got-want) > 0.02 {
			t.Errorf("%s: %.4f of the map drawn, want %.2f", name, got, want)
		}
	}
	check("hull of --data", draw("hull", PlotConfig{Data: data}), 0.55)
	if !gdal.Available() {
		return
	}
	poly := filepath.Join(dir, "west.geojson")
	if err := os.WriteFile(poly, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"west"},`+
		`"geometry":{"type":"Polygon","coordinates":[[[-1,-1],[5,-1],[5,11],[-1,11],[-1,-1]]]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	check("polygon mask", draw("poly", PlotConfig{Mask: poly}), 0.5)
	tif := filepath.Join(dir, "g.tif")
	v := make([]float64, 100)
	for k := range v {
		v[k] = float64(k)
		if k%10 < 3 { // the three western columns
			v[k] = -9999
		}
	}
	r := &gdal.Raster{Width: 10, Height: 10, GeoTransform: [6]float64{0, 1, 0, 10, 0, -1},
		Bands: []gdal.Band{{Name: "z_hat", Values: v, NoData: -9999, HasNoData: true}}}
	if err := gdal.Write(tif, r); err != nil {
		t.Fatal(err)
	}
	check("raster nodata", draw("tif", PlotConfig{In: tif}), 0.7)
}

// TestPlotRefusals: what plot cannot draw is refused before any picture,
// in one line naming the flag or the file.
func TestPlotRefusals(t *testing.T) {
	dir := t.TempDir()
	in := plotGrid(t, dir, "g.csv", "x", "y", 0, 0)
	nocoords := filepath.Join(dir, "n.csv")
	if err := os.WriteFile(nocoords, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		cfg  PlotConfig
		want string
	}{
		{"no out", PlotConfig{In: in}, "--out DIR is required"},
		{"title and no-title", PlotConfig{In: in, Out: out, Title: "a", NoTitle: true}, "--title and --no-title"},
		{"unknown layer", PlotConfig{In: in, Out: out, Layers: []string{"z"}}, `no layer "z" (its layers: z_hat, variance, sd, draw_1)`},
		{"no coordinates", PlotConfig{In: nocoords, Out: out}, "no coordinate columns"},
		{"missing file", PlotConfig{In: filepath.Join(dir, "none.csv"), Out: out}, "none.csv"},
		{"dpi", PlotConfig{In: in, Out: out, DPI: -1}, "--dpi"},
	}
	if !gdal.Available() {
		cases = append(cases, struct {
			name string
			cfg  PlotConfig
			want string
		}{"raster", PlotConfig{In: "../../testdata/real/meuse-grid.tif", Out: out}, "install libgdal-dev"},
			struct {
				name string
				cfg  PlotConfig
				want string
			}{"mask", PlotConfig{In: in, Out: out, Mask: "../../testdata/real/meuse-blocks.geojson"}, "install libgdal-dev"})
	} else {
		cases = append(cases, struct {
			name string
			cfg  PlotConfig
			want string
		}{"mask elsewhere", PlotConfig{In: in, Out: out, Mask: "../../testdata/real/meuse-blocks.geojson"}, "no point of the map inside"})
	}
	for _, c := range cases {
		_, err := Plot(c.cfg, Env{})
		if err == nil || !IsInput(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		if ents, _ := os.ReadDir(out); len(ents) > 0 {
			t.Errorf("%d pictures written", len(ents))
		}
	}
}
