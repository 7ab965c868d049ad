#!/usr/bin/env bash
# Installs R and the Debian R packages that make the R references
# (testdata/r/references.R) and export the real data (testdata/real/export.R).
# Not called by `make test`: the references are committed; this is only
# needed to regenerate them. Idempotent: does nothing (and needs no network)
# when all are present.
#
# Debian 12 (bookworm) versions used: r-base-core 4.2.2, r-cran-fields 14.1,
# r-cran-spam 2.9-1, r-cran-randomfields 3.3.14, r-cran-sp 1.6-0,
# r-cran-gstat 2.1-0, r-cran-jsonlite 1.8.4. geoR is not packaged in Debian.
set -euo pipefail

pkgs=(r-base-core r-cran-fields r-cran-spam r-cran-maps r-cran-randomfields
      r-cran-sp r-cran-gstat r-cran-jsonlite)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-r: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
