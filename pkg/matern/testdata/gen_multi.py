#!/usr/bin/python3
"""Reference values for package matern's space-time and bivariate kernels,
computed independently with mpmath at 40 digits (not from the Go code).

Run from this directory with Debian's python3-mpmath:

    /usr/bin/python3 gen_multi.py

It writes two CSV files (a '#' line describes the columns):

  spacetime.csv  sigma2,beta,nu,beta_t,alpha,sep,delta,h,u,C
      ExaGeoStat's univariate_spacetime_matern_stationary (Gneiting 2002,
      eq. 16, d = 2): psi = |u|^(2 alpha)/beta_t + 1,
      C = sigma2/psi^(sep+delta) * M_nu((h/beta)/psi^(sep/2)),
      M_nu(x) = 2^(1-nu)/Gamma(nu) x^nu K_nu(x), M_nu(0) = 1.

  bivariate.csv  sigma2_1,sigma2_2,beta,nu1,nu2,rho,h,C11,C12,C22
      ExaGeoStat's bivariate_matern_parsimonious (Gneiting, Kleiber and
      Schlather 2010): C_ii = sigma2_i M_nu_i(h/beta),
      C_12 = rho * sqrt(nu1 nu2)/nu12 * sqrt(sigma2_1 sigma2_2) M_nu12(h/beta),
      nu12 = (nu1+nu2)/2 (ExaGeoStat scales its rho by the d = 2 bound
      sqrt(Gamma(nu1+1)Gamma(nu2+1)/(Gamma(nu1)Gamma(nu2))) Gamma(nu12)/Gamma(nu12+1)
      = sqrt(nu1 nu2)/nu12).

Inputs are printed with Python's repr, so the float64 the Go test parses is
exactly the number mpmath used; results with 20 significant digits.
"""

from mpmath import mp, mpf, besselk, gamma, sqrt, nstr

mp.dps = 40


def corr(nu, x):
    nu, x = mpf(nu), mpf(x)
    if x == 0:
        return mpf(1)
    return 2 ** (1 - nu) / gamma(nu) * x ** nu * besselk(nu, x)


def spacetime(th, h, u):
    s2, beta, nu, bt, alpha, sep, delta = [mpf(v) for v in th]
    psi = abs(mpf(u)) ** (2 * alpha) / bt + 1
    x = (mpf(h) / beta) / psi ** (sep / 2)
    return s2 / psi ** (sep + delta) * corr(nu, x)


def bivariate(th, h):
    s1, s2, beta, nu1, nu2, rho = [mpf(v) for v in th]
    nu12 = (nu1 + nu2) / 2
    x = mpf(h) / beta
    bound = sqrt(gamma(nu1 + 1) * gamma(nu2 + 1) / (gamma(nu1) * gamma(nu2))) * gamma(nu12) / gamma(nu12 + 1)
    r = rho * bound
    return s1 * corr(nu1, x), r * sqrt(s1 * s2) * corr(nu12, x), s2 * corr(nu2, x)


ST = [
    (1.0, 0.1, 0.5, 1.0, 0.5, 0.5, 0.0),
    (1.3, 0.07, 0.73, 0.4, 0.9, 0.25, 0.3),
    (2.0, 0.2, 1.5, 2.5, 1.0, 1.0, 1.2),
    (0.6, 0.05, 2.2, 0.15, 0.3, 0.0, 0.0),
]
HS = [0.0, 1e-6, 0.013, 0.05, 0.1, 0.3, 0.77]
US = [0.0, 0.5, 1.0, 3.0, 7.25]

BV = [
    (1.0, 1.0, 0.1, 0.5, 0.5, 0.5),
    (1.3, 0.7, 0.08, 0.73, 1.5, -0.4),
    (0.9, 2.1, 0.2, 1.2, 2.5, 0.95),
]
HB = [0.0, 1e-6, 0.013, 0.05, 0.1, 0.3, 0.77]

with open("spacetime.csv", "w") as f:
    f.write("# sigma2,beta,nu,beta_t,alpha,sep,delta,h,u,C  ExaGeoStat spacetime Matern, mpmath dps=40\n")
    for th in ST:
        for h in HS:
            for u in US:
                c = spacetime(th, h, u)
                f.write(",".join(repr(v) for v in th + (h, u)) + "," + nstr(c, 20, strip_zeros=False) + "\n")

with open("bivariate.csv", "w") as f:
    f.write("# sigma2_1,sigma2_2,beta,nu1,nu2,rho,h,C11,C12,C22  ExaGeoStat parsimonious bivariate Matern, mpmath dps=40\n")
    for th in BV:
        for h in HB:
            c = bivariate(th, h)
            f.write(",".join(repr(v) for v in th + (h,)) + "," + ",".join(nstr(v, 20, strip_zeros=False) for v in c) + "\n")
