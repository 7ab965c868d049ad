//go:build gdal

package gdal

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadMeuseGrid reads the GeoTIFF that R's terra wrote from sp's
// meuse.grid (testdata/real/meuse-grid.R): 3103 cells of 40 m with a
// distance, 78 x 104 cells, origin (178440, 333760), EPSG:28992, and
// the cell centres and dist values of meuse.grid (the gstat reference
// file lists them).
func TestReadMeuseGrid(t *testing.T) {
	r, err := Read("../../testdata/real/meuse-grid.tif")
	if err != nil {
		t.Fatal(err)
	}
	if r.Width != 78 || r.Height != 104 || r.GeoTransform != [6]float64{178440, 40, 0, 333760, 0, -40} {
		t.Fatalf("%d x %d cells, geotransform %v", r.Width, r.Height, r.GeoTransform)
	}
	if !strings.Contains(r.Projection, `ID["EPSG",28992]`) && !strings.Contains(r.Projection, `AUTHORITY["EPSG","28992"]`) {
		t.Errorf("CRS %.80s..., want EPSG:28992", r.Projection)
	}
	names := []string{}
	for _, b := range r.Bands {
		names = append(names, b.Name)
	}
	if strings.Join(names, ",") != "dist,soil,ffreq" {
		t.Fatalf("bands %v", names)
	}
	dist := r.Band("dist")
	n := 0
	for i := range dist.Values {
		if !dist.Missing(i) {
			n++
		}
	}
	if n != 3103 {
		t.Errorf("%d cells with a dist, want 3103", n)
	}
	// meuse.grid's first row (x, y, dist) from testdata/r/krige_meuse_grid.csv.
	x, y := r.Centre(int((181180-178440)/40), int((333760-333740)/40))
	i := int((333760-333740)/40)*r.Width + int((181180-178440)/40)
	if x != 181180 || y != 333740 || dist.Values[i] != 0 {
		t.Errorf("cell (%v, %v) dist %v, want (181180, 333740) dist 0", x, y, dist.Values[i])
	}
}

// TestWriteRead writes a three-band raster as GeoTIFF and NetCDF and
// reads it back: the values bitwise, names, geotransform, CRS and nodata;
// gdalinfo (GDAL's own tool) reads the same size and band names.
func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	wkt := `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4326"]]`
	r := &Raster{Width: 3, Height: 2, GeoTransform: [6]float64{-105, 0.5, 0, 40, 0, -0.25}, Projection: wkt}
	for k, name := range []string{"z_hat", "variance", "draw_1"} {
		v := make([]float64, 6)
		for i := range v {
			v[i] = float64(k) + 1/float64(i+3)
		}
		v[4] = math.NaN()
		r.Bands = append(r.Bands, Band{Name: name, NoData: math.NaN(), HasNoData: true, Values: v})
	}
	for _, ext := range []string{".tif", ".nc"} {
		path := filepath.Join(dir, "out"+ext)
		if err := Write(path, r); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Width != 3 || got.Height != 2 || len(got.Bands) != 3 {
			t.Fatalf("%s: %d x %d, %d bands", ext, got.Width, got.Height, len(got.Bands))
		}
		for k := range got.GeoTransform {
			if math.Abs(got.GeoTransform[k]-r.GeoTransform[k]) > 1e-12 {
				t.Errorf("%s: geotransform %v, want %v", ext, got.GeoTransform, r.GeoTransform)
				break
			}
		}
		if !strings.Contains(got.Projection, "4326") && !strings.Contains(got.Projection, "WGS 84") {
			t.Errorf("%s: CRS %q", ext, got.Projection)
		}
		for k, b := range got.Bands {
			want := r.Bands[k].Name
			if ext == ".nc" { // GDAL numbers the variables of a multi-band NetCDF
				want = fmt.Sprintf("%s%d", want, k+1)
			}
			if b.Name != want {
				t.Errorf("%s: band %d named %q, want %q", ext, k+1, b.Name, want)
			}
			for i, v := range b.Values {
				w := r.Bands[k].Values[i]
				if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
					t.Errorf("%s: band %d cell %d = %v, want %v", ext, k+1, i, v, w)
				}
			}
			if !b.Missing(4) || b.Missing(0) {
				t.Errorf("%s: band %d: nodata cell not missing, or a value missing", ext, k+1)
			}
		}
		if out, err := exec.Command("gdalinfo", path).CombinedOutput(); err == nil {
			if s := string(out); (ext == ".tif" && !strings.Contains(s, "Size is 3, 2")) || (ext == ".tif" && !strings.Contains(s, "Description = variance")) ||
				(ext == ".nc" && !strings.Contains(s, `out.nc":variance2`)) {
				t.Errorf("gdalinfo %s:\n%s", path, s)
			}
		}
	}
}

// TestWriteRefusals: an unknown extension and a band of the wrong size
// are refused before anything is written.
func TestWriteRefusals(t *testing.T) {
	dir := t.TempDir()
	r := &Raster{Width: 2, Height: 2, Bands: []Band{{Name: "a", Values: []float64{1, 2, 3}}}}
	for _, p := range []string{filepath.Join(dir, "x.png"), filepath.Join(dir, "x.tif")} {
		if err := Write(p, r); err == nil {
			t.Errorf("%s written", p)
		}
	}
	if _, err := Read(filepath.Join(dir, "none.tif")); err == nil || !strings.Contains(err.Error(), "none.tif") {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadPolygons reads the three polygons R's sf wrote
// (testdata/real/meuse-blocks.geojson, testdata/r/gis.R): their names and
// vertices as written; a raster is not a vector file.
func TestReadPolygons(t *testing.T) {
	ps, err := ReadPolygons("../../testdata/real/meuse-blocks.geojson")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || ps[0].Name != "a" || ps[1].Name != "b" || ps[2].Name != "c" {
		t.Fatalf("%d polygons %+v", len(ps), ps)
	}
	b := ps[1].Rings
	if len(b) != 1 || len(b[0]) != 4 || b[0][1] != [2]float64{180707, 332307} || b[0][3] != b[0][0] {
		t.Errorf("polygon b: %v", b)
	}
	if !ps[0].Contains(179300, 330900) || ps[0].Contains(179700, 330900) {
		t.Error("polygon a: its centre outside, or a point east of it inside")
	}
	if _, err := ReadPolygons("../../testdata/real/meuse-grid.tif"); err == nil {
		t.Error("a raster read as polygons")
	}
}
