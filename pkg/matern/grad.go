package matern

import (
	"fmt"
	"math"
	"unsafe"
)

// Grad evaluates, for one theta, the Matérn covariance together with its
// partial derivatives in beta and, optionally, nu, at many distances at
// once (the covariance derivatives of a gradient or a Fisher information):
//
//	C(r)       = sigma2 rho_nu(x),                 x = r/beta,
//	dC/dbeta   = sigma2 g_nu(x) / beta,            g_nu(x) = -x rho_nu'(x),
//	dC/dnu     = sigma2 d rho_nu(x) / d nu,
//
// with rho_nu(x) = 2^(1-nu)/Gamma(nu) x^nu K_nu(x) the Matérn correlation.
// (dC/dsigma2 = C/sigma2 needs no evaluation of its own.) g_nu has closed
// forms in terms of correlations of another order,
//
//	g_nu(x) = x^2 rho_{nu-1}(x) / (2 (nu-1))                         nu > 1,
//	g_nu(x) = 2^(1-2nu) Gamma(1-nu)/Gamma(nu) x^(2nu) rho_{1-nu}(x)  nu < 1,
//	g_1(x)  = x^2 K_0(x),
//
// from d/dx (x^nu K_nu(x)) = -x^nu K_{nu-1}(x) and K_{-mu} = K_mu; there is
// no closed form of d rho/d nu (it involves dK_nu/dnu), so it is the
// sixth-order central difference
//
//	[45 (f(nu+h) - f(nu-h)) - 9 (f(nu+2h) - f(nu-2h)) + (f(nu+3h) - f(nu-3h))] / (60 h),
//
// h = min(nu/4, 2^-8/(1 + |log x|)) (2^-5 in place of 2^-8 where
// nu - 3h >= NuLarge), of the direct evaluation (Matern), taken only at the
// interpolation nodes: rho is analytic in nu, so the truncation error is
// O(h^6) (below 1e-12 relative to C, measured against mpmath in the
// tests) and the rounding error about 1e-16/h relative to C.
//
// For nu exactly 0.5, 1.5 or 2.5 and no derivative in nu, C and dC/dbeta
// are the closed forms (sigma2 e^-x, sigma2 x e^-x / beta; sigma2 (1+x)
// e^-x, sigma2 x^2 e^-x / beta; sigma2 (1+x+x^2/3) e^-x, sigma2 x^2 (1+x)
// e^-x / (3 beta)). Otherwise the two or three functions are interpolated
// on shared pieces, as NewMatern's evaluator: Chebyshev interpolants of
// degree 15 on binary octaves of x cut into 2^s pieces until the last
// coefficients of every function are below about 4e-15 of the piece's
// smallest C (of g itself for g, which is positive), one piece lookup
// for all of them. Accuracy: C as NewMatern's, dC/dbeta below 1e-12 and
// dC/dnu below 1e-11 relative to C (tests against mpmath). Outside the
// interpolated range (0 < x below rmin/beta or 2^-40, x beyond rmax/beta)
// the functions are evaluated directly; where C < 1e-300 sigma2 all three
// are 0.
//
// A Grad is immutable after construction and safe for concurrent use.
type Grad struct {
	sigma2, invBeta, beta float64
	nu                    float64
	form                  int  // 1, 3, 5: closed forms (no nu derivative); 0: interpolated
	withNu                bool // dC/dnu is evaluated
	nf                    int  // functions per piece: 2 (C, dC/dbeta) or 3 (and dC/dnu)
	xlo, xend, xzero      float64
	ebase                 int
	octs                  []octave
	oct32                 *[32]octave // octs padded to 32 (nil when longer): the AVX-512 locate's table
	mid, ihw              []float64   // per piece
	coef                  []float64   // per piece, nf x chebN coefficients, scales folded in (coefIndex)
	coefT                 []float64   // with oct32: C's coefficients transposed, a_k of piece p at k tStride + p
	zero                  [3]float64  // Row's C, dC/dbeta, dC/dnu at r = 0 (AtZero)
	tStride               int         // the pieces plus 16 (a window of 16 read from any piece stays inside)
	sqrtInVec             bool        // RowSquared takes the square roots in the vector code (sqrtInVec)
}

// NewGrad builds the evaluator of C, dC/dbeta and, when nu is true,
// dC/dnu for theta t and distances r = 0 or rmin <= r <= rmax (others
// are evaluated directly, much more slowly): a caller that knows the
// smallest nonzero distance it will ask for (the closest pair of its
// locations) saves the pieces below it; rmin = 0 interpolates from
// r/beta = 2^-40 on. It fails if t is not valid, rmin is negative or
// NaN, or rmax is NaN or below rmin.
func NewGrad(t Theta, rmin, rmax float64, nu bool) (*Grad, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if !(rmin >= 0 && rmax >= rmin) {
		return nil, fmt.Errorf("matern: distances [%v, %v], want 0 <= rmin <= rmax", rmin, rmax)
	}
	m := &Grad{sigma2: t.Sigma2, invBeta: 1 / t.Beta, beta: t.Beta, nu: t.Nu, withNu: nu, nf: 2, sqrtInVec: sqrtInVec}
	if nu {
		m.nf = 3
	}
	if d := newDirect(t.Nu); !nu && d.form > 0 { // a closed form
		m.form = d.form
	} else {
		m.build(rmin, rmax)
	}
	var c, db, dn [1]float64
	m.Row(c[:], c[:], db[:], dn[:])
	m.zero = [3]float64{c[0], db[0], dn[0]}
	return m, nil
}

// AtZero returns Row's values at r = 0 (C(0) = sigma2, and the
// derivatives, 0), evaluated once at construction: a covariance's
// diagonal without a call of Row.
func (m *Grad) AtZero() (c, db, dn float64) { return m.zero[0], m.zero[1], m.zero[2] }

// WithNu reports whether the evaluator computes dC/dnu.
func (m *Grad) WithNu() bool { return m.withNu }

// gradFuncs evaluates rho, g and (with nu) d rho/d nu directly at x.
type gradFuncs struct {
	nu      float64
	rho     direct
	gOther  direct  // rho of order nu-1 (nu > 1) or 1-nu (nu < 1)
	gConst  float64 // the constant in front of it
	withNu  bool
	besselK bool // nu = 1: g = x^2 K_0(x)
}

func newGradFuncs(nu float64, withNu bool) *gradFuncs {
	f := &gradFuncs{nu: nu, rho: newDirect(nu), withNu: withNu}
	switch {
	case nu > 1:
		f.gOther = newDirect(nu - 1)
		f.gConst = 1 / (2 * (nu - 1))
	case nu < 1:
		f.gOther = newDirect(1 - nu)
		lg1, _ := math.Lgamma(1 - nu)
		lg0, _ := math.Lgamma(nu)
		f.gConst = math.Exp2(1-2*nu) * math.Exp(lg1-lg0)
	default:
		f.besselK = true
	}
	return f
}

// stepNu returns the step of the difference in nu at x: the derivatives
// of rho in nu grow like powers of log x (rho - 1 ~ x^(2 nu) near 0, and
// x^(nu - 1/2) e^-x far away), so the step shrinks as |log x| grows.
func (f *gradFuncs) stepNu(x float64) float64 {
	h := 0x1p-8
	if f.nu-3*h >= NuLarge { // the expansion for large order is less exact than the series: a longer step
		h = 0x1p-5
	}
	return math.Min(f.nu/4, h/(1+math.Abs(math.Log(x))))
}

// at returns rho(x), g(x) and d rho/d nu (0 without nu) for x >= 0.
func (f *gradFuncs) at(x float64) (rho, g, dn float64) {
	if x == 0 {
		return 1, 0, 0
	}
	rho = f.rho.corr(x)
	switch {
	case f.besselK:
		g = x * x * BesselK(0, x)
	case f.nu > 1:
		g = x * x * f.gOther.corr(x) * f.gConst
	default:
		g = math.Exp(2*f.nu*math.Log(x)) * f.gOther.corr(x) * f.gConst
	}
	if f.withNu {
		h := f.stepNu(x)
		at := func(s float64) float64 { return newDirect(f.nu + s*h).corr(x) }
		dn = (45*(at(1)-at(-1)) - 9*(at(2)-at(-2)) + (at(3) - at(-3))) / (60 * h)
	}
	return rho, g, dn
}

func (m *Grad) build(rmin, rmax float64) {
	f := newGradFuncs(m.nu, m.withNu)
	e0 := octLo
	if _, e := math.Frexp(rmin * m.invBeta); rmin > 0 && e-2 > e0 {
		e0 = e - 2 // the octave below the one of rmin/beta
	}
	m.xlo, m.ebase = math.Ldexp(1, e0), 1023+e0
	m.xzero = zeroPoint(f.rho)
	m.xend = min(rmax*m.invBeta*(1+0x1p-20), m.xzero)
	if !(m.xend > m.xlo) {
		m.xend = m.xlo
		return
	}
	b := newGradBuilder(f, m.nf)
	scale := [3]float64{m.sigma2, m.sigma2 * m.invBeta, m.sigma2}
	m.octs = cutOctaves(e0, m.xend, func(lo, w float64) bool {
		good := b.piece(lo, w)
		m.mid = append(m.mid, lo+w/2)
		m.ihw = append(m.ihw, 2/w)
		for q := 0; q < chebN; q += 4 { // C's and dC/dbeta's in alternate runs of four
			for f := range 2 {
				for _, a := range b.mono[f][q : q+4] {
					m.coef = append(m.coef, a*scale[f])
				}
			}
		}
		if m.nf == 3 {
			for _, a := range b.mono[2] {
				m.coef = append(m.coef, a*scale[2])
			}
		}
		return good
	}, func() int { return len(m.mid) }, func(n int) {
		m.mid, m.ihw, m.coef = m.mid[:n], m.ihw[:n], m.coef[:n*m.nf*chebN]
	})
	if len(m.octs) <= 32 {
		m.oct32 = new([32]octave)
		copy(m.oct32[:], m.octs)
		np, stride := len(m.mid), m.nf*chebN
		m.tStride = (np + 16 + 7) &^ 7
		m.coefT = align64(make([]float64, chebN*m.tStride+7))[:chebN*m.tStride]
		for p := range np {
			for k := range chebN {
				m.coefT[k*m.tStride+p] = m.coef[p*stride+coefIndex(0, k)]
			}
		}
	}
}

// gradBuilder computes the interpolating polynomials of one piece.
type gradBuilder struct {
	f    *gradFuncs
	nf   int
	cheb *builder // nodes, cosines and Chebyshev-to-monomial table
	vals [3][chebN]float64
	mono [3][chebN]float64
}

func newGradBuilder(f *gradFuncs, nf int) *gradBuilder {
	return &gradBuilder{f: f, nf: nf, cheb: newBuilder(f.rho, 1)}
}

// piece interpolates the functions on [lo, lo+w] into mono and reports
// whether every one meets the tolerance.
func (b *gradBuilder) piece(lo, w float64) bool {
	hw := w / 2
	mid := lo + hw
	rmin, gmin := math.Inf(1), math.Inf(1)
	for j, t := range b.cheb.nodes {
		r, g, d := b.f.at(mid + hw*t)
		b.vals[0][j], b.vals[1][j], b.vals[2][j] = r, g, d
		rmin, gmin = min(rmin, r), min(gmin, g)
	}
	// Rounding noise of the sampled values (as builder.piece): the
	// functions decay like e^-x, rounding x moves them by about
	// x |d log C/dx| ulps.
	r0, r1 := b.vals[0][0], b.vals[0][chebN-1]
	ld := math.Abs(math.Log(r0/r1)) / (w * b.cheb.nodes[0])
	noise := 4 * (max(r0, r1) / rmin) * ld * (lo + w) * 0x1p-53
	ok := true
	for k := 0; k < b.nf; k++ {
		c := b.coeffs(k)
		scale := rmin
		if k == 1 {
			scale = gmin
		}
		tol := chebTol + noise
		if k == 2 { // and the rounding of the difference in nu
			tol += 16 * 0x1p-53 / b.f.stepNu(lo+w)
		}
		if !(math.Abs(c[chebN-1])+math.Abs(c[chebN-2]) <= tol*scale) {
			ok = false
		}
		clear(b.mono[k][:])
		for n := chebN - 1; n >= 0; n-- {
			for i := range chebN {
				b.mono[k][i] += c[n] * b.cheb.tk[n][i]
			}
		}
	}
	return ok
}

// coeffs returns the Chebyshev coefficients of function k's sampled values.
func (b *gradBuilder) coeffs(k int) [chebN]float64 {
	var c [chebN]float64
	for n := range chebN {
		s := 0.0
		for j, v := range b.vals[k] {
			s += v * b.cheb.cos[n][j]
		}
		c[n] = s
	}
	c[0] /= 2
	return c
}

// Row sets c[i] = C(r[i]), db[i] = dC/dbeta at r[i] and, when the
// evaluator has the derivative in nu, dn[i] = dC/dnu (dn is not touched
// otherwise and may be nil), for i < len(r). c, db and dn must be at least
// as long as r; c may be r itself. A nil db asks for C alone (CovRow).
// Over chunks of rowChunk entries, it locates each entry's piece and
// evaluates its polynomials in one pass (rowVec: vector code where the
// CPU has it; rowGo: locate, then polyRowGo, the same values bitwise),
// then evaluates the entries outside the pieces directly.
func (m *Grad) Row(r, c, db, dn []float64) { m.row(r, c, db, dn, false) }

// RowSquared is Row at the distances r[i] = sqrt(r2[i]) (correctly
// rounded), which it writes over r2 (c may be r2): the same values,
// bitwise, as math.Sqrt over r2 then Row. Where SqrtInVec reports true
// the vector code takes each square root as it reads the entry, in the
// shadow of its other work; elsewhere they are taken first, and a caller
// gains nothing over computing the distances itself.
func (m *Grad) RowSquared(r2, c, db, dn []float64) {
	if !m.sqrtInVec || m.form != 0 || len(m.octs) == 0 {
		for i, v := range r2 {
			r2[i] = math.Sqrt(v)
		}
		m.row(r2, c, db, dn, false)
		return
	}
	m.row(r2, c, db, dn, true)
}

// CovRowSquared is CovRow at r[i] = sqrt(r2[i]), as RowSquared (r2
// overwritten with r; c may be r2).
func (m *Grad) CovRowSquared(r2, c []float64) { m.RowSquared(r2, c, nil, nil) }

// SqrtInVec reports whether RowSquared and CovRowSquared take the square
// roots inside their vector code (AVX-512 on a CPU whose square root a
// separate pass does not hide: Intel's, and AMD's before Zen 5).
func (m *Grad) SqrtInVec() bool { return m.sqrtInVec }

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// row is Row; with sq (the vector code only), r holds squared distances
// whose square roots the vector code takes and writes over r.
func (m *Grad) row(r, c, db, dn []float64, sq bool) {
	c = c[:len(r)]
	onlyC := db == nil // CovRow
	if m.form != 0 {
		if !onlyC {
			m.closedRow(r, c, db)
			return
		}
		var buf [rowChunk]float64
		for k := 0; k < len(r); k += rowChunk {
			n := min(rowChunk, len(r)-k)
			m.closedRow(r[k:k+n], c[k:k+n], buf[:n])
		}
		return
	}
	if onlyC && m.covRowVec(r, c, sq) {
		return
	}
	withNu := m.withNu && !onlyC
	rooted := len(r) // r[:rooted] holds distances (with sq: none yet)
	if sq {
		rooted = 0
	}
	for k := 0; k < len(r); k += rowChunk {
		n := min(rowChunk, len(r)-k)
		var dbk, dnk []float64
		if !onlyC {
			dbk = db[k : k+n]
		}
		if withNu {
			dnk = dn[k : k+n]
		}
		from, ahead := min(max(rooted-k, 0), n), 0
		rooted = max(rooted, k+n) // this call roots its own from on,
		if rooted == k+n {        // and the next call's in its second pass
			ahead = min(n&^3, len(r)-rooted)
		}
		_ = r[:k+n+ahead]
		var slow [rowChunk]uint8
		ns, ok := m.rowVec(r[k:k+n], c[k:k+n], dbk, dnk, &slow, from, ahead)
		if ok {
			rooted += ahead
		} else {
			for i := k + from; i < k+n; i++ {
				r[i] = math.Sqrt(r[i])
			}
			ns = m.rowGo(r[k:k+n], c[k:k+n], dbk, dnk, &slow)
		}
		for _, i := range slow[:ns] {
			cv, gv, dv := m.sigma2, 0.0, 0.0 // x = 0: C(0) = sigma2, no derivatives
			if x := c[k+int(i)]; x != 0 {
				cv, gv, dv = m.slow(x)
			}
			c[k+int(i)] = cv
			if dbk != nil {
				dbk[i] = gv
			}
			if dnk != nil {
				dnk[i] = dv
			}
		}
	}
}

// rowGo is rowVec in Go for at most rowChunk entries (the same values,
// bitwise): locate, then the polynomials (polyRowCGo for C alone,
// polyRowGo with the derivatives), x of the entries listed in slow
// into c. It returns how many slow lists.
func (m *Grad) rowGo(r, c, db, dn []float64, slow *[rowChunk]uint8) int {
	var off [rowChunk]int32
	var t, xs [rowChunk]float64
	n := len(r)
	ns := m.locate(r, off[:n], t[:n], slow, &xs)
	switch {
	case ns == n: // no piece to evaluate (and perhaps no pieces at all)
	case db == nil:
		polyRowCGo(m.coef, off[:n], t[:n], c)
	default:
		polyRowGo(m.coef, off[:n], t[:n], c, db, dn)
	}
	for _, i := range slow[:ns] {
		c[i] = xs[i]
	}
	return ns
}

// align64 returns a's tail from its first 64-byte aligned element (a
// must have 7 elements to spare).
func align64(a []float64) []float64 {
	return a[(64-uintptr(unsafe.Pointer(&a[0]))%64)%64/8:]
}

// slowC sets c[i] = C(x) for each i listed in idx, x = c[i] (an entry
// outside the pieces: Row's slow entries, C alone).
func (m *Grad) slowC(c []float64, idx []int32) {
	for _, i := range idx {
		cv := m.sigma2 // x = 0: C(0) = sigma2
		if x := c[i]; x != 0 {
			cv, _, _ = m.slow(x)
		}
		c[i] = cv
	}
}

// CovRow sets c[i] = C(r[i]) for i < len(r), the covariance alone: the
// same values, bitwise, as Row's c, at about a third of its cost (one
// polynomial an entry). c must be at least as long as r and may be r.
func (m *Grad) CovRow(r, c []float64) { m.Row(r, c, nil, nil) }

// locate sets, for each r[i] (at most rowChunk of them) whose x = r/beta
// is in the pieces' range, off[i] to the offset of its piece's
// coefficients and t[i] to x's place in the piece, (x - mid) / half-width;
// it lists the others in slow, with their x in xs (off and t set to the
// first piece at 0, valid for polyRowGo), and returns how many there are.
func (m *Grad) locate(r []float64, off []int32, t []float64, slow *[rowChunk]uint8, xs *[rowChunk]float64) int {
	ib, lo, hi, eb := m.invBeta, m.xlo, m.xend, m.ebase
	octs, mid, ihw := m.octs, m.mid, m.ihw
	stride := m.nf * chebN
	off, t = off[:len(r)], t[:len(r)]
	ns := 0
	for i, ri := range r {
		x := ri * ib
		if !(x >= lo && x < hi) {
			off[i], t[i] = 0, 0
			slow[ns&(rowChunk-1)], xs[i&(rowChunk-1)] = uint8(i), x
			ns++
			continue
		}
		bits := math.Float64bits(x)
		o := octs[int(bits>>52)-eb]
		p := int(o.first) + int((bits&(1<<52-1))>>(o.shift&63))
		off[i] = int32(p * stride)
		t[i] = (x - mid[p]) * ihw[p]
	}
	return ns
}

// slow evaluates the three functions directly at x outside the pieces.
func (m *Grad) slow(x float64) (c, db, dn float64) {
	x = math.Abs(x)
	if !(x < m.xzero) { // also NaN: zeros, as Cov beyond its cut-off
		if math.IsNaN(x) {
			return x, x, x
		}
		return 0, 0, 0
	}
	f := newGradFuncs(m.nu, m.withNu)
	r, g, d := f.at(x)
	return m.sigma2 * r, m.sigma2 * m.invBeta * g, m.sigma2 * d
}

// closedRow is Row for nu = 0.5, 1.5, 2.5 without the derivative in nu.
func (m *Grad) closedRow(r, c, db []float64) {
	c, db = c[:len(r)], db[:len(r)]
	var e [64]float64
	s, ib, sb := m.sigma2, m.invBeta, m.sigma2*m.invBeta
	for k := 0; k < len(r); k += len(e) {
		n := min(len(e), len(r)-k)
		expNegRow(r[k:k+n], e[:n], ib)
		for j, rj := range r[k : k+n] {
			x := rj * ib
			ex := e[j]
			switch m.form {
			case 1:
				c[k+j], db[k+j] = s*ex, sb*x*ex
			case 3:
				c[k+j], db[k+j] = s*(1+x)*ex, sb*x*x*ex
			default:
				c[k+j], db[k+j] = s*(1+x+x*x*(1.0/3))*ex, sb*x*x*(1+x)*(1.0/3)*ex
			}
		}
	}
}
