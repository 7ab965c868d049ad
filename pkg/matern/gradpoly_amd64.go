//go:build amd64 && !purego

package matern

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether rowVec can use the AVX2 and FMA code.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 reports whether rowAVX2 may use its AVX-512 code (zmm and
// the upper 16 vector registers).
var hasAVX512 = hasAVX2FMA && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// sqrtInVec reports whether RowSquared takes the square roots inside the
// vector code: where the CPU has AVX-512 and its 512-bit square root is
// slow (about one VSQRTPD zmm per 16 cycles on Intel's Skylake and
// Cascade Lake, so that a separate pass of distances is bound by it),
// that is on every such CPU but AMD's of family 0x1A (Zen 5) and later,
// whose square root (one per about 7 cycles) a separate pass hides as
// well (measured the same there).
var sqrtInVec = hasAVX512 && !zen5OrLater()

// zen5OrLater reports whether the CPU is AMD's of family 0x1A or later
// (CPUID: the vendor string, and leaf 1's family plus extended family).
func zen5OrLater() bool {
	_, b, c, d := cpuid(0)
	if b != 0x68747541 || d != 0x69746e65 || c != 0x444d4163 { // "AuthenticAMD"
		return false
	}
	a, _, _, _ := cpuid(1)
	fam := (a >> 8) & 0xf
	if fam == 0xf {
		fam += (a >> 20) & 0xff
	}
	return fam >= 0x1a
}

// cpuid executes CPUID with EAX = leaf, ECX = 0.
//
//go:noescape
func cpuid(leaf uint32) (a, b, c, d uint32)

// rowVec is rowGo (bitwise) in one vector pass over at most rowChunk
// entries: for the entries in the pieces' range, C into c and, when db
// is not nil, dC/dbeta into db and, when dn is not nil, dC/dnu into dn;
// the others listed in slow with their x in c. Square roots of squared
// distances, written in place: r[from:] holds squares (from = len(r):
// none), and so do the ahead entries after r's end (the next call's, at
// most len(r) - len(r) mod 4; the caller checks they exist), rooted too.
// It returns how many, and false without the vector code (the caller
// then runs rowGo; r untouched).
func (m *Grad) rowVec(r, c, db, dn []float64, slow *[rowChunk]uint8, from, ahead int) (int, bool) {
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
	return rowAVX2(r, c, db, dn, m.invBeta, m.xlo, m.xend, m.ebase, &m.octs[0], &m.mid[0], &m.ihw[0], &m.coef[0], 8*m.nf*chebN, &slow[0], oct32, from, ahead), true
}

// rowAVX2 is rowVec's vector code (db empty: C alone; dn empty: no
// dC/dnu), locating eight entries at a time with AVX-512 when oct32 (the
// octaves padded to 32) is not nil; the square roots of r[from:] and of
// the ahead entries after r taken and written in place (rowVec).
//
//go:noescape
func rowAVX2(r, c, db, dn []float64, ib, lo, hi float64, eb int, octs *octave, mid, ihw, coef *float64, stride int, slow *uint8, oct32 *[32]octave, from, ahead int) int

// covChunk is the most entries covRowVec hands to one call of
// covRowAVX512, covList the length of its lists of entries left to the
// caller (on the caller's stack: short, as Go clears them each call).
const (
	covChunk = 256
	covList  = 16
)

// covRowVec is Row's c for C alone where the CPU has AVX-512 and the
// evaluator its transposed coefficients (coefT): covRowAVX512 over
// chunks of covChunk entries, then the entries it left (their pieces
// below its window of sixteen: rare) by rowVec (redoC), and the entries
// outside the pieces' range directly: the same values, bitwise. With sq,
// r holds squared distances, whose square roots it takes and writes over
// r: the first chunk's in its first pass, each next chunk's in the pass
// before (covRowAVX512's ahead). It reports false without that code (the
// caller then runs rowVec or rowGo; r untouched).
func (m *Grad) covRowVec(r, c []float64, sq bool) bool {
	if !hasAVX512 || !cpu.X86.HasPOPCNT || m.oct32 == nil || m.coefT == nil {
		return false
	}
	var slow, redo [covList]int32
	rooted := 0 // r[:rooted] holds distances (all of it without sq)
	if !sq {
		rooted = len(r)
	}
	for k := 0; k < len(r); {
		n := min(covChunk, len(r)-k)
		from, ahead := max(rooted-k, 0), 0
		if from < n { // this call roots its own entries from on
			rooted = k + n
		}
		if rooted < len(r) { // and the next call's, in its second pass
			ahead = min(n, len(r)-rooted)
			if rooted != k+n {
				ahead = 0 // (the rest of a call cut short: its own entries are rooted)
			}
		}
		rk, ck := r[k:k+n], c[k:k+n]
		_ = r[:k+n+ahead]
		ns, nr, done := covRowAVX512(rk, ck, m.invBeta, m.xlo, m.xend, m.ebase, m.oct32, &m.coefT[0], 8*m.tStride, &slow[0], &redo[0], min(from, n), ahead)
		rooted += min(done, ahead)
		if nr > 0 {
			m.redoC(rk, ck, redo[:nr])
		}
		m.slowC(ck, slow[:ns])
		k += done
	}
	return true
}

// redoC sets c[i] = C(r[i]) for the entries listed in idx (at most
// rowChunk, in the pieces' range) by rowVec, gathered.
func (m *Grad) redoC(r, c []float64, idx []int32) {
	var rr [rowChunk]float64
	var none [rowChunk]uint8
	for q, i := range idx {
		rr[q] = r[i]
	}
	m.rowVec(rr[:len(idx)], rr[:len(idx)], nil, nil, &none, len(idx), 0)
	for q, i := range idx {
		c[i] = rr[q]
	}
}

// covRowAVX512 is covRowVec's vector code over len(r) <= covChunk
// entries: it lists in slow the entries outside the pieces' range (x in
// c) and in redo those it left (c not written), at most covList each,
// and returns how many of each and how many entries it did (all but
// where a list would overflow: the rest for the next call). The square
// roots of squared distances (correctly rounded, written in place): of
// r[from:] in the first pass (all of them whatever it returns), and of
// the ahead entries after r's end (the next call's) in the second, one
// group of eight beside each of its own (the first min(done, ahead)).
//
//go:noescape
func covRowAVX512(r, c []float64, ib, lo, hi float64, eb int, oct32 *[32]octave, coefT *float64, rowStride int, slow, redo *int32, from, ahead int) (ns, nr, done int)
