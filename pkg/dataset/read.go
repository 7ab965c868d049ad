package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
)

// maxLine is the longest line the readers accept, in bytes.
const maxLine = 1 << 20

// acceptedHeaders lists the headers ReadCSV accepts, for its error message.
const acceptedHeaders = `"x,y,z", "lon,lat,z", "longitude,latitude,z", "x,y", "lon,lat", "longitude,latitude", or x,y followed by t (time), a third coordinate (z, depth, height, elevation) and value (the observation) in any order, e.g. "x,y,t,z" or "x,y,depth,value", and named covariate columns, e.g. "x,y,z,dist,elev"`

// Column roles of a CSV header.
const (
	roleObs  = iota // the observation
	roleZ           // the third spatial coordinate
	roleT           // the time
	roleSkip        // read as nothing (the observation of ReadLocations)
	roleObs2        // the second observed variable (bivariate data)
	roleCov         // a named covariate (Data.Columns), for a mean model
)

// header is the meaning of a CSV header: the metric of its first two
// columns and the role of each later column.
type header struct {
	coords Coords
	roles  []int // roles[j] for column 2+j
	obs    bool  // a column is the observation
}

// lookupHeader returns the meaning of a normalised (lower-case, trimmed)
// header, split into fields; ok is false for an unknown header, with a
// reason. locations is set when the observation is not read (prediction
// locations).
//
// The first two columns are x,y (planar), lon,lat or longitude,latitude
// (geographic). Each later column is one of: "t" or "time", the time of
// the location; "value" or "obs", the observation; "z1" and "z2", the two
// observations of bivariate data; "z", the observation when no column is
// named value or obs (today's "x,y,z" files), else the third coordinate;
// "depth", "height", "elevation" or "elev", the third coordinate (planar
// only) when a column is named value or obs or when no column is an
// observation (3D prediction locations: "x,y,depth"), else a covariate
// (Data.ZName keeps the name: the new locations of 2D data take it as a
// covariate). Any other
// name is a covariate (Data.Columns: "x,y,z,dist,elev"), when the header
// has an observation column or describes prediction locations (the
// covariates at the new locations); else it is an unknown column. Each
// role, and each covariate name, appears at most once.
func lookupHeader(fields []string, locations bool) (h header, why string, ok bool) {
	if len(fields) < 2 {
		return h, "", false
	}
	switch fields[0] + "," + fields[1] {
	case "x,y":
		h.coords = Planar
	case "lon,lat", "longitude,latitude":
		h.coords = Geographic
	default:
		return h, "", false
	}
	named, hasObs := false, false
	for _, f := range fields[2:] {
		switch f {
		case "value", "obs":
			named, hasObs = true, true
		case "z", "z1":
			hasObs = true
		}
	}
	seen := map[int]string{}
	covs := map[string]bool{}
	for _, f := range fields[2:] {
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
		if r == roleCov {
			if covs[f] {
				return h, fmt.Sprintf("column %q is given twice", f), false
			}
			covs[f] = true
			h.roles = append(h.roles, r)
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
		h.roles = append(h.roles, r)
	}
	if _, two := seen[roleObs2]; two && seen[roleObs] != "z1" {
		return h, "a column z2 needs a column z1 (bivariate data: x,y,z1,z2)", false
	}
	return h, "", true
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
// locations only, with Obs nil (prediction locations).
//
// More columns may follow x,y, in any order: "t" or "time" (Data.T, for
// space-time kernels), a third coordinate "depth", "height", "elevation"
// or "elev" (Data.Z, 3D Euclidean distance; planar only), and the
// observation "value" or "obs". A column named "z" is the observation
// unless another column is named value or obs, in which case z is the
// third coordinate: "x,y,z" and "x,y,t,z" have the observation in z,
// "x,y,z,value" and "x,y,depth,value" are 3D locations. Bivariate data
// have two observation columns z1 and z2 (Obs and Obs2): "x,y,z1,z2".
//
// Blank lines and lines starting with '#' are skipped anywhere in the file.
// Values are parsed with strconv.ParseFloat; NaN, ±Inf, unparsable values,
// a wrong number of fields and an unknown header are *InputError values
// naming the line. A file with a header and no rows gives an empty Data;
// Validate rejects it.
func ReadCSV(path string) (*Data, error) { return readCSV(path, false) }

// ReadLocations reads the locations of a CSV file as ReadCSV does, with
// Obs nil: the observation column, if the header has one, is not read at
// all (so NaN or an empty value there is fine), but its field must be on
// every row.
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
	h, why, ok := lookupHeader(fields, skipObs)
	if !ok {
		if why != "" {
			return nil, r.errorf(r.line, "header %q: %s: want %s", head, why, acceptedHeaders)
		}
		return nil, r.errorf(r.line, "unknown header %q: want one of %s", head, acceptedHeaders)
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
		case roleObs:
			dst[j] = &d.Obs
		case roleZ:
			d.Z, d.ZName = []float64{}, fields[2+j]
			dst[j] = &d.Z
		case roleT:
			d.T = []float64{}
			dst[j] = &d.T
		case roleObs2:
			d.Obs2 = []float64{}
			dst[j] = &d.Obs2
		case roleCov:
			d.Columns = append(d.Columns, Column{Name: fields[2+j], Values: []float64{}})
		}
	}
	// The covariates' destinations, once d.Columns has stopped growing.
	for j, k := 0, 0; j < len(h.roles); j++ {
		if h.roles[j] == roleCov {
			dst[j] = &d.Columns[k].Values
			k++
		}
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
		var xy [2]float64
		for j, p := range parts {
			if j >= 2 && dst[j-2] == nil {
				continue
			}
			v, err := r.parseValue(strings.TrimSpace(p), fields[j])
			if err != nil {
				return nil, err
			}
			if j < 2 {
				xy[j] = v
			} else {
				*dst[j-2] = append(*dst[j-2], v)
			}
		}
		d.X = append(d.X, xy[0])
		d.Y = append(d.Y, xy[1])
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
