package dataset

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestReadCSVShapes reads the same three rows written as real-world CSV
// files keep them (R's write.csv and write.table, spreadsheets' semicolons,
// tabs, aligned columns, any column order, extra columns, CRLF, a
// byte-order mark, quotes) and checks the values read exactly.
func TestReadCSVShapes(t *testing.T) {
	x := []float64{0.5, 1.25, -3}
	y := []float64{0.25, 2, 4.5}
	z := []float64{1.5, -3, 0.125}
	cases := []struct {
		name, content string
		coords        Coords
	}{
		{"plain", "x,y,z\n0.5,0.25,1.5\n1.25,2,-3\n-3,4.5,0.125\n", Planar},
		{"R write.csv: row names and quotes",
			"\"\",\"x\",\"y\",\"z\"\n\"1\",0.5,0.25,1.5\n\"2\",1.25,2,-3\n\"3\",-3,4.5,0.125\n", Planar},
		{"R write.table: space separated, row names the header lacks",
			"\"x\" \"y\" \"z\"\n\"1\" 0.5 0.25 1.5\n\"2\" 1.25 2 -3\n\"3\" -3 4.5 0.125\n", Planar},
		{"semicolons", "x;y;z\n0.5;0.25;1.5\n1.25;2;-3\n-3;4.5;0.125\n", Planar},
		{"tabs", "x\ty\tz\n0.5\t0.25\t1.5\n1.25\t2\t-3\n-3\t4.5\t0.125\n", Planar},
		{"aligned with spaces", "   x     y      z\n 0.5  0.25    1.5\n1.25     2     -3\n  -3   4.5  0.125\n", Planar},
		{"y,x order", "y,x,z\n0.25,0.5,1.5\n2,1.25,-3\n4.5,-3,0.125\n", Planar},
		{"lat,lon order", "lat,lon,z\n0.25,0.5,1.5\n2,1.25,-3\n4.5,-3,0.125\n", Geographic},
		{"observation first, lng and latitude", "value,lng,latitude\n1.5,0.5,0.25\n-3,1.25,2\n0.125,-3,4.5\n", Geographic},
		{"id and quoted station name with a comma",
			"id,station,x,y,z\n7,\"Rue A, nord\",0.5,0.25,1.5\n8,\"B \"\"2\"\"\",1.25,2,-3\n9,C,-3,4.5,0.125\n", Planar},
		{"CRLF and byte-order mark", "\ufeffx,y,z\r\n0.5,0.25,1.5\r\n1.25,2,-3\r\n-3,4.5,0.125\r\n", Planar},
		{"quoted header and values", "\"X\",\"Y\",\"Z\"\n\"0.5\",\"0.25\",\"1.5\"\n1.25,2,-3\n-3,4.5,0.125\n", Planar},
		{"semicolons, quotes, a name column, CRLF",
			"\"name\";\"long\";\"lat\";\"obs\"\r\n\"a\";0.5;0.25;1.5\r\n\"b\";1.25;2;-3\r\n\"c\";-3;4.5;0.125\r\n", Geographic},
		{"tabs with spaces around fields and a covariate", "x\t y\t z\t elev\n0.5 \t0.25\t1.5\t10\n1.25\t2\t-3\t11\n-3\t4.5\t0.125\t12\n", Planar},
		{"a text column, not read", "x,y,z,city\n0.5,0.25,1.5,Paris\n1.25,2,-3,Lyon\n-3,4.5,0.125,\n", Planar},
		{"coordinates last, comments and blanks", "# from a logger\nsite z x y\n\nA 1.5 0.5 0.25\nB -3 1.25 2\n# gap\nC 0.125 -3 4.5\n", Planar},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "data.csv", c.content)
			d, err := ReadCSV(p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.X, x) || !slices.Equal(d.Y, y) || !slices.Equal(d.Obs, z) || d.Coords != c.coords {
				t.Errorf("got X=%v Y=%v Obs=%v %v, want X=%v Y=%v Obs=%v %v", d.X, d.Y, d.Obs, d.Coords, x, y, z, c.coords)
			}
			l, err := ReadLocations(p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l.X, x) || !slices.Equal(l.Y, y) || l.Obs != nil {
				t.Errorf("ReadLocations: got X=%v Y=%v Obs=%v", l.X, l.Y, l.Obs)
			}
		})
	}
}

// TestReadCSVShapeErrors: shapes that stay refused, with the line and a
// message naming the problem.
func TestReadCSVShapeErrors(t *testing.T) {
	cases := []struct {
		name, content string
		line          int
		msg           string // the message starts with it
	}{
		{"decimal commas", "x;y;z\n0,5;0,25;1,5\n", 2, `x: cannot parse "0,5" as a number (a decimal comma? --dec , reads it)`},
		{"x with lat", "x,lat,z\n1,2,3\n", 1, `header "x,lat,z": no coordinate columns (x,y; lon,lat or longitude,latitude; easting,northing; coords.x1,coords.x2): name them with --coords X,Y`},
		{"quote not closed", "x,y,z\n\"0.5,0.25,1.5\n", 2, "field 1: a quote is not closed"},
		{"text after a quote", "x,y,z\n\"0.5\"1,0.25,1.5\n", 2, `field 1: text "1" after the closing quote`},
		{"quote not closed in the header", "\"x,y,z\n", 1, `header "\"x,y,z": field 1: a quote is not closed`},
		{"rows with another separator", "x;y;z\n0.5,0.25,1.5\n", 2, "expected 3 fields, got 1"},
		{"row names on some rows only", "\"x\" \"y\" \"z\"\n\"1\" 0.5 0.25 1.5\n1.25 2 -3\n", 3,
			"expected 4 fields (a row name and 3 columns), got 3"},
		{"empty column name not first", "x,,y,z\n1,2,3,4\n", 1, `header "x,,y,z": a column has no name`},
		{"text observation", "id,x,y,z\nA,1,2,high\n", 2, `z: cannot parse "high" as a number`},
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
			if ie.File != p || ie.Line != c.line || !strings.HasPrefix(ie.Msg, c.msg) || strings.ContainsAny(ie.Msg, "\r\n") {
				t.Errorf("got %d %q, want %d %q", ie.Line, ie.Msg, c.line, c.msg)
			}
		})
	}
}

// TestReadCSVLonLatNote: planar x,y values within longitude and latitude
// ranges that span more than 1 get a note; unit-square data, values
// outside the ranges and lon,lat headers do not.
func TestReadCSVLonLatNote(t *testing.T) {
	for _, c := range []struct {
		content string
		note    bool
	}{
		{"x,y,z\n-95.2,29.7,1\n-80.1,40.3,2\n", true},
		{"y,x,z\n29.7,-95.2,1\n40.3,-80.1,2\n", true},
		{"x,y,z\n0.1,0.2,1\n0.9,0.7,2\n", false},
		{"x,y,z\n181000,333000,1\n181500,333600,2\n", false},
		{"x,y,z\n10,95,1\n20,30,2\n", false},
		{"lon,lat,z\n-95.2,29.7,1\n-80.1,40.3,2\n", false},
		{"x,y,z\n-95.2,29.7,1\n", false},
	} {
		d, err := ReadCSV(writeFile(t, t.TempDir(), "d.csv", c.content))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(d.Notes) > 0; got != c.note {
			t.Errorf("%q: notes %q, want a note: %v", c.content, d.Notes, c.note)
		}
		for _, n := range d.Notes {
			if !strings.Contains(n, "lon,lat") || strings.ContainsAny(n, "\r\n") {
				t.Errorf("note %q", n)
			}
		}
	}
}
