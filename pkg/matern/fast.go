package matern

import (
	"fmt"
	"math"
)

// Kernel is a stationary isotropic covariance function of distance:
// Cov(r) is the covariance of two values at distance r >= 0.
type Kernel interface {
	Cov(r float64) float64
}

// RowKernel is a Kernel that can also evaluate many distances at once:
// CovRow sets out[i] = Cov(r[i]) for i < len(r) (out must be at least as
// long as r and may be the same slice as r). FillTile uses it when the
// kernel provides it; all kernels of this package do.
type RowKernel interface {
	Kernel
	CovRow(r, out []float64)
}

// NewMatern returns a fast evaluator of the Matérn covariance
//
//	C(r) = sigma2 * 2^(1-nu)/Gamma(nu) * (r/beta)^nu * K_nu(r/beta),  C(0) = sigma2,
//
// for 0 <= r <= rmax (rmax may be +Inf), built once per theta. The returned
// Kernel is safe for concurrent use and also implements RowKernel.
//
// For nu exactly 0.5, 1.5 or 2.5 it evaluates the closed forms
// sigma2*exp(-x), sigma2*(1+x)*exp(-x) and sigma2*(1+x+x^2/3)*exp(-x),
// x = r/beta, with an exponential of its own (expNeg, within 2 ulp of
// math.Exp and faster). For any other nu it interpolates C on x = r/beta in
// [2^-40, min(rmax/beta, x0)) by polynomials of degree 15 (Chebyshev
// interpolants at 16 points, stored as monomials in the piece's local
// variable t in [-1, 1] and evaluated by Estrin's scheme). Every binary
// octave [2^e, 2^(e+1)) is cut into 2^s equal pieces, s chosen per octave
// until the last Chebyshev coefficients show an interpolation error below
// about 4e-15 relative to C (plus the rounding noise of the sampled values)
// in every piece. The pieces are thus geometrically refined towards 0,
// where C has the non-analytic term (x/2)^(2 nu), and have a bounded width
// (about 2) where C decays like e^-x. A piece is found from the float64
// exponent and leading mantissa bits of x: no search, no logarithm.
//
// Accuracy: relative error below 1e-12 against the exact covariance for
// all r in [0, rmax] where C(r) >= 1e-300*sigma2 (and is a normal
// float64), 0 < nu <= 30 and any rmax/beta (tested up to 1e4), and for
// larger nu (tested up to 1e5 against mpmath, built in milliseconds up
// to nu = 1e12). Measured: below 1e-14 for x = r/beta
// under about 10, growing with x like the conditioning of C (x times the
// rounding of r/beta) to about 2e-13 at x = 700. x0 is where C/sigma2
// falls below 1e-300: for x >= x0 Cov returns 0, an absolute error below
// 1e-300*sigma2. For x below 2^-40 (about 9e-13), and beyond rmax/beta, Cov
// falls back on the direct evaluation Matern (as accurate, 50 to 100
// times slower); Cov(0) = sigma2. The closed forms underflow like exp: to 0
// beyond x of about 745.
//
// Construction evaluates C directly at 16 points per piece: about 50
// pieces and 0.3 ms for rmax/beta near 15, 400 pieces and 2 ms for
// rmax/beta >= 700. It fails if t is not valid or rmax is negative or NaN.
func NewMatern(t Theta, rmax float64) (Kernel, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if !(rmax >= 0) {
		return nil, fmt.Errorf("matern: rmax = %v, want >= 0", rmax)
	}
	inv := 1 / t.Beta
	switch t.Nu {
	case 0.5:
		return &expKernel{sigma2: t.Sigma2, invBeta: inv}, nil
	case 1.5:
		return &matern32{sigma2: t.Sigma2, invBeta: inv}, nil
	case 2.5:
		return &matern52{sigma2: t.Sigma2, invBeta: inv}, nil
	}
	return newInterp(t, rmax), nil
}

// expKernel is the Matérn covariance with nu = 1/2, sigma2*exp(-r/beta).
type expKernel struct{ sigma2, invBeta float64 }

// Cov returns sigma2*exp(-r/beta).
func (k *expKernel) Cov(r float64) float64 { return k.sigma2 * expNeg(r*k.invBeta) }

// CovRow sets out[i] = Cov(r[i]) for i < len(r); out may be r.
func (k *expKernel) CovRow(r, out []float64) {
	out = out[:len(r)]
	expNegRow(r, out, k.invBeta)
	for i := range out {
		out[i] *= k.sigma2
	}
}

// matern32 is the Matérn covariance with nu = 3/2, sigma2*(1+x)*exp(-x),
// x = r/beta.
type matern32 struct{ sigma2, invBeta float64 }

// Cov returns sigma2*(1+x)*exp(-x), x = r/beta.
func (k *matern32) Cov(r float64) float64 {
	x := r * k.invBeta
	return k.sigma2 * (1 + x) * expNeg(x)
}

// CovRow sets out[i] = Cov(r[i]) for i < len(r); out may be r.
func (k *matern32) CovRow(r, out []float64) {
	out = out[:len(r)]
	polyExpRow(r, out, k.sigma2, k.invBeta, false)
}

// matern52 is the Matérn covariance with nu = 5/2,
// sigma2*(1+x+x^2/3)*exp(-x), x = r/beta.
type matern52 struct{ sigma2, invBeta float64 }

// Cov returns sigma2*(1+x+x^2/3)*exp(-x), x = r/beta.
func (k *matern52) Cov(r float64) float64 {
	x := r * k.invBeta
	return k.sigma2 * (1 + x + x*x*(1.0/3)) * expNeg(x)
}

// CovRow sets out[i] = Cov(r[i]) for i < len(r); out may be r.
func (k *matern52) CovRow(r, out []float64) {
	out = out[:len(r)]
	polyExpRow(r, out, k.sigma2, k.invBeta, true)
}

// polyExpRow sets out[i] = s (1 + x) exp(-x) (quad false: nu = 3/2) or
// s (1 + x + x^2/3) exp(-x) (quad true: nu = 5/2), x = r[i] ib, bit for
// bit as matern32.Cov and matern52.Cov: the exponentials of a chunk of 64
// first (expNegRow), so out may be r.
func polyExpRow(r, out []float64, s, ib float64, quad bool) {
	out = out[:len(r)]
	var e [64]float64
	for c := 0; c < len(r); c += len(e) {
		m := min(len(e), len(r)-c)
		expNegRow(r[c:c+m], e[:m], ib)
		for j, ri := range r[c : c+m] {
			x := ri * ib
			if quad {
				out[c+j] = s * (1 + x + x*x*(1.0/3)) * e[j]
			} else {
				out[c+j] = s * (1 + x) * e[j]
			}
		}
	}
}

// PowExp is the powered-exponential covariance
//
//	C(r) = Sigma2 * exp(-r^Delta / Beta),  0 < Delta <= 2,
//
// (Delta = 1: exponential; Delta = 2: Gaussian, squared exponential). Note
// that Beta divides r^Delta, not r.
type PowExp struct{ Sigma2, Beta, Delta float64 }

// Validate reports whether Sigma2 and Beta are finite and > 0 and
// 0 < Delta <= 2 (the range where C is a valid covariance in any
// dimension). The error names the bad parameter.
func (k PowExp) Validate() error {
	switch {
	case !(k.Sigma2 > 0) || math.IsInf(k.Sigma2, 1):
		return fmt.Errorf("matern: parameter sigma2 = %v, want a finite number > 0", k.Sigma2)
	case !(k.Beta > 0) || math.IsInf(k.Beta, 1):
		return fmt.Errorf("matern: parameter beta = %v, want a finite number > 0", k.Beta)
	case !(k.Delta > 0 && k.Delta <= 2):
		return fmt.Errorf("matern: parameter delta = %v, want 0 < delta <= 2", k.Delta)
	}
	return nil
}

// Cov returns Sigma2*exp(-r^Delta/Beta).
func (k PowExp) Cov(r float64) float64 {
	return k.Sigma2 * math.Exp(-powAbs(r, k.Delta)/k.Beta)
}

// CovRow sets out[i] = Cov(r[i]) for i < len(r); out may be r.
func (k PowExp) CovRow(r, out []float64) {
	out = out[:len(r)]
	s, ib := k.Sigma2, 1/k.Beta
	switch k.Delta {
	case 1:
		for i, ri := range r {
			out[i] = s * math.Exp(-ri*ib)
		}
	case 2:
		for i, ri := range r {
			out[i] = s * math.Exp(-ri*ri*ib)
		}
	default:
		for i, ri := range r {
			out[i] = s * math.Exp(-math.Pow(ri, k.Delta)*ib)
		}
	}
}

func powAbs(r, d float64) float64 {
	switch d {
	case 1:
		return math.Abs(r)
	case 2:
		return r * r
	}
	return math.Pow(math.Abs(r), d)
}

const (
	chebN    = 16    // coefficients per piece: degree 15
	octLo    = -40   // interpolation starts at x = 2^octLo
	maxLevel = 12    // at most 2^maxLevel pieces per octave
	chebTol  = 4e-15 // |c_14|+|c_15| <= chebTol * min C over the piece
	cutoff   = 1e-300
)

// piece is the interpolant on [mid-1/ihw, mid+1/ihw):
// C(x) = sum_k a[k] t^k, t = (x-mid)*ihw, sigma2 included.
type piece struct {
	mid, ihw float64
	a        [chebN]float64
}

// octave locates the pieces of one binary octave [2^e, 2^(e+1)): piece
// first + (mantissa bits of x) >> shift.
type octave struct {
	first int32
	shift uint32
}

// interp is the interpolating Matérn evaluator NewMatern returns for nu
// other than 0.5, 1.5 and 2.5. It is immutable after construction.
type interp struct {
	sigma2, invBeta float64
	xlo, xend       float64 // pieces cover [xlo, xend)
	xzero           float64 // C/sigma2 < 1e-300 for x >= xzero
	ebase           int     // biased exponent of xlo
	octs            []octave
	pieces          []piece
	d               direct
}

// Cov returns the Matérn covariance at distance r.
func (m *interp) Cov(r float64) float64 {
	x := r * m.invBeta
	if !(x >= m.xlo && x < m.xend) {
		return m.slow(x)
	}
	b := math.Float64bits(x)
	o := m.octs[int(b>>52)-m.ebase]
	p := &m.pieces[int(o.first)+int((b&(1<<52-1))>>(o.shift&63))]
	t := (x - p.mid) * p.ihw
	return estrin(&p.a, t)
}

// CovRow sets out[i] = Cov(r[i]) for i < len(r); out may be r.
func (m *interp) CovRow(r, out []float64) {
	out = out[:len(r)]
	ib, lo, hi, eb := m.invBeta, m.xlo, m.xend, m.ebase
	octs, pieces := m.octs, m.pieces
	for i, ri := range r {
		x := ri * ib
		if !(x >= lo && x < hi) {
			out[i] = m.slow(x)
			continue
		}
		b := math.Float64bits(x)
		o := octs[int(b>>52)-eb]
		p := &pieces[int(o.first)+int((b&(1<<52-1))>>(o.shift&63))]
		t := (x - p.mid) * p.ihw
		// Estrin's scheme (written out: the compiler would not inline a
		// function this size): a shorter dependency chain than Horner's.
		a := &p.a
		t2 := t * t
		t4 := t2 * t2
		q0 := (a[0] + a[1]*t) + (a[2]+a[3]*t)*t2
		q1 := (a[4] + a[5]*t) + (a[6]+a[7]*t)*t2
		q2 := (a[8] + a[9]*t) + (a[10]+a[11]*t)*t2
		q3 := (a[12] + a[13]*t) + (a[14]+a[15]*t)*t2
		out[i] = (q0 + q1*t4) + (q2+q3*t4)*(t4*t4)
	}
}

// estrin evaluates sum_k a[k] t^k by Estrin's scheme.
func estrin(a *[chebN]float64, t float64) float64 {
	t2 := t * t
	t4 := t2 * t2
	q0 := (a[0] + a[1]*t) + (a[2]+a[3]*t)*t2
	q1 := (a[4] + a[5]*t) + (a[6]+a[7]*t)*t2
	q2 := (a[8] + a[9]*t) + (a[10]+a[11]*t)*t2
	q3 := (a[12] + a[13]*t) + (a[14]+a[15]*t)*t2
	return (q0 + q1*t4) + (q2+q3*t4)*(t4*t4)
}

// slow handles x outside the interpolated range.
func (m *interp) slow(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x >= m.xzero:
		return 0
	case x == 0:
		return m.sigma2
	}
	return m.sigma2 * m.d.corr(x) // tiny x, x beyond rmax/beta, or NaN
}

func newInterp(t Theta, rmax float64) *interp {
	d := newDirect(t.Nu)
	m := &interp{
		sigma2:  t.Sigma2,
		invBeta: 1 / t.Beta,
		xlo:     0x1p-40,
		ebase:   1023 + octLo,
		d:       d,
	}
	m.xzero = zeroPoint(d)
	m.xend = min(rmax/t.Beta*(1+0x1p-20), m.xzero)
	if !(m.xend > m.xlo) {
		m.xend = m.xlo // nothing to interpolate: every x goes to slow
		return m
	}
	b := newBuilder(d, t.Sigma2)
	m.octs = cutOctaves(octLo, m.xend, func(lo, w float64) bool {
		p, good := b.piece(lo, w)
		m.pieces = append(m.pieces, p)
		return good
	}, func() int { return len(m.pieces) }, func(n int) { m.pieces = m.pieces[:n] })
	return m
}

// cutOctaves cuts [2^e0, xend) into binary octaves and each octave into
// 2^s equal pieces, s (never smaller than the previous octave's) raised
// until add accepts every piece or s reaches maxLevel: add(lo, w) appends
// the piece [lo, lo+w) and reports whether it meets the tolerance, count
// returns the pieces appended so far and cut(n) drops all but the first n.
// It returns where each octave's pieces start.
func cutOctaves(e0 int, xend float64, add func(lo, w float64) bool, count func() int, cut func(n int)) []octave {
	var octs []octave
	level := 0
	for e := e0; ; e++ {
		a := math.Ldexp(1, e)
		if a >= xend {
			return octs
		}
		top := min(2*a, xend)
		for {
			w := math.Ldexp(a, -level)
			start := count()
			ok := true
			for lo := a; lo < top; lo += w {
				if !add(lo, w) && level < maxLevel {
					ok = false
					break
				}
			}
			if ok {
				octs = append(octs, octave{first: int32(start), shift: uint32(52 - level)})
				break
			}
			cut(start)
			level++
		}
	}
}

// zeroPoint returns x0 with 1e-300 >= corr(x0) (and corr(x0) normal), so
// that corr < 1e-300 for every x >= x0, corr being decreasing.
func zeroPoint(d direct) float64 {
	if d.form == formLarge {
		return largeZeroPoint(d.nu)
	}
	// log corr(x) ~ log c + (nu-1/2) log x + log sqrt(pi/2) - x for large x.
	lc := math.Log(d.c) + 0.5*math.Log(math.Pi/2) - math.Log(cutoff)
	x := 700.0
	for range 6 {
		x = max(lc+(d.nu-0.5)*math.Log(x), 1)
	}
	for d.corr(x) > cutoff {
		x += 4
	}
	return x
}

// builder computes the interpolating polynomial of one piece.
type builder struct {
	d      direct
	sigma2 float64
	nodes  [chebN]float64        // Chebyshev points of the first kind
	cos    [chebN][chebN]float64 // cos(pi k (j+1/2)/N) * 2/N
	tk     [chebN][chebN]float64 // monomial coefficients of T_k
	f      [chebN]float64
}

func newBuilder(d direct, sigma2 float64) *builder {
	b := &builder{d: d, sigma2: sigma2}
	for j := range chebN {
		b.nodes[j] = math.Cos(math.Pi * (float64(j) + 0.5) / chebN)
		for k := range chebN {
			b.cos[k][j] = math.Cos(math.Pi*float64(k)*(float64(j)+0.5)/chebN) * (2.0 / chebN)
		}
	}
	b.tk[0][0] = 1
	b.tk[1][1] = 1
	for k := 2; k < chebN; k++ {
		for i := range chebN {
			v := -b.tk[k-2][i]
			if i > 0 {
				v += 2 * b.tk[k-1][i-1]
			}
			b.tk[k][i] = v
		}
	}
	return b
}

// piece interpolates on [lo, lo+w] and reports whether the estimated
// relative interpolation error is below chebTol.
func (b *builder) piece(lo, w float64) (piece, bool) {
	hw := w / 2
	mid := lo + hw
	fmin := math.Inf(1)
	for j, t := range b.nodes {
		v := b.d.corr(mid + hw*t)
		b.f[j] = v
		fmin = min(fmin, v)
	}
	var c [chebN]float64
	for k := range chebN {
		s := 0.0
		for j, v := range b.f {
			s += v * b.cos[k][j]
		}
		c[k] = s
	}
	c[0] /= 2
	// The values carry relative errors of about 2^-53*hi*|d log C/dx| from
	// rounding the nodes (C decays like e^-x), which the coefficients see
	// as noise: accept that much more.
	fmax := max(b.f[0], b.f[chebN-1])
	ld := math.Abs(math.Log(b.f[0]/b.f[chebN-1])) / (w * b.nodes[0])
	tol := chebTol + 4*(fmax/fmin)*ld*(lo+w)*0x1p-53
	ok := math.Abs(c[chebN-1])+math.Abs(c[chebN-2]) <= tol*fmin
	p := piece{mid: mid, ihw: 1 / hw}
	for k := chebN - 1; k >= 0; k-- {
		for i := range chebN {
			p.a[i] += c[k] * b.tk[k][i]
		}
	}
	for i := range p.a {
		p.a[i] *= b.sigma2
	}
	return p, ok
}
