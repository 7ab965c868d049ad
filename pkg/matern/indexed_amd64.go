//go:build amd64 && !purego

package matern

import (
	"math"

	"golang.org/x/sys/cpu"
)

// hasIndexedZ reports whether closedIndexed can use its AVX-512 code
// (with AVX512DQ's conversions between float64 and int64).
var hasIndexedZ = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// indexedConsts are closedRowZ's constants, in its order: expNeg's
// reduction and polynomial (the same float64 values as its Go source's
// constant expressions), the cut-off 708, 1/3, 1, then the integers 63
// and 1023 (their bits).
var indexedConsts = [...]float64{expInvStep, 0.5, expStepHi, expStepLo,
	1.0 / 6, 1.0 / 120, 1.0 / 720, 1.0 / 24, 708, 1.0 / 3, 1,
	math.Float64frombits(63), math.Float64frombits(1023)}

// closedIndexed is CovIndexed for NewMatern's closed forms with AVX-512:
// the squared distances in Go (the points read by index), then
// closedRowZ over them; false, out untouched or not, for another kernel
// or CPU, or a row with a lane outside expNeg's fast range (x > 708 or
// NaN: math.Exp's answer there), which the caller evaluates again.
func closedIndexed(k Kernel, x, y []float64, xi, yi float64, js []int32, out []float64) bool {
	form, s, ib := closedForm(k)
	if form == 0 || !hasIndexedZ || len(js) == 0 {
		return false
	}
	out = out[:len(js)]
	for t, j := range js {
		dx, dy := x[j]-xi, y[j]-yi
		out[t] = dx*dx + dy*dy
	}
	return closedRowZ(&out[0], len(out), s, ib, form, &out[0], &indexedConsts, &exp2Frac) == 0
}

// closedRowZ sets out[t] = the closed form (form 1, 3, 5) at x =
// sqrt(d2[t]) ib for t < n, eight at a time: expNegRow's and
// polyExpRow's operations, each rounded alike (out may be d2). It
// returns the mask of the lanes (of any chunk) with x > 708 or NaN,
// whose values are not expNeg's.
//
//go:noescape
func closedRowZ(d2 *float64, n int, s, ib float64, form int, out *float64, c *[13]float64, tab *[64]float64) int
