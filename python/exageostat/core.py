"""fit, predict, cv and simulate: the binary's commands on data frames."""

import json as _json
import os
import shutil
import tempfile
import weakref

import numpy as np
import pandas as pd

from . import _binary, _data
from ._errors import ExageostatError, Interrupted
from ._flags import to_args

__all__ = ["Fit", "CV", "fit", "predict", "cv", "simulate"]

_MEANS = ("zero", "constant", "linear")


class _Context:
    """How to run the binary again for this fit: binary, launcher, environment, data file, roles."""

    def __init__(self, binary, prefix, env, progress, roles, data_path, data_flags, workdir, workers):
        self.binary, self.prefix, self.env, self.progress = binary, prefix, env, progress
        self.roles, self.data_path, self.data_flags = roles, data_path, data_flags
        self.workdir, self.workers = workdir, workers

    def run(self, command, args, flags, interrupted=None):
        progress = flags.pop("progress", self.progress)
        argv = self.prefix + [self.binary, command] + args + to_args(flags)
        return _binary.run(argv, progress=progress, env=self.env, interrupted=interrupted)


def _workdir():
    return tempfile.mkdtemp(prefix="exageostat-")


def _mean_flag(mean):
    """The --mean value and the covariate columns of a mean= argument."""
    if mean is None:
        return None, []
    if isinstance(mean, str):
        if mean in _MEANS:
            return mean, []
        covs = [c.strip() for c in mean.replace("+", ",").split(",") if c.strip()]
    else:
        covs = list(mean)
    if not covs:
        raise ValueError("mean=%r names no covariate" % (mean,))
    return ",".join(covs), covs


def _bounds_flags(bounds):
    if bounds is None:
        return {}
    if isinstance(bounds, dict):
        lb, ub = zip(*bounds.values())
    else:
        lb, ub = bounds
    return {"lb": list(lb), "ub": list(ub)}


def _prepare(data, roles, covs, workdir, name):
    """The --data flags for data: a file path as is (columns by role), a frame written out."""
    if data is None:
        return None, {}
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        flags = {}
        if (roles.x, roles.y) != ("x", "y"):
            flags["coords"] = [roles.x, roles.y]
        if roles.z != "z":
            flags["z"] = roles.z
        if roles.time is not None:
            flags["time"] = roles.time
        return path, flags
    frame = _data.to_frame(data, roles, observed=True)
    path = os.path.join(workdir, name)
    _data.write_csv(frame, path)
    return path, {}


def fit(data=None, x="x", y="y", z="z", mean="zero", kernel="matern", nugget=None, bounds=None,
        computation=None, workers=None, ranks=None, launcher=None, time=None, binary=None,
        progress=True, check_version=True, launcher_args=(), env=None, **flags):
    """Fit a Gaussian-process model by maximum likelihood with ``exageostat fit``.

    ``data`` is a pandas DataFrame (or a dict of arrays, an n x 3 array, a
    GeoDataFrame of points, or the path of a CSV file the binary reads as
    is); ``x``, ``y`` (and ``time``) name its coordinate columns, ``z`` the
    observation. ``mean`` is "zero", "constant", "linear" (1, x, y) or
    covariate columns (a list, or "dist+elev"); the intercept is always
    included. ``bounds`` is (lb, ub); a parameter with lb = ub is fixed, a
    4th pair estimates the nugget tau2, ``nugget=`` fixes it. ``launcher``
    "mpirun" or "srun" starts ``ranks`` processes (``launcher_args`` after
    it, e.g. ["--oversubscribe"]). Every other keyword is the binary's flag
    of the same name (``reml=True``, ``max_evals=200``, ``ci="profile"``,
    ``stderr=True``, ``transform="log"``, ``na="drop"``...).

    The binary is ``binary``, else ``EXAGEOSTAT_BIN``, else ``exageostat``
    on PATH; its progress lines go to ``progress`` (True: sys.stderr, a
    callable, or False). Returns a :class:`Fit`; raises
    :class:`ExageostatError` with the binary's message and exit status, or
    :class:`Interrupted` (with the checkpoint kept) on Ctrl-C.

    Example::

        import pandas as pd, exageostat as eg
        m = eg.fit(pd.read_csv("testdata/real/meuse.csv"), mean=["dist", "elev"],
                   bounds=([0.001, 1, 0.05, 1e-8], [100, 1e4, 8, 100]))
        print(m.summary())
    """
    from . import __version__

    path = _binary.find_binary(binary)
    if check_version:
        _binary.check_version(path, __version__)
    meanflag, covs = _mean_flag(mean)
    roles = _data.Roles(x, y, z, time, covs)
    workdir = _workdir()
    data_path, data_flags = _prepare(data, roles, covs, workdir, "data.csv")
    prefix = _binary.launcher_prefix(launcher, ranks, launcher_args)
    ctx = _Context(path, prefix, env, progress, roles, data_path, data_flags, workdir, workers)
    jpath = os.fspath(flags.pop("json", None) or os.path.join(workdir, "fit.json"))
    f = dict(data=data_path, **data_flags)
    f.update(mean=None if meanflag == "zero" else meanflag, kernel=None if kernel == "matern" else kernel,
             nugget=nugget, computation=computation, workers=workers, json=jpath)
    f.update(_bounds_flags(bounds))
    f.update(flags)
    ckpt = f.get("checkpoint") or f.get("resume") or os.path.splitext(jpath)[0] + ".ckpt"

    def interrupted(stdout, lines, code):
        partial = None
        if os.path.exists(jpath):
            partial = Fit(_load(jpath), ctx, jpath, stdout)
        raise Interrupted(
            "interrupted: the fit stopped after the evaluation under way; continue it with resume=%r" % ckpt,
            code, None, lines, fit=partial, checkpoint=ckpt if os.path.exists(ckpt) else None)

    try:
        stdout = ctx.run("fit", [], f, interrupted)
    except Interrupted:
        raise  # the work directory (its checkpoint) stays
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    result = Fit(_load(jpath), ctx, jpath, stdout)
    weakref.finalize(result, shutil.rmtree, workdir, True)
    return result


def _load(path):
    with open(path) as fh:
        return _json.load(fh)


class Fit:
    """The result of :func:`fit`: the binary's JSON and what is computed from it.

    ``theta`` (a Series by parameter name), ``loglik``, ``stderr`` (with
    stderr=True or holdout), ``ci`` (profile intervals with ci="profile",
    else Wald intervals from the standard errors, else None), ``coef`` (the
    mean's GLS coefficients), ``warnings``, ``run`` (the provenance: version,
    commit, command), ``json`` (everything the binary wrote), ``table`` (its
    printed table). ``predict``, ``cv`` and ``simulate`` run the binary at
    this estimate.
    """

    def __init__(self, result, ctx, json_path, table=""):
        self.json = result
        self._ctx = ctx
        self.json_path = json_path
        self.table = table
        names = result.get("parameters") or ["theta%d" % (i + 1) for i in range(len(result["theta"]))]
        self.parameters = list(names)
        self.theta = pd.Series(result["theta"], index=names, name="theta", dtype=float)
        self.loglik = float(result["loglik"])
        self.nugget = result.get("nugget", 0.0)
        self.status = result.get("status")
        self.converged = result.get("converged")
        self.warnings = list(result.get("warnings") or [])
        self.run = result.get("run", {})
        se = result.get("stderr")
        self.stderr = pd.Series(se, index=names[: len(se)], name="stderr", dtype=float) if se else None
        terms = result.get("mean_terms") or []
        self.coef = pd.Series(result.get("mean_coefficients") or [], index=terms, name="coef", dtype=float)
        mse = result.get("mean_stderr") or []
        self.coef_stderr = pd.Series(mse, index=terms[: len(mse)], name="stderr", dtype=float)
        self.ci = self._intervals()

    def _intervals(self):
        rows = self.json.get("profile_intervals")
        if rows:
            return pd.DataFrame(
                {"estimate": [r["estimate"] for r in rows], "lower": [r["lower"] for r in rows],
                 "upper": [r["upper"] for r in rows], "method": "profile"},
                index=[r["param"] for r in rows])
        if self.stderr is not None:
            q = 1.959963984540054
            return pd.DataFrame({"estimate": self.theta[self.stderr.index],
                                 "lower": self.theta[self.stderr.index] - q * self.stderr,
                                 "upper": self.theta[self.stderr.index] + q * self.stderr, "method": "wald"})
        return None

    def __repr__(self):
        th = ", ".join("%s=%.6g" % kv for kv in self.theta.items())
        return "<exageostat.Fit %s: %s, loglik %.6f, %s>" % (self.json.get("kernel"), th, self.loglik, self.status)

    def summary(self):
        """The printed table as a DataFrame: estimate, lb, ub, stderr, at_bound per parameter."""
        d = pd.DataFrame({"estimate": self.theta})
        lb, ub = self.json.get("lb"), self.json.get("ub")
        if lb and ub and len(lb) == len(d):
            d["lb"], d["ub"] = lb, ub
        d["stderr"] = self.stderr if self.stderr is not None else np.nan
        ab = self.json.get("at_bound") or [""] * len(d)
        d["at_bound"] = ab[: len(d)] + [""] * (len(d) - len(ab))
        d.loc[d.at_bound == "fixed", "stderr"] = np.nan  # a fixed parameter has none
        return d

    def predict(self, newdata, variance=None, draws=None, seed=None, **flags):
        """Krige at ``newdata`` (a DataFrame of the fit's coordinate and covariate columns).

        Returns a DataFrame of the coordinates, ``z_hat`` and ``variance``
        (and ``draw_1``... with ``draws``; the transform's columns with
        ``transform=``); a GeoDataFrame for a GeoDataFrame; an
        xarray.Dataset on the grid for an xarray Dataset/DataArray with x, y
        dimensions. ``variance`` is "observation" (default) or "latent".
        """
        return self._at("predict", newdata, dict(variance=variance, draws=draws, seed=seed, **flags))

    def simulate(self, newdata, draws=1, seed=None, **flags):
        """Conditional simulations at ``newdata`` given the data: columns draw_1..draw_K."""
        return self._at("simulate", newdata, dict(conditional=True, draws=draws, seed=seed, **flags))

    def cv(self, folds=None, seed=None, **flags):
        """Leave-one-out (or ``folds``-fold) cross-validation at this estimate: a :class:`CV`."""
        ctx = self._ctx
        self._need_data()
        out, js = os.path.join(ctx.workdir, "cv.csv"), os.path.join(ctx.workdir, "cv.json")
        f = dict(data=ctx.data_path, **ctx.data_flags)
        f.update({"theta_from": self.json_path, "out": out, "json": js, "folds": folds, "seed": seed,
                  "workers": ctx.workers})
        f.update(flags)
        ctx.run("cv", [], f)
        table = _data.read_csv(out)
        table = table.rename(columns=dict(zip(("x", "y"), (ctx.roles.x, ctx.roles.y))))
        return CV(_load(js), table)

    def _need_data(self):
        if self._ctx.data_path is None:
            raise ExageostatError("this fit used the embedded simulated data: predict, cv and simulate need data=")

    def _at(self, command, newdata, flags):
        ctx = self._ctx
        self._need_data()
        grid = _grid(newdata, ctx.roles)
        pts = grid[0] if grid else newdata
        frame = _data.to_frame(pts, _data.Roles(ctx.roles.x, ctx.roles.y, None, ctx.roles.time,
                                                ctx.roles.covariates, ctx.roles.geographic), observed=False)
        at, out = os.path.join(ctx.workdir, command + "-at.csv"), os.path.join(ctx.workdir, command + ".csv")
        _data.write_csv(frame, at)
        f = dict(data=ctx.data_path, **ctx.data_flags)
        f.update({"theta_from": self.json_path, "at": at, "out": out, "workers": ctx.workers})
        f.update(flags)
        ctx.run(command, [], f)
        res = _data.read_csv(out)
        cx, cy = ctx.roles.coord_header()
        res = res.rename(columns={cx: ctx.roles.x, cy: ctx.roles.y})
        if grid:
            return _to_grid(res, grid)
        if _data.is_geo(newdata):
            import geopandas

            return geopandas.GeoDataFrame(res, geometry=newdata.geometry.values, crs=newdata.crs)
        return res


def _grid(newdata, roles):
    """For an xarray object with x, y dimensions: (points frame, template); else None."""
    try:
        import xarray as xr
    except ImportError:
        return None
    if not isinstance(newdata, (xr.DataArray, xr.Dataset)):
        return None
    ds = newdata.to_dataset(name="_v") if isinstance(newdata, xr.DataArray) else newdata
    ds = ds.transpose(roles.y, roles.x, ...)
    yy, xx = np.meshgrid(ds[roles.y].values, ds[roles.x].values, indexing="ij")
    pts = pd.DataFrame({roles.x: xx.ravel(), roles.y: yy.ravel()})
    for c in roles.covariates:
        pts[c] = ds[c].values.ravel()
    return pts, ds


def _to_grid(res, grid):
    import xarray as xr

    pts, ds = grid
    shape = (ds.sizes[ds[pts.columns[1]].dims[0]], ds.sizes[ds[pts.columns[0]].dims[0]])
    ynm, xnm = pts.columns[1], pts.columns[0]
    out = {c: ((ynm, xnm), res[c].to_numpy().reshape(shape)) for c in res.columns if c not in (xnm, ynm)}
    return xr.Dataset(out, coords={ynm: ds[ynm].values, xnm: ds[xnm].values})


class CV:
    """Cross-validation: ``summary`` (n, mspe, mean_log_score, coverage_95), ``table`` per point, ``json``."""

    def __init__(self, result, table):
        self.json = result
        self.summary = dict(result.get("summary", {}))
        self.table = table

    def __repr__(self):
        return "<exageostat.CV %s>" % ", ".join("%s=%.6g" % kv for kv in self.summary.items())


def predict(fit, newdata, **kwargs):
    """``fit.predict(newdata, **kwargs)``."""
    return fit.predict(newdata, **kwargs)


def cv(fit, **kwargs):
    """``fit.cv(**kwargs)``."""
    return fit.cv(**kwargs)


def simulate(n=1600, theta=(1, 0.1, 0.5), seed=1, kernel="matern", nugget=None, binary=None,
             progress=True, check_version=True, launcher=None, ranks=None, launcher_args=(), env=None,
             **flags):
    """Draw a Gaussian field at ``n`` jittered-grid locations: a DataFrame x, y, z.

    ``exageostat simulate``; every other keyword is one of its flags
    (``times=``, ``computation=``, ``workers=``...).
    """
    from . import __version__

    path = _binary.find_binary(binary)
    if check_version:
        _binary.check_version(path, __version__)
    workdir = _workdir()
    try:
        out = os.path.join(workdir, "sim.csv")
        f = dict(n=n, theta=list(theta), seed=seed, kernel=None if kernel == "matern" else kernel,
                 nugget=nugget, out=out)
        f.update(flags)
        argv = _binary.launcher_prefix(launcher, ranks, launcher_args) + [path, "simulate"] + to_args(f)
        _binary.run(argv, progress=progress, env=env)
        return _data.read_csv(out)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
