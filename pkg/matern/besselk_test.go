package matern

import (
	"math"
	"testing"
)

// TestBesselKTable checks BesselK against 40-digit mpmath values.
func TestBesselKTable(t *testing.T) {
	rows := readTable(t, "besselk.csv", 3)
	worst, wnu, wx := 0.0, 0.0, 0.0
	for _, r := range rows {
		nu, x, want := r[0], r[1], r[2]
		got := BesselK(nu, x)
		e := relErr(got, want)
		if !(e <= 1e-12) {
			t.Errorf("BesselK(%v, %v) = %.17g, want %.17g (rel err %.2g)", nu, x, got, want, e)
		}
		if e > worst {
			worst, wnu, wx = e, nu, x
		}
	}
	t.Logf("%d rows, max relative error %.3g (nu=%v, x=%v)", len(rows), worst, wnu, wx)
}

// TestBesselKClosedForms compares the half-integer orders with their
// elementary expressions.
func TestBesselKClosedForms(t *testing.T) {
	forms := []struct {
		nu float64
		f  func(x float64) float64
	}{
		{0.5, func(x float64) float64 { return math.Sqrt(math.Pi/(2*x)) * math.Exp(-x) }},
		{1.5, func(x float64) float64 { return math.Sqrt(math.Pi/(2*x)) * math.Exp(-x) * (1 + 1/x) }},
		{2.5, func(x float64) float64 { return math.Sqrt(math.Pi/(2*x)) * math.Exp(-x) * (1 + 3/x + 3/(x*x)) }},
	}
	for _, c := range forms {
		worst := 0.0
		for x := 1e-5; x < 700; x *= 1.07 {
			got, want := BesselK(c.nu, x), c.f(x)
			if e := relErr(got, want); !(e <= 1e-13) {
				t.Errorf("BesselK(%v, %v) = %.17g, closed form %.17g (rel err %.2g)", c.nu, x, got, want, e)
			} else {
				worst = max(worst, e)
			}
		}
		t.Logf("nu=%v: max relative difference %.3g", c.nu, worst)
	}
}

func TestBesselKSpecial(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		nu, x, want float64
	}{
		{1.3, 0, inf},
		{1.3, inf, 0},
		{1.3, -1, nan},
		{nan, 1, nan},
		{1.3, nan, nan},
		{30, 1e-12, inf},               // overflows
		{0.5, 800, 0},                  // underflows (e^-800)
		{-0.7, 2.5, BesselK(0.7, 2.5)}, // K_-nu = K_nu
	}
	for _, c := range cases {
		got := BesselK(c.nu, c.x)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("BesselK(%v, %v) = %v, want %v", c.nu, c.x, got, c.want)
		}
	}
	// Subnormal results keep roughly their value.
	if v, want := BesselK(0.5, 720), math.Sqrt(math.Pi/1440)*math.Exp(-720); relErr(v, want) > 1e-6 {
		t.Errorf("BesselK(0.5, 720) = %g, want about %g", v, want)
	}
}

// TestBesselKRecurrence checks the three-term recurrence and the
// continuity of the switch between Temme's series and CF2 at x = 2 for
// orders not in the table.
func TestBesselKRecurrence(t *testing.T) {
	for _, nu := range []float64{0.01, 0.37, 0.49, 0.51, 1.77, 4.2, 12.6, 28.9} {
		for _, x := range []float64{1e-3, 0.3, 1.9999999, 2, 2.0000001, 7, 55, 320} {
			km, k0, kp := BesselK(nu-1, x), BesselK(nu, x), BesselK(nu+1, x)
			lhs, rhs := kp, 2*nu/x*k0+km // BesselK(nu-1) is K_{1-nu} for nu < 1: still K_{nu-1}
			if e := relErr(lhs, rhs); !(e <= 1e-13) {
				t.Errorf("nu=%v x=%v: K_nu+1 = %.17g, 2nu/x K_nu + K_nu-1 = %.17g (rel %.2g)", nu, x, lhs, rhs, e)
			}
		}
	}
}
