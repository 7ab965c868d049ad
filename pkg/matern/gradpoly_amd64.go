//go:build amd64 && !purego

package matern

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether polyRow can use the AVX2 and FMA code.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// polyRow is polyRowGo, with AVX2 and FMA instructions where the CPU has
// them (the same values, bitwise).
func polyRow(coef []float64, off []int32, t []float64, c, db, dn []float64) {
	if !hasAVX2FMA {
		polyRowGo(coef, off, t, c, db, dn)
		return
	}
	n := len(off)
	_, _, _ = t[:n], c[:n], db[:n]
	if len(dn) > 0 {
		_ = dn[:n]
	}
	polyRowAVX2(coef, off, t, c, db, dn)
}

// polyRowAVX2 is polyRowGo for len(off) entries (t, c and db at least as
// long; dn empty or as long), every off[i] + 48 (32 without dn) within
// coef: one 4-wide vector per group of four coefficients.
//
//go:noescape
func polyRowAVX2(coef []float64, off []int32, t []float64, c, db, dn []float64)

// covRowChunk is locate and polyRowCGo (bitwise) in one pass (vector code) over at
// most rowChunk entries: C into c for the entries in the pieces' range,
// the others listed in slow and xs; it returns how many, and false
// without the vector code (the caller then runs locate and polyRowCGo).
func (m *Grad) covRowChunk(r, c []float64, slow *[rowChunk]uint8, xs *[rowChunk]float64) (int, bool) {
	if !hasAVX2FMA || len(m.octs) == 0 {
		return 0, false
	}
	if len(r) > rowChunk {
		return 0, false
	}
	_ = c[:len(r)]
	return covRowAVX2(r, c, m.invBeta, m.xlo, m.xend, m.ebase, &m.octs[0], &m.mid[0], &m.ihw[0], &m.coef[0], 8*m.nf*chebN, &slow[0], &xs[0]), true
}

// covRowAVX2 is covRowChunk's vector code.
//
//go:noescape
func covRowAVX2(r, c []float64, ib, lo, hi float64, eb int, octs *octave, mid, ihw, coef *float64, stride int, slow *uint8, xs *float64) int
