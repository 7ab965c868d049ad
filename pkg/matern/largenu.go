package matern

import (
	"math"
	"math/big"
)

// NuLarge is the smallest order for which BesselK and the Matérn
// correlation use the uniform asymptotic expansion of K_nu for large order
// (Debye; Abramowitz and Stegun 9.7.8, Olver 1954) instead of Temme's
// series or Steed's continued fraction followed by the forward recurrence.
// The recurrence costs O(nu) per value and the constant 2^(1-nu)/Gamma(nu)
// underflows for nu above about 158; the expansion costs O(1) at any order
// and is evaluated in log space, so no nu is too large.
//
// With z = x/nu, s = sqrt(1+z^2), t = 1/s and eta = s + log(z/(1+s)),
//
//	K_nu(nu z) = sqrt(pi/(2 nu)) e^(-nu eta) / (1+z^2)^(1/4) * S,
//	S = sum_{k>=0} (-1)^k u_k(t) / nu^k,
//
// uniformly in z > 0, where u_k are Debye's polynomials: u_0 = 1,
//
//	u_{k+1}(t) = t^2 (1-t^2)/2 u_k'(t) + 1/8 int_0^t (1 - 5 s^2) u_k(s) ds.
//
// The sum stops at k = debyeK = 12: the first term left out is below
// max_t |u_13(t)| / nu^13 = 48/nu^13, 3e-17 at nu = 25, and the relative
// error of S is a few units in the last place.
const NuLarge = 25

// debyeK is the last term of the expansion.
const debyeK = 12

// debye[k][j] is the coefficient of t^(k+2j) in u_k(t), j = 0..k, computed
// exactly (rationals) and rounded once.
var debye = debyePolys(debyeK)

func debyePolys(kmax int) [][]float64 {
	u := [][]*big.Rat{{big.NewRat(1, 1)}}
	for k := 0; k < kmax; k++ {
		next := make([]*big.Rat, k+2)
		for j := range next {
			next[j] = new(big.Rat)
		}
		for j, a := range u[k] {
			p := int64(k + 2*j) // power of t
			// t^2 (1-t^2)/2 * p a t^(p-1) = p a/2 (t^(p+1) - t^(p+3))
			half := new(big.Rat).Mul(a, big.NewRat(p, 2))
			// 1/8 int (1 - 5 s^2) a s^p = a/8 (t^(p+1)/(p+1) - 5 t^(p+3)/(p+3))
			i1 := new(big.Rat).Mul(a, big.NewRat(1, 8*(p+1)))
			i3 := new(big.Rat).Mul(a, big.NewRat(5, 8*(p+3)))
			next[j].Add(next[j], half)
			next[j].Add(next[j], i1)
			next[j+1].Sub(next[j+1], half)
			next[j+1].Sub(next[j+1], i3)
		}
		u = append(u, next)
	}
	out := make([][]float64, len(u))
	for k, row := range u {
		out[k] = make([]float64, len(row))
		for j, a := range row {
			out[k][j], _ = a.Float64()
		}
	}
	return out
}

// debyeSum returns S = sum_{k<=debyeK} (-1)^k u_k(t)/nu^k for t in (0, 1].
func debyeSum(nu, t float64) float64 {
	y := t * t
	a := -t / nu
	s := 0.0
	for k := debyeK; k >= 0; k-- {
		c := debye[k]
		p := c[len(c)-1]
		for j := len(c) - 2; j >= 0; j-- {
			p = p*y + c[j]
		}
		s = s*a + p
	}
	return s
}

// stirling returns log Gamma(nu) - ((nu - 1/2) log nu - nu + log(2 pi)/2)
// for nu >= NuLarge (Stirling's series; the first term left out is below
// 3617/(122400 nu^15), 1e-22 at nu = 25).
func stirling(nu float64) float64 {
	y := 1 / (nu * nu)
	return (1.0/12 + y*(-1.0/360+y*(1.0/1260+y*(-1.0/1680+y*(1.0/1188+y*(-691.0/360360+y*(1.0/156))))))) / nu
}

// largeTerms returns, for nu >= NuLarge and 0 < x < +Inf, h = sqrt(nu^2 +
// x^2), W = h - nu (computed without cancellation) and S of the
// expansion.
func largeTerms(nu, x float64) (h, w, s float64) {
	h = math.Hypot(nu, x)
	w = x * (x / (nu + h))
	return h, w, debyeSum(nu, nu/h)
}

// largeLogCorr returns the log of the Matérn correlation
// 2^(1-nu)/Gamma(nu) x^nu K_nu(x) for nu >= NuLarge and 0 < x < +Inf. With
// the expansion of K_nu and Stirling's series for Gamma(nu), the terms in
// nu log nu cancel exactly:
//
//	log corr = -W + nu log1p(W/(2 nu)) - 1/2 log1p(W/nu) + log S - stirling(nu),
//
// W = sqrt(nu^2+x^2) - nu (which is x^2/(4 nu) + O(x^4/nu^3): the
// Gaussian limit exp(-x^2/(4 nu)) for x << nu). Each term is computed
// to a few units in the last place, so the absolute error of the log is
// a few ulp of |log corr| (about 2e-13 where corr >= 1e-300).
func largeLogCorr(nu, x float64) float64 {
	_, w, s := largeTerms(nu, x)
	return -w + nu*math.Log1p(w/(2*nu)) - 0.5*math.Log1p(w/nu) + math.Log(s) - stirling(nu)
}

// largeCorr returns the Matérn correlation for nu >= NuLarge and x >= 0.
func largeCorr(nu, x float64) float64 {
	if c, ok := corrEdge(x); ok {
		return c
	}
	return math.Exp(largeLogCorr(nu, x))
}

// largeBesselKExp returns K_nu(x) as m * 2^e with m in [0.5, 1) for nu >=
// NuLarge and 0 < x < +Inf, from
//
//	log K_nu(x) = log(pi/(2 nu))/2 - log1p(W/nu)/2 - h - nu log(x/(nu+h)) + log S,
//
// h = sqrt(nu^2+x^2), W = h - nu. The absolute error of the log is a few
// ulp of h + nu |log(x/(nu+h))|, which is the conditioning of K_nu(x) in
// x and nu: a relative error of about 1e-13 where K_nu(x) is a normal
// float64 and nu is below 1e3, growing like nu beyond.
func largeBesselKExp(nu, x float64) (float64, int) {
	h, w, s := largeTerms(nu, x)
	l := 0.5*math.Log(math.Pi/(2*nu)) - 0.5*math.Log1p(w/nu) - h - nu*math.Log(x/(nu+h)) + math.Log(s)
	return expExp(l)
}

// expExp returns e^l as m * 2^e with m in [0.5, 1) (l may be far outside
// the float64 range of e^l; beyond |l| = 1e6 the result is clamped, which
// Ldexp turns into 0 or +Inf).
func expExp(l float64) (float64, int) {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
	)
	switch {
	case math.IsNaN(l):
		return l, 0
	case l > 1e6:
		return 0.5, 1 << 22
	case l < -1e6:
		return 0.5, -1 << 22
	}
	k := math.Floor(l * math.Log2E)
	r := (l - k*ln2Hi) - k*ln2Lo
	m, e := math.Frexp(math.Exp(r))
	return m, e + int(k)
}

// largeZeroPoint returns x0 with corr(x0) <= 1e-300 < corr(x0 (1 - 1e-9))
// roughly, for nu >= NuLarge: the correlation is decreasing, so doubling
// then bisection on log corr.
func largeZeroPoint(nu float64) float64 {
	target := math.Log(cutoff)
	lo, hi := 0.0, max(1, math.Sqrt(-4*nu*target)) // the Gaussian limit
	for largeLogCorr(nu, hi) > target {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if hi-lo <= 1e-9*hi || mid == lo || mid == hi {
			break
		}
		if largeLogCorr(nu, mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
