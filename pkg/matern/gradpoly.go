package matern

import "math"

// rowChunk is the number of entries Grad.Row hands to one call of rowVec
// or rowGo (the vector code keeps their pieces and t in its stack frame).
const rowChunk = 64

// polyRowGo is polyRow in Go: for each entry i, the polynomials of the
// piece whose coefficients start at coef[off[i]] (C's 16, then
// dC/dbeta's, then dC/dnu's when dn is not empty) at t[i], into c[i],
// db[i] and dn[i]. Each polynomial is split by the remainder of the power
// modulo 4 into four polynomials in s = t^4 (Horner, fused multiply-adds),
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
		c[i] = poly4(a[:chebN], s, &pw)
		db[i] = poly4(a[chebN:2*chebN], s, &pw)
		if len(dn) > 0 {
			dn[i] = poly4(a[2*chebN:3*chebN], s, &pw)
		}
	}
}

// poly4 evaluates sum_k a_k t^k (16 coefficients) as polyRowGo says,
// pw holding 1, t, t^2, t^3 and s = t^4.
func poly4(a []float64, s float64, pw *[4]float64) float64 {
	a = a[:chebN]
	var q [4]float64
	for k := range 4 {
		q[k] = math.FMA(math.FMA(math.FMA(a[12+k], s, a[8+k]), s, a[4+k]), s, a[k]) * pw[k]
	}
	return (q[0] + q[1]) + (q[2] + q[3])
}

// polyRowCGo is polyRowGo for C alone: c[i] as polyRowGo sets it.
func polyRowCGo(coef []float64, off []int32, t []float64, c []float64) {
	for i, o := range off {
		x := t[i]
		t2 := x * x
		pw := [4]float64{1, x, t2, t2 * x}
		c[i] = poly4(coef[o:int(o)+chebN], t2*t2, &pw)
	}
}
