#!/usr/bin/python3
"""Independent dense reference for the Go exageostat code (numpy/scipy only).

What it computes (all files are written next to this script):

  1. Synthetic data sets, ExaGeoStat style (CSV, header ``x,y,z``, values
     written with repr(), i.e. the shortest string that round-trips the
     float64 exactly, at most 17 significant digits):

        file            N     seed  theta_true (sigma2, beta, nu)
        ds_n50.csv      50    1     (1,   0.1,  0.5)
        ds_n333.csv     333   2     (1.5, 0.07, 1.2)
        ds_n900.csv     900   3     (1,   0.1,  0.5)
        fit_n1600.csv   1600  11    (1,   0.1,  0.5)
        fit_n2000.csv   2000  12    (1,   0.1,  0.5)

     rng = np.random.default_rng(seed); s = ceil(sqrt(N)); the jitters are
     drawn as one array U = rng.uniform(-0.4, 0.4, size=(s*s, 2)), row
     k = i*s + j (i outer, j inner) holding (U, U') of grid cell (i, j);
     x = (i + 0.5 + U)/s, y = (j + 0.5 + U')/s; the first N points are kept
     (in that order, no Morton sorting). Then e = rng.standard_normal(N) and
     z = L e with Sigma = L L^T the Matern covariance at theta_true (no
     nugget).

  2. Matern covariance in ExaGeoStat's parameterisation
        C(r) = sigma2 * 2^(1-nu)/Gamma(nu) * (r/beta)^nu * K_nu(r/beta),
        C(0) = sigma2,
     and the powered exponential C(r) = sigma2 * exp(-r^delta / beta), r the
     Euclidean distance, an optional nugget tau2 added to the diagonal.
     Log-likelihood
        l(theta) = -1/2 z' Sigma^-1 z - 1/2 log|Sigma| - (N/2) log(2 pi)
     from scipy.linalg.cho_factor / cho_solve on the dense matrix (the
     covariance is evaluated on the strict lower triangle only, via
     scipy.spatial.distance.pdist + squareform).

  3. loglik.csv: columns file,kernel,sigma2,beta,nu,nugget,loglik (loglik
     with 17 significant digits). For kernel=powexp the column ``nu`` holds
     delta. loglik_diagnostics.csv has, per row, the 2-norm condition number
     of Sigma, the log-likelihood recomputed from an eigendecomposition
     (numpy.linalg.eigh) and, for ds_n50.csv, a 40-digit mpmath value
     (mpmath.besselk + mpmath Cholesky) -- use them to pick test tolerances.

  4. fits.csv: columns file,sigma2,beta,nu,loglik,evaluations,method -- the
     best maximum of l over theta in [0.001, 5]^3 (Matern, no nugget) for
     fit_n1600.csv and fit_n2000.csv. Optimisation is over log(theta) with
     scipy.optimize.minimize: L-BFGS-B (numerical gradients, 3-point central
     differences) and Nelder-Mead (bounded, explicit initial simplex), both
     from the data-driven start sigma2 = var(z) (population variance),
     beta = 0.1 * diagonal of the locations' bounding box, nu = 0.5. A theta
     whose matrix is not positive definite gets the penalty -l = 1e10.
     Tolerances: L-BFGS-B ftol=1e-13 (relative decrease of -l; ~2e-10
     absolute here, just above the rounding noise of l), gtol=1e-7,
     maxls=20, maxfun=600; Nelder-Mead xatol=1e-9 (log theta), fatol=1e-10,
     maxfev=600, initial simplex u0 + 0.25 e_i. fits.csv takes, per file,
     the run with the largest l; runs within 1e-9 relative of it (far below
     any test tolerance) are tied and the one with the smaller gradient norm
     wins (see step_select).
     ``evaluations`` counts likelihood evaluations of that optimiser run
     (finite-difference evaluations included). fits_all.csv lists every
     optimiser run with its wall time, status, message and a central
     difference gradient of l with respect to log(theta) at its optimum.

How to rerun (from the repository root; /usr/bin/python3 is Debian's, with
python3-numpy, python3-scipy and, optionally, python3-mpmath):

    /usr/bin/python3 testdata/reference/make_reference.py            # everything
    /usr/bin/python3 testdata/reference/make_reference.py --steps data,loglik
    nohup /usr/bin/python3 testdata/reference/make_reference.py \
        --steps fits > /tmp/fits.log 2>&1 &

The data sets are regenerated bit for bit from the seeds (numpy's PCG64
generator, same numpy major version); loglik.csv and fits.csv are computed
from the CSV files as written, so they depend only on those files.

Runtime (measured 2026-11-22 on 2 shared cores with other jobs running,
numpy 1.24.2, scipy 1.10.1, OpenBLAS): data + loglik 14 s; the fits of
fit_n1600.csv ~140 s each (L-BFGS-B 133 s, 161 evaluations; Nelder-Mead
142 s, 252). fit_n2000.csv replaced fit_n3600.csv on 2026-11-28, to make
the Go test that fits it 5 times cheaper; its fits, run with
``--fit-files fit_n2000.csv`` under nice 10 on a loaded 2-core Intel Xeon
(load 7-21), took 2961 s (L-BFGS-B, 154 evaluations) and 3182 s
(Nelder-Mead, 248): about 1 s of CPU per likelihood, the rest the load.
(fit_n3600.csv's had taken 611 s and 912 s on a calmer box: 3-6 s per
likelihood, K_nu on 6.5e6 pairs plus the 3600x3600 Cholesky.)
``--steps select`` only rebuilds fits.csv from fits_all.csv (instant).
"""

import argparse
import csv
import math
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy
import scipy.linalg
import scipy.optimize
import scipy.special
from scipy.spatial.distance import pdist, squareform

HERE = os.path.dirname(os.path.abspath(__file__))

# name, N, seed, theta_true
DATASETS = [
    ("ds_n50.csv", 50, 1, (1.0, 0.1, 0.5)),
    ("ds_n333.csv", 333, 2, (1.5, 0.07, 1.2)),
    ("ds_n900.csv", 900, 3, (1.0, 0.1, 0.5)),
    ("fit_n1600.csv", 1600, 11, (1.0, 0.1, 0.5)),
    ("fit_n2000.csv", 2000, 12, (1.0, 0.1, 0.5)),
]
SMALL = ["ds_n50.csv", "ds_n333.csv", "ds_n900.csv"]
FITS = ["fit_n1600.csv", "fit_n2000.csv"]

# kernel, sigma2, beta, nu (delta for powexp), nugget
LOGLIK_THETAS = [
    ("matern", 1.0, 0.1, 0.5, 0.0),
    ("matern", 2.0, 0.05, 0.8, 0.0),
    ("matern", 0.5, 0.2, 1.7, 0.0),
    ("matern", 1.2, 0.03, 2.5, 0.0),
    ("matern", 0.9, 0.12, 0.33, 0.0),
    ("matern", 1.5, 0.07, 1.2, 0.0),
    ("matern", 1.0, 0.1, 1.5, 0.0),
    ("matern", 1.0, 0.1, 0.5, 0.01),
    ("powexp", 1.0, 0.1, 1.0, 0.0),
    ("powexp", 1.5, 0.2, 1.3, 0.0),
    ("powexp", 1.0, 0.1, 2.0, 0.01),
]

LO, HI = 0.001, 5.0
PENALTY = 1e10

_THREADS = max(1, os.cpu_count() or 1)


def g17(v):
    return format(float(v), ".17g")


# ---------------------------------------------------------------- covariance


def _kv_threaded(nu, r):
    """scipy.special.kv(nu, r) on a large array, split over threads (the
    ufunc releases the GIL)."""
    if _THREADS == 1 or r.size < 200000:
        return scipy.special.kv(nu, r)
    out = np.empty_like(r)
    chunks = np.array_split(np.arange(r.size), _THREADS)

    def work(idx):
        out[idx[0]:idx[-1] + 1] = scipy.special.kv(nu, r[idx[0]:idx[-1] + 1])

    with ThreadPoolExecutor(_THREADS) as ex:
        list(ex.map(work, chunks))
    return out


def cov_offdiag(d, kernel, sigma2, beta, third):
    """Covariance values for the condensed distance vector d (pdist)."""
    if kernel == "matern":
        nu = third
        r = d / beta
        pre = sigma2 * 2.0 ** (1.0 - nu) / scipy.special.gamma(nu)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            c = pre * r ** nu * _kv_threaded(nu, r)
        c[r == 0] = sigma2
        # K_nu underflows to 0 for large r; r^nu * 0 = 0 (r finite).
        return c
    if kernel == "powexp":
        with np.errstate(under="ignore"):
            return sigma2 * np.exp(-d ** third / beta)
    raise ValueError(kernel)


def cov_matrix(X, kernel, sigma2, beta, third, nugget=0.0, d=None):
    if d is None:
        d = pdist(X)
    S = squareform(cov_offdiag(d, kernel, sigma2, beta, third), checks=False)
    S[np.diag_indices_from(S)] = sigma2 + nugget
    return S


def loglik_dense(z, S):
    """l = -1/2 z'S^-1 z - 1/2 log|S| - N/2 log(2 pi); raises LinAlgError if
    S is not positive definite."""
    n = z.size
    cf = scipy.linalg.cho_factor(S, lower=True, overwrite_a=True, check_finite=False)
    alpha = scipy.linalg.cho_solve(cf, z, check_finite=False)
    logdet = 2.0 * np.sum(np.log(np.diag(cf[0])))
    return -0.5 * float(z @ alpha) - 0.5 * logdet - 0.5 * n * math.log(2.0 * math.pi)


# ---------------------------------------------------------------- data sets


def jittered_grid(n, rng):
    s = math.isqrt(n)
    if s * s < n:
        s += 1
    u = rng.uniform(-0.4, 0.4, size=(s * s, 2))
    ii, jj = np.meshgrid(np.arange(s), np.arange(s), indexing="ij")
    ii, jj = ii.ravel(), jj.ravel()  # k = i*s + j, i outer
    x = (ii + 0.5 + u[:, 0]) / s
    y = (jj + 0.5 + u[:, 1]) / s
    return np.column_stack([x, y])[:n]


def make_dataset(n, seed, theta):
    rng = np.random.default_rng(seed)
    X = jittered_grid(n, rng)
    S = cov_matrix(X, "matern", *theta)
    L = np.linalg.cholesky(S)
    e = rng.standard_normal(n)
    z = L @ e
    return X, z


def write_xyz(path, X, z):
    with open(path, "w", newline="") as f:
        f.write("x,y,z\n")
        for (x, y), v in zip(X, z):
            f.write(f"{float(x)!r},{float(y)!r},{float(v)!r}\n")


def read_xyz(path):
    with open(path) as f:
        rd = csv.reader(f)
        hdr = next(rd)
        assert hdr == ["x", "y", "z"], hdr
        rows = [[float(t) for t in r] for r in rd if r]
    a = np.array(rows)
    return a[:, :2].copy(), a[:, 2].copy()


def step_data():
    for name, n, seed, theta in DATASETS:
        t = time.time()
        X, z = make_dataset(n, seed, theta)
        path = os.path.join(HERE, name)
        write_xyz(path, X, z)
        X2, z2 = read_xyz(path)
        assert np.array_equal(X, X2) and np.array_equal(z, z2), "repr round trip"
        print(f"data {name}: N={n} seed={seed} theta={theta} var(z)={np.var(z):.4f} "
              f"({time.time() - t:.1f}s)", flush=True)


# ---------------------------------------------------------------- loglik


def loglik_mp(X, z, kernel, sigma2, beta, third, nugget, dps=40):
    import mpmath as mp
    mp.mp.dps = dps
    n = z.size
    xs = [mp.mpf(float(v)) for v in X[:, 0]]
    ys = [mp.mpf(float(v)) for v in X[:, 1]]
    s2, b, th, tau = (mp.mpf(float(v)) for v in (sigma2, beta, third, nugget))
    S = mp.matrix(n, n)
    pre = s2 * mp.power(2, 1 - th) / mp.gamma(th) if kernel == "matern" else None
    for i in range(n):
        S[i, i] = s2 + tau
        for j in range(i):
            r = mp.sqrt((xs[i] - xs[j]) ** 2 + (ys[i] - ys[j]) ** 2)
            if kernel == "matern":
                c = pre * (r / b) ** th * mp.besselk(th, r / b)
            else:
                c = s2 * mp.exp(-r ** th / b)
            S[i, j] = S[j, i] = c
    L = mp.cholesky(S)
    zz = mp.matrix([mp.mpf(float(v)) for v in z])
    # forward substitution L w = z
    w = [mp.mpf(0)] * n
    for i in range(n):
        acc = zz[i]
        for k in range(i):
            acc -= L[i, k] * w[k]
        w[i] = acc / L[i, i]
    quad = mp.fsum(v * v for v in w)
    logdet = 2 * mp.fsum(mp.log(L[i, i]) for i in range(n))
    return -quad / 2 - logdet / 2 - n * mp.log(2 * mp.pi) / 2


def step_loglik():
    try:
        import mpmath  # noqa: F401
        have_mp = True
    except ImportError:
        have_mp = False
        print("mpmath not installed: no 40-digit check", flush=True)
    rows, diag = [], []
    for name in SMALL:
        X, z = read_xyz(os.path.join(HERE, name))
        d = pdist(X)
        for kernel, s2, b, th, tau in LOGLIK_THETAS:
            t = time.time()
            S = cov_matrix(X, kernel, s2, b, th, tau, d=d)
            lam, Q = np.linalg.eigh(S)
            cond = lam[-1] / lam[0] if lam[0] > 0 else float("inf")
            ll = loglik_dense(z, S.copy())
            qz = Q.T @ z
            ll_eig = (-0.5 * float(np.sum(qz * qz / lam)) - 0.5 * float(np.sum(np.log(lam)))
                      - 0.5 * z.size * math.log(2 * math.pi)) if lam[0] > 0 else float("nan")
            llmp = ""
            if have_mp and z.size <= 50:
                v = loglik_mp(X, z, kernel, s2, b, th, tau)
                llmp = format(float(v), ".17g")
            rows.append([name, kernel, g17(s2), g17(b), g17(th), g17(tau), g17(ll)])
            diag.append([name, kernel, g17(s2), g17(b), g17(th), g17(tau), g17(ll),
                         format(cond, ".3e"), g17(ll_eig), format(abs(ll - ll_eig), ".2e"), llmp,
                         format(abs(ll - float(llmp)), ".2e") if llmp else ""])
            print(f"loglik {name} {kernel} ({s2},{b},{th}) tau2={tau}: {ll!r} cond={cond:.2e} "
                  f"|chol-eigh|={abs(ll - ll_eig):.1e} mp={llmp} ({time.time() - t:.1f}s)", flush=True)
    with open(os.path.join(HERE, "loglik.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["file", "kernel", "sigma2", "beta", "nu", "nugget", "loglik"])
        w.writerows(rows)
    with open(os.path.join(HERE, "loglik_diagnostics.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["file", "kernel", "sigma2", "beta", "nu", "nugget", "loglik", "cond2",
                    "loglik_eigh", "absdiff_eigh", "loglik_mpmath40", "absdiff_mpmath"])
        w.writerows(diag)


# ---------------------------------------------------------------- fits


class Objective:
    """-l(exp(u)) for u = log(theta), with an evaluation counter."""

    def __init__(self, X, z, tag=""):
        self.tag = tag
        self.d = pdist(X)
        self.z = z
        self.nfev = 0
        self.best = (math.inf, None)
        self.t0 = time.time()

    def loglik(self, theta):
        S = cov_matrix(None, "matern", *theta, d=self.d)
        return loglik_dense(self.z, S)

    def __call__(self, u):
        self.nfev += 1
        theta = np.exp(np.asarray(u, dtype=float))
        try:
            ll = self.loglik(theta)
            f = -ll if math.isfinite(ll) else PENALTY
        except np.linalg.LinAlgError:
            f = PENALTY
        if f < self.best[0]:
            self.best = (f, np.array(u, dtype=float))
        if self.nfev % 25 == 0:
            print(f"  [{self.tag}] {self.nfev} evaluations, {time.time() - self.t0:.0f}s, "
                  f"best -l = {self.best[0]!r} at theta = {np.exp(self.best[1]).tolist()}",
                  flush=True)
        return f


def data_start(X, z):
    lo, hi = X.min(axis=0), X.max(axis=0)
    return np.array([np.var(z), 0.1 * math.hypot(*(hi - lo)), 0.5])


def fit_one(task):
    global _THREADS
    name, method, kv_threads = task
    _THREADS = kv_threads
    X, z = read_xyz(os.path.join(HERE, name))
    obj = Objective(X, z, tag=f"{name} {method}")
    u0 = np.log(np.clip(data_start(X, z), LO, HI))
    bounds = [(math.log(LO), math.log(HI))] * 3
    t = time.time()
    if method == "L-BFGS-B":
        res = scipy.optimize.minimize(
            obj, u0, method="L-BFGS-B", jac="3-point", bounds=bounds,
            options={"ftol": 1e-13, "gtol": 1e-7, "maxiter": 200, "maxfun": 600,
                     "maxls": 20})
    else:
        simplex = np.vstack([u0] + [u0 + 0.25 * e for e in np.eye(3)])
        res = scipy.optimize.minimize(
            obj, u0, method="Nelder-Mead", bounds=bounds,
            options={"xatol": 1e-9, "fatol": 1e-10, "maxfev": 600,
                     "initial_simplex": simplex})
    wall = time.time() - t
    nfev = obj.nfev
    # best point ever evaluated (== res.x unless the optimiser ended elsewhere)
    fbest, ubest = obj.best
    if res.fun <= fbest:
        fbest, ubest = res.fun, np.asarray(res.x, dtype=float)
    theta = np.exp(ubest)
    ll = obj.loglik(theta)
    # central-difference gradient of l w.r.t. log(theta) at the optimum
    grad = []
    for k in range(3):
        h = 1e-5
        up, dn = ubest.copy(), ubest.copy()
        up[k] += h
        dn[k] -= h
        try:
            grad.append((obj.loglik(np.exp(up)) - obj.loglik(np.exp(dn))) / (2 * h))
        except np.linalg.LinAlgError:
            grad.append(float("nan"))
    msg = str(getattr(res, "message", "")).replace("\n", " ").replace(",", ";")
    print(f"fit {name} {method}: theta={theta.tolist()} loglik={ll!r} nfev={nfev} nit={res.nit} "
          f"wall={wall:.0f}s status={res.status} msg={msg} grad_logtheta={grad}", flush=True)
    return dict(file=name, method=method, theta=theta, loglik=ll, nfev=nfev, nit=res.nit,
                wall=wall, status=res.status, message=msg, grad=grad,
                start=np.exp(u0))


def step_fits(files, workers):
    kv_threads = max(1, (os.cpu_count() or 1) // workers)
    tasks = [(f, m, kv_threads)
             for f in sorted(files, key=lambda s: -int(s.split("_n")[1].split(".")[0]))
             for m in ("L-BFGS-B", "Nelder-Mead")]
    t = time.time()
    if workers > 1:
        # Fresh interpreters, so that each worker's OpenBLAS starts with
        # cpu_count/workers threads instead of oversubscribing the cores.
        import multiprocessing as mpc
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
            os.environ[var] = str(kv_threads)
        with mpc.get_context("spawn").Pool(workers) as pool:
            results = pool.map(fit_one, tasks, chunksize=1)
    else:
        results = [fit_one(tk) for tk in tasks]
    print(f"fits: total wall {time.time() - t:.0f}s", flush=True)
    refitted = {r["file"] for r in results}
    keep = []
    path_all = os.path.join(HERE, "fits_all.csv")
    if os.path.exists(path_all):  # keep rows of files not refitted this run
        with open(path_all) as f:
            rd = csv.reader(f)
            next(rd, None)
            keep = [row for row in rd if row and row[0] not in refitted]
    with open(path_all, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["file", "method", "sigma2", "beta", "nu", "loglik", "evaluations",
                    "iterations", "wall_s", "status", "message", "dl_dlogsigma2",
                    "dl_dlogbeta", "dl_dlognu", "start_sigma2", "start_beta", "start_nu"])
        rows = keep + [[r["file"], r["method"]] + [g17(v) for v in r["theta"]]
                       + [g17(r["loglik"]), r["nfev"], r["nit"], f"{r['wall']:.1f}", r["status"],
                          r["message"]] + [format(g, ".3e") for g in r["grad"]]
                       + [g17(v) for v in r["start"]] for r in results]
        order = {name: k for k, name in enumerate(FITS)}
        rows.sort(key=lambda row: (order.get(row[0], len(FITS)), row[0], row[1]))
        w.writerows(rows)
    step_select()


def step_select():
    """fits.csv from fits_all.csv: per file the run with the largest loglik;
    runs within 1e-9 relative of it are tied and the one with the smallest
    gradient norm wins."""
    with open(os.path.join(HERE, "fits_all.csv")) as f:
        runs = list(csv.DictReader(f))
    with open(os.path.join(HERE, "fits.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["file", "sigma2", "beta", "nu", "loglik", "evaluations", "method"])
        for name in FITS:
            cand = [r for r in runs if r["file"] == name]
            if not cand:
                continue
            lmax = max(float(r["loglik"]) for r in cand)
            tied = [r for r in cand
                    if float(r["loglik"]) >= lmax - 1e-9 * max(1.0, abs(lmax))]
            r = min(tied, key=lambda r: math.hypot(*(float(r[k]) for k in (
                "dl_dlogsigma2", "dl_dlogbeta", "dl_dlognu"))))
            w.writerow([r[k] for k in ("file", "sigma2", "beta", "nu", "loglik",
                                       "evaluations", "method")])
            print(f"fits.csv {name}: {r['method']} theta=({r['sigma2']}, {r['beta']}, "
                  f"{r['nu']}) loglik={r['loglik']} evaluations={r['evaluations']}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", default="data,loglik,fits",
                    help="comma-separated subset of data,loglik,fits (select: only rebuild "
                    "fits.csv from fits_all.csv)")
    ap.add_argument("--fit-files", default=",".join(FITS))
    ap.add_argument("--workers", type=int, default=2,
                    help="optimiser runs in parallel processes (fits step)")
    args = ap.parse_args()
    steps = args.steps.split(",")
    print(f"python {sys.version.split()[0]} numpy {np.__version__} scipy {scipy.__version__}",
          flush=True)
    t0 = time.time()
    if "data" in steps:
        step_data()
    if "loglik" in steps:
        step_loglik()
    if "data" in steps or "loglik" in steps:
        print(f"data+loglik wall {time.time() - t0:.0f}s", flush=True)
    if "fits" in steps:
        step_fits([f for f in args.fit_files.split(",") if f], args.workers)
    elif "select" in steps:
        step_select()
    print(f"total wall {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
