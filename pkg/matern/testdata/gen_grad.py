#!/usr/bin/python3
"""Reference values of the Matérn correlation's derivatives for grad_test.go.

Run from this directory with a python3 that has mpmath:

    python3 gen_grad.py

It writes grad.csv: nu, x, rho, g, dnu with

  rho = 2^(1-nu)/Gamma(nu) x^nu K_nu(x)   the Matérn correlation,
  g   = -x d rho/dx                        (dC/dbeta = sigma2 g / beta),
  dnu = d rho/d nu                         (dC/dnu = sigma2 dnu),

computed with mpmath at 40 digits (the derivatives by mpmath.diff, which
differentiates numerically at that working precision). Inputs are printed
with repr (exactly the float64 the Go test parses), results with 20
significant digits; rows where rho is below 1e-280 are left out.
"""

from mpmath import mp, mpf, besselk, gamma, diff

mp.dps = 40


def rho(nu, x):
    if x == 0:
        return mpf(1)
    return mpf(2) ** (1 - nu) / gamma(nu) * x ** nu * besselk(nu, x)


NUS = [0.15, 0.3, 0.5, 0.9, 1.0, 1.2, 1.5, 2.5, 3.7, 10.0, 24.5, 30.0]
XS = [1e-9, 1e-5, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.7, 1.0, 2.0, 3.3, 5.0, 9.0, 17.0, 40.0, 90.0, 300.0]

with open("grad.csv", "w") as out:
    out.write("# nu,x,rho,g,dnu  Matern correlation and -x drho/dx, drho/dnu; mpmath dps=40\n")
    for nu in NUS:
        for x in XS:
            nm, xm = mpf(nu), mpf(x)
            r = rho(nm, xm)
            if r < mpf(10) ** -280:
                continue
            g = -xm * diff(lambda t: rho(nm, t), xm)
            d = diff(lambda v: rho(v, xm), nm)
            out.write("%r,%r,%s,%s,%s\n" % (nu, x, mp.nstr(r, 20), mp.nstr(g, 20), mp.nstr(d, 20)))
