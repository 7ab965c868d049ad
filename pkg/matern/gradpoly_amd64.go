//go:build amd64 && !purego

package matern

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether Row can use the AVX2 and FMA code.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// rowChunk is locate and the polynomials (polyRowCGo when db is nil, else
// polyRowGo: the same values, bitwise) in one pass of vector code over at
// most rowChunk entries: the
// functions into c, db and dn (dn empty: no dC/dnu) for the entries in
// the pieces' range, the others listed in slow and xs; it returns how
// many, and false without the vector code (the caller then runs locate
// and the polynomials).
func (m *Grad) rowChunk(r, c, db, dn []float64, slow *[rowChunk]uint8, xs *[rowChunk]float64) (int, bool) {
	if !hasAVX2FMA || len(m.octs) == 0 || len(r) > rowChunk {
		return 0, false
	}
	_ = c[:len(r)]
	if db != nil {
		_ = db[:len(r)]
	}
	if len(dn) > 0 {
		_ = dn[:len(r)]
	}
	return rowAVX2(r, c, db, dn, m.invBeta, m.xlo, m.xend, m.ebase, &m.octs[0], &m.mid[0], &m.ihw[0], &m.coef[0], 8*m.nf*chebN, &slow[0], &xs[0]), true
}

// rowAVX2 is rowChunk's vector code.
//
//go:noescape
func rowAVX2(r, c, db, dn []float64, ib, lo, hi float64, eb int, octs *octave, mid, ihw, coef *float64, stride int, slow *uint8, xs *float64) int
