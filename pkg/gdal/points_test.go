//go:build gdal

package gdal

import (
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWritePoints writes three points with two fields (one NaN) as a
// GeoPackage in EPSG:28992 and reads it back with GDAL's own tools:
// ogrinfo names the layer, the point geometry and the CRS; ogr2ogr's CSV
// of it holds the coordinates and fields as written (to 1e-14 relative: ogr2ogr writes
// 15 digits), the NaN as an empty (null) field.
func TestWritePoints(t *testing.T) {
	for _, tool := range []string{"ogrinfo", "ogr2ogr"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("gdal-bin's %s not found (scripts/deps.sh installs it)", tool)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "resid.gpkg")
	p := &Points{X: []float64{181072, 181025, 179.5}, Y: []float64{333611, 333558.25, 330000.125},
		Names: []string{"residual", "standardized"}, CRS: "EPSG:28992",
		Columns: [][]float64{{0.1, -1.0 / 3, 2e-9}, {1.5, math.NaN(), -0.7}}}
	if err := WritePoints(path, p); err != nil {
		t.Fatal(err)
	}
	info, err := exec.Command("ogrinfo", "-so", path, "resid").CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, info)
	}
	for _, want := range []string{"Geometry: Point", "Feature Count: 3", `ID["EPSG",28992]`, "residual: Real", "standardized: Real"} {
		if !strings.Contains(string(info), want) {
			t.Errorf("ogrinfo has no %q:\n%s", want, info)
		}
	}
	out, err := exec.Command("ogr2ogr", "-f", "CSV", "/vsistdout/", path, "-lco", "GEOMETRY=AS_XY").Output()
	if err != nil {
		t.Fatalf("ogr2ogr: %v", err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil || len(rows) != 4 || strings.Join(rows[0], ",") != "X,Y,residual,standardized" {
		t.Fatalf("ogr2ogr's CSV (%v):\n%s", err, out)
	}
	for i, row := range rows[1:] {
		want := []float64{p.X[i], p.Y[i], p.Columns[0][i], p.Columns[1][i]}
		for j, s := range row {
			if math.IsNaN(want[j]) {
				if s != "" {
					t.Errorf("point %d field %s = %q, want null", i+1, rows[0][j], s)
				}
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Abs(v-want[j]) > max(1e-14*math.Abs(want[j]), 1e-15) {
				t.Errorf("point %d %s = %q, want %v", i+1, rows[0][j], s, want[j])
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want the GeoPackage alone", len(ents))
	}
	if err := WritePoints(filepath.Join(dir, "x.gpkg"), &Points{X: []float64{1}, Y: []float64{2}, CRS: "EPSG:nonsense"}); err == nil || !strings.Contains(err.Error(), "CRS") {
		t.Errorf("a CRS GDAL does not read: %v", err)
	}
	if err := WritePoints(filepath.Join(dir, "x.csv"), p); err == nil {
		t.Error("points written to a .csv")
	}
}
