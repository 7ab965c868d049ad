#!/usr/bin/python3
"""Reference tables for package matern, computed with mpmath at 40 digits.

Run from this directory with Debian's python3-mpmath:

    /usr/bin/python3 gen_besselk.py

It writes three CSV files (a '#' line describes the columns):

  besselk.csv    nu, x, K_nu(x)                (rows where K_nu(x) is a
                                                normal float64 only)
  matern.csv     sigma2, beta, nu, r, C(r)     ExaGeoStat's Matern covariance
                 C(r) = sigma2 2^(1-nu)/Gamma(nu) (r/beta)^nu K_nu(r/beta),
                 C(0) = sigma2
  haversine.csv  lon1, lat1, lon2, lat2, d     great-circle distance in km,
                 haversine formula, Earth radius 6371 km, degrees in

Every input is printed with Python's repr (shortest round-trip form), so the
float64 the Go test parses is exactly the number mpmath used; results are
printed with 20 significant digits.
"""

from mpmath import mp, mpf, besselk, gamma, sin, cos, asin, sqrt, pi

mp.dps = 40

FLT_MIN = mpf(2) ** -1022  # smallest normal float64
FLT_MAX = mpf(2) ** 1024 * (1 - mpf(2) ** -53)


def fmt(v):
    return mp.nstr(v, 20, min_fixed=1, max_fixed=0)


def besselk_table(path):
    nus = [0.0, 0.05, 0.1, 0.25, 0.3, 0.4999999, 0.5, 0.5000001, 0.7, 1.0,
           1.23, 1.5, 2.0, 2.5, 3.7, 5.0, 10.0, 20.0, 29.73, 30.0]
    xs = [1e-300, 1e-100, 1e-20, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1,
          0.2, 0.5, 0.9, 1.0, 1.5, 1.99, 1.999999, 2.0, 2.000001, 2.01, 2.5,
          3.0, 4.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 75.0, 100.0,
          150.0, 200.0, 300.0, 400.0, 500.0, 600.0, 650.0, 700.0]
    n = 0
    with open(path, "w") as f:
        f.write("# nu,x,K_nu(x)  mpmath dps=%d\n" % mp.dps)
        for nu in nus:
            for x in xs:
                v = besselk(mpf(nu), mpf(x))
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
    return mpf(s2) * 2 ** (1 - nu) / gamma(nu) * x ** nu * besselk(nu, x)


def matern_table(path):
    combos = [
        (1.0, 0.1, 0.73), (1.0, 0.1, 0.5), (1.0, 0.1, 1.5), (1.0, 0.1, 2.5),
        (2.5, 0.1, 0.05), (1.0, 0.0371, 0.3), (0.7, 0.0371, 1.0),
        (1.0, 1.0, 1.23), (1.0, 1.0, 0.01), (3.0, 3.0, 3.7),
        (1.0, 0.2, 10.0), (1.0, 0.05, 29.5), (1.0, 0.05, 30.0),
        (1.0, 0.1, 0.999999), (1.0, 0.1, 1.000001), (1.0, 0.1, 2.0),
    ]
    xs = [0.0, 1e-300, 1e-100, 1e-25, 1e-21, 1e-12, 1e-8, 1e-6, 1e-4, 1e-3,
          0.01, 0.03, 0.1, 0.25, 0.5, 0.9, 1.0, 1.7, 2.0, 3.0, 5.0, 8.0,
          13.0, 20.0, 31.0, 47.0, 64.0, 100.0, 150.0, 250.0, 400.0, 600.0,
          700.0, 750.0, 800.0, 850.0, 900.0, 1000.0, 2000.0]
    n = 0
    with open(path, "w") as f:
        f.write("# sigma2,beta,nu,r,C(r)  ExaGeoStat Matern, mpmath dps=%d\n" % mp.dps)
        for s2, beta, nu in combos:
            for xt in xs:
                r = float(mpf(xt) * mpf(beta))  # a float64 near x*beta
                v = matern(s2, beta, nu, r)  # may be below the float64 range
                f.write("%r,%r,%r,%r,%s\n" % (s2, beta, nu, r, fmt(v)))
                n += 1
    return n


R_EARTH = mpf(6371)


def haversine(lon1, lat1, lon2, lat2):
    d = pi / 180
    p1, p2 = mpf(lat1) * d, mpf(lat2) * d
    dp = (mpf(lat2) - mpf(lat1)) * d
    dl = (mpf(lon2) - mpf(lon1)) * d
    a = sin(dp / 2) ** 2 + cos(p1) * cos(p2) * sin(dl / 2) ** 2
    return 2 * R_EARTH * asin(sqrt(a))


def haversine_table(path):
    pairs = [
        (2.3522, 48.8566, -0.1276, 51.5072),       # Paris - London
        (-74.006, 40.7128, 139.6917, 35.6895),     # New York - Tokyo
        (0.0, 0.0, 0.0, 0.0),                      # same point
        (0.0, 0.0, 90.0, 0.0),                     # quarter of the equator
        (0.0, 0.0, 180.0, 0.0),                    # antipodal on the equator
        (10.0, 90.0, -170.0, -90.0),               # pole to pole
        (179.9, 10.0, -179.9, 10.0),               # across the antimeridian
        (12.4964, 41.9028, 12.4964001, 41.9028001),  # about 1.4 cm
        (-58.3816, -34.6037, 151.2093, -33.8688),  # Buenos Aires - Sydney
        (37.6173, 55.7558, 37.6173, 55.7559),      # 11 m north
        (0.5, 0.25, 0.75, 0.125),
    ]
    with open(path, "w") as f:
        f.write("# lon1,lat1,lon2,lat2,d_km  haversine, R=6371 km, mpmath dps=%d\n" % mp.dps)
        for p in pairs:
            f.write("%r,%r,%r,%r,%s\n" % (p + (fmt(haversine(*p)),)))
    return len(pairs)


if __name__ == "__main__":
    print("besselk.csv", besselk_table("besselk.csv"))
    print("matern.csv", matern_table("matern.csv"))
    print("haversine.csv", haversine_table("haversine.csv"))
