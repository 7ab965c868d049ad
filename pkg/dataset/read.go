package dataset

import (
	"bufio"
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

// acceptedHeaders lists the headers ReadCSV accepts, for its error message.
const acceptedHeaders = `"x,y,z", "lon,lat,z", "longitude,latitude,z", "x,y", "lon,lat", "longitude,latitude"`

// lookupHeader returns the metric of a normalised (lower-case, no spaces)
// CSV header and whether it has an observation column; ok is false for an
// unknown header.
func lookupHeader(h string) (c Coords, obs, ok bool) {
	switch h {
	case "x,y,z":
		return Planar, true, true
	case "lon,lat,z", "longitude,latitude,z":
		return Geographic, true, true
	case "x,y":
		return Planar, false, true
	case "lon,lat", "longitude,latitude":
		return Geographic, false, true
	}
	return Planar, false, false
}

// lineReader yields the non-blank, non-comment lines of a file with their
// 1-based line numbers.
type lineReader struct {
	file string
	sc   *bufio.Scanner
	line int
}

func openLines(path string) (*lineReader, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = "cannot open: " + pe.Err.Error()
		}
		return nil, nil, &InputError{File: path, Msg: msg, Err: err}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	return &lineReader{file: path, sc: sc}, f, nil
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
	v, err := strconv.ParseFloat(field, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, r.errorf(r.line, "%s value %q is out of range", name, field)
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

// ReadCSV reads a CSV file with a header line.
//
// The header is "x,y,z" (planar), "lon,lat,z" or "longitude,latitude,z"
// (geographic); names are case-insensitive and surrounding spaces are
// ignored. A header without z ("x,y", "lon,lat", "longitude,latitude") gives
// locations only, with Obs nil (prediction locations). Blank lines and lines
// starting with '#' are skipped anywhere in the file. Values are parsed with
// strconv.ParseFloat; NaN, ±Inf, unparsable values, a wrong number of fields
// and an unknown header are *InputError values naming the line. A file with
// a header and no rows gives an empty Data; Validate rejects it.
func ReadCSV(path string) (*Data, error) { return readCSV(path, false) }

// ReadLocations reads the locations of a CSV file as ReadCSV does, with
// Obs nil: a z column, if the header has one, is not read at all (so NaN
// or an empty value there is fine), but its field must be on every row.
func ReadLocations(path string) (*Data, error) { return readCSV(path, true) }

func readCSV(path string, skipObs bool) (*Data, error) {
	r, f, err := openLines(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	head, err := r.next()
	if err == io.EOF {
		return nil, &InputError{File: path, Msg: `empty file: expected a header such as "x,y,z"`}
	}
	if err != nil {
		return nil, err
	}
	fields := strings.Split(head, ",")
	for i := range fields {
		fields[i] = strings.ToLower(strings.TrimSpace(fields[i]))
	}
	norm := strings.Join(fields, ",")
	coords, hasObs, ok := lookupHeader(norm)
	base := len(fields) // the coordinate (and z) columns; named covariates follow
	for _, k := range []int{3, 2} {
		if ok || len(fields) <= k {
			continue
		}
		if coords, hasObs, ok = lookupHeader(strings.Join(fields[:k], ",")); ok {
			base = k
		}
	}
	if !ok {
		more := ""
		if len(fields) > 3 {
			more = ", optionally followed by named covariate columns"
		}
		return nil, r.errorf(r.line, "unknown header %q: want one of %s%s", head, acceptedHeaders, more)
	}
	d := &Data{Coords: coords, X: []float64{}, Y: []float64{}}
	seen := map[string]bool{}
	for _, name := range fields[base:] {
		switch {
		case name == "":
			return nil, r.errorf(r.line, "header %q: a covariate column has no name", head)
		case seen[name] || name == "z" || slices.Contains(fields[:2], name):
			return nil, r.errorf(r.line, "header %q: column %q is given twice or is no covariate name", head, name)
		}
		seen[name] = true
		d.Columns = append(d.Columns, Column{Name: name, Values: []float64{}})
	}
	cols := len(fields)
	obsCol := hasObs // the file has a z column (third)
	if skipObs {
		hasObs = false
	}
	if hasObs {
		d.Obs = []float64{}
	}

	for {
		line, err := r.next()
		if err == io.EOF {
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		parts := strings.Split(line, ",")
		if len(parts) != cols {
			return nil, r.errorf(r.line, "expected %d fields, got %d", cols, len(parts))
		}
		var v [3]float64
		for j, p := range parts {
			if j == 2 && obsCol && !hasObs {
				continue // the z column, not read
			}
			x, err := r.parseValue(strings.TrimSpace(p), fields[j])
			if err != nil {
				return nil, err
			}
			if j >= base {
				c := &d.Columns[j-base]
				c.Values = append(c.Values, x)
				continue
			}
			v[j] = x
		}
		d.X = append(d.X, v[0])
		d.Y = append(d.Y, v[1])
		if hasObs {
			d.Obs = append(d.Obs, v[2])
		}
	}
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
func readColumns(path string, names []string) ([][]float64, error) {
	r, f, err := openLines(path)
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
func ReadPair(locPath, obsPath string) (*Data, error) {
	loc, err := readColumns(locPath, []string{"x", "y"})
	if err != nil {
		return nil, err
	}
	obs, err := readColumns(obsPath, []string{"z"})
	if err != nil {
		return nil, err
	}
	if len(obs[0]) != len(loc[0]) {
		return nil, &InputError{File: obsPath, Msg: fmt.Sprintf(
			"%d observations but %s has %d locations", len(obs[0]), locPath, len(loc[0]))}
	}
	return &Data{X: loc[0], Y: loc[1], Obs: obs[0], Coords: Planar}, nil
}
