#!/usr/bin/env bash
# Installs the system packages exageostat needs, from Debian, if missing.
# Idempotent: does nothing (and needs no network) when all are present.
# Given package names (scripts/deps.sh PKG...), installs those instead:
# scripts/install-r.sh does so for the R references' packages.
set -euo pipefail

# libgdal-dev and gdal-bin: the GIS files (the gdal build tag, pkg/gdal; gdalinfo in the walk-through).
pkgs=(libopenblas-dev libnlopt-dev libglpk-dev pkg-config libopenmpi-dev openmpi-bin python3 libgdal-dev gdal-bin
      # the Python front-end (python/) and its tests: pandas, pytest, a venv
      # with pip for the install test, xarray grids and geopandas points
      python3-numpy python3-pandas python3-pytest python3-venv python3-pip python3-setuptools
      python3-xarray python3-geopandas
      # the R front-end (r/), its tests and R CMD check: processx, jsonlite,
      # testthat; sf, terra and sp (meuse, meuse.grid) for its examples
      r-base-core r-base-dev r-cran-jsonlite r-cran-processx r-cran-testthat r-cran-sf r-cran-terra
      r-cran-sp
      # pajeng (pj_dump) and vite check the Paje traces in the tests
      pajeng vite)
[ $# -eq 0 ] || pkgs=("$@")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
