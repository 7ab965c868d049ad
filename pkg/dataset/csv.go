package dataset

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadCSV reads a CSV file with a header line, every role guessed from
// the header's names (ReadCSVWith with the zero Options).
func ReadCSV(path string) (*Data, error) { return ReadCSVWith(path, Options{}) }

// ReadLocations reads the locations of a CSV file as ReadCSV does, with
// Obs nil: an observation column, if the file has one, is not read at all
// (anything may be in it), but its field must be on every row.
func ReadLocations(path string) (*Data, error) { return ReadCSVWith(path, Options{Locations: true}) }

// ReadCSVWith reads the CSV file at path as ReadCSVFrom does.
func ReadCSVWith(path string, opt Options) (*Data, error) {
	r, f, err := openLines(path, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCSV(r, opt)
}

// ReadCSVFrom reads a CSV table from rd; name is the file's name in the
// messages.
//
// Columns by role. Each column is read into one role, or not read at all:
//
//   - the coordinates: opt.Coords ("X,Y", or "X,Y,Z" for 3D Euclidean
//     locations), else the first pair of x,y (planar), lon,lat (also
//     long, lng, longitude, latitude: geographic), easting,northing
//     (planar) or coords.x1,coords.x2 (planar); a third coordinate is
//     never guessed;
//   - the observation: opt.Z (two columns for bivariate data), else z1
//     and z2 (bivariate), else the first of value, obs and z, else the
//     one column named as observations usually are (precip, rain, temp,
//     zinc, ... : usualObsNames), with a note; several such columns, or
//     none, are refused, naming --z;
//   - the time: opt.Time, else a column t or time;
//   - the covariates: the columns of opt.Covariates (the mean model's),
//     in Data.Columns under the names given.
//
// Every other column is not read, whatever it holds (text, NA), and one
// note (Data.Notes) lists them. A column is named by its header name
// (case-insensitive) or its number from 1. A file whose first line is all
// numbers has no header: its columns are given by number (--coords 1,2
// --z 3), and leaving them out is refused, naming the flags.
//
// Missing values: NA, NaN, N/A, null (any case) or an empty field in a
// column that is read drops the row (opt.NA drop, the default; one note
// says how many rows and which columns) or refuses the file (opt.NA
// error, naming the line and the column). Prediction locations
// (opt.Locations) refuse a missing coordinate or covariate by line.
//
// The separator is that of the header line: a tab if it has one, else a
// semicolon, else a comma (not with opt.Decimal ','), else runs of spaces
// and tabs; every row uses it. A field may be in double quotes (a
// separator inside is text, "" is a quote). A byte-order mark and CRLF
// line ends are fine; blank lines and lines starting with '#' are
// skipped. R's row names are not read: a first column with an empty name
// (write.csv), or a first field the header lacks on rows starting with a
// quote (write.table).
//
// Values are parsed with strconv.ParseFloat (a decimal comma first made a
// point with opt.Decimal ','); ±Inf, unparsable values and a wrong
// number of fields are *InputError values naming the line. A file with a
// header and no rows gives an empty Data; Validate rejects it. A planar
// x,y header whose values all lie within longitude and latitude ranges
// ([-180, 360] x [-90, 90]) and span more than 1 gets a note suggesting
// lon,lat.
func ReadCSVFrom(name string, rd io.Reader, opt Options) (*Data, error) {
	return readCSV(newLines(name, rd), opt)
}

// reading is the state of one read: the file's layout, where each column
// goes, and the rows dropped.
type reading struct {
	r       *lineReader
	opt     Options
	l       *layout
	d       *Data
	dst     [][]*[]float64 // the destinations of column j
	row     []float64      // the current row's value of column j
	missing []int          // rows dropped for a missing value in column j (its first)
	dropped int
	// rowNames: rows have a first field, a row name, that the header
	// lacks (decided on the first row after the header; first until it
	// is read).
	rowNames, first bool
	fields          []string // the current row's fields (splitLine's buffer)
}

func readCSV(r *lineReader, opt Options) (*Data, error) {
	s, sep, err := readHeader(r, opt)
	if err == io.EOF {
		return nil, &InputError{File: r.file, Msg: `empty file: expected a header such as "x,y,z"`}
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.rows(sep, -1); err != nil {
		return nil, err
	}
	return s.finish(), nil
}

// readHeader reads the header line of r (a headerless file's first row:
// its values are read too) and returns the reading of the rows after it
// and the separator; io.EOF when r has no line.
func readHeader(r *lineReader, opt Options) (*reading, byte, error) {
	head, err := r.next()
	if err != nil {
		return nil, 0, err
	}
	if opt.Decimal == 0 {
		opt.Decimal = '.'
	}
	sep := separator(head)
	if opt.Decimal == ',' && sep == ',' {
		return nil, 0, r.errorf(r.line, "--dec ,: the columns must be separated by semicolons, tabs or spaces, not commas")
	}
	fields, err := splitLine(nil, r.raw, sep)
	if err != nil {
		return nil, 0, r.errorf(r.line, "header %q: %v", head, err)
	}
	headerless := numbers(fields, opt.Decimal)
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = strings.ToLower(strings.TrimSpace(f))
		if headerless {
			names[i] = strconv.Itoa(i + 1)
		}
	}
	l, err := newLayout(names, headerless, opt)
	if err != nil {
		if headerless {
			return nil, 0, r.errorf(r.line, "%v", err)
		}
		return nil, 0, r.errorf(r.line, "header %q: %v", strings.Join(fields, string(sep)), err)
	}
	s := newReading(r, opt, l)
	if headerless {
		if err := s.add(fields); err != nil {
			return nil, 0, err
		}
	}
	return s, sep, nil
}

// numbers reports whether every field parses as a number (a headerless
// file's first row).
func numbers(fields []string, dec byte) bool {
	for _, f := range fields {
		if dec == ',' {
			f = strings.Replace(f, ",", ".", 1)
		}
		if _, err := strconv.ParseFloat(f, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return false
		}
	}
	return len(fields) > 0
}

// newReading prepares the destinations of l's columns.
func newReading(r *lineReader, opt Options, l *layout) *reading {
	d := &Data{Coords: l.coords, X: []float64{}, Y: []float64{}}
	s := &reading{r: r, opt: opt, l: l, d: d, dst: make([][]*[]float64, len(l.fields)),
		row: make([]float64, len(l.fields)), missing: make([]int, len(l.fields)), first: true}
	ncov := 0
	for j := range l.roles {
		if l.has(j, roleCov) {
			ncov++
		}
	}
	d.Columns = make([]Column, 0, ncov) // no reallocation: dst points into it
	// present makes an optional column present (empty, not nil) and
	// returns it.
	present := func(v *[]float64) *[]float64 {
		*v = []float64{}
		return v
	}
	for j, roles := range l.roles {
		for _, role := range roles {
			var p *[]float64
			switch role {
			case roleX:
				p = &d.X
			case roleY:
				p = &d.Y
			case roleZ:
				p, d.ZName = present(&d.Z), l.fields[j]
			case roleT:
				p = present(&d.T)
			case roleObs:
				p, d.ObsName = present(&d.Obs), l.fields[j]
			case roleObs2:
				p = present(&d.Obs2)
			case roleCov:
				d.Columns = append(d.Columns, Column{Name: l.covName[j], Values: []float64{}})
				p = &d.Columns[len(d.Columns)-1].Values
			}
			s.dst[j] = append(s.dst[j], p)
		}
	}
	return s
}

// rows reads the rows after the header, at most limit of them (all with
// limit < 0), and returns how many it read (false at the end of the
// lines).
func (s *reading) rows(sep byte, limit int) (bool, error) {
	cols := len(s.l.fields)
	for ; limit != 0; limit-- {
		line, err := s.r.next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		s.fields, err = splitLine(s.fields[:0], s.r.raw, sep)
		if err != nil {
			return false, s.r.errorf(s.r.line, "%v", err)
		}
		parts := s.fields
		if s.first && !s.l.headerless && len(parts) == cols+1 && line[0] == '"' {
			s.rowNames = true
		}
		s.first = false
		if s.rowNames {
			if len(parts) != cols+1 {
				return false, s.r.errorf(s.r.line, "expected %d fields (a row name and %d columns), got %d", cols+1, cols, len(parts))
			}
			parts = parts[1:]
		}
		if err := s.add(parts); err != nil {
			return false, err
		}
	}
	return true, nil
}

// isNA reports whether a field is a missing value: empty, NA, NaN, N/A or
// null, in any case.
func isNA(f string) bool {
	if len(f) > 4 {
		return false // a number, not one of the names below
	}
	switch strings.ToLower(f) {
	case "", "na", "nan", "n/a", "null":
		return true
	}
	return false
}

// add reads one row's fields into the columns, or drops the row.
func (s *reading) add(parts []string) error {
	if len(parts) != len(s.l.fields) {
		return s.r.errorf(s.r.line, "expected %d fields, got %d", len(s.l.fields), len(parts))
	}
	miss := -1
	for j, p := range parts {
		if s.dst[j] == nil {
			continue
		}
		name := s.name(j)
		if isNA(p) {
			switch {
			case s.opt.Locations:
				return s.r.errorf(s.r.line, "%s is missing (%q): every prediction location needs its coordinates and covariates", name, p)
			case s.opt.NA == NAError:
				return s.r.errorf(s.r.line, "%s is missing (%q) (--na drop drops such rows)", name, p)
			}
			if miss < 0 {
				miss = j
			}
			continue
		}
		v, err := s.r.parseDecimal(p, name, s.opt.Decimal)
		if err != nil {
			return err
		}
		s.row[j] = v
	}
	if miss >= 0 {
		s.missing[miss]++
		s.dropped++
		return nil
	}
	for j, dst := range s.dst {
		for _, p := range dst {
			*p = append(*p, s.row[j])
		}
	}
	return nil
}

// name is column j's name in messages: its header name, or "column N".
func (s *reading) name(j int) string {
	if s.l.headerless {
		return "column " + s.l.fields[j]
	}
	return s.l.fields[j]
}

// finish returns the data with the reader's notes.
func (s *reading) finish() *Data {
	d := s.d
	d.Dropped = s.dropped
	if s.l.obsNote != "" {
		d.Notes = append(d.Notes, s.l.obsNote)
	}
	if u := s.l.unused(); len(u) > 0 && !s.opt.Locations {
		d.Notes = append(d.Notes, fmt.Sprintf("columns not read: %s (--z, --coords, --time and --mean choose the columns read)", strings.Join(u, ", ")))
	}
	if s.dropped > 0 {
		var by []string
		for j, k := range s.missing {
			if k > 0 {
				by = append(by, fmt.Sprintf("%s (%d)", s.name(j), k))
			}
		}
		d.Notes = append(d.Notes, fmt.Sprintf("dropped %d of %d rows with a missing value (NA, NaN or empty) in %s (--na error refuses them)",
			s.dropped, s.dropped+d.Len(), strings.Join(by, ", ")))
	}
	d.Notes = append(d.Notes, lonLatNote(d)...)
	return d
}
