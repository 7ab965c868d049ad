package matern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// plainKernel hides the RowKernel methods of a kernel, to test FillTile's
// per-entry path.
type plainKernel struct{ k Kernel }

func (p plainKernel) Cov(r float64) float64 { return p.k.Cov(r) }

func randomPoints(rng *rand.Rand, n int, threeD bool, scale float64) Points {
	p := Points{X: make([]float64, n), Y: make([]float64, n)}
	if threeD {
		p.Z = make([]float64, n)
	}
	for i := range n {
		p.X[i] = scale * rng.Float64()
		p.Y[i] = scale * rng.Float64()
		if threeD {
			p.Z[i] = scale * rng.Float64()
		}
	}
	return p
}

func geoPoints(rng *rand.Rand, n int) Points {
	p := Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range n {
		p.X[i] = 360*rng.Float64() - 180
		p.Y[i] = math.Asin(2*rng.Float64()-1) * 180 / math.Pi
	}
	return p
}

// TestFillTile compares FillTile with a naive double loop over Matern and
// Distance.
func TestFillTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pts2 := randomPoints(rng, 70, false, 1)
	pts3 := randomPoints(rng, 70, true, 1)
	geo := geoPoints(rng, 70)
	const sentinel = -12345.0
	cases := []struct {
		name                 string
		metric               Metric
		p                    Points
		th                   Theta
		nugget               float64
		row0, m, col0, n, ld int
		diag                 bool
		plain                bool // hide CovRow
	}{
		{"diag", Euclidean, pts2, Theta{1.3, 0.1, 0.73}, 0.25, 0, 40, 0, 40, 40, true, false},
		{"diag-sym-tall", Euclidean, pts2, Theta{1.3, 0.1, 0.73}, 0.25, 5, 40, 5, 25, 41, true, false},
		{"diag-sym-wide", Euclidean, pts2, Theta{1.3, 0.1, 0.73}, 0.25, 5, 25, 5, 40, 25, true, false},
		{"diag-offset-ragged", Euclidean, pts2, Theta{1.3, 0.1, 0.73}, 0.25, 10, 33, 20, 21, 50, true, false},
		{"offdiag-nugget-ignored", Euclidean, pts2, Theta{1.3, 0.1, 0.73}, 0.25, 10, 33, 20, 21, 50, false, false},
		{"diag-but-disjoint", Euclidean, pts2, Theta{1.3, 0.1, 0.73}, 0.25, 0, 30, 40, 30, 31, true, false},
		{"exp", Euclidean, pts2, Theta{2, 0.2, 0.5}, 0.1, 5, 17, 0, 60, 17, true, false},
		{"matern32", Euclidean, pts2, Theta{2, 0.2, 1.5}, 0.1, 0, 60, 5, 9, 64, true, false},
		{"matern52", Euclidean, pts2, Theta{2, 0.2, 2.5}, 0, 3, 1, 3, 1, 1, true, false},
		{"3d", Euclidean, pts3, Theta{0.9, 0.3, 3.7}, 0.5, 0, 50, 10, 45, 55, true, false},
		{"per-entry", Euclidean, pts2, Theta{1, 0.05, 0.3}, 0.5, 0, 25, 0, 30, 26, true, true},
		{"great-circle", GreatCircle, geo, Theta{1.1, 2000, 0.9}, 0.05, 0, 60, 0, 60, 60, true, false},
		{"great-circle-sym-ragged", GreatCircle, geo, Theta{1.1, 500, 1.5}, 0.05, 3, 20, 3, 41, 29, true, false},
		{"great-circle-ragged", GreatCircle, geo, Theta{1.1, 500, 1.5}, 0.05, 7, 20, 3, 41, 29, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, err := NewMatern(c.th, MaxDistance(c.metric, c.p))
			if err != nil {
				t.Fatal(err)
			}
			if c.plain {
				k = plainKernel{k}
			}
			dst := make([]float64, c.ld*c.n+3)
			for i := range dst {
				dst[i] = sentinel
			}
			FillTile(k, c.nugget, c.metric, c.p, c.row0, c.m, c.p, c.col0, c.n, c.diag, dst, c.ld)
			for j := range c.n {
				for i := range c.ld {
					got := dst[i+j*c.ld]
					if i >= c.m {
						if got != sentinel {
							t.Fatalf("entry (%d,%d) below the tile was written", i, j)
						}
						continue
					}
					want := Matern(c.th, Distance(c.metric, c.p, c.row0+i, c.p, c.col0+j))
					if c.diag && c.row0+i == c.col0+j {
						want += c.nugget
					}
					if e := relErr(got, want); !(e <= 1e-12) {
						t.Fatalf("entry (%d,%d) = %.17g, want %.17g (rel %.2g)", i, j, got, want, e)
					}
				}
			}
			for _, v := range dst[c.ld*c.n:] {
				if v != sentinel {
					t.Fatal("FillTile wrote past the tile")
				}
			}
		})
	}
}

// TestFillTileKernels checks FillTile with the other kernels and the
// direct Theta kernel.
func TestFillTileKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := randomPoints(rng, 30, false, 2)
	for _, k := range []Kernel{PowExp{1, 0.3, 1.7}, PowExp{1, 0.3, 2}, Theta{1, 0.3, 0.8}} {
		dst := make([]float64, 30*30)
		FillTile(k, 0.1, Euclidean, p, 0, 30, p, 0, 30, true, dst, 30)
		for j := range 30 {
			for i := range 30 {
				want := k.Cov(Distance(Euclidean, p, i, p, j))
				if i == j {
					want += 0.1
				}
				if got := dst[i+30*j]; relErr(got, want) > 1e-15 {
					t.Fatalf("%T (%d,%d) = %v, want %v", k, i, j, got, want)
				}
			}
		}
	}
}

func TestFillTilePanics(t *testing.T) {
	p := Points{X: []float64{0, 1}, Y: []float64{0, 1}}
	p3 := Points{X: []float64{0, 1}, Y: []float64{0, 1}, Z: []float64{0, 1}}
	k := Theta{1, 1, 1}
	for name, f := range map[string]func(){
		"ld<m":      func() { FillTile(k, 0, Euclidean, p, 0, 2, p, 0, 2, false, make([]float64, 4), 1) },
		"short dst": func() { FillTile(k, 0, Euclidean, p, 0, 2, p, 0, 2, false, make([]float64, 3), 2) },
		"2d vs 3d":  func() { FillTile(k, 0, Euclidean, p, 0, 2, p3, 0, 2, false, make([]float64, 4), 2) },
		"metric":    func() { FillTile(k, 0, Metric(7), p, 0, 2, p, 0, 2, false, make([]float64, 4), 2) },
		"range":     func() { FillTile(k, 0, Euclidean, p, 1, 2, p, 0, 2, false, make([]float64, 4), 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	FillTile(k, 0, Euclidean, p, 0, 0, p, 0, 2, false, nil, 0) // empty: no-op
}

func TestFillTileAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	p := randomPoints(rng, 64, false, 1)
	k, _ := NewMatern(Theta{1, 0.1, 0.73}, MaxDistance(Euclidean, p))
	dst := make([]float64, 64*64)
	if a := testing.AllocsPerRun(10, func() {
		FillTile(k, 0.1, Euclidean, p, 0, 64, p, 0, 64, true, dst, 64)
	}); a != 0 {
		t.Errorf("FillTile allocates %v times per call", a)
	}
}

// TestHaversineTable checks great-circle distances against mpmath.
func TestHaversineTable(t *testing.T) {
	rows := readTable(t, "haversine.csv", 5)
	worst := 0.0
	for _, r := range rows {
		p := Points{X: []float64{r[0]}, Y: []float64{r[1]}}
		q := Points{X: []float64{r[2]}, Y: []float64{r[3]}}
		for _, got := range []float64{Distance(GreatCircle, p, 0, q, 0), Distance(GreatCircle, q, 0, p, 0)} {
			e := relErr(got, r[4])
			if want := r[4]; want == 0 {
				e = math.Abs(got)
			}
			if !(e <= 1e-12) {
				t.Errorf("distance (%v,%v)-(%v,%v) = %.17g km, want %.17g", r[0], r[1], r[2], r[3], got, r[4])
			}
			worst = max(worst, e)
		}
	}
	t.Logf("%d pairs, max relative error %.3g", len(rows), worst)

	// Paris - London, 343.5 km with R = 6371 km.
	paris := Points{X: []float64{2.3522}, Y: []float64{48.8566}}
	london := Points{X: []float64{-0.1276}, Y: []float64{51.5072}}
	if d := Distance(GreatCircle, paris, 0, london, 0); math.Abs(d-343.52986549491165) > 1e-10 {
		t.Errorf("Paris-London = %.12f km, want 343.529865494912", d)
	}
}

func TestDistanceEuclidean(t *testing.T) {
	p := Points{X: []float64{0, 3}, Y: []float64{0, 4}}
	q := Points{X: []float64{0, 3}, Y: []float64{0, 4}, Z: []float64{0, 12}}
	cases := []struct {
		p, q Points
		i, j int
		want float64
	}{
		{p, p, 0, 1, 5}, {p, p, 1, 0, 5}, {p, p, 1, 1, 0}, {q, q, 0, 1, 13},
	}
	for _, c := range cases {
		if got := Distance(Euclidean, c.p, c.i, c.q, c.j); got != c.want {
			t.Errorf("Distance(%v, %d, %v, %d) = %v, want %v", c.p, c.i, c.q, c.j, got, c.want)
		}
	}
}

func TestMaxDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		m Metric
		p Points
	}{
		{Euclidean, randomPoints(rng, 200, false, 3)},
		{Euclidean, randomPoints(rng, 200, true, 0.01)},
		{GreatCircle, geoPoints(rng, 200)},
		{Euclidean, Points{X: []float64{0, 1, 0, 1}, Y: []float64{0, 1, 1, 0}}},
		{GreatCircle, Points{X: []float64{0, 180}, Y: []float64{0, 0}}},
	} {
		bound := MaxDistance(c.m, c.p)
		for i := range c.p.Len() {
			for j := range c.p.Len() {
				if d := Distance(c.m, c.p, i, c.p, j); d > bound {
					t.Fatalf("%v: distance %v > MaxDistance %v", c.m, d, bound)
				}
			}
		}
	}
	if d := MaxDistance(Euclidean, Points{X: []float64{1}, Y: []float64{1}}); d != 0 {
		t.Errorf("MaxDistance of one point = %v", d)
	}
	if s := GreatCircle.String(); s != "great-circle" {
		t.Errorf("GreatCircle.String() = %q", s)
	}
}

func TestEntriesPerSecond(t *testing.T) {
	k, err := NewMatern(Theta{1, 0.1, 0.73}, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	if r := EntriesPerSecond(k, 32, 0.001); !(r > 0) || math.IsInf(r, 1) {
		t.Errorf("EntriesPerSecond = %v", r)
	}
}

// TestFillTileSymmetric checks that the symmetric shortcut of diagonal
// tiles gives bit for bit what the full computation gives.
func TestFillTileSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		metric Metric
		p      Points
	}{
		{Euclidean, randomPoints(rng, 50, false, 1)},
		{Euclidean, randomPoints(rng, 50, true, 1)},
		{GreatCircle, geoPoints(rng, 50)},
	} {
		k, err := NewMatern(Theta{1, 0.2, 1.1}, 1e5)
		if err != nil {
			t.Fatal(err)
		}
		cp := Points{X: append([]float64(nil), c.p.X...), Y: append([]float64(nil), c.p.Y...)}
		if c.p.Z != nil {
			cp.Z = append([]float64(nil), c.p.Z...)
		}
		sym := make([]float64, 50*45)
		full := make([]float64, 50*45)
		FillTile(k, 0.3, c.metric, c.p, 2, 45, c.p, 2, 48, true, sym, 45)
		FillTile(k, 0.3, c.metric, c.p, 2, 45, cp, 2, 48, true, full, 45)
		for i := range sym[:45*48] {
			if sym[i] != full[i] {
				t.Fatalf("%v: entry %d: symmetric %v, full %v", c.metric, i, sym[i], full[i])
			}
		}
	}
}
