package matern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpNeg: expNeg agrees with math.Exp(-x) to 2 ulp over [0, 745],
// at the edges of its reduction (multiples of ln 2 / 2), and is math.Exp's
// answer at 0, +Inf, NaN and in the subnormal range.
func TestExpNeg(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for range 200000 {
		xs = append(xs, rng.Float64()*20, rng.Float64()*745, math.Exp(rng.Float64()*10-30))
	}
	for k := range 2000 {
		h := float64(k) * math.Ln2 / 2
		xs = append(xs, h, math.Nextafter(h, 0), math.Nextafter(h, 1000))
	}
	xs = append(xs, 0, 1e-300, 708, 708.0001, 744.4, 745.1, 746, math.Inf(1), math.NaN())
	worst := 0.0
	for _, x := range xs {
		got, want := expNeg(x), math.Exp(-x)
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("expNeg(%v) = %v, want NaN", x, got)
			}
			continue
		}
		if want == 0 || want < 0x1p-1022 {
			if got != want {
				t.Fatalf("expNeg(%v) = %v, want %v", x, got, want)
			}
			continue
		}
		ulp := math.Nextafter(want, math.Inf(1)) - want
		if e := math.Abs(got-want) / ulp; e > worst {
			worst = e
		}
	}
	if worst > 2 {
		t.Errorf("largest error %.2f ulp, want <= 2", worst)
	}
	t.Logf("%d arguments, largest error %.2f ulp of math.Exp", len(xs), worst)
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = float64(i) / 100
	}
	out := make([]float64, len(xs))
	b.Run("math", func(b *testing.B) {
		for range b.N {
			for i, x := range xs {
				out[i] = math.Exp(-x)
			}
		}
	})
	b.Run("expNeg", func(b *testing.B) {
		for range b.N {
			for i, x := range xs {
				out[i] = expNeg(x)
			}
		}
	})
}

// TestExpNegRow: the row form gives expNeg's bits, and the closed-form
// kernels' rows their Cov's bits (out aliasing r included).
func TestExpNegRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := make([]float64, 1000)
	for i := range r {
		r[i] = rng.Float64() * 40
	}
	r[7], r[8] = 0, math.Inf(1)
	out := make([]float64, len(r))
	expNegRow(r, out, 17.5)
	for i, ri := range r {
		if want := expNeg(ri * 17.5); math.Float64bits(out[i]) != math.Float64bits(want) {
			t.Fatalf("expNegRow[%d] = %v, expNeg %v", i, out[i], want)
		}
	}
	for _, nu := range []float64{0.5, 1.5, 2.5} {
		k, err := NewMatern(Theta{Sigma2: 1.3, Beta: 0.07, Nu: nu}, math.Inf(1))
		if err != nil {
			t.Fatal(err)
		}
		row := k.(RowKernel)
		in := append([]float64(nil), r[:130]...)
		row.CovRow(in, in) // in place
		for i := range in {
			if want := k.Cov(r[i]); math.Float64bits(in[i]) != math.Float64bits(want) {
				t.Fatalf("nu %g: CovRow[%d] = %v, Cov %v", nu, i, in[i], want)
			}
		}
	}
}
