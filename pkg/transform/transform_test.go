package transform

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want T
		err  string
	}{
		{"", T{}, ""},
		{"none", T{}, ""},
		{"LOG", T{Kind: Log}, ""},
		{"log1p", T{Kind: Log1p}, ""},
		{"sqrt", T{Kind: Sqrt}, ""},
		{"boxcox:0.5", T{Kind: BoxCox, Lambda: 0.5}, ""},
		{"boxcox:0", T{Kind: Log}, ""},
		{"boxcox:x", T{}, `transform "boxcox:x": LAMBDA must be a number in [-10, 10]`},
		{"boxcox:NaN", T{}, `LAMBDA must be`},
		{"exp", T{}, `unknown transform "exp" (want log, log1p, sqrt or boxcox:LAMBDA)`},
	} {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
		if r, _ := Parse(got.String()); r != got {
			t.Errorf("%q: String %q does not read back", c.in, got.String())
		}
	}
}

// TestForwardInverse: g^-1(g(z)) = z on the domain; values outside are
// errors naming the row.
func TestForwardInverse(t *testing.T) {
	for _, tr := range []T{{}, {Kind: Log}, {Kind: Log1p}, {Kind: Sqrt}, {Kind: BoxCox, Lambda: 0.5}, {Kind: BoxCox, Lambda: -0.3}} {
		for _, z := range []float64{0.01, 0.5, 1, 3, 1022} {
			g, err := tr.Forward(z)
			if err != nil {
				t.Fatal(err)
			}
			if back := tr.Inverse(g); math.Abs(back-z) > 1e-12*z {
				t.Errorf("%v: %g -> %g -> %g", tr, z, g, back)
			}
		}
	}
	z := []float64{1, 2, 0, 4}
	if err := (T{Kind: Log}).Apply(z); err == nil || err.Error() != "row 3: 0 is outside the domain of the log transform (values > 0)" {
		t.Errorf("got %v", err)
	}
	if err := (T{Kind: Sqrt}).Apply([]float64{0, 4}); err != nil {
		t.Error(err)
	}
}

// TestBack: the closed forms against a Monte Carlo over 2e6 normal draws
// (independent of the formulas; tolerance 5 standard errors), and the
// Box-Cox quadrature against the closed form of lambda = 0.5 (Z = (1 +
// Y/2)^2: E Z = (1 + m/2)^2 + v/4, Var Z = (1 + m/2)^2 v + v^2/8, the
// truncation at 1 + Y/2 <= 0 negligible at these m, v) and lambda -> 0
// against the log.
func TestBack(t *testing.T) {
	const draws = 2000000
	rng := rand.New(rand.NewPCG(3, 26))
	y := make([]float64, draws)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		tr   T
		m, v float64
	}{
		{T{Kind: Log}, 5.9, 0.21},
		{T{Kind: Log1p}, 1.2, 0.5},
		{T{Kind: Sqrt}, 3, 1.1},
		{T{Kind: BoxCox, Lambda: 0.5}, 4, 0.8},
		{T{Kind: BoxCox, Lambda: 0.25}, 2, 0.3},
	} {
		mean, variance := c.tr.Back(c.m, c.v)
		var s1, s2 float64
		for _, e := range y {
			z := c.tr.Inverse(c.m + math.Sqrt(c.v)*e)
			s1 += z
			s2 += z * z
		}
		mc := s1 / draws
		mcv := s2/draws - mc*mc
		if se := math.Sqrt(mcv / draws); math.Abs(mean-mc) > 5*se {
			t.Errorf("%v (%g, %g): mean %.8g, Monte Carlo %.8g (se %.2g)", c.tr, c.m, c.v, mean, mc, se)
		}
		if math.Abs(variance-mcv) > 0.01*mcv {
			t.Errorf("%v (%g, %g): variance %.8g, Monte Carlo %.8g", c.tr, c.m, c.v, variance, mcv)
		}
	}
	// Quadrature against closed forms.
	m, v := 4.0, 0.8
	mean, variance := T{Kind: BoxCox, Lambda: 0.5}.Back(m, v)
	a := 1 + m/2
	if want := a*a + v/4; math.Abs(mean-want) > 1e-12*want {
		t.Errorf("boxcox:0.5 mean %.17g, want %.17g", mean, want)
	}
	if want := a*a*v + v*v/8; math.Abs(variance-want) > 1e-10*want {
		t.Errorf("boxcox:0.5 variance %.17g, want %.17g", variance, want)
	}
	lm, lv := T{Kind: Log}.Back(m, v)
	bm, bv := T{Kind: BoxCox, Lambda: 1e-7}.Back(m, v)
	if math.Abs(bm-lm) > 1e-5*lm || math.Abs(bv-lv) > 1e-4*lv {
		t.Errorf("boxcox:1e-7 (%g, %g) far from log (%g, %g)", bm, bv, lm, lv)
	}
	// The lognormal closed form, written out.
	if mean, variance := (T{Kind: Log}).Back(m, v); mean != math.Exp(m+v/2) || math.Abs(variance-(math.Exp(v)-1)*math.Exp(2*m+v)) > 1e-14*variance {
		t.Errorf("log: %g %g", mean, variance)
	}
}
