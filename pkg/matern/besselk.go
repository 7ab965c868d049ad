package matern

import "math"

// BesselK returns K_nu(x), the modified Bessel function of the second kind
// of real order nu at x:
//
//	K_nu(x) = pi/2 * (I_{-nu}(x) - I_nu(x)) / sin(nu*pi),
//
// (the limit of that expression at integer nu), the solution of
// x^2 d2y/dx2 + x dy/dx - (x^2 + nu^2) y = 0 that decays like
// sqrt(pi/(2x)) e^-x.
//
// Method: nu = mu + n with n = round(nu) and |mu| <= 1/2. K_mu and K_mu+1
// come from Temme's series for x < 2 and from Steed's continued fraction
// (CF2, Thompson and Barnett) for x >= 2, as in Numerical Recipes' bessik;
// the forward recurrence K_{v+1}(x) = (2v/x) K_v(x) + K_{v-1}(x), which is
// stable for K, then gives K_nu. The coefficients 1/Gamma(1 +- mu) of
// Temme's series come from the Taylor series of 1/Gamma(1+z). Intermediate
// results carry a separate power-of-two exponent, so nothing overflows or
// underflows before the final result.
//
// For nu >= NuLarge (25) it uses instead the uniform asymptotic expansion
// for large order (see NuLarge), in log space: O(1) per value at any order.
//
// Range and accuracy: relative error below 1e-12 for 0 <= nu < 25 and
// every x > 0 where K_nu(x) is a normal float64 (measured against 40-digit
// mpmath values in testdata/besselk.csv: below 4e-15 for x >= 1e-6, up to
// 2e-14 at x = 1e-300 through the rounding of log x). For nu >= 25 the
// relative error is below a few ulp times sqrt(nu^2 + x^2), the
// conditioning of K_nu(x) in x (testdata/besselk_large.csv, nu up to 1e5:
// below 2.4e-15 times that). Since K_{-nu} = K_nu, a negative nu is
// replaced by -nu.
//
// Special values: BesselK(nu, 0) = +Inf, BesselK(nu, +Inf) = 0, NaN for
// x < 0 or a NaN argument. Where K_nu(x) exceeds the float64 range (small x
// and large nu, for example x < 1e-9 at nu = 30) the result is +Inf; where
// it falls below the normal range (x beyond about 705 + nu^2/(2x)) the
// result is subnormal, with reduced precision, or 0.
func BesselK(nu, x float64) float64 {
	switch {
	case math.IsNaN(nu) || math.IsNaN(x) || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(1)
	case math.IsInf(x, 1):
		return 0
	}
	nu = math.Abs(nu)
	if math.IsInf(nu, 1) {
		return math.Inf(1)
	}
	m, e := besselKExp(nu, x)
	return math.Ldexp(m, e)
}

// besselKExp returns K_nu(x) as m * 2^e with m in [0.5, 1). It requires
// nu >= 0 finite and 0 < x < +Inf.
func besselKExp(nu, x float64) (float64, int) {
	if nu >= NuLarge {
		return largeBesselKExp(nu, x)
	}
	n := int(nu + 0.5)
	mu := nu - float64(n) // in [-1/2, 1/2)

	if n >= 2 && x < 0x1p-40 {
		// Leading term of the small-x expansion: for nu >= 3/2 the next
		// terms are relatively O(x^2/(4(nu-1))) and O((x/2)^(2 nu)), both
		// below 2^-80 here.
		pm, pe := powExp(x, -nu)
		m, e := math.Frexp(0.5 * math.Gamma(nu) * math.Exp2(nu) * pm)
		return m, e + pe
	}

	var k0, k1 float64 // K_mu(x), K_mu+1(x), both times 2^-e (and e^x for CF2)
	e := 0
	if x < 2 {
		var s0, s1 float64
		s0, s1 = temme(mu, x) // K_mu = s0, K_mu+1 = s1 * 2/x
		switch n {
		case 0:
			m, me := math.Frexp(s0)
			return m, me
		case 1:
			// 2/x may overflow for very small x: K = s1 * (2/fx) * 2^-ex.
			fx, ex := math.Frexp(x)
			m, me := math.Frexp(s1 * 2 / fx)
			return m, me - ex
		}
		k0, k1 = s0, s1*(2/x) // x >= 2^-40 here: no overflow
	} else {
		k0, k1 = steed(mu, x)
	}

	if n == 0 {
		k1 = k0
	} else {
		xi2 := 2 / x
		for i := 1; i < n; i++ {
			k0, k1 = k1, (mu+float64(i))*xi2*k1+k0
			if k1 > 0x1p900 {
				k0 *= 0x1p-900
				k1 *= 0x1p-900
				e += 900
			}
		}
	}
	// k1 = K_nu(x) * 2^-e, times e^x when x >= 2.
	m, me := math.Frexp(k1)
	e += me
	if x >= 2 {
		m, me = scaleExpNeg(m, x)
		e += me
	}
	return m, e
}

// scaleExpNeg returns m * e^-x as mm * 2^e with mm in [0.5, 1), for x >= 0,
// without underflow.
func scaleExpNeg(m, x float64) (float64, int) {
	if x <= 700 {
		return math.Frexp(m * math.Exp(-x))
	}
	// e^-x = e^-r 2^-k with r = x - k ln2 computed exactly enough
	// (Cody and Waite's two-part ln 2, as in math.Exp).
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
	)
	k := math.Floor(x * math.Log2E)
	r := (x - k*ln2Hi) - k*ln2Lo
	mm, e := math.Frexp(m * math.Exp(-r))
	return mm, e - int(k)
}

// powExp returns x^y as m * 2^e with m in [0.5, 1), for x > 0 finite and
// |y| up to about 1000, without overflow or underflow. The relative error
// is a few units in the last place times (1 + |y|).
func powExp(x, y float64) (float64, int) {
	fx, ex := math.Frexp(x) // x = fx 2^ex, fx in [0.5, 1)
	yi := math.Floor(y)
	yf := y - yi // exact, in [0, 1)
	// 2^(ex*y) = 2^(ex*yi) 2^(ex*yf); ex*yf = th + tl exactly.
	th := float64(ex) * yf
	tl := math.FMA(float64(ex), yf, -th)
	ti := math.Floor(th)
	p := math.Pow(fx, y) * math.Exp2(th-ti) * (1 + tl*math.Ln2)
	m, e := math.Frexp(p)
	return m, e + ex*int(yi) + int(ti)
}

// temme evaluates Temme's series for K_mu(x) and K_mu+1(x), |mu| <= 1/2,
// 0 < x < 2. It returns s0 = K_mu(x) and s1 with K_mu+1(x) = s1 * 2/x.
func temme(mu, x float64) (s0, s1 float64) {
	const eps = 0x1p-54
	x2 := 0.5 * x
	pimu := math.Pi * mu
	fact := 1.0
	if math.Abs(pimu) > eps {
		fact = pimu / math.Sin(pimu)
	}
	d := -math.Log(x2)
	e := mu * d
	fact2 := 1.0
	if math.Abs(e) > eps {
		fact2 = math.Sinh(e) / e
	}
	gam1, gam2 := temmeGammas(mu)
	gampl := gam2 - mu*gam1 // 1/Gamma(1+mu)
	gammi := gam2 + mu*gam1 // 1/Gamma(1-mu)
	ff := fact * (gam1*math.Cosh(e) + gam2*fact2*d)
	sum := ff
	ee := math.Exp(e)
	p := 0.5 * ee / gampl
	q := 0.5 / (ee * gammi)
	c := 1.0
	dd := x2 * x2
	sum1 := p
	mu2 := mu * mu
	for i := 1; i < 500; i++ {
		fi := float64(i)
		ff = (fi*ff + p + q) / (fi*fi - mu2)
		c *= dd / fi
		p /= fi - mu
		q /= fi + mu
		del := c * ff
		sum += del
		del1 := c*p - fi*del
		sum1 += del1
		if math.Abs(del) < math.Abs(sum)*eps && math.Abs(del1) < math.Abs(sum1)*eps {
			break
		}
	}
	return sum, sum1
}

// temmeGammas returns Temme's
//
//	gam1 = (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu),
//	gam2 = (1/Gamma(1-mu) + 1/Gamma(1+mu)) / 2,
//
// for |mu| <= 1/2, from the Taylor series 1/Gamma(1+z) = sum_k b_k z^k
// (coefficients from mpmath, 25 digits): gam2 sums the even terms, gam1 is
// minus the odd terms divided by mu. Truncation error below 1e-22.
func temmeGammas(mu float64) (gam1, gam2 float64) {
	const (
		b0  = 1.0
		b1  = 0.5772156649015328606065121
		b2  = -0.6558780715202538810770195
		b3  = -0.04200263503409523552900393
		b4  = 0.1665386113822914895017008
		b5  = -0.0421977345555443367482083
		b6  = -0.009621971527876973562114922
		b7  = 0.00721894324666309954239501
		b8  = -0.001165167591859065112113971
		b9  = -0.00021524167411495097281573
		b10 = 0.0001280502823881161861531986
		b11 = -0.00002013485478078823865568939
		b12 = -0.000001250493482142670657345359
		b13 = 0.00000113302723198169588237413
		b14 = -0.0000002056338416977607103450154
		b15 = 6.116095104481415817862499e-9
		b16 = 5.002007644469222930055665e-9
		b17 = -1.181274570487020144588127e-9
		b18 = 1.04342671169110051049154e-10
		b19 = 7.782263439905071254049937e-12
		b20 = -3.696805618642205708187816e-12
		b21 = 5.100370287454475979015481e-13
		b22 = -2.05832605356650678322243e-14
		b23 = -5.348122539423017982370017e-15
		b24 = 1.226778628238260790158894e-15
		b25 = -1.181259301697458769513765e-16
		b26 = 1.186692254751600332579777e-18
		b27 = 1.412380655318031781555804e-18
		b28 = -2.298745684435370206592479e-19
		b29 = 1.714406321927337433383963e-20
	)
	z := mu * mu
	gam2 = b0 + z*(b2+z*(b4+z*(b6+z*(b8+z*(b10+z*(b12+z*(b14+z*(b16+z*(b18+
		z*(b20+z*(b22+z*(b24+z*(b26+z*b28)))))))))))))
	gam1 = -(b1 + z*(b3+z*(b5+z*(b7+z*(b9+z*(b11+z*(b13+z*(b15+z*(b17+z*(b19+
		z*(b21+z*(b23+z*(b25+z*(b27+z*b29))))))))))))))
	return gam1, gam2
}

// steed evaluates K_mu(x) e^x and K_mu+1(x) e^x for |mu| <= 1/2 and x >= 2
// with Steed's algorithm for the continued fraction CF2 of Thompson and
// Barnett (Numerical Recipes' bessik).
func steed(mu, x float64) (k0, k1 float64) {
	const eps = 0x1p-54
	b := 2 * (1 + x)
	d := 1 / b
	h, delh := d, d
	q1, q2 := 0.0, 1.0
	a1 := 0.25 - mu*mu
	q, c := a1, a1
	a := -a1
	s := 1 + q*delh
	for i := 2; i < 10000; i++ {
		fi := float64(i)
		a -= 2 * (fi - 1)
		c = -a * c / fi
		qnew := (q1 - b*q2) / a
		q1, q2 = q2, qnew
		q += c * qnew
		b += 2
		d = 1 / (b + a*d)
		delh = (b*d - 1) * delh
		h += delh
		dels := q * delh
		s += dels
		if math.Abs(dels) < math.Abs(s)*eps {
			break
		}
	}
	h *= a1
	k0 = math.Sqrt(math.Pi/(2*x)) / s
	k1 = k0 * (mu + x + 0.5 - h) / x
	return k0, k1
}
