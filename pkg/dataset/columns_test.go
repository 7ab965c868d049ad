package dataset

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadCSVColumns checks the header rule for times, third coordinates
// and the observation column.
func TestReadCSVColumns(t *testing.T) {
	cases := []struct {
		head          string
		row           string
		obs, z, tt    []float64 // nil: column absent
		locObs, locZT bool      // ReadLocations: no Obs; Z/T as ReadCSV
		opt           Options
	}{
		{"x,y,z", "1,2,3", []float64{3}, nil, nil, false, true, Options{}},
		{"x,y,t,z", "1,2,4,3", []float64{3}, nil, []float64{4}, false, true, Options{}},
		{"x,y,z,t", "1,2,3,4", []float64{3}, nil, []float64{4}, false, true, Options{}},
		{"x,y,time,value", "1,2,4,3", []float64{3}, nil, []float64{4}, false, true, Options{}},
		// A third coordinate only when named (never guessed).
		{"x,y,depth,value", "1,2,5,3", []float64{3}, nil, nil, false, true, Options{}},
		{"x,y,depth,value", "1,2,5,3", []float64{3}, []float64{5}, nil, false, true, Options{Coords: "x,y,depth"}},
		{"X, Y, Z, Value", "1,2,5,3", []float64{3}, []float64{5}, nil, false, true, Options{Coords: "X,Y,Z"}},
		{"x,y,z,obs", "1,2,5,3", []float64{3}, []float64{5}, nil, false, true, Options{Coords: "1,2,3"}},
		{"x,y,value,height,t", "1,2,3,5,4", []float64{3}, []float64{5}, []float64{4}, false, true, Options{Coords: "x,y,height"}},
		{"x,y,depth", "1,2,5", nil, []float64{5}, nil, false, true, Options{Coords: "x,y,depth"}},
		{"x,y,t", "1,2,4", nil, nil, []float64{4}, false, true, Options{}},
		{"lon,lat,t,z", "1,2,4,3", []float64{3}, nil, []float64{4}, false, true, Options{}},
		{"a,b,c,when", "1,2,3,4", []float64{3}, nil, []float64{4}, false, true, Options{Coords: "a,b", Z: "c", Time: "when"}},
	}
	for _, c := range cases {
		p := writeFile(t, t.TempDir(), "d.csv", c.head+"\n"+c.row+"\n")
		d, err := ReadCSVWith(p, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.head, err)
		}
		if !slices.Equal(d.X, []float64{1}) || !slices.Equal(d.Y, []float64{2}) {
			t.Errorf("%s: x %v y %v", c.head, d.X, d.Y)
		}
		if !slices.Equal(d.Obs, c.obs) || (d.Obs == nil) != (c.obs == nil) {
			t.Errorf("%s: obs %v, want %v", c.head, d.Obs, c.obs)
		}
		if !slices.Equal(d.Z, c.z) || (d.Z == nil) != (c.z == nil) {
			t.Errorf("%s: z %v, want %v", c.head, d.Z, c.z)
		}
		if !slices.Equal(d.T, c.tt) || (d.T == nil) != (c.tt == nil) {
			t.Errorf("%s: t %v, want %v", c.head, d.T, c.tt)
		}
		// The observation column of a locations file is not read.
		q := writeFile(t, t.TempDir(), "l.csv", c.head+"\n"+strings.ReplaceAll(c.row, "3", "NaN")+"\n")
		lo := c.opt
		lo.Locations = true
		l, err := ReadCSVWith(q, lo)
		if err != nil {
			t.Fatalf("%s: ReadLocations: %v", c.head, err)
		}
		if l.Obs != nil || !slices.Equal(l.Z, c.z) || !slices.Equal(l.T, c.tt) {
			t.Errorf("%s: ReadLocations obs %v z %v t %v", c.head, l.Obs, l.Z, l.T)
		}
	}
}

func TestReadCSVColumnErrors(t *testing.T) {
	for _, c := range []struct {
		head string
		opt  Options
		msg  string
	}{
		{"x,y,z,depth,value", Options{Coords: "x,y,z,depth"}, `header "x,y,z,depth,value": --coords x,y,z,depth: give two columns X,Y or three X,Y,Z`},
		{"x,y,t,z", Options{Time: "t", Z: "t"}, `header "x,y,t,z": column "t" cannot be both the time (--time) and the observation (--z)`},
		{"x,y,value,obs", Options{Z: "x"}, `header "x,y,value,obs": column "x" cannot be both a coordinate (--coords) and the observation (--z)`},
		{"x,y,vlaue", Options{}, `header "x,y,vlaue": no observation column (z, value or obs): name it with --z COL`},
		{"x,y,vlaue", Options{Z: "value"}, `header "x,y,vlaue": --z value: no such column (the header's columns: x,y,vlaue)`},
		{"x,y,vlaue", Options{Z: "7"}, `header "x,y,vlaue": --z 7: the file has columns 1 to 3`},
		{"lon,lat,depth,value", Options{Coords: "lon,lat,depth"}, `header "lon,lat,depth,value": --coords lon,lat,depth: a third coordinate needs planar x,y: great-circle distances are 2D`},
		{"x,y,zinc,copper", Options{}, `header "x,y,zinc,copper": several columns could be the observation (zinc, copper): name one with --z COL`},
		{"x,y,z,z2", Options{}, `header "x,y,z,z2": a column z2 needs a column z1 (bivariate data: x,y,z1,z2)`},
		{"x,y,z", Options{Z: "z", Covariates: []string{"z"}}, `header "x,y,z": column "z" cannot be both the observation (--z) and a covariate (--mean)`},
	} {
		p := writeFile(t, t.TempDir(), "d.csv", c.head+"\n1,2,3,4,5\n")
		_, err := ReadCSVWith(p, c.opt)
		if err == nil || err.Error() != p+":1: "+c.msg {
			t.Errorf("%s: got %v, want %q", c.head, err, c.msg)
		}
	}
}

// TestWriteCSVColumns writes data with times and third coordinates and
// reads them back bit for bit; Permute carries the columns along.
func TestWriteCSVColumns(t *testing.T) {
	for _, d := range []*Data{
		{X: []float64{0.1, 0.7}, Y: []float64{0.2, 0.3}, T: []float64{0, 2}, Obs: []float64{1.5, -0.25}},
		{X: []float64{0.1, 0.7}, Y: []float64{0.2, 0.3}, Z: []float64{3, 0.125}, Obs: []float64{1.5, -0.25}},
		{X: []float64{0.1, 0.7}, Y: []float64{0.2, 0.3}, Z: []float64{3, 0.125}, T: []float64{0, 2}, Obs: []float64{1.5, -0.25}},
	} {
		p := filepath.Join(t.TempDir(), "d.csv")
		if err := WriteCSV(p, d); err != nil {
			t.Fatal(err)
		}
		opt := Options{}
		if d.Z != nil {
			opt.Coords = "x,y,z" // WriteCSV's header x,y,z,value
		}
		r, err := ReadCSVWith(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.X, d.X) || !slices.Equal(r.Obs, d.Obs) || !slices.Equal(r.Z, d.Z) || !slices.Equal(r.T, d.T) {
			t.Errorf("read back %+v, want %+v", r, d)
		}
		q := Permute(d, []int{1, 0})
		if q.Obs[0] != d.Obs[1] || (d.Z != nil && q.Z[0] != d.Z[1]) || (d.T != nil && q.T[0] != d.T[1]) {
			t.Errorf("Permute: %+v", q)
		}
	}
}

// TestValidateSpaceTimeDuplicates: the same site at two times is not a
// duplicate location; the same site and time is.
func TestValidateSpaceTimeDuplicates(t *testing.T) {
	d := &Data{X: []float64{0.1, 0.1}, Y: []float64{0.2, 0.2}, T: []float64{0, 1}, Obs: []float64{1, 2}}
	if err := Validate(d, 2); err != nil {
		t.Fatal(err)
	}
	d.T[1] = 0
	if err := Validate(d, 2); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("got %v", err)
	}
	d = &Data{X: []float64{0.1, 0.1}, Y: []float64{0.2, 0.2}, Z: []float64{0, 1}, Obs: []float64{1, 2}}
	if err := Validate(d, 2); err != nil {
		t.Fatal(err)
	}
}

func TestGridTimes(t *testing.T) {
	g := Grid(10, 3)
	d := GridTimes(30, 3, 3)
	if d.Len() != 30 || len(d.T) != 30 {
		t.Fatalf("len %d, %d times", d.Len(), len(d.T))
	}
	for i := range 30 {
		if d.X[i] != g.X[i%10] || d.Y[i] != g.Y[i%10] || d.T[i] != float64(i/10+1) {
			t.Fatalf("row %d: (%v, %v, %v)", i, d.X[i], d.Y[i], d.T[i])
		}
	}
	if err := Validate(d, 3); err != nil {
		t.Fatal(err)
	}
	if d := GridTimes(10, 1, 3); d.T != nil || !slices.Equal(d.X, g.X) {
		t.Fatal("times 1 is not Grid")
	}
}

// TestMortonOrderTimeMajor: space-time data are sorted by time, then in
// Morton order within a time.
func TestMortonOrderTimeMajor(t *testing.T) {
	d := GridTimes(40, 4, 9)
	// Reverse the rows, so that sorting has work to do.
	rev := make([]int, 40)
	for i := range rev {
		rev[i] = 39 - i
	}
	r := Permute(d, rev)
	s := Permute(r, MortonOrder(r))
	g := Grid(10, 9) // Morton-sorted sites
	for i := range 40 {
		if s.T[i] != float64(i/10+1) || s.X[i] != g.X[i%10] || s.Y[i] != g.Y[i%10] {
			t.Fatalf("row %d: (%v, %v, t %v)", i, s.X[i], s.Y[i], s.T[i])
		}
	}
}

// TestBivariateColumns: x,y,z1,z2 reads two observed variables, written
// back bit for bit; z2 alone is an error.
func TestBivariateColumns(t *testing.T) {
	p := writeFile(t, t.TempDir(), "b.csv", "x,y,z1,z2\n0.1,0.2,1.5,-2\n0.3,0.4,0.25,3\n")
	d, err := ReadCSV(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Obs, []float64{1.5, 0.25}) || !slices.Equal(d.Obs2, []float64{-2, 3}) {
		t.Fatalf("obs %v obs2 %v", d.Obs, d.Obs2)
	}
	if err := Validate(d, 2); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(t.TempDir(), "w.csv")
	if err := WriteCSV(q, Permute(d, []int{1, 0})); err != nil {
		t.Fatal(err)
	}
	r, err := ReadCSV(q)
	if err != nil || !slices.Equal(r.Obs, []float64{0.25, 1.5}) || !slices.Equal(r.Obs2, []float64{3, -2}) {
		t.Fatalf("read back %+v, %v", r, err)
	}
	if l, err := ReadLocations(p); err != nil || l.Obs != nil || l.Obs2 != nil {
		t.Fatalf("locations %+v, %v", l, err)
	}
	bad := writeFile(t, t.TempDir(), "c.csv", "x,y,z,z2\n1,2,3,4\n")
	if _, err := ReadCSV(bad); err == nil || !strings.Contains(err.Error(), "z2 needs a column z1") {
		t.Fatalf("x,y,z,z2: %v", err)
	}
}
