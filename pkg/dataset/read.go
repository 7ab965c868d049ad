package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// maxLine is the longest line the readers accept, in bytes.
const maxLine = 1 << 20

// separator returns the field separator of a header line: a tab if it has
// one, else a semicolon, else a comma, else ' ' (runs of white space).
func separator(head string) byte {
	for _, c := range []byte{'\t', ';', ','} {
		if strings.IndexByte(head, c) >= 0 {
			return c
		}
	}
	return ' '
}

// splitLine appends to out the fields of a line split on sep (',', ';',
// '\t', or ' ' for runs of spaces and tabs), each with the spaces
// around it trimmed and the double quotes around a quoted field removed
// ("" inside one is a quote; a separator inside one is text).
func splitLine(out []string, s string, sep byte) ([]string, error) {
	isSep := func(c byte) bool {
		if sep == ' ' {
			return c == ' ' || c == '\t'
		}
		return c == sep
	}
	if sep == ' ' {
		s = strings.Trim(s, " \t")
	}
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') && !isSep(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '"' {
			var b strings.Builder
			i++
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, fmt.Errorf("field %d: a quote is not closed", len(out)+1)
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			start := i
			for i < len(s) && !isSep(s[i]) {
				i++
			}
			if rest := strings.TrimSpace(s[start:i]); rest != "" {
				return nil, fmt.Errorf("field %d: text %q after the closing quote", len(out)+1, rest)
			}
			out = append(out, b.String())
		} else {
			start := i
			for i < len(s) && !isSep(s[i]) {
				i++
			}
			out = append(out, strings.TrimSpace(s[start:i]))
		}
		if i >= len(s) {
			return out, nil
		}
		if sep == ' ' {
			for i < len(s) && isSep(s[i]) {
				i++
			}
		} else {
			i++
		}
	}
}

// lineReader yields the non-blank, non-comment lines of a file with their
// 1-based line numbers.
type lineReader struct {
	file string
	sc   *bufio.Scanner
	line int
	raw  string // the last line returned by next, before trimming
}

// openLines opens the lines of the file at path, or, when b is not nil,
// of b, the file's content read already (named path in messages).
func openLines(path string, b []byte) (*lineReader, io.Closer, error) {
	if b != nil {
		return newLines(path, bytes.NewReader(b)), io.NopCloser(nil), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, OpenError(path, err)
	}
	return newLines(path, f), f, nil
}

// OpenError is the readers' error for a file that cannot be opened or
// read (err, from the file system): "PATH: cannot open: no such file or
// directory".
func OpenError(path string, err error) error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = "cannot open: " + pe.Err.Error()
	}
	return &InputError{File: path, Msg: msg, Err: err}
}

// newLines returns a lineReader of rd, whose messages name the file name.
func newLines(name string, rd io.Reader) *lineReader {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	return &lineReader{file: name, sc: sc}
}

// next returns the next line that is neither blank nor a '#' comment, with
// surrounding white space (and a leading byte-order mark) removed. At the end
// of the file it returns io.EOF.
func (r *lineReader) next() (string, error) {
	for r.sc.Scan() {
		r.line++
		s := r.sc.Text()
		if r.line == 1 {
			s = strings.TrimPrefix(s, "\ufeff")
		}
		r.raw = s
		s = strings.TrimSpace(s)
		if s == "" || s[0] == '#' {
			continue
		}
		return s, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return "", r.errorf(r.line+1, "line longer than %d bytes", maxLine)
		}
		return "", &InputError{File: r.file, Msg: "read error: " + err.Error(), Err: err}
	}
	return "", io.EOF
}

func (r *lineReader) errorf(line int, format string, args ...any) *InputError {
	return &InputError{File: r.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// parseValue parses one field named name on the current line; NaN, ±Inf and
// out-of-range values are errors.
func (r *lineReader) parseValue(field, name string) (float64, error) {
	return r.parseDecimal(field, name, '.')
}

// parseDecimal is parseValue with the decimal mark dec ('.' or ','; with
// ',' a field's comma is read as the decimal point).
func (r *lineReader) parseDecimal(field, name string, dec byte) (float64, error) {
	s := field
	if dec == ',' {
		s = strings.Replace(field, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, r.errorf(r.line, "%s value %q is out of range", name, field)
		}
		if c := strings.Replace(field, ",", ".", 1); dec != ',' && c != field {
			if _, e := strconv.ParseFloat(c, 64); e == nil {
				return 0, r.errorf(r.line, "%s: cannot parse %q as a number (a decimal comma? --dec , reads it)", name, field)
			}
		}
		return 0, r.errorf(r.line, "%s: cannot parse %q as a number", name, field)
	}
	switch {
	case math.IsNaN(v):
		return 0, r.errorf(r.line, "%s is NaN", name)
	case math.IsInf(v, 1):
		return 0, r.errorf(r.line, "%s is +Inf", name)
	case math.IsInf(v, -1):
		return 0, r.errorf(r.line, "%s is -Inf", name)
	}
	return v, nil
}

// lonLatNote returns a note suggesting lon,lat when planar data read from
// an x,y header all lie within longitude and latitude ranges and span
// more than 1 (unit-square data are not degrees), else nil.
func lonLatNote(d *Data) []string {
	if d.Coords != Planar || d.Len() < 2 {
		return nil
	}
	x0, x1 := slices.Min(d.X), slices.Max(d.X)
	y0, y1 := slices.Min(d.Y), slices.Max(d.Y)
	if x0 < -180 || x1 > 360 || y0 < -90 || y1 > 90 || max(x1-x0, y1-y0) <= 1 {
		return nil
	}
	return []string{fmt.Sprintf("x in [%g, %g] and y in [%g, %g] lie within longitude and latitude ranges: if they are degrees, name the columns lon,lat for great-circle distances", x0, x1, y0, y1)}
}

// splitFields splits a headerless line on commas if it has any, otherwise
// on white space.
func splitFields(line string) []string {
	if strings.Contains(line, ",") {
		parts := strings.Split(line, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	return strings.Fields(line)
}

// readColumns reads a headerless file of lines with exactly len(names)
// fields each and returns its columns.
func readColumns(path string, b []byte, names []string) ([][]float64, error) {
	r, f, err := openLines(path, b)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cols := make([][]float64, len(names))
	for i := range cols {
		cols[i] = []float64{}
	}
	for {
		line, err := r.next()
		if err == io.EOF {
			return cols, nil
		}
		if err != nil {
			return nil, err
		}
		parts := splitFields(line)
		if len(parts) != len(names) {
			return nil, r.errorf(r.line, "expected %d fields, got %d", len(names), len(parts))
		}
		for j, p := range parts {
			v, err := r.parseValue(p, names[j])
			if err != nil {
				return nil, err
			}
			cols[j] = append(cols[j], v)
		}
	}
}

// ReadPair reads ExaGeoStat's headerless pair of files: locPath holds one
// location "x,y" per line (comma or white-space separated) and obsPath one
// observation per line. Blank lines and lines starting with '#' are skipped.
// The number of locations and observations must match. The result is
// Planar; set Coords to Geographic for longitude, latitude files.
func ReadPair(locPath, obsPath string) (*Data, error) { return readPair(locPath, nil, obsPath, nil) }

// ParsePair reads the pair's contents loc and obs (read already from the
// files locPath and obsPath) as ReadPair reads the files.
func ParsePair(locPath string, loc []byte, obsPath string, obs []byte) (*Data, error) {
	return readPair(locPath, nonNil(loc), obsPath, nonNil(obs))
}

// nonNil is b, or an empty slice (the content of an empty file).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func readPair(locPath string, locB []byte, obsPath string, obsB []byte) (*Data, error) {
	loc, err := readColumns(locPath, locB, []string{"x", "y"})
	if err != nil {
		return nil, err
	}
	obs, err := readColumns(obsPath, obsB, []string{"z"})
	if err != nil {
		return nil, err
	}
	if len(obs[0]) != len(loc[0]) {
		return nil, &InputError{File: obsPath, Msg: fmt.Sprintf(
			"%d observations but %s has %d locations", len(obs[0]), locPath, len(loc[0]))}
	}
	return &Data{X: loc[0], Y: loc[1], Obs: obs[0], Coords: Planar}, nil
}
