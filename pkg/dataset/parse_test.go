package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// csvRows returns a table of n rows under header, row i made by row(i)
// (one line each, without its end), lines ending in end.
func csvRows(header string, n int, end string, row func(i int) string) string {
	var b strings.Builder
	b.WriteString(header + end)
	for i := range n {
		b.WriteString(row(i) + end)
	}
	return b.String()
}

// TestParseCSV checks ParseCSV in pieces against the one-pass reader
// (ReadCSVFrom): the same Data (columns, notes, dropped rows) or the same
// error (file, line, message), for files cut into 2 to 7 pieces of as
// few as 1 byte: separators, CRLF, comments and blank lines, missing
// values dropped or refused, row names, a headerless file, covariates, a
// decimal comma, errors in several pieces (the first is reported), a
// line too long, a last line without its end, and files whose first
// piece holds no header or no row. The values of the plain table are
// also checked against strconv.ParseFloat of its fields.
func TestParseCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vals := make([][3]float64, 300)
	for i := range vals {
		vals[i] = [3]float64{rng.Float64(), rng.NormFloat64() * 1e-7, rng.NormFloat64() * 1e5}
	}
	num := func(i, j int) string { return strconv.FormatFloat(vals[i][j], 'g', -1, 64) }
	plain := func(i int) string { return num(i, 0) + "," + num(i, 1) + "," + num(i, 2) }
	bad := func(at ...int) func(int) string {
		return func(i int) string {
			for _, a := range at {
				if i == a {
					return num(i, 0) + ",abc," + num(i, 2)
				}
			}
			return plain(i)
		}
	}
	type tc struct {
		name, text string
		opt        Options
	}
	cases := []tc{
		{"plain", csvRows("x,y,z", 300, "\n", plain), Options{}},
		{"crlf and bom", "\ufeff" + csvRows("x,y,z", 300, "\r\n", plain), Options{}},
		{"no last line end", strings.TrimSuffix(csvRows("x,y,z", 300, "\n", plain), "\n"), Options{}},
		{"comments and blanks", csvRows("# made by a test\n\nx,y,z", 300, "\n", func(i int) string {
			if i%7 == 3 {
				return "# a comment\n\n  " + plain(i)
			}
			return plain(i)
		}), Options{}},
		{"missing dropped", csvRows("x,y,z,elev", 300, "\n", func(i int) string {
			switch i % 11 {
			case 4:
				return num(i, 0) + ",NA," + num(i, 2) + ",1"
			case 9:
				return num(i, 0) + "," + num(i, 1) + ",,2"
			}
			return plain(i) + ",3"
		}), Options{}},
		{"missing refused", csvRows("x,y,z", 300, "\n", func(i int) string {
			if i == 250 {
				return num(i, 0) + ",null," + num(i, 2)
			}
			return plain(i)
		}), Options{NA: NAError}},
		{"row names", csvRows(`"","x","y","z"`, 300, "\n", func(i int) string { return fmt.Sprintf(`"%d",%s`, i+1, plain(i)) }), Options{}},
		{"row names, a row without", csvRows(`"","x","y","z"`, 300, "\n", func(i int) string {
			if i == 200 {
				return plain(i)
			}
			return fmt.Sprintf(`"%d",%s`, i+1, plain(i))
		}), Options{}},
		{"headerless", csvRows(plain(0), 299, "\n", func(i int) string { return plain(i + 1) }), Options{Coords: "1,2", Z: "3"}},
		{"tabs and quotes", csvRows("id\tstation\tx\ty\tvalue", 300, "\n", func(i int) string {
			return fmt.Sprintf("%d\t\"a, \"\"b\"\"\"\t%s\t%s\t%s", i, num(i, 0), num(i, 1), num(i, 2))
		}), Options{}},
		{"spaces", csvRows("x y z", 300, "\n", func(i int) string { return num(i, 0) + "  " + num(i, 1) + "\t" + num(i, 2) }), Options{}},
		{"covariates", csvRows("x,y,z,elev,dist", 300, "\n", func(i int) string { return plain(i) + "," + num(i, 2) + "," + num(i, 1) }),
			Options{Covariates: []string{"elev", "dist"}}},
		{"decimal comma", csvRows("x;y;z", 300, "\n", func(i int) string {
			return strings.ReplaceAll(num(i, 0), ".", ",") + ";" + strings.ReplaceAll(num(i, 1), ".", ",") + ";" + strings.ReplaceAll(num(i, 2), ".", ",")
		}), Options{Decimal: ','}},
		{"an error", csvRows("x,y,z", 300, "\n", bad(150)), Options{}},
		{"errors in several pieces", csvRows("x,y,z", 300, "\n", bad(40, 160, 290)), Options{}},
		{"an error in the first row", csvRows("x,y,z", 300, "\n", bad(0)), Options{}},
		{"wrong field count", csvRows("x,y,z", 300, "\n", func(i int) string {
			if i == 222 {
				return num(i, 0) + "," + num(i, 1)
			}
			return plain(i)
		}), Options{}},
		{"a line too long", csvRows("x,y,z", 300, "\n", func(i int) string {
			if i == 180 {
				return plain(i) + strings.Repeat(" ", maxLine)
			}
			return plain(i)
		}), Options{}},
		{"a long preamble", strings.Repeat("# comment\n", 200) + csvRows("x,y,z", 300, "\n", plain), Options{}},
		{"header only", "x,y,z\n" + strings.Repeat("\n", 500), Options{}},
		{"empty", strings.Repeat("# nothing\n", 300), Options{}},
	}
	for _, c := range cases {
		b := []byte(c.text)
		want, wantErr := ReadCSVFrom("data.csv", bytes.NewReader(b), c.opt)
		if c.name == "plain" {
			for i, row := range strings.Split(strings.TrimSpace(c.text), "\n")[1:] {
				for j, f := range strings.Split(row, ",") {
					v, err := strconv.ParseFloat(f, 64)
					col := [][]float64{want.X, want.Y, want.Obs}[j]
					if err != nil || col[i] != v {
						t.Fatalf("plain: row %d column %d read %v, strconv %v (%v)", i, j, col[i], v, err)
					}
				}
			}
		}
		for _, w := range []int{2, 3, 7} {
			for _, least := range []int{1, 50, 2000} {
				got, err := parseCSV("data.csv", b, c.opt, w, least)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("%s, %d pieces of %d bytes: error %v, want %v", c.name, w, least, err, wantErr)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %d pieces of %d bytes: the data differ from the one-pass reader's", c.name, w, least)
				}
			}
		}
	}
}

// TestCutLines: as many pieces as the workers and the least size allow,
// each cut at the first line end after an equal share of the bytes,
// none empty.
func TestCutLines(t *testing.T) {
	for _, c := range []struct {
		text          string
		workers, size int
		want          []int
	}{
		{"", 4, 1, []int{0, 0}},
		{"abc", 4, 1, []int{0, 3}},
		{"a\nb\nc\nd\n", 2, 1, []int{0, 6, 8}},
		{"a\nb\nc\nd\n", 4, 1, []int{0, 4, 6, 8}},
		{"a\nb\nc\nd\n", 4, 3, []int{0, 6, 8}},
		{"aaaa\nb\n", 3, 1, []int{0, 5, 7}},
		{"aaaaaaa\nb", 3, 1, []int{0, 8, 9}},
		{"a\nb\nc\nd\n", 1, 1, []int{0, 8}},
	} {
		if got := cutLines([]byte(c.text), c.workers, c.size); !reflect.DeepEqual(got, c.want) {
			t.Errorf("cutLines(%q, %d, %d) = %v, want %v", c.text, c.workers, c.size, got, c.want)
		}
	}
}
