package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCeilSqrt(t *testing.T) {
	cases := []struct{ n, s int }{{0, 0}, {1, 1}, {2, 2}, {4, 2}, {5, 3}, {9, 3}, {10, 4}, {99, 10}, {100, 10}, {101, 11},
		{1 << 40, 1 << 20}, {1<<40 + 1, 1<<20 + 1}}
	for _, c := range cases {
		if got := ceilSqrt(c.n); got != c.s {
			t.Errorf("ceilSqrt(%d) = %d want %d", c.n, got, c.s)
		}
	}
}

func TestGrid(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 5, 9, 10, 17, 100, 1000, 1601} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			d := Grid(n, 42)
			if d.Len() != n || len(d.Y) != n || d.Obs != nil || d.Coords != Planar {
				t.Fatalf("len %d/%d obs %v coords %v", len(d.X), len(d.Y), d.Obs, d.Coords)
			}
			s := ceilSqrt(n)
			cells := make(map[int]bool, n)
			const tol = 1e-12
			for k := 0; k < n; k++ {
				x, y := d.X[k], d.Y[k]
				if !(x > 0 && x < 1 && y > 0 && y < 1) {
					t.Fatalf("point %d (%v, %v) outside (0,1)^2", k, x, y)
				}
				// The jitter U = x s - i - 0.5 lies in [-0.4, 0.4).
				i, j := math.Floor(x*float64(s)), math.Floor(y*float64(s))
				u, v := x*float64(s)-i-0.5, y*float64(s)-j-0.5
				if u < -0.4-tol || u >= 0.4+tol || v < -0.4-tol || v >= 0.4+tol {
					t.Fatalf("point %d (%v, %v): jitter (%v, %v) outside [-0.4, 0.4)", k, x, y, u, v)
				}
				// The first n cells in row-major order, i outer, each once.
				c := int(i)*s + int(j)
				if c >= n || cells[c] {
					t.Fatalf("point %d in cell (%v, %v): not one of the first %d, or repeated", k, i, j, n)
				}
				cells[c] = true
			}
			if perm := MortonOrder(d); !slices.Equal(perm, identity(n)) {
				t.Errorf("Grid not in Morton order: %v", perm[:min(n, 10)])
			}
			if err := Validate(d, min(n, 1)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestGridDraws(t *testing.T) {
	// Reproduce the documented construction by hand: s = 3 for n = 7, cells
	// in row-major order, U then U' per cell, then the Morton sort.
	const n, seed = 7, 2024
	r := rand.New(rand.NewPCG(seed, streamGrid))
	want := &Data{}
	for c := 0; c < n; c++ {
		i, j := c/3, c%3
		u := -0.4 + 0.8*r.Float64()
		v := -0.4 + 0.8*r.Float64()
		want.X = append(want.X, (float64(i)+0.5+u)/3)
		want.Y = append(want.Y, (float64(j)+0.5+v)/3)
	}
	want = Permute(want, MortonOrder(want))
	got := Grid(n, seed)
	if !bitsEqual(got.X, want.X) || !bitsEqual(got.Y, want.Y) {
		t.Errorf("got %v %v\nwant %v %v", got.X, got.Y, want.X, want.Y)
	}
}

func TestGridDeterminism(t *testing.T) {
	cases := []struct {
		s1, s2 uint64
		same   bool
	}{{1, 1, true}, {0, 0, true}, {1, 2, false}, {0, 1, false}, {12345, 12346, false}}
	for _, c := range cases {
		a, b := Grid(400, c.s1), Grid(400, c.s2)
		same := bitsEqual(a.X, b.X) && bitsEqual(a.Y, b.Y)
		if same != c.same {
			t.Errorf("seeds %d, %d: same=%v want %v", c.s1, c.s2, same, c.same)
		}
	}
}

func TestSplit(t *testing.T) {
	cases := []struct {
		n, k int
		seed uint64
	}{{4, 1, 0}, {10, 3, 1}, {10, 7, 2}, {100, 10, 3}, {1000, 1, 4}, {1000, 997, 5}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d/k=%d", c.n, c.k), func(t *testing.T) {
			train, test, err := Split(c.n, c.k, c.seed)
			if err != nil {
				t.Fatal(err)
			}
			if len(test) != c.k || len(train) != c.n-c.k {
				t.Fatalf("sizes %d/%d want %d/%d", len(train), len(test), c.n-c.k, c.k)
			}
			if !slices.IsSorted(train) || !slices.IsSorted(test) {
				t.Errorf("not sorted")
			}
			all := slices.Concat(train, test)
			slices.Sort(all)
			if !slices.Equal(all, identity(c.n)) {
				t.Errorf("train and test do not partition 0..%d", c.n-1)
			}
			train2, test2, _ := Split(c.n, c.k, c.seed)
			if !slices.Equal(train, train2) || !slices.Equal(test, test2) {
				t.Errorf("not deterministic")
			}
		})
	}
	_, a, _ := Split(100, 10, 1)
	_, b, _ := Split(100, 10, 2)
	if slices.Equal(a, b) {
		t.Errorf("seeds 1 and 2 hold out the same points %v", a)
	}
}

func TestSplitUniform(t *testing.T) {
	// Each index is held out with probability k/n.
	const n, k, trials = 10, 3, 20000
	count := make([]int, n)
	for s := range uint64(trials) {
		_, test, err := Split(n, k, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range test {
			count[i]++
		}
	}
	p := float64(k) / n
	sd := math.Sqrt(trials * p * (1 - p))
	for i, c := range count {
		if math.Abs(float64(c)-trials*p) > 4*sd {
			t.Errorf("index %d held out %d times, expected %.0f ± %.0f", i, c, trials*p, 4*sd)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	cases := []struct {
		n, k int
		want string
	}{
		{10, 0, "cannot hold out 0 of 10 points: need 1 <= k <= n-3"},
		{10, -1, "cannot hold out -1 of 10 points: need 1 <= k <= n-3"},
		{10, 8, "cannot hold out 8 of 10 points: need 1 <= k <= n-3"},
		{10, 10, "cannot hold out 10 of 10 points: need 1 <= k <= n-3"},
		{3, 1, "cannot hold out 1 of 3 points: need 1 <= k <= n-3"},
		{0, 1, "cannot hold out 1 of 0 points: need 1 <= k <= n-3"},
	}
	for _, c := range cases {
		train, test, err := Split(c.n, c.k, 1)
		if err == nil || err.Error() != c.want || train != nil || test != nil {
			t.Errorf("Split(%d, %d): got %v, %v, %v; want error %q", c.n, c.k, train, test, err, c.want)
		}
	}
}

func TestStandardNormal(t *testing.T) {
	const n = 100000
	e := StandardNormal(n, 7)
	if len(e) != n {
		t.Fatalf("len %d", len(e))
	}
	var sum, sum2 float64
	for _, v := range e {
		sum += v
	}
	mean := sum / n
	for _, v := range e {
		sum2 += (v - mean) * (v - mean)
	}
	variance := sum2 / (n - 1)
	if math.Abs(mean) > 4/math.Sqrt(n) {
		t.Errorf("mean %v beyond 4 sigma (%v)", mean, 4/math.Sqrt(n))
	}
	if math.Abs(variance-1) > 4*math.Sqrt(2.0/n) {
		t.Errorf("variance %v beyond 4 sigma of 1 (%v)", variance, 4*math.Sqrt(2.0/n))
	}
	cases := []struct {
		s1, s2 uint64
		same   bool
	}{{7, 7, true}, {7, 8, false}}
	for _, c := range cases {
		if same := bitsEqual(StandardNormal(100, c.s1), StandardNormal(100, c.s2)); same != c.same {
			t.Errorf("seeds %d, %d: same=%v want %v", c.s1, c.s2, same, c.same)
		}
	}
	if got := StandardNormal(0, 1); got == nil || len(got) != 0 {
		t.Errorf("n=0: %v", got)
	}
	// The first draws come from PCG(seed, stream) with NormFloat64.
	r := rand.New(rand.NewPCG(7, streamNormal))
	for i := 0; i < 5; i++ {
		if w := r.NormFloat64(); e[i] != w {
			t.Errorf("e[%d] = %v want %v", i, e[i], w)
		}
	}
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
