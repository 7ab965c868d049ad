package matern

import "math"

// rowChunk is the number of entries Grad.Row hands to one call of rowVec
// or rowGo (the vector code keeps their pieces and t in its stack frame).
const rowChunk = 64

// coefIndex returns where coefficient k (of t^k) of function f (0: C,
// 1: dC/dbeta, 2: dC/dnu) lies among a piece's coefficients: C's and
// dC/dbeta's in alternate runs of four (C's a_0..a_3, dC/dbeta's
// a_0..a_3, C's a_4..a_7, ...: a 64-byte vector holds both functions'
// run, as rowAVX2 evaluates them together), then dC/dnu's 16 in order.
func coefIndex(f, k int) int {
	if f == 2 {
		return 2*chebN + k
	}
	return k/4*8 + f*4 + k%4
}

// polyRowGo is polyRow in Go: for each entry i, the polynomials of the
// piece whose coefficients start at coef[off[i]] (C's, dC/dbeta's and
// dC/dnu's when dn is not empty, as coefIndex places them) at t[i], into
// c[i], db[i] and dn[i]. Each polynomial is split by the remainder of the
// power modulo 4 into four polynomials in s = t^4 (Horner, fused
// multiply-adds),
//
//	p(t) = sum_{k<4} t^k P_k(s),  P_k(s) = a_k + a_{4+k} s + a_{8+k} s^2 + a_{12+k} s^3,
//
// the four products t^k P_k(s) added as (k=0 + k=1) + (k=2 + k=3): the
// order of the vector code (rowAVX2), which gives bitwise the same
// values (math.FMA rounds once, as the vector instruction).
func polyRowGo(coef []float64, off []int32, t []float64, c, db, dn []float64) {
	for i, o := range off {
		x := t[i]
		t2 := x * x
		pw := [4]float64{1, x, t2, t2 * x}
		s := t2 * t2
		nf := 2
		if len(dn) > 0 {
			nf = 3
		}
		a := coef[o : int(o)+nf*chebN]
		c[i] = poly4(a, 0, 8, s, &pw)
		db[i] = poly4(a, 4, 8, s, &pw)
		if len(dn) > 0 {
			dn[i] = poly4(a, 2*chebN, 4, s, &pw)
		}
	}
}

// poly4 evaluates sum_k a_k t^k (16 coefficients, a_{4m+k} at
// a[base + m stride + k]) as polyRowGo says, pw holding 1, t, t^2, t^3
// and s = t^4.
func poly4(a []float64, base, stride int, s float64, pw *[4]float64) float64 {
	a = a[base : base+3*stride+4]
	var q [4]float64
	for k := range 4 {
		q[k] = math.FMA(math.FMA(math.FMA(a[3*stride+k], s, a[2*stride+k]), s, a[stride+k]), s, a[k]) * pw[k]
	}
	return (q[0] + q[1]) + (q[2] + q[3])
}

// polyRowCGo is polyRowGo for C alone: c[i] as polyRowGo sets it.
func polyRowCGo(coef []float64, off []int32, t []float64, c []float64) {
	for i, o := range off {
		x := t[i]
		t2 := x * x
		pw := [4]float64{1, x, t2, t2 * x}
		c[i] = poly4(coef[o:int(o)+2*chebN], 0, 8, t2*t2, &pw)
	}
}
