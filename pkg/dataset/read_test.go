package dataset

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFile writes content to name in a fresh temporary directory and
// returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadCSV(t *testing.T) {
	cases := []struct {
		name    string
		content string
		want    Data
	}{
		{"planar", "x,y,z\n0.5,0.25,1.5\n1,2,-3\n",
			Data{X: []float64{0.5, 1}, Y: []float64{0.25, 2}, Obs: []float64{1.5, -3}, Coords: Planar}},
		{"lonlat", "lon,lat,z\n-120.5,35,7\n",
			Data{X: []float64{-120.5}, Y: []float64{35}, Obs: []float64{7}, Coords: Geographic}},
		{"long names, case and spaces", " Longitude , LATITUDE ,Z \r\n10, 20 , 30\r\n",
			Data{X: []float64{10}, Y: []float64{20}, Obs: []float64{30}, Coords: Geographic}},
		{"comments and blanks", "# made by hand\n\nx,y,z\n\n# a comment\n1,2,3\n   \n4,5,6\n",
			Data{X: []float64{1, 4}, Y: []float64{2, 5}, Obs: []float64{3, 6}, Coords: Planar}},
		{"bom", "\ufeffx,y,z\n1,2,3\n",
			Data{X: []float64{1}, Y: []float64{2}, Obs: []float64{3}, Coords: Planar}},
		{"locations only", "x,y\n1,2\n3e-2,4E5\n",
			Data{X: []float64{1, 0.03}, Y: []float64{2, 4e5}, Coords: Planar}},
		{"lon,lat only", "lon,lat\n1,2\n",
			Data{X: []float64{1}, Y: []float64{2}, Coords: Geographic}},
		{"header only", "x,y,z\n",
			Data{X: []float64{}, Y: []float64{}, Obs: []float64{}, Coords: Planar}},
		{"no final newline", "x,y,z\n1,2,3",
			Data{X: []float64{1}, Y: []float64{2}, Obs: []float64{3}, Coords: Planar}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "data.csv", c.content)
			d, err := ReadCSV(p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.X, c.want.X) || !slices.Equal(d.Y, c.want.Y) || d.Coords != c.want.Coords {
				t.Errorf("got X=%v Y=%v %v, want X=%v Y=%v %v", d.X, d.Y, d.Coords, c.want.X, c.want.Y, c.want.Coords)
			}
			if (d.Obs == nil) != (c.want.Obs == nil) || !slices.Equal(d.Obs, c.want.Obs) {
				t.Errorf("got Obs=%#v, want %#v", d.Obs, c.want.Obs)
			}
			if d.Len() != len(c.want.X) {
				t.Errorf("Len=%d want %d", d.Len(), len(c.want.X))
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		name    string
		content string
		line    int
		msg     string
	}{
		{"wrong field count", "x,y,z\n1,2,3\n1,2\n", 3, "expected 3 fields, got 2"},
		{"too many fields", "x,y\n1,2,3\n", 2, "expected 2 fields, got 3"},
		{"+inf", "x,y,z\ninf,2,3\n", 2, "x is +Inf"},
		{"-inf", "lon,lat,z\n1,-Infinity,3\n", 2, "lat is -Inf"},
		{"malformed", "x,y,z\n1,2,3\n1,abc,3\n", 3, `y: cannot parse "abc" as a number`},
		{"out of range", "x,y,z\n1,2,1e400\n", 2, `z value "1e400" is out of range`},
		{"unknown header", "a,b,c\n1,2,3\n", 1,
			`header "a,b,c": no coordinate columns (x,y; lon,lat or longitude,latitude; easting,northing; coords.x1,coords.x2): name them with --coords X,Y`},
		{"headerless numbers", "\n1,2,3\n", 2,
			`no header (the first line is numbers): give the columns by number, e.g. --coords 1,2 --z 3`},
		{"empty", "# only a comment\n\n", 0, `empty file: expected a header such as "x,y,z"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "data.csv", c.content)
			d, err := ReadCSV(p)
			if err == nil {
				t.Fatalf("no error, got %+v", d)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not an *InputError", err, err)
			}
			if ie.File != p || ie.Line != c.line || ie.Msg != c.msg {
				t.Errorf("got %q:%d %q, want %q:%d %q", ie.File, ie.Line, ie.Msg, p, c.line, c.msg)
			}
		})
	}
}

func TestReadCSVMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.csv")
	_, err := ReadCSV(p)
	want := p + ": cannot open: no such file or directory"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error does not wrap fs.ErrNotExist")
	}
}

func TestInputErrorString(t *testing.T) {
	cases := []struct {
		e    InputError
		want string
	}{
		{InputError{File: "data.csv", Line: 17, Msg: "expected 3 fields, got 2"}, "data.csv:17: expected 3 fields, got 2"},
		{InputError{File: "data.csv", Line: 5, Msg: "z is NaN"}, "data.csv:5: z is NaN"},
		{InputError{File: "obs.txt", Msg: "2 observations but loc.txt has 3 locations"}, "obs.txt: 2 observations but loc.txt has 3 locations"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q want %q", got, c.want)
		}
	}
}

func TestReadPair(t *testing.T) {
	cases := []struct {
		name     string
		loc, obs string
		want     Data
	}{
		{"comma", "0.1,0.2\n0.3,0.4\n", "1.5\n-2\n",
			Data{X: []float64{0.1, 0.3}, Y: []float64{0.2, 0.4}, Obs: []float64{1.5, -2}}},
		{"comma and spaces", " 0.1 , 0.2\r\n0.3,0.4\r\n", "1.5\r\n-2\r\n",
			Data{X: []float64{0.1, 0.3}, Y: []float64{0.2, 0.4}, Obs: []float64{1.5, -2}}},
		{"whitespace", "0.1 0.2\n0.3\t 0.4\n\n", "\n1.5\n  -2  \n",
			Data{X: []float64{0.1, 0.3}, Y: []float64{0.2, 0.4}, Obs: []float64{1.5, -2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := ReadPair(writeFile(t, dir, "loc.txt", c.loc), writeFile(t, dir, "obs.txt", c.obs))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.X, c.want.X) || !slices.Equal(d.Y, c.want.Y) || !slices.Equal(d.Obs, c.want.Obs) || d.Coords != Planar {
				t.Errorf("got %+v, want %+v", d, c.want)
			}
		})
	}
}

func TestReadPairErrors(t *testing.T) {
	cases := []struct {
		name     string
		loc, obs string
		file     string // "loc" or "obs": the file the error names
		line     int
		msg      string // LOC stands for the locations file's path

	}{
		{"count mismatch", "1,2\n3,4\n5,6\n", "1\n2\n", "obs", 0, "2 observations but LOC has 3 locations"},
		{"more observations", "1,2\n", "1\n2\n", "obs", 0, "2 observations but LOC has 1 locations"},
		{"loc fields", "1,2\n3\n", "1\n2\n", "loc", 2, "expected 2 fields, got 1"},
		{"loc three columns", "1 2 3\n", "1\n", "loc", 1, "expected 2 fields, got 3"},
		{"obs fields", "1,2\n", "1 2\n", "obs", 1, "expected 1 fields, got 2"},
		{"loc nan", "1,2\nNaN,3\n", "1\n2\n", "loc", 2, "x is NaN"},
		{"obs inf", "1,2\n", "\n-inf\n", "obs", 2, "z is -Inf"},
		{"obs malformed", "1,2\n", "1..2\n", "obs", 1, `z: cannot parse "1..2" as a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			loc := writeFile(t, dir, "loc.txt", c.loc)
			obs := writeFile(t, dir, "obs.txt", c.obs)
			_, err := ReadPair(loc, obs)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			file := obs
			if c.file == "loc" {
				file = loc
			}
			msg := strings.ReplaceAll(c.msg, "LOC", loc)
			if ie.File != file || ie.Line != c.line || ie.Msg != msg {
				t.Errorf("got %q:%d %q, want %q:%d %q", ie.File, ie.Line, ie.Msg, file, c.line, msg)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		dir := t.TempDir()
		loc := writeFile(t, dir, "loc.txt", "1,2\n")
		obs := filepath.Join(dir, "obs.txt")
		_, err := ReadPair(loc, obs)
		if want := obs + ": cannot open: no such file or directory"; err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	})
}

func TestReadCSVFullPrecision(t *testing.T) {
	// Values that need all 17 significant digits read back exactly.
	p := writeFile(t, t.TempDir(), "data.csv", "x,y,z\n0.1,0.30000000000000004,5e-324\n")
	d, err := ReadCSV(p)
	if err != nil {
		t.Fatal(err)
	}
	if d.X[0] != 0.1 || math.Float64bits(d.Y[0]) != math.Float64bits(0.3)+1 || d.Obs[0] != math.SmallestNonzeroFloat64 {
		t.Errorf("got %v %v %v", d.X[0], d.Y[0], d.Obs[0])
	}
}

// TestReadLocations: the z column of a locations file is not read (NaN,
// empty or text there is fine), but its field must be there.
func TestReadLocations(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "at.csv", "x,y,z\n0.1,0.2,NaN\n0.3,0.4,\n0.5,0.6,n/a\n")
	d, err := ReadLocations(p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Obs != nil || !slices.Equal(d.X, []float64{0.1, 0.3, 0.5}) || !slices.Equal(d.Y, []float64{0.2, 0.4, 0.6}) {
		t.Fatalf("%+v", d)
	}
	if d, err := ReadCSV(p); err != nil || d.Len() != 0 || d.Dropped != 3 {
		t.Fatalf("ReadCSV kept a missing observation: %v %+v", err, d)
	}
	for _, c := range []struct{ content, want string }{
		{"x,y,z\n0.1,0.2\n", "at.csv:2: expected 3 fields, got 2"},
		{"x,y,z\nNaN,0.2,1\n", `at.csv:2: x is missing ("NaN"): every prediction location needs its coordinates and covariates`},
		{"lon,lat\n1,2\n3,x\n", `at.csv:3: lat: cannot parse "x"`},
	} {
		p := writeFile(t, dir, "at.csv", c.content)
		if _, err := ReadLocations(p); err == nil || err.Error() != c.want && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.content, err, c.want)
		}
	}
	d, err = ReadLocations(writeFile(t, dir, "ll.csv", "lon,lat\n10,20\n"))
	if err != nil || d.Coords != Geographic || d.Len() != 1 {
		t.Fatalf("%v %+v", err, d)
	}
}
