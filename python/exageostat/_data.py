"""Data frames to the CSV files the binary reads, and its CSV outputs back.

A frame is written with only the columns the model needs, renamed to the
binary's roles: the coordinates as x,y (lon,lat for geographic ones:
great-circle distances), the time as t, the observation as z, the
covariates by their own names. Numbers are written with 17 significant
digits (they read back to the same doubles); missing values as NA (the
binary drops their rows with a note, or refuses them with na="error").
"""

import numpy as np
import pandas as pd

__all__ = ["Roles", "to_frame", "write_csv", "read_csv"]

_GEO_NAMES = {("lon", "lat"), ("long", "lat"), ("longitude", "latitude"), ("lng", "lat")}


class Roles:
    """Which columns of the user's data play which role."""

    def __init__(self, x="x", y="y", z="z", time=None, covariates=(), geographic=None):
        self.x, self.y, self.z, self.time = x, y, z, time
        self.covariates = list(covariates)
        self.geographic = geographic

    def coord_header(self):
        """x,y or lon,lat (great-circle distances in the binary's auto mode)."""
        geo = self.geographic
        if geo is None:
            geo = (str(self.x).lower(), str(self.y).lower()) in _GEO_NAMES
        return ("lon", "lat") if geo else ("x", "y")


def _geo_frame(data, roles):
    """A GeoDataFrame of points: its geometry's x,y, its CRS deciding lon,lat."""
    g = data.geometry
    if not (g.geom_type == "Point").all():
        raise ValueError("a GeoDataFrame needs point geometries (take centroids first)")
    df = pd.DataFrame(data.drop(columns=data.geometry.name))
    df[roles.x], df[roles.y] = g.x.to_numpy(), g.y.to_numpy()
    if roles.geographic is None and data.crs is not None:
        roles.geographic = bool(data.crs.is_geographic)
    return df


def is_geo(data):
    return hasattr(data, "geometry") and hasattr(data, "crs") and isinstance(data, pd.DataFrame)


def to_frame(data, roles, observed=True):
    """The frame written for the binary: x,y[,t][,z],covariates (renamed to the roles)."""
    if is_geo(data):
        data = _geo_frame(data, roles)
    elif isinstance(data, np.ndarray):
        if data.ndim != 2 or data.shape[1] < (3 if observed else 2):
            raise ValueError("an array needs columns x, y%s" % (", z" if observed else ""))
        names = [roles.x, roles.y, roles.z][: data.shape[1]]
        data = pd.DataFrame(data[:, : len(names)], columns=names)
    elif not isinstance(data, pd.DataFrame):
        data = pd.DataFrame(data)
    cx, cy = roles.coord_header()
    cols = [(roles.x, cx), (roles.y, cy)]
    if roles.time is not None:
        cols.append((roles.time, "t"))
    if observed:
        zs = roles.z if isinstance(roles.z, (list, tuple)) else [roles.z]
        names = ["z"] if len(zs) == 1 else ["z%d" % (i + 1) for i in range(len(zs))]
        cols += list(zip(zs, names))
    reserved = {c for _, c in cols}
    for c in roles.covariates:
        if c in reserved:
            raise ValueError("covariate %r has the name of a coordinate or observation column" % (c,))
        cols.append((c, c))
    missing = [src for src, _ in cols if src not in data.columns]
    if missing:
        raise KeyError(
            "no column %s in the data (its columns: %s)"
            % (", ".join(repr(m) for m in missing), ", ".join(map(str, data.columns)))
        )
    out = pd.DataFrame({dst: pd.to_numeric(data[src], errors="raise") for src, dst in cols})
    return out


def write_csv(frame, path):
    """Write a frame as the binary reads it: 17 significant digits, NA for missing."""
    frame.to_csv(path, index=False, float_format="%.17g", na_rep="NA")


def read_csv(path):
    """One of the binary's CSV outputs as a frame (every column numeric)."""
    return pd.read_csv(path, float_precision="round_trip")
