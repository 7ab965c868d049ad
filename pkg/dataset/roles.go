package dataset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Options says how ReadCSVWith finds a file's columns and reads them. The
// zero value guesses every role from the header's names and drops the
// rows with a missing value.
//
// A column is named by its header name (case-insensitive) or by its
// number from 1; a file without a header (its first line all numbers)
// has its columns named by number only: Coords "1,2", Z "3".
type Options struct {
	// Z is the observation column, or two for bivariate data ("z1,z2");
	// "" guesses it (see ReadCSVWith).
	Z string
	// Coords are the coordinate columns "X,Y" or "X,Y,Z" (the third a
	// third spatial coordinate: 3D Euclidean distances); "" guesses a
	// pair. A third coordinate is never guessed.
	Coords string
	// Time is the time column (space-time data); "" reads a column named
	// t or time.
	Time string
	// Covariates are the columns the mean model names (Data.Columns);
	// every other column is not read.
	Covariates []string
	// NA is what a missing value (NA, NaN, N/A, null or an empty field)
	// in a column that is read does: NADrop (or "") drops its row, with
	// a note; NAError refuses the file, naming the line.
	NA string
	// Decimal is the decimal mark: '.' (or 0) or ','. With ',' the
	// separator must be a semicolon, a tab or spaces.
	Decimal byte
	// Locations reads prediction locations: the observation is not read
	// (a column of it may be there, with anything in it), and a missing
	// coordinate or covariate is refused by line whatever NA says.
	Locations bool
}

// The missing-value policies (Options.NA).
const (
	NADrop  = "drop"  // drop the row, with a note
	NAError = "error" // refuse the file
)

// Column roles of a file's layout.
const (
	roleX    = iota // x or longitude
	roleY           // y or latitude
	roleZ           // the third spatial coordinate
	roleT           // the time
	roleObs         // the observation
	roleObs2        // the second observed variable (bivariate data)
	roleCov         // a covariate of the mean model (Data.Columns)
	nRoles
)

// roleFlag names the option that sets a role, for messages.
var roleFlag = [nRoles]string{roleX: "--coords", roleY: "--coords", roleZ: "--coords", roleT: "--time", roleObs: "--z", roleObs2: "--z", roleCov: "--mean"}

// Names of the columns the readers recognise.
var (
	// coordPairs are the coordinate columns guessed from their names,
	// x-like then y-like, with their metric.
	coordPairs = []struct {
		x, y   []string
		coords Coords
	}{
		{[]string{"x"}, []string{"y"}, Planar},
		{[]string{"lon", "long", "lng", "longitude"}, []string{"lat", "latitude"}, Geographic},
		{[]string{"easting", "east"}, []string{"northing", "north"}, Planar},
		{[]string{"coords.x1"}, []string{"coords.x2"}, Planar}, // sp's as.data.frame of a SpatialPointsDataFrame
	}
	// obsNames are the observation's names, in order of preference.
	obsNames = []string{"value", "obs", "z"}
	// usualObsNames are read as the observation when no column has one
	// of obsNames and exactly one column has one of these.
	usualObsNames = []string{"observation", "response", "measurement", "precip", "precipitation", "prcp",
		"rain", "rainfall", "temp", "temperature", "tmean", "tmax", "tmin", "pm25", "pm2.5", "pm10",
		"ozone", "o3", "no2", "so2", "zinc", "lead", "copper", "cadmium"}
	// timeNames are the time's names.
	timeNames = []string{"t", "time"}
)

// layout is what a file's columns are read into.
type layout struct {
	coords     Coords
	headerless bool
	fields     []string // column names, lower case ("1", "2", ... without a header)
	roles      [][]int  // the roles of column j (a coordinate may also be a covariate)
	covName    []string // the covariate name of column j (its role roleCov)
	obsNote    string   // how the observation was chosen, when by the fallback names
}

// has reports whether column j has role r.
func (l *layout) has(j, r int) bool { return slices.Contains(l.roles[j], r) }

// column returns the column that has role r, or -1.
func (l *layout) column(r int) int {
	for j := range l.roles {
		if l.has(j, r) {
			return j
		}
	}
	return -1
}

// find returns the column named spec (a header name, case-insensitive, or
// a number from 1), or an error naming flag.
func (l *layout) find(flag, spec string) (int, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	if !l.headerless {
		if j := slices.Index(l.fields, s); j >= 0 {
			return j, nil
		}
	}
	if k, err := strconv.Atoi(s); err == nil {
		if k < 1 || k > len(l.fields) {
			return -1, fmt.Errorf("%s %s: the file has columns 1 to %d", flag, spec, len(l.fields))
		}
		return k - 1, nil
	}
	if l.headerless {
		return -1, fmt.Errorf("%s %s: the file has no header (its first line is numbers): give the columns by number, e.g. --coords 1,2 --z 3", flag, spec)
	}
	return -1, fmt.Errorf("%s %s: no such column (the header's columns: %s)", flag, spec, strings.Join(l.fields, ","))
}

// assign gives column j role r, refusing a column with two roles of
// different meaning (a covariate may also be a coordinate or the time).
func (l *layout) assign(j, r int) error {
	for _, q := range l.roles[j] {
		if roleFlag[q] == roleFlag[r] {
			return fmt.Errorf("%s: column %q is given twice", roleFlag[r], l.fields[j])
		}
		cov := r == roleCov || q == roleCov
		if !cov || r == roleObs || q == roleObs || r == roleObs2 || q == roleObs2 {
			return fmt.Errorf("column %q cannot be both %s and %s", l.fields[j], roleName(q), roleName(r))
		}
	}
	l.roles[j] = append(l.roles[j], r)
	return nil
}

// roleName describes a role with the option that sets it.
func roleName(r int) string {
	switch r {
	case roleX, roleY:
		return "a coordinate (--coords)"
	case roleZ:
		return "the third coordinate (--coords)"
	case roleT:
		return "the time (--time)"
	case roleObs, roleObs2:
		return "the observation (--z)"
	}
	return "a covariate (--mean)"
}

// splitSpec splits a comma-separated list of column names or numbers.
func splitSpec(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// newLayout decides the role of each column of a file whose header (or
// first row, headerless) has the lower-case names fields, as opt says.
// The error is one line without the file's name.
func newLayout(fields []string, headerless bool, opt Options) (*layout, error) {
	l := &layout{fields: fields, headerless: headerless, roles: make([][]int, len(fields)), covName: make([]string, len(fields))}
	if !headerless {
		for j, f := range fields {
			if f == "" && j > 0 {
				return nil, fmt.Errorf("a column has no name")
			}
		}
	}
	if err := l.coordinates(opt.Coords); err != nil {
		return nil, err
	}
	if err := l.time(opt.Time); err != nil {
		return nil, err
	}
	if !opt.Locations {
		if err := l.observation(opt.Z); err != nil {
			return nil, err
		}
	}
	for _, c := range opt.Covariates {
		j, err := l.find("--mean", c)
		if err != nil {
			continue // Design names the column the data lack
		}
		if l.has(j, roleCov) {
			continue // named twice: Design reads it twice
		}
		if err := l.assign(j, roleCov); err != nil {
			return nil, err
		}
		l.covName[j] = strings.ToLower(c)
	}
	return l, nil
}

// coordinates assigns the coordinate columns: spec's ("X,Y" or "X,Y,Z"),
// else the first pair of coordPairs found (the pair whose first column
// comes first when several are).
func (l *layout) coordinates(spec string) error {
	if s := splitSpec(spec); s != nil {
		if len(s) != 2 && len(s) != 3 {
			return fmt.Errorf("--coords %s: give two columns X,Y or three X,Y,Z", spec)
		}
		idx := make([]int, len(s))
		for i, c := range s {
			j, err := l.find("--coords", c)
			if err != nil {
				return err
			}
			if err := l.assign(j, []int{roleX, roleY, roleZ}[i]); err != nil {
				return err
			}
			idx[i] = j
		}
		l.coords = Planar
		if !l.headerless && isName(l.fields[idx[0]], coordPairs[1].x) && isName(l.fields[idx[1]], coordPairs[1].y) {
			l.coords = Geographic
		}
		if len(s) == 3 && l.coords == Geographic {
			return fmt.Errorf("--coords %s: a third coordinate needs planar x,y: great-circle distances are 2D", spec)
		}
		return nil
	}
	if l.headerless {
		return fmt.Errorf("no header (the first line is numbers): give the columns by number, e.g. --coords 1,2 --z 3")
	}
	best, bx, by := -1, -1, -1
	for p, pair := range coordPairs {
		ix, iy := l.first(pair.x), l.first(pair.y)
		if ix < 0 || iy < 0 {
			continue
		}
		if best < 0 || min(ix, iy) < min(bx, by) {
			best, bx, by = p, ix, iy
		}
	}
	if best < 0 {
		return fmt.Errorf("no coordinate columns (x,y; lon,lat or longitude,latitude; easting,northing; coords.x1,coords.x2): name them with --coords X,Y")
	}
	l.coords = coordPairs[best].coords
	l.roles[bx], l.roles[by] = []int{roleX}, []int{roleY}
	return nil
}

// first returns the first column with no role named one of names, or -1.
func (l *layout) first(names []string) int {
	for j, f := range l.fields {
		if len(l.roles[j]) == 0 && isName(f, names) {
			return j
		}
	}
	return -1
}

func isName(f string, names []string) bool { return slices.Contains(names, f) }

// time assigns the time column: spec's, else one named t or time.
func (l *layout) time(spec string) error {
	if spec != "" {
		j, err := l.find("--time", spec)
		if err != nil {
			return err
		}
		return l.assign(j, roleT)
	}
	if !l.headerless {
		if j := l.first(timeNames); j >= 0 {
			l.roles[j] = []int{roleT}
		}
	}
	return nil
}

// observation assigns the observation: spec's column (two: bivariate),
// else z1 and z2 (bivariate), else the first of value, obs and z, else
// the one column named as observations usually are. A header that has
// no other column has no observation (locations: "x,y").
func (l *layout) observation(spec string) error {
	if s := splitSpec(spec); s != nil {
		if len(s) > 2 {
			return fmt.Errorf("--z %s: give one observation column, or two for bivariate data", spec)
		}
		for i, c := range s {
			j, err := l.find("--z", c)
			if err != nil {
				return err
			}
			if err := l.assign(j, []int{roleObs, roleObs2}[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if l.headerless {
		return fmt.Errorf("no header: give the observation's column by number with --z, e.g. --coords 1,2 --z 3")
	}
	if j1, j2 := l.first([]string{"z1"}), l.first([]string{"z2"}); j1 >= 0 && j2 >= 0 {
		l.roles[j1], l.roles[j2] = []int{roleObs}, []int{roleObs2}
		return nil
	} else if j2 >= 0 {
		return fmt.Errorf("a column z2 needs a column z1 (bivariate data: x,y,z1,z2)")
	}
	for _, name := range obsNames {
		if j := l.first([]string{name}); j >= 0 {
			l.roles[j] = []int{roleObs}
			return nil
		}
	}
	var cand []int
	for j, f := range l.fields {
		if len(l.roles[j]) == 0 && isName(f, usualObsNames) {
			cand = append(cand, j)
		}
	}
	switch len(cand) {
	case 1:
		l.roles[cand[0]] = []int{roleObs}
		l.obsNote = fmt.Sprintf("column %q read as the observation (--z COL names another)", l.fields[cand[0]])
		return nil
	case 0:
		if len(l.unused()) == 0 {
			return nil // locations only ("x,y"): Data.Obs nil
		}
		return fmt.Errorf("no observation column (z, value or obs): name it with --z COL")
	}
	names := make([]string, len(cand))
	for i, j := range cand {
		names[i] = l.fields[j]
	}
	return fmt.Errorf("several columns could be the observation (%s): name one with --z COL", strings.Join(names, ", "))
}

// unused returns the names of the columns with no role, except R's
// row-name column (an empty name first).
func (l *layout) unused() []string {
	var out []string
	for j, f := range l.fields {
		if len(l.roles[j]) == 0 && !(j == 0 && f == "") {
			out = append(out, f)
		}
	}
	return out
}
