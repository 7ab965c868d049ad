"""The binary under test: EXAGEOSTAT_BIN (make test builds it), else built here from the checkout."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def binary(tmp_path_factory):
    b = os.environ.get("EXAGEOSTAT_BIN")
    if not b:
        b = str(tmp_path_factory.mktemp("bin") / "exageostat")
        tags = subprocess.run(["sh", "-c", "pkg-config --exists ompi && echo mpi"], capture_output=True, text=True).stdout.strip()
        subprocess.run(["go", "build", "-tags", tags, "-o", b, "./cmd/exageostat"], cwd=ROOT, check=True)
        os.environ["EXAGEOSTAT_BIN"] = b
    return b


@pytest.fixture(scope="session")
def root():
    return ROOT
