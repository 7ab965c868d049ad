package matern

import "math"

// exp2Frac holds 2^(-j/64), j = 0..63, correctly rounded (50-digit decimal
// arithmetic; never written): the table of expNeg.
var exp2Frac = [64]float64{
	0x1.0000000000000p+0, 0x1.fa7c1819e90d8p-1, 0x1.f50765b6e4540p-1, 0x1.efa1bee615a27p-1,
	0x1.ea4afa2a490dap-1, 0x1.e502ee78b3ff6p-1, 0x1.dfc97337b9b5fp-1, 0x1.da9e603db3285p-1,
	0x1.d5818dcfba487p-1, 0x1.d072d4a07897cp-1, 0x1.cb720dcef9069p-1, 0x1.c67f12e57d14bp-1,
	0x1.c199bdd85529cp-1, 0x1.bcc1e904bc1d2p-1, 0x1.b7f76f2fb5e47p-1, 0x1.b33a2b84f15fbp-1,
	0x1.ae89f995ad3adp-1, 0x1.a9e6b5579fdbfp-1, 0x1.a5503b23e255dp-1, 0x1.a0c667b5de565p-1,
	0x1.9c49182a3f090p-1, 0x1.97d829fde4e50p-1, 0x1.93737b0cdc5e5p-1, 0x1.8f1ae99157736p-1,
	0x1.8ace5422aa0dbp-1, 0x1.868d99b4492edp-1, 0x1.82589994cce13p-1, 0x1.7e2f336cf4e62p-1,
	0x1.7a11473eb0187p-1, 0x1.75feb564267c9p-1, 0x1.71f75e8ec5f74p-1, 0x1.6dfb23c651a2fp-1,
	0x1.6a09e667f3bcdp-1, 0x1.6623882552225p-1, 0x1.6247eb03a5585p-1, 0x1.5e76f15ad2148p-1,
	0x1.5ab07dd485429p-1, 0x1.56f4736b527dap-1, 0x1.5342b569d4f82p-1, 0x1.4f9b2769d2ca7p-1,
	0x1.4bfdad5362a27p-1, 0x1.486a2b5c13cd0p-1, 0x1.44e086061892dp-1, 0x1.4160a21f72e2ap-1,
	0x1.3dea64c123422p-1, 0x1.3a7db34e59ff7p-1, 0x1.371a7373aa9cbp-1, 0x1.33c08b26416ffp-1,
	0x1.306fe0a31b715p-1, 0x1.2d285a6e4030bp-1, 0x1.29e9df51fdee1p-1, 0x1.26b4565e27cddp-1,
	0x1.2387a6e756238p-1, 0x1.2063b88628cd6p-1, 0x1.1d4873168b9aap-1, 0x1.1a35beb6fcb75p-1,
	0x1.172b83c7d517bp-1, 0x1.1429aaea92de0p-1, 0x1.11301d0125b51p-1, 0x1.0e3ec32d3d1a2p-1,
	0x1.0b5586cf9890fp-1, 0x1.0874518759bc8p-1, 0x1.059b0d3158574p-1, 0x1.02c9a3e778061p-1,
}

// Constants of expNeg's argument reduction.
const (
	expInvStep = 92.33248261689366      // 64 / ln 2
	expStepHi  = 0x1.62e42fee00000p-7   // ln 2 / 64 to 32 bits: k*expStepHi is exact for k < 2^21
	expStepLo  = 2.9815858269852933e-12 // ln 2 / 64 - expStepHi, rounded
)

// expNeg returns exp(-x) for x >= 0 (for NaN, +Inf and x > 708, math.Exp's
// answer), within 2 units in the last place of math.Exp: the closed-form
// kernels' exponential, about twice as fast as math.Exp.
//
// Method (Tang's table-driven exponential): k = round(64 x / ln 2),
// r = x - k ln 2 / 64 in two parts (|r| <= ln 2 / 128 = 0.0054),
// exp(-x) = 2^-(k/64) exp(-r) = 2^-floor(k/64) * 2^(-(k mod 64)/64) * exp(-r),
// exp(-r) - 1 = q by its Taylor polynomial of degree 6 (truncation below
// 3e-20), 2^(-(k mod 64)/64) = T from the table, summed as T + T q (the
// small term last: one rounding of a result near T), and 2^-floor(k/64)
// from its exponent bits. expNegRow is the same arithmetic on a row.
func expNeg(x float64) float64 {
	if !(x <= 708) { // also NaN
		return math.Exp(-x)
	}
	k := int64(x*expInvStep + 0.5)
	kf := float64(k)
	r := (x - kf*expStepHi) - kf*expStepLo
	r2 := r * r
	q := -(r - r2*((1.0/2-r*(1.0/6))+r2*((1.0/24-r*(1.0/120))+r2*(1.0/720)))) // exp(-r) - 1
	tab := exp2Frac[k&63]
	return (tab + tab*q) * math.Float64frombits(uint64(1023-(k>>6))<<52)
}

// expNegRow sets out[i] = expNeg(r[i]*ib) for i < len(r), bit for bit:
// the same arithmetic in one loop (expNeg is not inlined). out may be r.
func expNegRow(r, out []float64, ib float64) {
	out = out[:len(r)]
	for i, ri := range r {
		x := ri * ib
		if !(x <= 708) {
			out[i] = math.Exp(-x)
			continue
		}
		k := int64(x*expInvStep + 0.5)
		kf := float64(k)
		t := (x - kf*expStepHi) - kf*expStepLo
		t2 := t * t
		q := -(t - t2*((1.0/2-t*(1.0/6))+t2*((1.0/24-t*(1.0/120))+t2*(1.0/720))))
		tab := exp2Frac[k&63]
		out[i] = (tab + tab*q) * math.Float64frombits(uint64(1023-(k>>6))<<52)
	}
}
