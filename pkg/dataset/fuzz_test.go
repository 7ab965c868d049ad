package dataset

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The fuzz targets of the readers: whatever the bytes of the file, a
// reader returns an error or a valid result, never panics, and its error
// is one line naming the file. Seed corpora: testdata/fuzz/<FuzzName>/
// (where `go test` finds them; each file is one input, in Go's corpus
// encoding). `make test` runs each target for a few seconds.

// checkOneLine fails t unless err is one line that starts with the file.
func checkOneLine(t *testing.T, err error, files ...string) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one line: %q", msg)
	}
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %q (%T) is not an *InputError", msg, err)
	}
	for _, f := range files {
		if strings.HasPrefix(msg, f+":") {
			return
		}
	}
	t.Fatalf("error %q names none of %v", msg, files)
}

// checkData fails t unless d is a consistent result of a reader: columns
// of one length, finite values (only checked columns), a known metric.
func checkData(t *testing.T, d *Data, obs bool) {
	t.Helper()
	if d == nil {
		t.Fatal("nil data without an error")
	}
	n := len(d.X)
	if len(d.Y) != n || (obs && len(d.Obs) != n) || (!obs && d.Obs != nil && len(d.Obs) != n) {
		t.Fatalf("columns of different lengths: %d %d %d", n, len(d.Y), len(d.Obs))
	}
	if d.Coords != Planar && d.Coords != Geographic {
		t.Fatalf("coords %v", d.Coords)
	}
	for _, c := range [][]float64{d.X, d.Y, d.Obs} {
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v read", v)
			}
		}
	}
	// Validate must not panic either, whatever it says.
	_ = Validate(d, 1)
}

// writeFuzz writes b to name in dir (one directory per fuzzing process:
// the inputs of a process run one after the other).
func writeFuzz(t *testing.T, dir, name string, b []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"x,y,z\n0.1,0.2,1\n0.5,0.1,-0.3\n",
		"lon,lat,z\n10,20,1\n",
		"\ufeffX, Y ,Z\r\n1,2,3\r\n",
		"x,y\n1,2\n# comment\n\n3,4\n",
		"x,y,z\n1,2,NaN\n",
		"x,y,z\n1,2\n",
		"a,b\n",
		"",
		"x,y,z\n1e400,0,0\n",
		"longitude,latitude\n-180,90\n",
		"\"\",\"x\",\"y\",\"z\"\n\"1\",0.5,0.25,1.5\n",
		"\"x\" \"y\" \"z\"\n\"1\" 0.5 0.25 1.5\n",
		"lat;lon;z\r\n0,5;1;2\r\n",
		"id\tstation\ty\tx\tvalue\n1\t\"a, b\"\t2\t3\t4\n",
		"site z x y\nA 1 -95.2 29.7\nB 2 -80 40\n",
		"\"\",\"x\",\"y\",\"zinc\",\"om\"\n\"1\",1,2,1022,NA\n",
		"easting,northing,value,elev\n1,2,NA,4\n5,6,7,\n",
		"1 2 3\n4 5 6\n",
		"x;y;z\n0,5;1,5;2\n",
		"coords.x1,coords.x2,precip\n1,2,\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := writeFuzz(t, dir, "in.csv", b)
		d, err := ReadCSV(p)
		if err != nil {
			checkOneLine(t, err, p)
		} else {
			checkData(t, d, d.Obs != nil)
		}
		// In pieces (ParseCSV): the one-pass reader's data or error.
		if pd, perr := parseCSV(p, b, Options{}, 3, 4); fmt.Sprint(perr) != fmt.Sprint(err) || !reflect.DeepEqual(pd, d) {
			t.Fatalf("in pieces: %v, %v; in one pass: %v, %v", pd, perr, d, err)
		}
		// Columns by number and a decimal comma: the same guarantees.
		d, err = ReadCSVWith(p, Options{Coords: "1,2", Z: "3", Decimal: ',', NA: NAError})
		if err != nil {
			checkOneLine(t, err, p)
		} else {
			checkData(t, d, d.Obs != nil)
		}
		d, err = ReadLocations(p)
		if err != nil {
			checkOneLine(t, err, p)
		} else {
			checkData(t, d, false)
			if d.Obs != nil {
				t.Fatal("ReadLocations returned observations")
			}
		}
	})
}

func FuzzReadPair(f *testing.F) {
	for _, s := range [][2]string{
		{"0.1,0.2\n0.5 0.1\n", "1\n-0.3\n"},
		{"1 2\n", "1\n2\n"},
		{"# c\n\n1,2\n", "NaN\n"},
		{"1,2,3\n", "1\n"},
		{"", ""},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, loc, obs []byte) {
		lp := writeFuzz(t, dir, "loc.txt", loc)
		op := writeFuzz(t, dir, "obs.txt", obs)
		d, err := ReadPair(lp, op)
		if err != nil {
			checkOneLine(t, err, lp, op)
			return
		}
		checkData(t, d, true)
	})
}
