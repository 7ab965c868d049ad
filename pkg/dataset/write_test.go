package dataset

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/atomicfile"
)

// dirNames returns the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func TestWriteReadRoundTrip(t *testing.T) {
	awkward := []float64{0.1, 1.0 / 3, -math.Pi, 1e-300, math.SmallestNonzeroFloat64,
		math.MaxFloat64, -math.MaxFloat64, math.Copysign(0, -1), 0, 123456789.123456789, 2.5e-7}
	rev := slices.Clone(awkward)
	slices.Reverse(rev)
	mixed := make([]float64, len(awkward))
	for i := range mixed {
		mixed[i] = awkward[(i*7+3)%len(awkward)] * 0.7
	}
	cases := []struct {
		name   string
		d      Data
		header string
	}{
		{"planar", Data{X: awkward, Y: rev, Obs: mixed, Coords: Planar}, "x,y,z"},
		{"geographic", Data{X: rev, Y: mixed, Obs: awkward, Coords: Geographic}, "lon,lat,z"},
		{"planar locations", Data{X: awkward, Y: mixed, Coords: Planar}, "x,y"},
		{"geographic locations", Data{X: mixed, Y: rev, Coords: Geographic}, "lon,lat"},
		{"grid", *Grid(50, 9), "x,y"},
		{"empty", Data{X: []float64{}, Y: []float64{}, Obs: []float64{}}, "x,y,z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "out.csv")
			if err := WriteCSV(p, &c.d); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(raw[:len(c.header)+1]); got != c.header+"\n" {
				t.Errorf("header %q want %q", got, c.header)
			}
			back, err := ReadCSV(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bitsEqual(back.X, c.d.X) || !bitsEqual(back.Y, c.d.Y) || !bitsEqual(back.Obs, c.d.Obs) ||
				(back.Obs == nil) != (c.d.Obs == nil) || back.Coords != c.d.Coords {
				t.Errorf("round trip changed data:\n got %+v\nwant %+v", back, c.d)
			}
			if names := dirNames(t, filepath.Dir(p)); !slices.Equal(names, []string{"out.csv"}) {
				t.Errorf("directory holds %v", names)
			}
		})
	}
}

func TestWriteExactContent(t *testing.T) {
	cases := []struct {
		name  string
		write func(p string) error
		want  string
	}{
		{"csv", func(p string) error {
			return WriteCSV(p, &Data{X: []float64{0.5, 1e21}, Y: []float64{1, -0.1}, Obs: []float64{-2, 1.0 / 3}})
		}, "x,y,z\n0.5,1,-2\n1e+21,-0.1,0.3333333333333333\n"},
		{"csv geographic locations", func(p string) error {
			return WriteCSV(p, &Data{X: []float64{-120}, Y: []float64{35.25}, Coords: Geographic})
		}, "lon,lat\n-120,35.25\n"},
		{"table", func(p string) error {
			return WriteTable(p, []string{"x", "y", "pred", "var"},
				[][]float64{{0.25, 0.5}, {0.75, 1}, {1.5, -2}, {0.01, math.NaN()}})
		}, "x,y,pred,var\n0.25,0.75,1.5,0.01\n0.5,1,-2,NaN\n"},
		{"table no rows", func(p string) error {
			return WriteTable(p, []string{"a"}, [][]float64{{}})
		}, "a\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "out.csv")
			if err := c.write(p); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != c.want {
				t.Errorf("got %q want %q", raw, c.want)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o644 {
				t.Errorf("mode %v want 0644", fi.Mode().Perm())
			}
		})
	}
}

func TestWriteAtomicFailures(t *testing.T) {
	const old = "x,y,z\n9,9,9\n"
	cases := []struct {
		name  string
		write func(p string) error
		msg   string // error message with P standing for the path
	}{
		{"nan in a later row", func(p string) error {
			return WriteCSV(p, &Data{X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}, Obs: []float64{1, 2, math.NaN()}})
		}, "write P: row 3: z is NaN"},
		{"inf coordinate", func(p string) error {
			return WriteCSV(p, &Data{X: []float64{1, 2}, Y: []float64{1, math.Inf(-1)}, Coords: Geographic})
		}, "write P: row 2: lat is -Inf"},
		{"inconsistent data", func(p string) error {
			return WriteCSV(p, &Data{X: []float64{1, 2}, Y: []float64{1}})
		}, "write P: inconsistent data: 2 x, 1 y, 0 observations"},
		{"table columns", func(p string) error {
			return WriteTable(p, []string{"a", "b"}, [][]float64{{1, 2}, {3}})
		}, "write P: column b has 1 values but a has 2"},
		{"table header", func(p string) error {
			return WriteTable(p, []string{"a"}, [][]float64{{1}, {2}})
		}, "write P: 1 header names but 2 columns"},
		{"fill fails midway", func(p string) error {
			return atomicfile.Write(p, func(w io.Writer) error {
				if _, err := io.WriteString(w, "x,y,z\n1,2,"); err != nil {
					return err
				}
				return errors.New("disk on fire")
			})
		}, "write P: disk on fire"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "out.csv", old)
			if err := os.Chmod(p, 0o600); err != nil {
				t.Fatal(err)
			}
			err := c.write(p)
			if want := strings.Replace(c.msg, "write P:", "write "+p+":", 1); err == nil || err.Error() != want {
				t.Fatalf("got %v want %q", err, want)
			}
			raw, err := os.ReadFile(p)
			if err != nil || string(raw) != old {
				t.Errorf("old file changed: %q %v", raw, err)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"out.csv"}) {
				t.Errorf("directory holds %v, want only out.csv", names)
			}
		})
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "no", "such", "out.csv")
	d := &Data{X: []float64{1}, Y: []float64{2}, Obs: []float64{3}}
	for name, write := range map[string]func() error{
		"csv":   func() error { return WriteCSV(p, d) },
		"table": func() error { return WriteTable(p, []string{"a"}, [][]float64{{1}}) },
	} {
		t.Run(name, func(t *testing.T) {
			err := write()
			if err == nil || !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("got %v, want a not-exist error", err)
			}
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("file exists: %v", err)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("directory holds %v", names)
			}
		})
	}
}

func TestWriteOverwriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "out.csv", "old contents that are longer than the new ones\n")
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(p, &Data{X: []float64{1}, Y: []float64{2}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	if string(raw) != "x,y\n1,2\n" {
		t.Errorf("got %q", raw)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v want 0600", fi.Mode().Perm())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"out.csv"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestWriteOntoDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteTable(sub, []string{"a"}, [][]float64{{1}})
	if want := "write " + sub + ": not a regular file"; err == nil || err.Error() != want {
		t.Errorf("got %v want %q", err, want)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"sub"}) {
		t.Errorf("directory holds %v", names)
	}
}
