package dataset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMortonOrder4x4(t *testing.T) {
	// zOrder4 is the Morton (Z) order of the 4x4 integer grid, x in the less
	// significant bits: each 2x2 block is visited (0,0), (1,0), (0,1), (1,1).
	zOrder4 := [16][2]float64{
		{0, 0}, {1, 0}, {0, 1}, {1, 1},
		{2, 0}, {3, 0}, {2, 1}, {3, 1},
		{0, 2}, {1, 2}, {0, 3}, {1, 3},
		{2, 2}, {3, 2}, {2, 3}, {3, 3},
	}
	cases := []struct {
		name        string
		sx, ox      float64 // x -> sx*x + ox
		sy, oy      float64
		shuffleSeed uint64
	}{
		{"unit", 1, 0, 1, 0, 1},
		{"scaled and shifted", 10, 5, 0.001, -3, 2},
		{"degrees", 2.5, -120, 2.5, 30, 3},
		{"another shuffle", 1, 0, 1, 0, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(c.shuffleSeed, 0))
			order := r.Perm(16) // row k of d is point zOrder4[order[k]]
			d := &Data{Obs: make([]float64, 16)}
			for k, z := range order {
				d.X = append(d.X, c.sx*zOrder4[z][0]+c.ox)
				d.Y = append(d.Y, c.sy*zOrder4[z][1]+c.oy)
				d.Obs[k] = float64(z)
			}
			perm := MortonOrder(d)
			p := Permute(d, perm)
			for k := range 16 {
				if p.Obs[k] != float64(k) {
					t.Fatalf("position %d holds Z index %v: order %v", k, p.Obs[k], p.Obs)
				}
				if p.X[k] != c.sx*zOrder4[k][0]+c.ox || p.Y[k] != c.sy*zOrder4[k][1]+c.oy {
					t.Errorf("position %d: (%v, %v)", k, p.X[k], p.Y[k])
				}
			}
		})
	}
}

func TestMortonOrderSmall(t *testing.T) {
	cases := []struct {
		name string
		x, y []float64
		want []int
	}{
		{"empty", nil, nil, []int{}},
		{"one", []float64{3}, []float64{4}, []int{0}},
		{"ties keep index order", []float64{1, 0, 1, 0}, []float64{1, 0, 1, 0}, []int{1, 3, 0, 2}},
		{"all equal", []float64{2, 2, 2}, []float64{5, 5, 5}, []int{0, 1, 2}},
		{"collinear in y", []float64{7, 7, 7, 7}, []float64{3, 0, 2, 1}, []int{1, 3, 2, 0}},
		{"x before y", []float64{0, 1, 0, 1}, []float64{1, 1, 0, 0}, []int{2, 3, 0, 1}},
		// (0.9, 0.1) is in quadrant (1, 0), visited before (0.1, 0.9) in (0, 1).
		{"quadrants", []float64{0.1, 0.9, 0.9, 0.1, 0, 1}, []float64{0.9, 0.1, 0.9, 0.1, 0, 1}, []int{4, 3, 1, 0, 2, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := MortonOrder(&Data{X: c.x, Y: c.y})
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v want %v", got, c.want)
			}
		})
	}
}

func TestQuantise(t *testing.T) {
	const top = 1<<mortonBits - 1
	cases := []struct {
		v, lo, hi float64
		want      uint64
	}{
		{0, 0, 1, 0}, {1, 0, 1, top}, {0.5, 0, 1, 1 << (mortonBits - 1)},
		{5, 5, 5, 0}, {-1, 0, 1, 0}, {2, 0, 1, top},
	}
	for _, c := range cases {
		if got := quantise(c.v, c.lo, c.hi); got != c.want {
			t.Errorf("quantise(%v, %v, %v) = %d want %d", c.v, c.lo, c.hi, got, c.want)
		}
	}
	if got := spread(0b1011); got != 0b1000101 {
		t.Errorf("spread(1011b) = %b", got)
	}
	if got := spread(1<<mortonBits - 1); got != 0x0000_0155_5555_5555 {
		t.Errorf("spread(2^21-1) = %x", got)
	}
}

func TestPermuteInverse(t *testing.T) {
	cases := []struct {
		name string
		d    *Data
		perm []int
		inv  []int
	}{
		{"three with obs", &Data{X: []float64{1, 2, 3}, Y: []float64{4, 5, 6}, Obs: []float64{7, 8, 9}, Coords: Geographic},
			[]int{2, 0, 1}, []int{1, 2, 0}},
		{"identity", &Data{X: []float64{1, 2}, Y: []float64{3, 4}}, []int{0, 1}, []int{0, 1}},
		{"reverse no obs", &Data{X: []float64{1, 2, 3, 4}, Y: []float64{5, 6, 7, 8}}, []int{3, 2, 1, 0}, []int{3, 2, 1, 0}},
		{"empty", &Data{}, []int{}, []int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv := Inverse(c.perm)
			if !slices.Equal(inv, c.inv) {
				t.Errorf("Inverse = %v want %v", inv, c.inv)
			}
			if !slices.Equal(Inverse(inv), c.perm) {
				t.Errorf("Inverse(Inverse) = %v", Inverse(inv))
			}
			p := Permute(c.d, c.perm)
			for k, i := range c.perm {
				if p.X[k] != c.d.X[i] || p.Y[k] != c.d.Y[i] || (c.d.Obs != nil && p.Obs[k] != c.d.Obs[i]) {
					t.Errorf("row %d is not row %d", k, i)
				}
			}
			if (p.Obs == nil) != (c.d.Obs == nil) || p.Coords != c.d.Coords {
				t.Errorf("Obs nil-ness or Coords changed")
			}
			back := Permute(p, inv)
			if !slices.Equal(back.X, c.d.X) || !slices.Equal(back.Y, c.d.Y) || !slices.Equal(back.Obs, c.d.Obs) {
				t.Errorf("round trip %+v want %+v", back, c.d)
			}
		})
	}
	// A Morton permutation of random data round-trips too, and Permute
	// does not modify its input.
	d := Grid(300, 3)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(d.Len(), func(i, j int) { d.X[i], d.X[j] = d.X[j], d.X[i]; d.Y[i], d.Y[j] = d.Y[j], d.Y[i] })
	d.Obs = StandardNormal(d.Len(), 5)
	orig := Permute(d, identity(d.Len()))
	perm := MortonOrder(d)
	back := Permute(Permute(d, perm), Inverse(perm))
	if !bitsEqual(back.X, orig.X) || !bitsEqual(back.Y, orig.Y) || !bitsEqual(back.Obs, orig.Obs) ||
		!bitsEqual(d.X, orig.X) || !bitsEqual(d.Obs, orig.Obs) {
		t.Errorf("Morton round trip changed the data")
	}
}

func TestPermutePanics(t *testing.T) {
	cases := []struct {
		name string
		f    func()
	}{
		{"inverse repeated", func() { Inverse([]int{0, 0}) }},
		{"inverse out of range", func() { Inverse([]int{0, 2}) }},
		{"inverse negative", func() { Inverse([]int{-1, 0}) }},
		{"permute length", func() { Permute(&Data{X: []float64{1, 2}, Y: []float64{1, 2}}, []int{0}) }},
		{"grid negative", func() { Grid(-1, 0) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			c.f()
		})
	}
}
