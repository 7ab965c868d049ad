package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The R reference log-likelihoods of testdata/r/loglik_mean.csv (meuse,
// z = log(zinc), all 155 rows, case 1: theta = (0.6, 300, 0.5, 0.05)) and
// of testdata/r/fits_real.csv (rmprecip, z = sqrt(precip), ML with a
// constant mean and nu = 0.5, at its maximum).
const (
	meuseTheta       = "0.6,300,0.5,0.05"
	meuseDistElev    = -88.94770378911112  // mean 1 + dist + elev
	meuseConstant    = -113.06436017152996 // constant mean
	rmprecipTheta    = "4.578423156903777,119.83361876385493,0.5,1.0398284256707488"
	rmprecipConstant = -1534.6204042828467
)

// meuseRows returns the rows of testdata/real/meuse.csv (x, y, z =
// log(zinc), dist, elev), each as its fields.
func meuseRows(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/real/meuse.csv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}

// shapeFile writes meuse's rows in a shape: the header, then each row
// through row (nil: the fields joined by commas).
func shapeFile(rows [][]string, header string, row func(i int, f []string) string) string {
	var b strings.Builder
	if header != "" {
		b.WriteString(header + "\n")
	}
	for i, f := range rows {
		if row == nil {
			b.WriteString(strings.Join(f, ",") + "\n")
		} else {
			b.WriteString(row(i, f) + "\n")
		}
	}
	return b.String()
}

// TestDataShapes: the ten data shapes of issue 26 that were refused read
// to the R reference log-likelihood (the parameters fixed, so l is one
// evaluation), or are refused with one line naming the flag that reads
// them; the notes say which columns were not read and which rows were
// dropped.
func TestDataShapes(t *testing.T) {
	bin := binary(t)
	rows := meuseRows(t)
	raw := "../../testdata/real/meuse-raw.csv"
	rmraw := "../../testdata/real/rmprecip-raw.csv"
	dir := t.TempDir()
	file := func(name, content string) string { return writeFile(t, dir, name, content) }
	withNA := shapeFile(rows, "x,y,z,dist,elev,om", func(i int, f []string) string {
		om := "NA"
		if i%3 == 0 {
			om = fmt.Sprint(i)
		}
		return strings.Join(f, ",") + "," + om
	})
	naObs := shapeFile(rows, "x,y,z,dist,elev", nil) + "181000,333000,NA,0.1,8\n181010,333010,,0.1,8\n181020,333020,NaN,0.1,8\n"
	sample := shapeFile(rows, "sample,x,y,z,dist,elev", func(i int, f []string) string { return fmt.Sprintf("S%d,", i+1) + strings.Join(f, ",") })
	en := shapeFile(rows, "easting,northing,z,dist,elev", nil)
	cx := shapeFile(rows, `"coords.x1","coords.x2","z","dist","elev"`, nil)
	dec := shapeFile(rows, "x;y;z;dist;elev", func(_ int, f []string) string { return strings.ReplaceAll(strings.Join(f, ";"), ".", ",") })
	noHeader := shapeFile(rows, "", nil)
	value3D := shapeFile(rows, "x,y,value,dist,elev", nil)
	precip := "longitude,latitude,precip\n"
	{
		b, err := os.ReadFile(rmraw)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			f := strings.Split(l, ",")
			precip += f[0] + "," + f[1] + "," + f[3] + "\n"
		}
	}
	// readAll is the log line of a fit of all 155 rows, the note of a
	// shape read with nothing left out.
	const readAll = "fit: N=155 kernel=matern distance=euclidean "
	cases := []struct {
		name string
		args []string
		want float64 // the reference l; 0: refused
		msg  string  // refused: the message's end; read: a note stderr has
	}{
		{"write.csv as is: refused", []string{"--data", raw}, 0, "several columns could be the observation (cadmium, copper, lead, zinc): name one with --z COL"},
		{"write.csv as is", []string{"--data", raw, "--z", "zinc", "--transform", "log", "--mean", "dist,elev"}, meuseDistElev,
			"columns not read: cadmium, copper, lead, om, ffreq, soil, lime, landuse, dist.m"},
		{"NA in an unused column", []string{"--data", file("om.csv", withNA), "--mean", "dist,elev"}, meuseDistElev, "columns not read: om"},
		{"NA in a used column: --na error", []string{"--data", file("om.csv", withNA), "--mean", "dist,om", "--na", "error"}, 0,
			`om.csv:3: om is missing ("NA") (--na drop drops such rows)`},
		{"NA observations dropped", []string{"--data", file("na.csv", naObs), "--mean", "dist,elev"}, meuseDistElev,
			"dropped 3 of 158 rows with a missing value (NA, NaN or empty) in z (3)"},
		{"longitude,latitude,precip", []string{"--data", file("p.csv", precip), "--transform", "sqrt", "--mean", "constant"}, rmprecipConstant,
			`column "precip" read as the observation`},
		{"easting,northing", []string{"--data", file("en.csv", en), "--mean", "dist,elev"}, meuseDistElev, readAll},
		{"a text sample column", []string{"--data", file("s.csv", sample), "--mean", "dist,elev"}, meuseDistElev, "columns not read: sample"},
		{"decimal comma: refused", []string{"--data", file("dec.csv", dec)}, 0, `dec.csv:2: z: cannot parse "6,92951677076365" as a number (a decimal comma? --dec , reads it)`},
		{"a column both observation and covariate", []string{"--data", file("dec.csv", dec), "--dec", ",", "--z", "3", "--mean", "3"}, 0,
			`column "z" cannot be both the observation (--z) and a covariate (--mean)`},
		{"decimal comma", []string{"--data", file("dec.csv", dec), "--dec", ",", "--mean", "dist,elev"}, meuseDistElev, readAll},
		{"no header: refused", []string{"--data", file("nh.csv", noHeader)}, 0, "nh.csv:1: no header (the first line is numbers): give the columns by number, e.g. --coords 1,2 --z 3"},
		{"no header", []string{"--data", file("nh.csv", noHeader), "--coords", "1,2", "--z", "3", "--mean", "4,5"}, meuseDistElev, readAll},
		{"coords.x1", []string{"--data", file("cx.csv", cx), "--mean", "dist,elev"}, meuseDistElev, readAll},
		{"a 3D name as covariate", []string{"--data", file("v.csv", value3D), "--mean", "dist,elev"}, meuseDistElev, readAll},
		{"a 3D name not read", []string{"--data", file("v.csv", value3D), "--mean", "constant"}, meuseConstant, "columns not read: dist, elev"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			theta := meuseTheta
			if c.want == rmprecipConstant {
				theta = rmprecipTheta
			}
			res := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"fit", "--lb", theta, "--ub", theta, "--json", res}, c.args...)
			stdout, stderr, code := run(t, bin, args...)
			if c.want == 0 {
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				if code != 2 || len(lines) != 1 || !strings.HasSuffix(lines[0], c.msg) && !strings.Contains(lines[0], c.msg) {
					t.Fatalf("exit %d, want 2 and one line with %q:\n%s", code, c.msg, stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, c.msg) {
				t.Errorf("stderr lacks %q:\n%s", c.msg, stderr)
			}
			var r struct {
				LogLik     float64 `json:"loglik"`
				Dimensions int     `json:"dimensions"`
			}
			b, _ := os.ReadFile(res)
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(r.LogLik-c.want) / math.Abs(c.want); d > 1e-9 || r.Dimensions != 2 {
				t.Errorf("l = %.15g, R %.15g (relative difference %.2g), dimensions %d", r.LogLik, c.want, d, r.Dimensions)
			}
		})
	}
}

// TestTransformPredict: from the raw write.csv file, universal kriging of
// log(zinc) ~ dist onto meuse.grid matches gstat's krige
// (testdata/r/krige_meuse_grid.csv, made by testdata/r/gis.R) to 1e-6
// relative; the original scale's columns are the lognormal closed form
// of gstat's values; predict --theta-from takes the fit's --z, --transform
// and mean; draws on the original scale are exp of those on the log scale.
func TestTransformPredict(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	raw := "../../testdata/real/meuse-raw.csv"
	grid := "../../testdata/r/krige_meuse_grid.csv"
	theta := "0.23,220,0.5,0.031"
	res := filepath.Join(dir, "r.json")
	if _, stderr, code := run(t, bin, "fit", "--data", raw, "--z", "zinc", "--transform", "log", "--mean", "dist",
		"--lb", theta, "--ub", theta, "--json", res, "-q"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "p.csv")
	if _, stderr, code := run(t, bin, "predict", "--data", raw, "--theta-from", res, "--at", grid, "--out", out, "-q"); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	got, ref := readColumns(t, out), readColumns(t, grid)
	if d := relDiff(t, got["log_z_hat"], ref["var1.pred"]); d > 1e-6 {
		t.Errorf("log_z_hat: %.2g relative from gstat", d)
	}
	if d := relDiff(t, got["log_variance"], ref["var1.var"]); d > 1e-6 {
		t.Errorf("log_variance: %.2g relative from gstat", d)
	}
	n := len(ref["var1.pred"])
	mean, variance := make([]float64, n), make([]float64, n)
	for i, m := range ref["var1.pred"] {
		v := ref["var1.var"][i]
		mean[i], variance[i] = math.Exp(m+v/2), (math.Exp(v)-1)*math.Exp(2*m+v)
	}
	if d := relDiff(t, got["z_hat"], mean); d > 1e-6 {
		t.Errorf("z_hat: %.2g relative from exp(m + v/2) of gstat's", d)
	}
	if d := relDiff(t, got["variance"], variance); d > 1e-6 {
		t.Errorf("variance: %.2g relative from (exp(v) - 1) exp(2m + v) of gstat's", d)
	}
	// Draws: the same seed on both scales.
	at := writeFile(t, dir, "at.csv", "x,y,dist\n179500,331000,0.2\n180000,332000,0.4\n")
	draws := map[string]map[string][]float64{}
	for _, scale := range []string{"transformed", "original"} {
		p := filepath.Join(dir, scale+".csv")
		if _, stderr, code := run(t, bin, "predict", "--data", raw, "--theta-from", res, "--at", at, "--out", p, "--draws", "3", "--scale", scale, "-q"); code != 0 {
			t.Fatalf("predict --draws --scale %s: exit %d: %s", scale, code, stderr)
		}
		draws[scale] = readColumns(t, p)
	}
	for k := 1; k <= 3; k++ {
		lg, orig := draws["transformed"][fmt.Sprintf("log_draw_%d", k)], draws["original"][fmt.Sprintf("draw_%d", k)]
		for i := range lg {
			if math.Abs(orig[i]-math.Exp(lg[i])) > 1e-12*orig[i] {
				t.Errorf("draw %d row %d: %g, want exp(%g)", k, i+1, orig[i], lg[i])
			}
		}
	}
	if _, ok := draws["original"]["log_z_hat"]; ok {
		t.Error("--scale original wrote the log scale's columns")
	}
	if _, stderr, code := run(t, bin, "predict", "--data", raw, "--theta-from", res, "--transform", "sqrt", "--at", at, "--out", filepath.Join(dir, "x.csv")); code != 2 || !strings.Contains(stderr, `--transform sqrt disagrees with the transform "log" of the fit`) {
		t.Errorf("another transform than the fit's: exit %d: %s", code, stderr)
	}
}
