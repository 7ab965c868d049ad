package matern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestMaternTable checks Matern and NewMatern against 40-digit mpmath
// values of the covariance.
func TestMaternTable(t *testing.T) {
	rows := readTable(t, "matern.csv", 5)
	type key struct{ s2, beta, nu float64 }
	rmax := map[key]float64{}
	for _, r := range rows {
		k := key{r[0], r[1], r[2]}
		rmax[k] = max(rmax[k], r[3])
	}
	fast := map[key]Kernel{}
	for k, rm := range rmax {
		kern, err := NewMatern(Theta{k.s2, k.beta, k.nu}, rm)
		if err != nil {
			t.Fatal(err)
		}
		fast[k] = kern
	}
	worstDirect, worstFast := 0.0, 0.0
	for _, r := range rows {
		th := Theta{Sigma2: r[0], Beta: r[1], Nu: r[2]}
		rr, want := r[3], r[4]
		for _, c := range []struct {
			name  string
			got   float64
			worst *float64
		}{
			{"Matern", Matern(th, rr), &worstDirect},
			{"NewMatern", fast[key{r[0], r[1], r[2]}].Cov(rr), &worstFast},
		} {
			if want < 1e-300*th.Sigma2 {
				if !(math.Abs(c.got-want) <= 1e-300*th.Sigma2) {
					t.Errorf("%s %+v: C(%v) = %g, want %g", c.name, th, rr, c.got, want)
				}
				continue
			}
			e := relErr(c.got, want)
			if !(e <= 1e-12) {
				t.Errorf("%s %+v: C(%v) = %.17g, want %.17g (rel err %.2g)", c.name, th, rr, c.got, want, e)
			}
			*c.worst = max(*c.worst, e)
		}
	}
	t.Logf("%d rows, max relative error: Matern %.3g, NewMatern %.3g", len(rows), worstDirect, worstFast)
}

// generalCorr evaluates the correlation through BesselK even at
// half-integer nu.
func generalCorr(nu, x float64) float64 {
	return direct{nu: nu, c: math.Exp2(1-nu) / math.Gamma(nu)}.corr(x)
}

// TestMaternClosedForms compares the closed forms used at nu = 0.5, 1.5,
// 2.5 with the general BesselK evaluation.
func TestMaternClosedForms(t *testing.T) {
	for _, nu := range []float64{0.5, 1.5, 2.5} {
		th := Theta{Sigma2: 1.7, Beta: 0.3, Nu: nu}
		fast, err := NewMatern(th, 300)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := fast.(*interp); ok {
			t.Errorf("nu=%v: NewMatern did not pick the closed form", nu)
		}
		worst := 0.0
		for x := 1e-7; x < 700; x *= 1.05 {
			r := x * th.Beta
			want := th.Sigma2 * generalCorr(nu, r/th.Beta)
			for _, got := range []float64{Matern(th, r), fast.Cov(r)} {
				e := relErr(got, want)
				if !(e <= 2e-13) {
					t.Errorf("nu=%v r=%v: closed form %.17g, BesselK %.17g (rel %.2g)", nu, r, got, want, e)
				}
				worst = max(worst, e)
			}
		}
		if Matern(th, 0) != th.Sigma2 || fast.Cov(0) != th.Sigma2 {
			t.Errorf("nu=%v: C(0) != sigma2", nu)
		}
		t.Logf("nu=%v: max relative difference %.3g", nu, worst)
	}
}

// TestNewMaternRandom compares the fast evaluator with the direct one on
// random distances for many theta, and checks its construction cost.
func TestNewMaternRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	nus := []float64{0.005, 0.01, 0.05, 0.1, 0.25, 0.3, 0.4999999, 0.5000001, 0.7, 0.73,
		0.999999, 1, 1.000001, 1.23, 1.4999999, 2, 2.5000001, 3, 3.7, 5, 10, 17.3, 20, 29.73, 30}
	for range 8 {
		nus = append(nus, 0.01+29.99*rng.Float64())
	}
	samples := 20000
	if testing.Short() {
		samples = 2000
	}
	var build time.Duration
	builds := 0
	for _, nu := range nus {
		for _, xmax := range []float64{14.2, 150, 1e4} {
			th := Theta{Sigma2: 0.5 + 2*rng.Float64(), Beta: math.Exp(rng.NormFloat64() * 2), Nu: nu}
			rmax := xmax * th.Beta
			t0 := time.Now()
			k, err := NewMatern(th, rmax)
			build += time.Since(t0)
			builds++
			if err != nil {
				t.Fatal(err)
			}
			m := k.(*interp)
			if len(m.pieces) > 1000 {
				t.Errorf("%+v rmax/beta=%v: %d pieces", th, xmax, len(m.pieces))
			}
			worst, wr := 0.0, 0.0
			for s := range samples {
				var r float64
				switch s % 3 {
				case 0: // uniform in [0, rmax]
					r = rmax * rng.Float64()
				case 1: // log-uniform from 2^-45 beta to rmax
					r = th.Beta * math.Exp2(-45+rng.Float64()*(45+math.Log2(xmax)))
				default: // near the piece boundaries and the ends
					r = th.Beta * math.Ldexp(1+float64(rng.IntN(9))/8, rng.IntN(52)-42)
					if rng.IntN(2) == 0 {
						r = math.Nextafter(r, 0)
					}
				}
				r = min(r, rmax)
				want := Matern(th, r)
				got := k.Cov(r)
				if want < 1e-300*th.Sigma2 {
					if !(math.Abs(got-want) <= 1e-300*th.Sigma2) {
						t.Errorf("%+v: Cov(%v) = %g, want %g", th, r, got, want)
					}
					continue
				}
				e := relErr(got, want)
				if !(e <= 1e-12) {
					t.Errorf("%+v: Cov(%v) = %.17g, Matern %.17g (rel err %.2g)", th, r, got, want, e)
				}
				if e > worst {
					worst, wr = e, r
				}
			}
			if testing.Verbose() {
				t.Logf("nu=%-10.6g rmax/beta=%-6v pieces=%3d max rel err %.2g at x=%.4g", nu, xmax, len(m.pieces), worst, wr/th.Beta)
			}
		}
	}
	t.Logf("mean construction time %v over %d builds", build/time.Duration(builds), builds)
}

// TestNewMaternEdges checks the fallbacks outside the interpolated range.
func TestNewMaternEdges(t *testing.T) {
	th := Theta{Sigma2: 2, Beta: 0.1, Nu: 0.3}
	k, err := NewMatern(th, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	m := k.(*interp)
	for _, r := range []float64{1e-300, 1e-20, 0x1p-41 * 0.1, 1.5, 1.6, 3, 50, 68} {
		got, want := k.Cov(r), Matern(th, r)
		if e := relErr(got, want); !(e <= 1e-13) {
			t.Errorf("Cov(%v) = %.17g, Matern %.17g", r, got, want)
		}
	}
	for _, c := range []struct{ r, want float64 }{
		{0, 2}, {m.xzero * 0.1, 0}, {1e6, 0}, {math.Inf(1), 0},
	} {
		if got := k.Cov(c.r); got != c.want {
			t.Errorf("Cov(%v) = %v, want %v", c.r, got, c.want)
		}
	}
	if v := k.Cov(math.NaN()); !math.IsNaN(v) {
		t.Errorf("Cov(NaN) = %v", v)
	}
	if got, want := k.Cov(-0.05), Matern(th, 0.05); got != want && relErr(got, want) > 1e-13 {
		t.Errorf("Cov(-0.05) = %v, want %v", got, want)
	}
	// rmax = 0 and +Inf are accepted.
	for _, rmax := range []float64{0, math.Inf(1)} {
		k, err := NewMatern(th, rmax)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []float64{0, 0.01, 1, 30} {
			if e := relErr(k.Cov(r), Matern(th, r)); e > 1e-12 {
				t.Errorf("rmax=%v: Cov(%v) = %v, Matern %v", rmax, r, k.Cov(r), Matern(th, r))
			}
		}
	}
}

// TestCovRow checks that every kernel's CovRow agrees with its Cov, in
// place too.
func TestCovRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := make([]float64, 500)
	for i := range r {
		r[i] = 3 * rng.Float64()
	}
	r[0], r[1] = 0, 1e-15
	kernels := []Kernel{Theta{1.2, 0.2, 0.8}, PowExp{1.1, 0.3, 1}, PowExp{1.1, 0.3, 2}, PowExp{1.1, 0.3, 1.3}}
	for _, nu := range []float64{0.5, 1.5, 2.5, 0.8} {
		k, err := NewMatern(Theta{1.2, 0.2, nu}, 2)
		if err != nil {
			t.Fatal(err)
		}
		kernels = append(kernels, k)
	}
	for _, k := range kernels {
		rk := k.(RowKernel)
		out := make([]float64, len(r))
		rk.CovRow(r, out)
		in := append([]float64(nil), r...)
		rk.CovRow(in, in)
		for i, ri := range r {
			if want := k.Cov(ri); out[i] != want || in[i] != want {
				t.Errorf("%T: CovRow gives %v (in place %v) at r=%v, Cov %v", k, out[i], in[i], ri, want)
				break
			}
		}
	}
}

func TestPowExp(t *testing.T) {
	for _, c := range []struct{ k PowExp }{{PowExp{2, 0.5, 1}}, {PowExp{2, 0.5, 2}}, {PowExp{2, 0.5, 0.7}}} {
		for _, r := range []float64{0, 0.1, 1, 3} {
			want := c.k.Sigma2 * math.Exp(-math.Pow(r, c.k.Delta)/c.k.Beta)
			if got := c.k.Cov(r); relErr(got, want) > 1e-15 {
				t.Errorf("%+v: Cov(%v) = %v, want %v", c.k, r, got, want)
			}
		}
	}
	for _, c := range []struct {
		k    PowExp
		name string
	}{
		{PowExp{0, 1, 1}, "sigma2"}, {PowExp{1, math.Inf(1), 1}, "beta"},
		{PowExp{1, 1, 2.5}, "delta"}, {PowExp{1, 1, 0}, "delta"}, {PowExp{1, 1, math.NaN()}, "delta"},
	} {
		if err := c.k.Validate(); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%+v.Validate() = %v, want an error about %s", c.k, err, c.name)
		}
	}
	if err := (PowExp{1, 1, 2}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		th   Theta
		name string // "" for valid
	}{
		{Theta{1, 0.1, 0.5}, ""},
		{Theta{1e-300, 1e300, 30}, ""},
		{Theta{0, 0.1, 0.5}, "sigma2"},
		{Theta{-1, 0.1, 0.5}, "sigma2"},
		{Theta{inf, 0.1, 0.5}, "sigma2"},
		{Theta{nan, 0.1, 0.5}, "sigma2"},
		{Theta{1, 0, 0.5}, "beta"},
		{Theta{1, -2, 0.5}, "beta"},
		{Theta{1, inf, 0.5}, "beta"},
		{Theta{1, nan, 0.5}, "beta"},
		{Theta{1, 0.1, 0}, "nu"},
		{Theta{1, 0.1, -0.5}, "nu"},
		{Theta{1, 0.1, inf}, "nu"},
		{Theta{1, 0.1, nan}, "nu"},
	}
	for _, c := range cases {
		err := c.th.Validate()
		_, nerr := NewMatern(c.th, 1)
		if c.name == "" {
			if err != nil || nerr != nil {
				t.Errorf("%+v: Validate() = %v, NewMatern error %v", c.th, err, nerr)
			}
			continue
		}
		for _, e := range []error{err, nerr} {
			if e == nil || !strings.Contains(e.Error(), "parameter "+c.name+" ") {
				t.Errorf("%+v: error %v, want one naming %s", c.th, e, c.name)
			}
		}
	}
	for _, rmax := range []float64{-1, math.NaN()} {
		if _, err := NewMatern(Theta{1, 1, 1}, rmax); err == nil {
			t.Errorf("NewMatern(rmax=%v): no error", rmax)
		}
	}
}

func ExampleNewMatern() {
	th := Theta{Sigma2: 1, Beta: 0.1, Nu: 0.73}
	k, err := NewMatern(th, 1.5) // distances up to 1.5
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.12f\n%.12f\n", k.Cov(0.05), Matern(th, 0.05))
	// Output:
	// 0.736731811508
	// 0.736731811508
}
