package matern

import (
	"math"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/cputime"
)

// TestLargeNuBesselKTable checks BesselK at orders 25 to 1e5 (the uniform
// asymptotic expansion) against 40-digit mpmath values. The tolerance is
// 1e-12 plus what the rounding of x alone costs: |d log K/d log x| =
// sqrt(nu^2 + x^2) (about) ulps.
func TestLargeNuBesselKTable(t *testing.T) {
	rows := readTable(t, "besselk_large.csv", 3)
	worst := 0.0
	for _, r := range rows {
		nu, x, want := r[0], r[1], r[2]
		got := BesselK(nu, x)
		cond := math.Hypot(nu, x)
		e := relErr(got, want)
		if !(e <= 1e-12+4e-16*cond) {
			t.Errorf("BesselK(%v, %v) = %.17g, want %.17g (rel err %.2g, conditioning %.3g)", nu, x, got, want, e, cond)
		}
		worst = max(worst, e/(1+cond))
	}
	t.Logf("%d rows, max relative error / (1 + conditioning) %.3g", len(rows), worst)
}

// TestLargeNuMaternTable checks Matern and NewMatern at orders 25 to 1e5
// against 40-digit mpmath values computed in log space: for nu above about
// 158 the factor 2^(1-nu)/Gamma(nu) underflows on its own, and the
// covariance used to become the identity.
func TestLargeNuMaternTable(t *testing.T) {
	rows := readTable(t, "matern_large.csv", 5)
	fast := map[float64]Kernel{}
	worst := 0.0
	for _, r := range rows {
		th := Theta{Sigma2: r[0], Beta: r[1], Nu: r[2]}
		k, ok := fast[th.Nu]
		if !ok {
			var err error
			if k, err = NewMatern(th, 10*th.Nu*th.Beta); err != nil {
				t.Fatal(err)
			}
			fast[th.Nu] = k
		}
		rr, want := r[3], r[4]
		for name, got := range map[string]float64{"Matern": Matern(th, rr), "NewMatern": k.Cov(rr)} {
			e := relErr(got, want)
			if !(e <= 1e-12) {
				t.Errorf("%s %+v: C(%v) = %.17g, want %.17g (rel err %.2g)", name, th, rr, got, want, e)
			}
			worst = max(worst, e)
		}
	}
	t.Logf("%d rows, max relative error %.3g", len(rows), worst)
}

// TestLargeNuNotIdentity is the defect of issue 16: at nu = 200 and 1000 the
// correlation at x = 2 sqrt(nu) is about e^-1 (the Gaussian limit
// exp(-x^2/(4 nu))), not 0.
func TestLargeNuNotIdentity(t *testing.T) {
	for _, nu := range []float64{158.5, 200, 1000, 1e6} {
		x := 2 * math.Sqrt(nu)
		got := Matern(Theta{1, 1, nu}, x)
		// exp(-x^2/(4 nu)) (1 + O(1/nu)) for x of order sqrt(nu).
		if want := math.Exp(-1); !(math.Abs(got-want) < 2/nu) {
			t.Errorf("nu=%v: corr(2 sqrt(nu)) = %v, want about %v", nu, got, want)
		}
	}
}

// TestLargeNuContinuity compares the two methods on either side of
// NuLarge and the recurrence a little above it.
func TestLargeNuContinuity(t *testing.T) {
	below := math.Nextafter(NuLarge, 0)
	for _, x := range []float64{1e-3, 0.1, 1, 5, 10, 25, 50, 200, 600} {
		a, b := BesselK(below, x), BesselK(NuLarge, x)
		if e := relErr(a, b); !(e <= 1e-13) {
			t.Errorf("x=%v: K at nu just below %v = %.17g, at %v = %.17g (rel %.2g)", x, float64(NuLarge), a, float64(NuLarge), b, e)
		}
		ca, cb := generalCorr(below, x), Matern(Theta{1, 1, NuLarge}, x)
		if cb > 1e-300 {
			if e := relErr(ca, cb); !(e <= 1e-13) {
				t.Errorf("x=%v: corr just below NuLarge %.17g, at NuLarge %.17g (rel %.2g)", x, ca, cb, e)
			}
		}
		// K_{nu+1} = 2 nu/x K_nu + K_{nu-1} across the switch and above it.
		for _, nu := range []float64{NuLarge, 40.3, 1234.5} {
			lhs, rhs := BesselK(nu+1, x), 2*nu/x*BesselK(nu, x)+BesselK(nu-1, x)
			if math.IsInf(lhs, 0) || lhs == 0 {
				continue
			}
			if e := relErr(lhs, rhs); !(e <= 1e-12) {
				t.Errorf("nu=%v x=%v: recurrence off by %.2g", nu, x, e)
			}
		}
	}
}

// TestDebyePolys checks u_1, u_2, u_3 against Abramowitz and Stegun 9.3.9.
func TestDebyePolys(t *testing.T) {
	want := [][]float64{
		{1},
		{3.0 / 24, -5.0 / 24},
		{81.0 / 1152, -462.0 / 1152, 385.0 / 1152},
		{30375.0 / 414720, -369603.0 / 414720, 765765.0 / 414720, -425425.0 / 414720},
	}
	for k, w := range want {
		for j, c := range w {
			if relErr(debye[k][j], c) > 1e-15 {
				t.Errorf("u_%d: coefficient of t^%d = %v, want %v", k, k+2*j, debye[k][j], c)
			}
		}
	}
	// S(1) = exp(stirling(nu)): the correlation at x -> 0 is 1 (to an
	// absolute error of the log of a few ulp).
	for _, nu := range []float64{25, 100, 1e4} {
		if e := math.Abs(math.Log(debyeSum(nu, 1)) - stirling(nu)); e > 1e-15 {
			t.Errorf("nu=%v: log S(1) = %v, stirling = %v", nu, math.Log(debyeSum(nu, 1)), stirling(nu))
		}
	}
}

// TestLargeNuFast: every order costs O(1) per value, and building the
// interpolating kernel stays in milliseconds, up to nu = 1e12 (the
// recurrence used to cost O(nu) per value: nu = 1e4 and more hung).
func TestLargeNuFast(t *testing.T) {
	for _, nu := range []float64{30, 1e4, 1e6, 1e12} {
		// The process's CPU time (the wall time where there is none): a
		// loaded machine does not stretch it.
		c0, cpu := cputime.Process()
		t0 := time.Now()
		k, err := NewMatern(Theta{1, 0.01, nu}, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		m := k.(*interp)
		for _, r := range []float64{0, 1e-3, 0.1, 1, 1.5} {
			got, want := k.Cov(r), Matern(Theta{1, 0.01, nu}, r)
			if e := relErr(got, want); !(e <= 1e-12) && want > 1e-300 {
				t.Errorf("nu=%v r=%v: Cov %v, Matern %v", nu, r, got, want)
			}
		}
		const n = 100000
		for i := range n {
			BesselK(nu, 1+float64(i))
		}
		el := time.Since(t0)
		if c1, ok := cputime.Process(); cpu && ok {
			el = time.Duration(c1 - c0)
		}
		t.Logf("nu=%g: %d pieces, build + %d BesselK %v of CPU", nu, len(m.pieces), n, el)
		if el > 2*time.Second {
			t.Errorf("nu=%g: took %v", nu, el)
		}
	}
	// Orders far beyond: the correlation tends to 1 at fixed x, never NaN.
	for _, nu := range []float64{1e100, 1e300} {
		if c := Matern(Theta{2, 1, nu}, 3); !(c == 2) {
			t.Errorf("nu=%g: C(3) = %v, want 2 (the correlation is 1 - O(1/nu))", nu, c)
		}
		if v := BesselK(nu, 3); !math.IsInf(v, 1) {
			t.Errorf("BesselK(%g, 3) = %v, want +Inf (overflow)", nu, v)
		}
	}
}
