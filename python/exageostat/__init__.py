"""exageostat from Python: Gaussian-process fits, kriging and simulation on data frames.

The compiled ``exageostat`` binary is the engine (found on PATH, in
``EXAGEOSTAT_BIN`` or given as ``binary=``); this package writes its
inputs, runs it (threads, MPI launchers, progress) and turns its JSON and
CSV outputs into pandas (and xarray, geopandas) objects.

>>> import pandas as pd, exageostat as eg
>>> m = eg.fit(pd.read_csv("meuse.csv"), mean=["dist", "elev"])  # doctest: +SKIP
>>> m.theta, m.loglik, m.summary(), m.predict(grid)               # doctest: +SKIP
"""

__version__ = "0.1.0"

from ._binary import binary_version, find_binary  # noqa: E402
from ._errors import BinaryNotFound, ExageostatError, Interrupted, VersionMismatch  # noqa: E402
from .core import CV, Fit, cv, fit, predict, simulate  # noqa: E402

__all__ = [
    "fit", "predict", "cv", "simulate", "Fit", "CV", "find_binary", "binary_version",
    "ExageostatError", "BinaryNotFound", "VersionMismatch", "Interrupted", "__version__",
]
