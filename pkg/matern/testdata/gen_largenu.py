#!/usr/bin/python3
"""Reference tables for the large-order path of package matern (orders
nu >= 25, where BesselK and the Matern correlation use the uniform
asymptotic expansion), computed with mpmath at 40 digits.

mpmath's besselk does not converge for orders in the thousands, so K_nu
comes from the integral K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt
(tanh-sinh quadrature with breakpoints around the peak t* = asinh(nu/x));
for nu <= 200 the script checks it against besselk to 25 digits.

Run from this directory with Debian's python3-mpmath:

    /usr/bin/python3 gen_largenu.py

It writes two CSV files (a '#' line describes the columns):

  besselk_large.csv  nu, x, K_nu(x)        (rows where K_nu(x) is a normal
                                            float64 only)
  matern_large.csv   sigma2, beta, nu, r, C(r)   ExaGeoStat's Matern
                     covariance C(r) = sigma2 2^(1-nu)/Gamma(nu)
                     (r/beta)^nu K_nu(r/beta), C(0) = sigma2 (rows with
                     C(r) >= 1e-300 sigma2 only)

Inputs are printed with Python's repr, so the float64 the Go test parses is
exactly the number mpmath used; results with 20 significant digits.
"""

from mpmath import mp, mpf, besselk, loggamma, log, exp, sqrt

mp.dps = 40

FLT_MIN = mpf(2) ** -1022
FLT_MAX = mpf(2) ** 1024 * (1 - mpf(2) ** -53)

NUS = [25.0, 25.5, 29.73, 31.7, 50.0, 100.0, 157.5, 158.0, 160.0, 171.5,
       200.0, 500.0, 1000.0, 12345.6, 100000.0]


def krec(nu, x):
    """K_nu(x) by the forward recurrence K_{v+1} = (2v/x) K_v + K_{v-1}
    (stable for K) from K_mu and K_mu+1, mu = nu - floor(nu), which
    mpmath's besselk computes reliably; the working precision has 30
    guard digits."""
    with mp.workdps(mp.dps + 30):
        nu, x = mpf(nu), mpf(x)
        n = int(mp.floor(nu))
        mu = nu - n
        k0, k1 = besselk(mu, x), besselk(mu + 1, x)
        for i in range(1, n):
            k0, k1 = k1, 2 * (mu + i) / x * k1 + k0
        v = k1 if n >= 1 else k0
        if nu <= 200:
            ref = besselk(nu, x)
            assert abs(v / ref - 1) < mpf(10) ** -35, (nu, x, v, ref)
    return +v


def fmt(v):
    return mp.nstr(v, 20, min_fixed=1, max_fixed=0)


def besselk_table(path):
    n = 0
    with open(path, "w") as f:
        f.write("# nu,x,K_nu(x)  mpmath dps=%d\n" % mp.dps)
        for nu in NUS:
            # x relative to nu (the transition region x ~ nu) and absolute
            xs = sorted(set([float(mpf(nu) * c) for c in
                             (1e-3, 0.01, 0.1, 0.3, 0.5, 0.66, 0.9, 1.0, 1.5, 2.0, 5.0, 10.0)] +
                            [1e-3, 0.1, 1.0, 7.0, 30.0, 100.0, 300.0, 600.0, 700.0]))
            for x in xs:
                v = krec(nu, x)
                if not (FLT_MIN <= v <= FLT_MAX):
                    continue
                f.write("%r,%r,%s\n" % (nu, x, fmt(v)))
                n += 1
    return n


def matern(s2, beta, nu, r):
    if r == 0:
        return mpf(s2)
    x = mpf(r) / mpf(beta)
    nu = mpf(nu)
    lc = (1 - nu) * log(2) - loggamma(nu) + nu * log(x) + log(krec(nu, x))
    return mpf(s2) * exp(lc)


def matern_table(path):
    n = 0
    with open(path, "w") as f:
        f.write("# sigma2,beta,nu,r,C(r)  ExaGeoStat Matern, mpmath dps=%d\n" % mp.dps)
        for nu in NUS:
            s2, beta = 1.3, 0.01
            g = sqrt(mpf(nu))  # the correlation length in x is about 2 sqrt(nu)
            xs = [0.0, 1e-300, 1e-20, 1e-8, 1e-3, 0.1, 1.0, 3.0]
            xs += [float(g * c) for c in (0.05, 0.3, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 50.0)]
            xs += [float(mpf(nu) * c) for c in (0.5, 1.0, 2.0, 4.0)]
            for xt in sorted(set(xs)):
                r = float(mpf(xt) * mpf(beta))
                v = matern(s2, beta, nu, r)
                if v < mpf(1e-300) * s2:
                    continue
                f.write("%r,%r,%r,%r,%s\n" % (s2, beta, nu, r, fmt(v)))
                n += 1
    return n


if __name__ == "__main__":
    print("besselk_large.csv:", besselk_table("besselk_large.csv"), "rows")
    print("matern_large.csv:", matern_table("matern_large.csv"), "rows")
