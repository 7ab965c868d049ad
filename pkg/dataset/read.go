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

// acceptedHeaders lists the headers ReadCSV accepts, for its error message.
const acceptedHeaders = `a coordinate pair x,y (planar) or lon,lat (also long, lng, longitude, latitude: geographic) in any column, and the observation z, value or obs, e.g. "x,y,z", "lat,lon,z", "id,y,x,value"; optional t (time), a third coordinate (depth, height, elevation), z1,z2 (bivariate) and named covariate columns, e.g. "x,y,z,dist,elev"; separated by commas, semicolons, tabs or spaces`

// Column roles of a CSV header.
const (
	roleObs    = iota // the observation
	roleZ             // the third spatial coordinate
	roleT             // the time
	roleSkip          // read as nothing (the observation of ReadLocations)
	roleObs2          // the second observed variable (bivariate data)
	roleCov           // a named covariate (Data.Columns), for a mean model
	roleX             // x or longitude
	roleY             // y or latitude
	roleIgnore        // a text column (row names, id, name, station, site, label): not read
)

// Names of the coordinate columns and their metric.
var (
	xNames = map[string]Coords{"x": Planar, "lon": Geographic, "long": Geographic, "lng": Geographic, "longitude": Geographic}
	yNames = map[string]Coords{"y": Planar, "lat": Geographic, "latitude": Geographic}
	// ignoredNames are the columns that are not read, whatever they hold:
	// identifiers and names of the locations.
	ignoredNames = map[string]bool{"id": true, "name": true, "station": true, "site": true, "label": true}
)

// header is the meaning of a CSV header: the metric of its coordinates
// and the role of each column.
type header struct {
	coords Coords
	roles  []int // roles[j] for column j
	obs    bool  // a column is the observation
}

// coordPair returns the columns of the coordinate pair of a header of kind
// c (the first x-like and the first y-like name of that kind), ok false
// when the header has no such pair.
func coordPair(fields []string, c Coords) (ix, iy int, ok bool) {
	ix, iy = -1, -1
	for j, f := range fields {
		if k, is := xNames[f]; is && k == c && ix < 0 {
			ix = j
		}
		if k, is := yNames[f]; is && k == c && iy < 0 {
			iy = j
		}
	}
	return ix, iy, ix >= 0 && iy >= 0
}

// lookupHeader returns the meaning of a normalised (lower-case, trimmed,
// unquoted) header, split into fields; ok is false for an unknown header,
// with a reason. locations is set when the observation is not read
// (prediction locations).
//
// The coordinates are a pair of columns, in any place and order: x and y
// (planar), or one of lon, long, lng, longitude and one of lat, latitude
// (geographic). When a header has both pairs, the pair whose first column
// comes first is the coordinates and the other pair is read as covariates.
// A first column with an empty name (R's row names) and columns named id,
// name, station, site or label are not read at all. Each other column is
// one of: "t" or "time", the time of the location; "value" or "obs", the
// observation; "z1" and "z2", the two observations of bivariate data;
// "z", the observation when no column is named value or obs (today's
// "x,y,z" files), else the third coordinate; "depth", "height",
// "elevation" or "elev", the third coordinate (planar only) when a column
// is named value or obs or when no column is an observation (3D
// prediction locations: "x,y,depth"), else a covariate (Data.ZName keeps
// the name: the new locations of 2D data take it as a covariate). Any
// other name is a covariate (Data.Columns: "x,y,z,dist,elev"), when the
// header has an observation column or describes prediction locations (the
// covariates at the new locations); else it is an unknown column. Each
// role, and each covariate name, appears at most once.
func lookupHeader(fields []string, locations bool) (h header, why string, ok bool) {
	if len(fields) < 2 {
		return h, "", false
	}
	px, py, okp := coordPair(fields, Planar)
	gx, gy, okg := coordPair(fields, Geographic)
	ix, iy := px, py
	switch {
	case okp && okg:
		if min(gx, gy) < min(px, py) {
			h.coords, ix, iy = Geographic, gx, gy
		}
	case okg:
		h.coords, ix, iy = Geographic, gx, gy
	case !okp:
		return h, "", false
	}
	h.roles = make([]int, len(fields))
	for j, f := range fields {
		switch {
		case j == ix:
			h.roles[j] = roleX
		case j == iy:
			h.roles[j] = roleY
		case (j == 0 && f == "") || ignoredNames[f]:
			h.roles[j] = roleIgnore
		default:
			h.roles[j] = -1 // decided below
		}
	}
	named, hasObs := false, false
	for j, f := range fields {
		if h.roles[j] != -1 {
			continue
		}
		switch f {
		case "value", "obs":
			named, hasObs = true, true
		case "z", "z1":
			hasObs = true
		}
	}
	seen := map[int]string{}
	covs := map[string]bool{}
	for j, f := range fields {
		if h.roles[j] != -1 {
			continue
		}
		var r int
		switch f {
		case "t", "time":
			r = roleT
		case "value", "obs", "z1":
			r = roleObs
		case "z2":
			r = roleObs2
		case "depth", "height", "elevation", "elev":
			r = roleCov
			if named || (!hasObs && h.coords == Planar) {
				r = roleZ // 3D data, or (no observation column) 3D locations
			}
		case "z":
			r = roleObs
			if named {
				r = roleZ
			}
		default:
			if f == "" {
				return h, "a column has no name", false
			}
			if !hasObs && !locations {
				return h, fmt.Sprintf("unknown column %q", f), false
			}
			r = roleCov
		}
		h.roles[j] = r
		if r == roleCov {
			if covs[f] {
				return h, fmt.Sprintf("column %q is given twice", f), false
			}
			covs[f] = true
			continue
		}
		if prev, dup := seen[r]; dup {
			return h, fmt.Sprintf("columns %q and %q have the same role", prev, f), false
		}
		seen[r] = f
		if r == roleZ && h.coords == Geographic {
			return h, fmt.Sprintf("a third coordinate (%q) needs planar x,y: great-circle distances are 2D", f), false
		}
		h.obs = h.obs || r == roleObs
	}
	if _, two := seen[roleObs2]; two && seen[roleObs] != "z1" {
		return h, "a column z2 needs a column z1 (bivariate data: x,y,z1,z2)", false
	}
	return h, "", true
}

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

// splitLine splits a line into fields on sep (',', ';', '\t', or ' ' for
// runs of spaces and tabs), trims the spaces around each field and
// removes the double quotes around a quoted field ("" inside one is a
// quote; a separator inside one is text).
func splitLine(s string, sep byte) ([]string, error) {
	isSep := func(c byte) bool {
		if sep == ' ' {
			return c == ' ' || c == '\t'
		}
		return c == sep
	}
	if sep == ' ' {
		s = strings.Trim(s, " \t")
	}
	var out []string
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
	var src io.Reader
	var c io.Closer = io.NopCloser(nil)
	if b != nil {
		src = bytes.NewReader(b)
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, OpenError(path, err)
		}
		src, c = f, f
	}
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	return &lineReader{file: path, sc: sc}, c, nil
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
	v, err := strconv.ParseFloat(field, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, r.errorf(r.line, "%s value %q is out of range", name, field)
		}
		if c := strings.Replace(field, ",", ".", 1); c != field {
			if _, e := strconv.ParseFloat(c, 64); e == nil {
				return 0, r.errorf(r.line, "%s: cannot parse %q as a number (a decimal comma? write %s)", name, field, c)
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

// ReadCSV reads a CSV file with a header line.
//
// The columns are found by name (case-insensitive, surrounding spaces
// ignored), in any order: the coordinates x,y (planar) or lon,lat
// (geographic; also long, lng, longitude and latitude), and the
// observation z, value or obs: "x,y,z", "lat,lon,z", "z,lon,lat" and
// "id,y,x,value" all read. A header without an observation ("x,y",
// "lon,lat") gives locations only, with Obs nil (prediction locations).
//
// More columns may be present, in any order: "t" or "time" (Data.T, for
// space-time kernels), a third coordinate "depth", "height", "elevation"
// or "elev" (Data.Z, 3D Euclidean distance; planar only), and the
// observation "value" or "obs". A column named "z" is the observation
// unless another column is named value or obs, in which case z is the
// third coordinate: "x,y,z" and "x,y,t,z" have the observation in z,
// "x,y,z,value" and "x,y,depth,value" are 3D locations. Bivariate data
// have two observation columns z1 and z2 (Obs and Obs2): "x,y,z1,z2".
// Any other named column is a covariate (Data.Columns) and must hold
// numbers. See lookupHeader for the whole rule.
//
// Text columns: a column named id, name, station, site or label, and a
// first column with an empty name (R's write.csv row names), are not read
// at all, whatever they hold. When the header has one field fewer than
// the rows and the first row starts with a quoted field (R's write.table
// row names), that first field of every row is not read either. A
// non-number in any other column is refused, naming the column and line.
//
// The separator is that of the header line: a tab if it has one, else a
// semicolon, else a comma, else runs of spaces and tabs; every row uses
// it. A field may be in double quotes (a separator inside is text, ""
// is a quote). A byte-order mark and CRLF line ends are fine.
//
// Blank lines and lines starting with '#' are skipped anywhere in the file.
// Values are parsed with strconv.ParseFloat; NaN, ±Inf, unparsable values,
// a wrong number of fields and an unknown header are *InputError values
// naming the line. A file with a header and no rows gives an empty Data;
// Validate rejects it.
//
// A planar x,y header whose values all lie within longitude and latitude
// ranges ([-180, 360] x [-90, 90]) and span more than 1 gets a note in
// Data.Notes suggesting lon,lat.
func ReadCSV(path string) (*Data, error) { return readCSV(path, nil, false) }

// ParseCSV reads b, the content of the file name, as ReadCSV reads a
// file (name is for messages).
func ParseCSV(name string, b []byte) (*Data, error) { return readCSV(name, nonNil(b), false) }

// ParseLocations reads b, the content of the file name, as ReadLocations
// reads a file.
func ParseLocations(name string, b []byte) (*Data, error) { return readCSV(name, nonNil(b), true) }

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// ReadLocations reads the locations of a CSV file as ReadCSV does, with
// Obs nil: the observation column, if the header has one, is not read at
// all (so NaN or an empty value there is fine), but its field must be on
// every row.
func ReadLocations(path string) (*Data, error) { return readCSV(path, nil, true) }

func readCSV(path string, b []byte, skipObs bool) (*Data, error) {
	r, f, err := openLines(path, b)
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
	sep := separator(head)
	fields, err := splitLine(r.raw, sep)
	if err != nil {
		return nil, r.errorf(r.line, "header %q: %v", head, err)
	}
	for i := range fields {
		fields[i] = strings.ToLower(strings.TrimSpace(fields[i]))
	}
	h, why, ok := lookupHeader(fields, skipObs)
	if !ok {
		if why != "" {
			return nil, r.errorf(r.line, "header %q: %s: want %s", head, why, acceptedHeaders)
		}
		return nil, r.errorf(r.line, "unknown header %q: want %s", head, acceptedHeaders)
	}
	d := &Data{Coords: h.coords, X: []float64{}, Y: []float64{}}
	cols := len(fields)
	if skipObs {
		for j, role := range h.roles {
			if role == roleObs || role == roleObs2 {
				h.roles[j] = roleSkip
			}
		}
		h.obs = false
	}
	if h.obs {
		d.Obs = []float64{}
	}
	dst := make([]*[]float64, len(h.roles))
	for j, role := range h.roles {
		switch role {
		case roleX:
			dst[j] = &d.X
		case roleY:
			dst[j] = &d.Y
		case roleObs:
			dst[j] = &d.Obs
		case roleZ:
			d.Z, d.ZName = []float64{}, fields[j]
			dst[j] = &d.Z
		case roleT:
			d.T = []float64{}
			dst[j] = &d.T
		case roleObs2:
			d.Obs2 = []float64{}
			dst[j] = &d.Obs2
		case roleCov:
			d.Columns = append(d.Columns, Column{Name: fields[j], Values: []float64{}})
		}
	}
	// The covariates' destinations, once d.Columns has stopped growing.
	for j, k := 0, 0; j < len(h.roles); j++ {
		if h.roles[j] == roleCov {
			dst[j] = &d.Columns[k].Values
			k++
		}
	}

	rowNames := false // rows have a first field, a row name, that the header lacks
	for first := true; ; first = false {
		line, err := r.next()
		if err == io.EOF {
			d.Notes = lonLatNote(d, fields, h)
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		parts, err := splitLine(r.raw, sep)
		if err != nil {
			return nil, r.errorf(r.line, "%v", err)
		}
		if first && len(parts) == cols+1 && line[0] == '"' {
			rowNames = true
		}
		if rowNames {
			if len(parts) != cols+1 {
				return nil, r.errorf(r.line, "expected %d fields (a row name and %d columns), got %d", cols+1, cols, len(parts))
			}
			parts = parts[1:]
		}
		if len(parts) != cols {
			return nil, r.errorf(r.line, "expected %d fields, got %d", cols, len(parts))
		}
		for j, p := range parts {
			if dst[j] == nil {
				continue
			}
			if h.roles[j] == roleCov {
				if _, err := strconv.ParseFloat(p, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
					return nil, r.errorf(r.line, "column %q: cannot parse %q as a number (a text column is skipped only when named id, name, station, site or label)", fields[j], p)
				}
			}
			v, err := r.parseValue(p, fields[j])
			if err != nil {
				return nil, err
			}
			*dst[j] = append(*dst[j], v)
		}
	}
}

// lonLatNote returns a note suggesting lon,lat when planar data read from
// an x,y header all lie within longitude and latitude ranges and span
// more than 1 (unit-square data are not degrees), else nil.
func lonLatNote(d *Data, fields []string, h header) []string {
	if h.coords != Planar || d.Len() < 2 {
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
