package matern

import (
	"fmt"
	"math"
)

// Theta holds the parameters of the Matérn covariance in ExaGeoStat's
// parameterisation, theta = (sigma2, beta, nu):
//
//	C(r) = Sigma2 * 2^(1-Nu)/Gamma(Nu) * (r/Beta)^Nu * K_Nu(r/Beta),  C(0) = Sigma2,
//
// with Sigma2 the variance (partial sill), Beta the range and Nu the
// smoothness. There is no sqrt(2 nu) factor: scikit-learn's length scale
// is l = Beta*sqrt(2*Nu). Nu = 1/2 gives the exponential covariance
// Sigma2*exp(-r/Beta).
//
// Theta is itself a Kernel whose Cov is the direct evaluation Matern(t, r);
// NewMatern builds a much faster one.
type Theta struct{ Sigma2, Beta, Nu float64 }

// Validate reports whether Sigma2, Beta and Nu are all finite and > 0. The
// error names the first parameter that is not.
func (t Theta) Validate() error {
	for _, p := range [...]struct {
		name string
		v    float64
	}{{"sigma2", t.Sigma2}, {"beta", t.Beta}, {"nu", t.Nu}} {
		if !(p.v > 0) || math.IsInf(p.v, 1) {
			return fmt.Errorf("matern: parameter %s = %v, want a finite number > 0", p.name, p.v)
		}
	}
	return nil
}

// Cov returns Matern(t, r): Theta is a Kernel that evaluates the Matérn
// covariance directly (about 0.1 to 0.3 µs per value at general Nu).
func (t Theta) Cov(r float64) float64 { return Matern(t, r) }

// CovRow sets out[i] = Matern(t, r[i]) for i < len(r); out may be r.
func (t Theta) CovRow(r, out []float64) {
	out = out[:len(r)]
	d := newDirect(t.Nu)
	for i, ri := range r {
		out[i] = t.Sigma2 * d.corr(math.Abs(ri)/t.Beta)
	}
}

// Matern returns the Matérn covariance at distance r,
//
//	C(r) = sigma2 * 2^(1-nu)/Gamma(nu) * (r/beta)^nu * K_nu(r/beta),  C(0) = sigma2,
//
// evaluated directly with BesselK (r is used as |r|). For Nu exactly 0.5,
// 1.5 and 2.5 it uses the closed forms, with x = r/beta,
//
//	nu = 1/2: sigma2 * exp(-x)
//	nu = 3/2: sigma2 * (1 + x) * exp(-x)
//	nu = 5/2: sigma2 * (1 + x + x^2/3) * exp(-x).
//
// For nu >= NuLarge (25) the correlation 2^(1-nu)/Gamma(nu) x^nu K_nu(x)
// is evaluated as a whole in log space from the uniform asymptotic
// expansion of K_nu and Stirling's series (largeLogCorr): the terms in
// nu log nu cancel exactly, nothing underflows (2^(1-nu)/Gamma(nu) alone
// does above nu = 158) and the cost is O(1) at any nu; it tends to the
// Gaussian exp(-x^2/(4 nu)) for x << nu.
//
// The relative error is below 1e-12 (measured: a few 1e-15, plus the
// conditioning of C at x, about (x+nu) times the rounding of r/beta) for
// 0 < nu < 25 wherever the result is a normal float64, and for nu >= 25
// (tested up to nu = 1e5: below 3e-13) wherever C >= 1e-300 sigma2;
// powers of two are carried separately inside, so (r/beta)^nu and K_nu
// may over- or underflow on their own without harm. Results below the normal range are
// subnormal (less precise) or 0. The parameters are not checked: see
// Theta.Validate.
func Matern(t Theta, r float64) float64 {
	x := math.Abs(r) / t.Beta
	return t.Sigma2 * newDirect(t.Nu).corr(x)
}

// direct evaluates the Matérn correlation 2^(1-nu)/Gamma(nu) x^nu K_nu(x)
// for one nu.
type direct struct {
	nu   float64
	form int     // 1, 3, 5: closed form for nu = form/2; 0: general nu; formLarge: nu >= NuLarge
	c    float64 // 2^(1-nu)/Gamma(nu) (general nu below NuLarge, where it is a normal float64)
}

// formLarge marks the expansion for large order (largeCorr), in log space.
const formLarge = -1

func newDirect(nu float64) direct {
	d := direct{nu: nu}
	switch nu {
	case 0.5:
		d.form = 1
	case 1.5:
		d.form = 3
	case 2.5:
		d.form = 5
	default:
		if nu >= NuLarge {
			d.form = formLarge
			break
		}
		d.c = math.Exp2(1-nu) / math.Gamma(nu)
	}
	return d
}

// corrEdge returns the Matérn correlation where it does not depend on nu
// (1 at x = 0, 0 at x = +Inf, NaN at NaN) and true, or false for any
// other x.
func corrEdge(x float64) (float64, bool) {
	switch {
	case x == 0:
		return 1, true
	case math.IsInf(x, 1):
		return 0, true
	case math.IsNaN(x):
		return x, true
	}
	return 0, false
}

// corr returns the correlation at x = r/beta >= 0.
func (d direct) corr(x float64) float64 {
	switch d.form {
	case 1:
		return math.Exp(-x)
	case 3:
		return (1 + x) * math.Exp(-x)
	case 5:
		return (1 + x + x*x/3) * math.Exp(-x)
	case formLarge:
		return largeCorr(d.nu, x)
	}
	if c, ok := corrEdge(x); ok {
		return c
	}
	km, ke := besselKExp(d.nu, x)
	pm, pe := powExp(x, d.nu)
	return math.Ldexp(d.c*pm*km, ke+pe)
}
