//go:build amd64 && !purego

package matern

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether rowVec can use the AVX2 and FMA code.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 reports whether rowAVX2 may locate eight entries at a time.
var hasAVX512 = hasAVX2FMA && cpu.X86.HasAVX512F

// rowVec is rowGo (bitwise) in one vector pass over at most rowChunk
// entries: for the entries in the pieces' range, C into c and, when db
// is not nil, dC/dbeta into db and, when dn is not nil, dC/dnu into dn;
// the others listed in slow with their x in c. It returns how many, and
// false without the vector code (the caller then runs rowGo).
func (m *Grad) rowVec(r, c, db, dn []float64, slow *[rowChunk]uint8) (int, bool) {
	if !hasAVX2FMA || len(m.octs) == 0 || len(r) > rowChunk {
		return 0, false
	}
	n := len(r)
	_ = c[:n]
	if db != nil {
		db = db[:n]
	}
	if dn != nil {
		dn = dn[:n]
	}
	var oct32 *[32]octave
	if hasAVX512 {
		oct32 = m.oct32
	}
	return rowAVX2(r, c, db, dn, m.invBeta, m.xlo, m.xend, m.ebase, &m.octs[0], &m.mid[0], &m.ihw[0], &m.coef[0], 8*m.nf*chebN, &slow[0], oct32), true
}

// rowAVX2 is rowVec's vector code (db empty: C alone; dn empty: no
// dC/dnu), locating eight entries at a time with AVX-512 when oct32 (the
// octaves padded to 32) is not nil.
//
//go:noescape
func rowAVX2(r, c, db, dn []float64, ib, lo, hi float64, eb int, octs *octave, mid, ihw, coef *float64, stride int, slow *uint8, oct32 *[32]octave) int
