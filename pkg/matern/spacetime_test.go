package matern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSpaceTimeReference checks CovST and the fast kernel against mpmath
// (testdata/gen_multi.py).
func TestSpaceTimeReference(t *testing.T) {
	rows := readTable(t, "spacetime.csv", 10)
	for _, r := range rows {
		s, err := NewSpaceTimeTheta(r[:7])
		if err != nil {
			t.Fatal(err)
		}
		h, u, want := r[7], r[8], r[9]
		if e := relErr(s.CovST(h, u), want); e > 1e-12 {
			t.Errorf("CovST(%v; h=%v, u=%v) = %v, want %v (rel %.2e)", r[:7], h, u, s.CovST(h, u), want, e)
		}
		k, err := NewSpaceTime(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := Points{X: []float64{0, h}, Y: []float64{0, 0}, T: []float64{1, 1 + u}}
		var got [1]float64
		k.Fill(Euclidean, p, 0, 1, p, 1, 1, got[:], 1)
		// 1+u is rounded: the lag the kernel sees is (1+u)-1.
		want = s.CovST(h, (1+u)-1)
		if e := relErr(got[0], want); e > 1e-12 {
			t.Errorf("fast (%v; h=%v, u=%v) = %v, want %v (rel %.2e)", r[:7], h, u, got[0], want, e)
		}
		if u == 0 {
			if e := relErr(k.Cov(h), r[9]); e > 1e-12 {
				t.Errorf("Cov(%v) = %v, want %v", h, k.Cov(h), r[9])
			}
		}
	}
}

// TestSpaceTimeSeparable checks the structure of the model: with sep = 0
// it is the product of the Matern in space and psi(u)^-delta in time, and
// C(0, 0) = sigma2.
func TestSpaceTimeSeparable(t *testing.T) {
	s := SpaceTime{Sigma2: 1.7, Beta: 0.2, Nu: 0.8, BetaT: 0.5, Alpha: 0.6, Sep: 0, Delta: 0.9}
	for _, h := range []float64{0, 0.01, 0.3} {
		for _, u := range []float64{0, 0.5, 2} {
			want := Matern(Theta{Sigma2: 1.7, Beta: 0.2, Nu: 0.8}, h) * math.Pow(math.Pow(u, 1.2)/0.5+1, -0.9)
			if e := relErr(s.CovST(h, u), want); e > 1e-14 {
				t.Errorf("h=%v u=%v: %v, want %v", h, u, s.CovST(h, u), want)
			}
		}
	}
	if s.CovST(0, 0) != 1.7 {
		t.Errorf("C(0,0) = %v", s.CovST(0, 0))
	}
}

// TestSpaceTimeFillTile fills tiles through FillTile (the nugget on the
// diagonal) and compares every entry with CovST.
func TestSpaceTimeFillTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 37
	p := Points{X: make([]float64, n), Y: make([]float64, n), T: make([]float64, n)}
	for i := range n {
		p.X[i], p.Y[i], p.T[i] = rng.Float64(), rng.Float64(), float64(rng.IntN(4))
	}
	for _, nu := range []float64{0.5, 1.5, 0.73} {
		s := SpaceTime{Sigma2: 1.3, Beta: 0.1, Nu: nu, BetaT: 0.7, Alpha: 0.8, Sep: 0.6, Delta: 0.2}
		k, err := NewSpaceTime(s, MaxDistance(Euclidean, p))
		if err != nil {
			t.Fatal(err)
		}
		ld := 20
		dst := make([]float64, ld*n)
		FillTile(k, 0.05, Euclidean, p, 3, 17, p, 3, 17, true, dst, ld)
		for j := range 17 {
			for i := range 17 {
				want := s.CovST(Distance(Euclidean, p, 3+i, p, 3+j), math.Abs(p.T[3+i]-p.T[3+j]))
				if i == j {
					want += 0.05
				}
				if e := relErr(dst[i+j*ld], want); e > 1e-12 {
					t.Fatalf("nu %v (%d,%d): %v, want %v", nu, i, j, dst[i+j*ld], want)
				}
				if dst[i+j*ld] != dst[j+i*ld] {
					t.Fatalf("nu %v: tile not symmetric at (%d,%d)", nu, i, j)
				}
			}
		}
	}
}

func TestSpaceTimeValidate(t *testing.T) {
	ok := []float64{1, 0.1, 0.5, 1, 0.5, 0.5, 0}
	if _, err := NewSpaceTimeTheta(ok); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{0, -1, 0, 0, 1.5, 1.01, -0.1} {
		th := append([]float64(nil), ok...)
		th[i] = v
		if _, err := NewSpaceTimeTheta(th); err == nil {
			t.Errorf("theta %v accepted", th)
		}
	}
	if _, err := NewSpaceTimeTheta(ok[:6]); err == nil {
		t.Error("6 values accepted")
	}
}
