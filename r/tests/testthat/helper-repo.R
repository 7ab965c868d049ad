# The repository's reference data (testdata/) and the binary under test.
# `make test` sets EXAGEOSTAT_REPO and EXAGEOSTAT_BIN; outside the
# repository (the package alone) the tests that need them are skipped.
repo <- function() {
  r <- Sys.getenv("EXAGEOSTAT_REPO")
  if (nzchar(r)) return(normalizePath(r))
  d <- normalizePath(getwd())
  while (d != dirname(d)) {
    if (file.exists(file.path(d, "testdata", "r", "loglik_mean.csv"))) return(d)
    d <- dirname(d)
  }
  skip("not in the exageostat repository: set EXAGEOSTAT_REPO to run the tests against its testdata")
}
need_binary <- function() {
  if (!nzchar(Sys.getenv("EXAGEOSTAT_BIN")) && !nzchar(Sys.which("exageostat")))
    skip("no exageostat binary: set EXAGEOSTAT_BIN")
}
tdata <- function(...) {
  need_binary()
  file.path(repo(), "testdata", ...)
}
rel <- function(a, b) abs(a - b) / max(1, abs(b))
