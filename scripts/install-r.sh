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

exec "$(dirname "$0")/deps.sh" r-base-core r-cran-fields r-cran-spam r-cran-maps r-cran-randomfields \
  r-cran-sp r-cran-gstat r-cran-jsonlite
