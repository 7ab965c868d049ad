package matern

import (
	"math"
	"testing"
)

// TestEffectiveRange: the distance where the correlation is 0.05 against
// independent solutions: beta ln 20 for nu = 1/2, and Newton's method on
// the closed forms (1 + x) e^-x = 0.05 (nu = 3/2) and
// (1 + x + x^2/3) e^-x = 0.05 (nu = 5/2), x = r/beta.
func TestEffectiveRange(t *testing.T) {
	newton := func(f, df func(float64) float64) float64 {
		x := 3.0
		for range 100 {
			x -= f(x) / df(x)
		}
		return x
	}
	x32 := newton(func(x float64) float64 { return (1+x)*math.Exp(-x) - 0.05 }, func(x float64) float64 { return -x * math.Exp(-x) })
	x52 := newton(func(x float64) float64 { return (1+x+x*x/3)*math.Exp(-x) - 0.05 },
		func(x float64) float64 { return (1+2*x/3)*math.Exp(-x) - (1+x+x*x/3)*math.Exp(-x) })
	cases := []struct{ beta, nu, want float64 }{
		{0.1, 0.5, 0.1 * math.Log(20)},
		{595.28, 0.5, 595.28 * math.Log(20)},
		{0.1, 1.5, 0.1 * x32},
		{2.0, 2.5, 2 * x52},
	}
	for _, c := range cases {
		got, err := EffectiveRange(c.beta, c.nu, EffectiveRangeLevel)
		if err != nil || math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("EffectiveRange(%g, %g) = %.15g, %v; want %.15g", c.beta, c.nu, got, err, c.want)
		}
	}
	// The Matérn at a general nu: the correlation at the range is the level.
	r, err := EffectiveRange(0.2, 0.73, 0.05)
	if err != nil || math.Abs(Matern(Theta{Sigma2: 1, Beta: 0.2, Nu: 0.73}, r)-0.05) > 1e-12 {
		t.Errorf("nu 0.73: range %v (%v)", r, err)
	}
	if got := PowExpEffectiveRange(0.3, 1, 0.05); math.Abs(got-0.3*math.Log(20)) > 1e-15 {
		t.Errorf("powexp delta 1: %v", got)
	}
	if _, err := EffectiveRange(0, 1, 0.05); err == nil {
		t.Error("beta 0 accepted")
	}
}
