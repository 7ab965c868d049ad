package dataset

import (
	"slices"
	"strings"
	"testing"
)

// TestReadRoles: columns by role, guessed or named, missing values, a
// decimal comma and headerless files, read from a reader (ReadCSVFrom:
// the bytes of a file read once).
func TestReadRoles(t *testing.T) {
	cases := []struct {
		name, content string
		opt           Options
		x, obs        []float64
		cov           []float64 // Columns[0], when the options name one
		coords        Coords
		obsName       string
		dropped       int
		notes         []string // substrings of the notes, in order
	}{
		{"R write.csv with --z", "\"\",\"x\",\"y\",\"zinc\",\"om\",\"landuse\"\n\"1\",181072,2,1022,NA,\"Ah\"\n\"2\",181025,4,1141,13.6,NA\n",
			Options{Z: "zinc"}, []float64{181072, 181025}, []float64{1022, 1141}, nil, Planar, "zinc", 0,
			[]string{"columns not read: om, landuse"}},
		{"a covariate with NA drops its row", "x,y,z,om\n1,2,3,NA\n4,5,6,7\n8,9,10,\n",
			Options{Covariates: []string{"om"}}, []float64{4}, []float64{6}, []float64{7}, Planar, "z", 2,
			[]string{"dropped 2 of 3 rows with a missing value (NA, NaN or empty) in om (2) (--na error refuses them)"}},
		{"missing observations", "x,y,value\n1,2,NaN\n4,5,6\n8,9,n/a\n10,11,null\n",
			Options{}, []float64{4}, []float64{6}, nil, Planar, "value", 3, []string{"in value (3)"}},
		{"longitude,latitude,precip", "longitude,latitude,precip\n-110.5,36.7,81\n-109.5,36.2,63\n",
			Options{}, []float64{-110.5, -109.5}, []float64{81, 63}, nil, Geographic, "precip", 0,
			[]string{`column "precip" read as the observation (--z COL names another)`}},
		{"easting,northing,value", "easting,northing,value\n181072,333611,7\n181025,333558,8\n",
			Options{}, []float64{181072, 181025}, []float64{7, 8}, nil, Planar, "value", 0, nil},
		{"coords.x1 from sp", "\"zinc\",\"coords.x1\",\"coords.x2\"\n1022,181072,333611\n",
			Options{}, []float64{181072}, []float64{1022}, nil, Planar, "zinc", 0, []string{`column "zinc" read as the observation`}},
		{"decimal comma", "x;y;z;dist\n0,5;1,5;2,25;0,125\n1;2;3;4\n",
			Options{Decimal: ',', Covariates: []string{"dist"}}, []float64{0.5, 1}, []float64{2.25, 3}, []float64{0.125, 4}, Planar, "z", 0, nil},
		{"no header, columns by number", "181072 333611 6.9 0.1\n181025 333558 7.0 0.2\n",
			Options{Coords: "1,2", Z: "3", Covariates: []string{"4"}}, []float64{181072, 181025}, []float64{6.9, 7.0}, []float64{0.1, 0.2}, Planar, "3", 0, nil},
		{"columns by number with a header", "id,e,n,zn\na,1,2,3\n",
			Options{Coords: "2,3", Z: "4"}, []float64{1}, []float64{3}, nil, Planar, "zn", 0, []string{"columns not read: id"}},
		{"named lon,lat are geographic", "a,lon,lat,v\n1,10,20,3\n",
			Options{Coords: "lon,lat", Z: "v"}, []float64{10}, []float64{3}, nil, Geographic, "v", 0, []string{"columns not read: a"}},
		{"a coordinate that is also a covariate", "x,y,z,elev\n1,2,3,4\n",
			Options{Coords: "x,y,elev", Covariates: []string{"elev"}}, []float64{1}, []float64{3}, []float64{4}, Planar, "z", 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSVFrom("f.csv", strings.NewReader(c.content), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.X, c.x) || !slices.Equal(d.Obs, c.obs) || d.Coords != c.coords || d.ObsName != c.obsName || d.Dropped != c.dropped {
				t.Errorf("x %v obs %v %v %q dropped %d, want %v %v %v %q %d", d.X, d.Obs, d.Coords, d.ObsName, d.Dropped, c.x, c.obs, c.coords, c.obsName, c.dropped)
			}
			if c.cov != nil && (len(d.Columns) != 1 || !slices.Equal(d.Columns[0].Values, c.cov) || d.Columns[0].Name != c.opt.Covariates[0]) {
				t.Errorf("covariates %+v, want %v", d.Columns, c.cov)
			}
			if len(d.Notes) != len(c.notes) {
				t.Fatalf("notes %q, want %q", d.Notes, c.notes)
			}
			for i, n := range c.notes {
				if !strings.Contains(d.Notes[i], n) {
					t.Errorf("note %q lacks %q", d.Notes[i], n)
				}
			}
		})
	}
}

// TestReadRoleErrors: what stays refused, by line, naming the option.
func TestReadRoleErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		opt           Options
		want          string
	}{
		{"--na error", "x,y,z\n1,2,3\n1,2,NA\n", Options{NA: NAError}, `f.csv:3: z is missing ("NA") (--na drop drops such rows)`},
		{"locations: a missing covariate", "x,y,dist\n1,2,0.5\n3,4,\n", Options{Locations: true, Covariates: []string{"dist"}},
			`f.csv:3: dist is missing (""): every prediction location needs its coordinates and covariates`},
		{"locations: missing coordinates, whatever --na", "x,y\nNA,1\n", Options{Locations: true, NA: NADrop},
			`f.csv:2: x is missing ("NA"): every prediction location needs`},
		{"decimal comma and comma separator", "x,y,z\n1,2,3\n", Options{Decimal: ','},
			"f.csv:1: --dec ,: the columns must be separated by semicolons, tabs or spaces, not commas"},
		{"headerless with names", "1,2,3\n", Options{Coords: "x,y", Z: "z"},
			"f.csv:1: --coords x: the file has no header (its first line is numbers): give the columns by number, e.g. --coords 1,2 --z 3"},
		{"headerless without --z", "1,2,3\n", Options{Coords: "1,2"},
			"f.csv:1: no header: give the observation's column by number with --z, e.g. --coords 1,2 --z 3"},
		{"a text value in a column read", "x,y,z\n1,2,high\n", Options{}, `f.csv:2: z: cannot parse "high" as a number`},
		{"+Inf stays refused", "x,y,z\n1,2,+Inf\n", Options{}, `f.csv:2: z is +Inf`},
		{"a column named twice", "x,y,z\n1,2,3\n", Options{Coords: "x,x"}, `f.csv:1: header "x,y,z": --coords: column "x" is given twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSVFrom("f.csv", strings.NewReader(c.content), c.opt)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}
