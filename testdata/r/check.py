#!/usr/bin/python3
"""Independent second computation of the R references (numpy/scipy, shares no
code with references.R or the Go packages).

    /usr/bin/python3 testdata/r/check.py      (from the repository root)

Recomputes every row of loglik_mean.csv, gls.json, kriging_synth.csv,
loglik_spacetime.csv, loglik_bivariate.csv and the loglik at theta_hat of
fits_real.csv, and prints the largest relative difference of each file.
Needs Debian's python3-numpy and python3-scipy.
"""
import csv
import json
import math
import os

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.special import gammaln, kv

D = "testdata/r"
REAL = "testdata/real"


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows


def cols(rows, *names):
    return [np.array([float(r[n]) for r in rows]) for n in names]


def corr(h, nu):
    """Matérn correlation 2^(1-nu)/Gamma(nu) h^nu K_nu(h), 1 at h = 0."""
    out = np.ones_like(h)
    m = h > 0
    hm = h[m]
    out[m] = np.exp((1 - nu) * math.log(2) - gammaln(nu) + nu * np.log(hm)) * kv(nu, hm)
    return out


def euclid(a, b):
    return np.sqrt((a[:, None, 0] - b[None, :, 0]) ** 2 + (a[:, None, 1] - b[None, :, 1]) ** 2)


def gc(a, b):
    r = math.pi / 180
    lon1, lat1 = a[:, None, 0] * r, a[:, None, 1] * r
    lon2, lat2 = b[None, :, 0] * r, b[None, :, 1] * r
    u = np.sin((lat2 - lat1) / 2)
    v = np.sin((lon2 - lon1) / 2)
    return 2 * 6371 * np.arcsin(np.minimum(1, np.sqrt(u * u + np.cos(lat1) * np.cos(lat2) * v * v)))


def ll(S, z, X=None):
    """(profile, reml, reml_xx, b, cov) through scipy's Cholesky and explicit solves."""
    n = len(z)
    c = cho_factor(S, lower=True)
    logdet = 2 * np.sum(np.log(np.diag(c[0])))
    if X is None:
        q = z @ cho_solve(c, z)
        l = -0.5 * (q + logdet + n * math.log(2 * math.pi))
        return l, l, l, None, None
    p = X.shape[1]
    SiX = cho_solve(c, X)
    A = X.T @ SiX
    b = np.linalg.solve(A, SiX.T @ z)
    r = z - X @ b
    q = r @ cho_solve(c, r)
    lp = -0.5 * (q + logdet + n * math.log(2 * math.pi))
    lr = -0.5 * ((n - p) * math.log(2 * math.pi) + logdet + np.linalg.slogdet(A)[1] + q)
    return lp, lr, lr + 0.5 * np.linalg.slogdet(X.T @ X)[1], b, np.linalg.inv(A)


def design(mean, dat):
    n = len(dat["z"])
    if mean == "zero":
        return None
    if mean == "constant":
        return np.ones((n, 1))
    if mean == "linear":
        return np.column_stack([np.ones(n), dat["c0"], dat["c1"]])
    names = mean.split(":")[1].split("+")
    return np.column_stack([np.ones(n)] + [dat[c] for c in names])


def load(path, lonlat=False):
    rows = read(path)
    keys = list(rows[0].keys())
    dat = {k: np.array([float(r[k]) for r in rows]) for k in keys}
    dat["c0"], dat["c1"] = dat[keys[0]], dat[keys[1]]
    loc = np.column_stack([dat["c0"], dat["c1"]])
    dat["D"] = gc(loc, loc) if lonlat else euclid(loc, loc)
    return dat


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


data = {"synth": load(f"{D}/synth_n200.csv"), "meuse": load(f"{REAL}/meuse.csv"),
        "rmprecip": load(f"{REAL}/rmprecip.csv", lonlat=True)}


def sigma(dat, s2, beta, nu, tau2):
    S = s2 * corr(dat["D"] / beta, nu)
    S[np.diag_indices_from(S)] += tau2
    return S


worst = 0
for r in read(f"{D}/loglik_mean.csv"):
    dat = data[r["data"]]
    S = sigma(dat, *(float(r[k]) for k in ("sigma2", "beta", "nu", "tau2")))
    lp, lr, lx, _, _ = ll(S, dat["z"], design(r["mean"], dat))
    worst = max(worst, rel(lp, float(r["loglik"])), rel(lr, float(r["loglik_reml"])),
                rel(lx, float(r["loglik_reml_xx"])))
print(f"loglik_mean.csv: max relative difference {worst:.3g}")

worst = {True: 0, False: 0}
for g in json.load(open(f"{D}/gls.json")):
    dat = data[g["data"]]
    _, _, _, b, cv = ll(sigma(dat, *g["theta"]), dat["z"], design(g["mean"], dat))
    ill = g["data"] == "meuse" and g["mean"] == "linear"   # raw RDH coordinates: kappa ~ 1e16
    worst[ill] = max(worst[ill], np.max(np.abs(b - g["beta_hat"]) / np.abs(g["beta_hat"])),
                     np.max(np.abs(cv - np.array(g["cov"])) / np.abs(np.array(g["cov"]))))
print(f"gls.json: max relative difference {worst[False]:.3g} ({worst[True]:.3g} for meuse linear)")

kr = read(f"{D}/kriging_synth.csv")
dat = data["synth"]
s2, beta, nu, tau2 = (float(kr[0][k]) for k in ("sigma2", "beta", "nu", "tau2"))
S = sigma(dat, s2, beta, nu, tau2)
c = cho_factor(S, lower=True)
worst = 0
for mean in ("zero", "constant", "linear"):
    rows = [r for r in kr if r["mean"] == mean]
    x0 = np.array([[float(r["x"]), float(r["y"])] for r in rows])
    loc = np.column_stack([dat["c0"], dat["c1"]])
    C0 = s2 * corr(euclid(loc, x0) / beta, nu)
    w = cho_solve(c, C0)                         # S^-1 c0
    if mean == "zero":
        pred = w.T @ dat["z"]
        vf = s2 - np.sum(C0 * w, axis=0)
    else:
        X = design(mean, dat)
        X0 = np.ones((20, 1)) if mean == "constant" else np.column_stack([np.ones(20), x0])
        # the kriging weights lambda solve [[S, X], [X', 0]] [lambda; m] = [c0; x0']
        n, p = X.shape
        K = np.block([[S, X], [X.T, np.zeros((p, p))]])
        sol = np.linalg.solve(K, np.vstack([C0, X0.T]))
        lam, mu = sol[:n], sol[n:]
        pred = lam.T @ dat["z"]
        vf = s2 - np.sum(lam * C0, axis=0) - np.sum(mu * X0.T, axis=0)
    for i, r in enumerate(rows):
        worst = max(worst, rel(pred[i], float(r["pred"])), rel(vf[i], float(r["var_field"])),
                    rel(vf[i] + tau2, float(r["var_obs"])))
print(f"kriging_synth.csv (bordered-system kriging): max relative difference {worst:.3g}")

st = read(f"{D}/st_n100.csv")
x, y, t, z = cols(st, "x", "y", "t", "z")
Ds = euclid(np.column_stack([x, y]), np.column_stack([x, y]))
U = np.abs(t[:, None] - t[None, :])
worst = 0
for r in read(f"{D}/loglik_spacetime.csv"):
    s2, a_s, nu, a_t, al, b, de = (float(r[k]) for k in
                                   ("sigma2", "range_s", "nu_s", "range_t", "alpha_t", "nonsep", "delta"))
    psi = U ** (2 * al) / a_t + 1
    S = s2 * corr(Ds / (a_s * psi ** (b / 2)), nu) / psi ** (b + de)
    worst = max(worst, rel(ll(S, z)[0], float(r["loglik"])))
print(f"loglik_spacetime.csv: max relative difference {worst:.3g}")

bv = read(f"{D}/biv_n80.csv")
x, y, z1, z2 = cols(bv, "x", "y", "z1", "z2")
Db = euclid(np.column_stack([x, y]), np.column_stack([x, y]))
zz = np.concatenate([z1, z2])                    # variable by variable here
worst = 0
for r in read(f"{D}/loglik_bivariate.csv"):
    s1, s2, a, n1, n2, rp = (float(r[k]) for k in ("sigma2_1", "sigma2_2", "range", "nu_1", "nu_2", "rho_par"))
    n12 = (n1 + n2) / 2
    rho = rp * math.exp(0.5 * (gammaln(n1 + 1) + gammaln(n2 + 1) - gammaln(n1) - gammaln(n2))
                        + gammaln(n12) - gammaln(n12 + 1))
    C12 = rho * math.sqrt(s1 * s2) * corr(Db / a, n12)
    S = np.block([[s1 * corr(Db / a, n1), C12], [C12.T, s2 * corr(Db / a, n2)]])
    worst = max(worst, rel(ll(S, zz)[0], float(r["loglik"])),
                rel(rho, float(r["rho_colocated"])))
print(f"loglik_bivariate.csv: max relative difference {worst:.3g}")

if os.path.exists(f"{D}/fits_real.csv"):
    worst = 0
    for r in read(f"{D}/fits_real.csv"):
        dat = data[r["data"]]
        S = sigma(dat, *(float(r[k]) for k in ("sigma2", "beta", "nu", "tau2")))
        lp, lr, lx, b, cv = ll(S, dat["z"], design("constant", dat))
        l = lr if r["method"] == "reml" else lp
        worst = max(worst, rel(l, float(r["loglik_max"])), rel(b[0], float(r["mean_hat"])))
    print(f"fits_real.csv (l and mean at theta_hat): max relative difference {worst:.3g}")
