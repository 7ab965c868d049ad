package job

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/gdal"
)

// TestGeoPackageOut: the leave-one-out residuals of log(zinc) ~ dist on
// meuse (cv --out res.gpkg --crs EPSG:28992) and simulated data
// (simulate --out sim.gpkg) written as GeoPackage point layers, read
// back by GDAL's own tools (ogrinfo: the CRS, EPSG:28992 or for
// simulate's unit square an unknown Cartesian one, and the geometry;
// ogr2ogr's CSV: every coordinate and field) hold the values of the CSV
// the same run writes, to 1e-15 relative (ogr2ogr's text). Without GDAL
// the .gpkg --out is refused before any work, with what to install.
func TestGeoPackageOut(t *testing.T) {
	dir := t.TempDir()
	cv := func(out string) config.Predict {
		cfg := meuseGridPredict("", out)
		cfg.At, cfg.CV, cfg.Cmd, cfg.CRS = cfg.Data, true, "cv", "EPSG:28992"
		return cfg
	}
	sim := func(out string) config.Simulate {
		cfg := config.DefaultSimulate()
		cfg.N, cfg.Out, cfg.Workers = 36, out, 2
		return cfg
	}
	res, simOut := filepath.Join(dir, "res.gpkg"), filepath.Join(dir, "sim.gpkg")
	if !gdal.Available() {
		_, err1 := Predict(cv(res), Env{})
		_, err2 := Simulate(sim(simOut), Env{})
		for _, err := range []error{err1, err2} {
			var ie *InputError
			if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), "install libgdal-dev") {
				t.Errorf("a .gpkg --out without GDAL: %v, want what to install", err)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%d files written", len(ents))
		}
		return
	}
	for _, c := range []struct{ gpkg, csv string }{{res, filepath.Join(dir, "res.csv")}, {simOut, filepath.Join(dir, "sim.csv")}} {
		for _, out := range []string{c.gpkg, c.csv} {
			var err error
			if c.gpkg == res {
				_, err = Predict(cv(out), Env{})
			} else {
				_, err = Simulate(sim(out), Env{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		want := readTable(t, c.csv)
		got, names := ogrTable(t, c.gpkg)
		if len(got["X"]) != len(want["x"]) || len(names) != len(want)-2+2 {
			t.Fatalf("%s: %d points, fields %v; the CSV: %d rows, %d columns", c.gpkg, len(got["X"]), names, len(want["x"]), len(want))
		}
		for _, name := range names {
			w := want[strings.ToLower(name)]
			if w == nil {
				t.Fatalf("%s: field %s not in the CSV", c.gpkg, name)
			}
			for i, v := range got[name] {
				if math.Abs(v-w[i]) > max(1e-14*math.Abs(w[i]), 1e-15) {
					t.Fatalf("%s: point %d %s = %v, the CSV %v", c.gpkg, i+1, name, v, w[i])
				}
			}
		}
		info, err := exec.Command("ogrinfo", "-so", c.gpkg, strings.TrimSuffix(filepath.Base(c.gpkg), ".gpkg")).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo: %v\n%s", err, info)
		}
		crs := strings.Contains(string(info), `ID["EPSG",28992]`) || (c.gpkg == simOut && strings.Contains(string(info), `ENGCRS["unknown"`))
		if !strings.Contains(string(info), "Geometry: Point") || !crs {
			t.Errorf("ogrinfo %s: not points in EPSG:28992 (cv) or an unknown Cartesian CRS (simulate):\n%s", c.gpkg, info)
		}
	}
}

// ogrTable reads a GeoPackage's point layer through ogr2ogr's CSV (X, Y,
// then the fields), by column name.
func ogrTable(t *testing.T, path string) (map[string][]float64, []string) {
	t.Helper()
	out, err := exec.Command("ogr2ogr", "-f", "CSV", "/vsistdout/", path, "-lco", "GEOMETRY=AS_XY").Output()
	if err != nil {
		t.Fatalf("ogr2ogr %s: %v (gdal-bin: scripts/deps.sh)", path, err)
	}
	r := csv.NewReader(strings.NewReader(string(out)))
	r.FieldsPerRecord = -1 // its header may end with an empty name (a field z)
	rows, err := r.ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("ogr2ogr's CSV of %s (%v):\n%.300s", path, err, out)
	}
	cols := map[string][]float64{}
	for _, row := range rows[1:] {
		for j, s := range row {
			if rows[0][j] == "" {
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			cols[rows[0][j]] = append(cols[rows[0][j]], v)
		}
	}
	var names []string
	for _, n := range rows[0] {
		if n != "" {
			names = append(names, n)
		}
	}
	return cols, names
}
