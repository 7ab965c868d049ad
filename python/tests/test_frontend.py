"""The package's own behaviour: flags, errors as exceptions, the binary's discovery and
version, MPI launch, Ctrl-C with the checkpoint kept, grids and GeoDataFrames."""

import json
import os
import shutil
import stat
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import exageostat as eg
from exageostat._flags import to_args


@pytest.fixture(scope="module")
def meuse(root):
    return pd.read_csv(root / "testdata/real/meuse.csv", float_precision="round_trip")


def test_flags():
    assert to_args({"lb": [0.001, 1, 0.5], "reml": True, "quiet": False, "max_evals": 50, "nugget": None,
                    "ci": "profile", "coords": ("lon", "lat"), "tolerance": 1e-7}) == [
        "--lb", "0.001,1,0.5", "--reml", "--max-evals", "50", "--ci", "profile", "--coords", "lon,lat",
        "--tolerance", "1e-07"]
    assert to_args({"ub": np.array([5.0, 0.1 + 0.2])}) == ["--ub", "5.0,0.30000000000000004"]


def test_bad_column_is_the_binary_s_message(root, binary):
    with pytest.raises(eg.ExageostatError) as e:
        eg.fit(str(root / "testdata/real/meuse.csv"), mean=["nosuch"], progress=False)
    assert e.value.returncode == 2
    assert 'mean: no column "nosuch"' in e.value.message and "\n" not in e.value.message
    assert str(e.value).endswith("(exit status 2)")


def test_bad_column_of_a_frame(meuse, binary):
    with pytest.raises(KeyError, match="'nosuch'"):
        eg.fit(meuse, mean=["nosuch"], progress=False)


def test_bound_violation(meuse, binary):
    with pytest.raises(eg.ExageostatError) as e:
        eg.fit(meuse, bounds=([1, 1, 1], [0.5, 2, 2]), progress=False)
    assert e.value.returncode == 2
    assert e.value.message == 'fit: key "lb": lower bound of sigma2 (1) is above its upper bound (0.5)'


def test_unknown_flag(meuse, binary):
    with pytest.raises(eg.ExageostatError, match=r"unknown flag: --no-such-flag") as e:
        eg.fit(meuse, no_such_flag=3, progress=False)
    assert e.value.returncode == 2


def test_missing_binary(meuse, monkeypatch, tmp_path):
    monkeypatch.setenv("EXAGEOSTAT_BIN", str(tmp_path / "nothere"))
    with pytest.raises(eg.BinaryNotFound, match="EXAGEOSTAT_BIN names"):
        eg.fit(meuse)
    monkeypatch.delenv("EXAGEOSTAT_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(eg.BinaryNotFound, match="not found: put it on PATH"):
        eg.fit(meuse)


def test_binary_on_path_and_given(binary, monkeypatch, tmp_path):
    shutil.copy(binary, tmp_path / "exageostat")
    monkeypatch.delenv("EXAGEOSTAT_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert eg.find_binary() == str(tmp_path / "exageostat")
    assert eg.find_binary(binary) == os.path.abspath(binary)


def fake(tmp_path, version):
    p = tmp_path / "fake-exageostat"
    p.write_text("#!/bin/sh\necho 'exageostat %s (commit 0123; go1.26 linux/amd64)'\n" % version)
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def test_version_check(meuse, tmp_path):
    with pytest.raises(eg.VersionMismatch, match="is exageostat v9.3.0, this package is 0.1.0"):
        eg.fit(meuse, binary=fake(tmp_path, "v9.3.0"))
    assert eg.binary_version(fake(tmp_path / "..", "v0.1.4")) == "v0.1.4"


def test_progress_forwarded(meuse, binary):
    lines = []
    m = eg.fit(meuse, mean="constant", bounds=([0.5, 300, 0.5, 0.05], [0.5, 300, 0.5, 0.05]), progress=lines.append)
    assert any(l.startswith("fit: N=155") for l in lines), lines[:3]
    assert m.loglik < 0


def test_interrupt_keeps_checkpoint_and_resumes(root, binary, tmp_path):
    """A KeyboardInterrupt (here raised by the progress callable at the 4th evaluation) stops
    the binary with one SIGINT: Interrupted carries the best fit so far and the checkpoint;
    resume= continues to the uninterrupted fit's theta and l."""
    # 900 points: the evaluations after the 4th take long enough for the SIGINT to land first
    d = eg.simulate(n=900, theta=[1, 0.1, 0.5], seed=5, progress=False)
    seen = []

    def stop(line):
        seen.append(line)
        if " eval    4 " in line:
            raise KeyboardInterrupt

    with pytest.raises(eg.Interrupted) as e:
        eg.fit(d, progress=stop, json=str(tmp_path / "r.json"), verbose=True)
    assert e.value.returncode == 130
    assert e.value.checkpoint == str(tmp_path / "r.ckpt") and os.path.getsize(e.value.checkpoint) > 0
    assert e.value.fit.status == "interrupted"
    assert isinstance(e.value, KeyboardInterrupt)
    # The 4th evaluation's line is printed after its checkpoint record, so at least 4 are
    # there; a 5th only when the SIGINT landed after it (timing: the box's load decides).
    with open(e.value.checkpoint) as f:
        kept = len(json.load(f)["evaluations"])
    assert kept >= 4
    done = eg.fit(d, resume=e.value.checkpoint, json=str(tmp_path / "r2.json"), progress=False)
    full = eg.fit(d, progress=False)
    # every kept evaluation is replayed at no cost but the best, which resume recomputes
    # to verify the checkpoint (the best of these is one of them: their l are distinct)
    assert done.json["replayed_evaluations"] == kept - 1
    assert done.loglik == full.loglik and done.theta.tolist() == full.theta.tolist()


def test_mpi_two_ranks_same_l(meuse, binary):
    """mpirun -np 2 through the package gives the 1-rank fit's theta and l, bit for bit."""
    if shutil.which("mpirun") is None:
        pytest.fail("mpirun not found: scripts/deps.sh installs OpenMPI")
    box = ([1e-3, 1, 0.5, 1e-9], [1e3, 1e4, 0.5, 100])
    one = eg.fit(meuse, mean="constant", bounds=box, nb=40, progress=False)
    two = eg.fit(meuse, mean="constant", bounds=box, nb=40, ranks=2, launcher="mpirun",
                 launcher_args=["--allow-run-as-root", "--oversubscribe"], progress=False,
                 env={"OMPI_MCA_btl_vader_single_copy_mechanism": "none"})
    assert two.json["ranks"] == 2 and one.json["ranks"] == 1
    assert two.loglik == one.loglik and two.theta.tolist() == one.theta.tolist()


def test_grid_and_geodataframe(meuse, binary):
    """An xarray grid in gives a Dataset on the grid out; a GeoDataFrame (projected CRS) fits as
    its x, y columns do."""
    import geopandas as gpd  # python3-xarray, python3-geopandas: scripts/deps.sh installs them
    import xarray as xr
    th = [0.6, 300, 0.5, 0.05]
    m = eg.fit(meuse, mean="linear", bounds=(th, th), progress=False)
    xs, ys = np.array([179000.0, 179500, 180000]), np.array([330000.0, 331000])
    grid = xr.DataArray(np.zeros((2, 3)), coords={"y": ys, "x": xs}, dims=("y", "x"))
    g = m.predict(grid, progress=False)
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    p = m.predict(pd.DataFrame({"x": xx.ravel(), "y": yy.ravel()}), progress=False)
    assert g.z_hat.dims == ("y", "x")
    np.testing.assert_array_equal(g.z_hat.values.ravel(), p.z_hat.to_numpy())
    np.testing.assert_array_equal(g.variance.values.ravel(), p.variance.to_numpy())
    gdf = gpd.GeoDataFrame(meuse[["z"]], geometry=gpd.points_from_xy(meuse.x, meuse.y), crs="EPSG:28992")
    mg = eg.fit(gdf, mean="linear", bounds=(th, th), progress=False)
    assert mg.loglik == m.loglik
    pg = mg.predict(gpd.GeoDataFrame(geometry=gpd.points_from_xy(xx.ravel(), yy.ravel()), crs="EPSG:28992"),
                    progress=False)
    assert isinstance(pg, gpd.GeoDataFrame) and pg.z_hat.tolist() == p.z_hat.tolist()


def test_simulate(binary):
    a = eg.simulate(n=100, theta=[1, 0.1, 0.5], seed=3, progress=False)
    out = subprocess.run([binary, "simulate", "--n", "100", "--theta", "1,0.1,0.5", "--seed", "3", "--out", "-",
                          "-q"], capture_output=True, text=True, check=True).stdout
    from io import StringIO

    assert a.equals(pd.read_csv(StringIO(out), float_precision="round_trip"))


def test_readme_example(root, binary, tmp_path):
    """The ```python blocks of python/README.md run as written (from the repository root)."""
    text = (root / "python/README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    assert blocks and all(len(b.strip().splitlines()) <= 10 for b in blocks)
    for b in blocks:
        r = subprocess.run([sys.executable, "-c", b], cwd=root, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=str(root / "python")))
        assert r.returncode == 0, r.stderr[-2000:]


def test_pip_install_fresh_venv(root, binary, tmp_path):
    """pip install ./python into a new virtual environment (Debian's numpy and pandas as its
    system packages, its pip too; no index: nothing is downloaded), then a fit from outside the checkout."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    py = str(venv / "bin/python")
    src = shutil.copytree(root / "python", tmp_path / "src", ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", ".pytest_cache"))  # the checkout stays as it is
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    code = ("import exageostat as eg, pandas as pd; assert eg.__file__.startswith(%r), eg.__file__;"
            "m = eg.fit(pd.read_csv(%r), bounds=([1,100,0.5],[1,100,0.5]), progress=False); print(m.loglik)"
            % (str(venv), str(root / "testdata/real/meuse.csv")))
    r = subprocess.run([py, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    float(r.stdout)
