"""Keyword arguments to command-line flags: every flag of the binary is reachable.

``max_evals=50`` becomes ``--max-evals 50``, ``reml=True`` ``--reml``,
``lb=[0.01, 1, 0.5]`` ``--lb 0.01,1,0.5``; None and False leave the flag out.
"""

import math
import numbers

__all__ = ["to_args", "fmt"]


def fmt(v):
    """One value as the binary reads it: floats by their shortest exact decimal."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        f = float(v)
        if not math.isfinite(f):
            raise ValueError("%r is not a finite number" % (v,))
        return repr(f)
    return str(v)


def to_args(flags):
    """The flags of a dict of keyword arguments, in its order."""
    args = []
    for key, v in flags.items():
        if v is None or v is False:
            continue
        name = "--" + key.replace("_", "-")
        if v is True:
            args.append(name)
        elif isinstance(v, (list, tuple)) or (hasattr(v, "tolist") and not isinstance(v, str)):
            vals = list(v) if isinstance(v, (list, tuple)) else v.tolist()
            if not isinstance(vals, list):  # a 0-d array
                vals = [vals]
            args += [name, ",".join(fmt(x) for x in vals)]
        else:
            args += [name, fmt(v)]
    return args
