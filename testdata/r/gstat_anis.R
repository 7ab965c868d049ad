# gstat's covariances of anisotropic Matérn models at lag vectors: the
# reference of pkg/job's TestGstatAnis, which relates the aniso-matern's
# angle and ratio to gstat's vgm(anis = c(p, s)) (issue 26):
#
#   OPENBLAS_NUM_THREADS=1 Rscript testdata/r/gstat_anis.R      (from the repository root)
#
# Needs r-cran-gstat (Debian; gstat 2.1-0). Under a second. Writes
# testdata/r/gstat_anis.csv with the columns
#   psill,range,kappa,p,s,dx,dy,cov
# one row per model vgm(psill, "Mat", range, kappa = kappa, anis = c(p, s))
# (p: the principal direction in degrees clockwise from north, the +y
# axis; s: the minor over the major range) and lag (dx, dy) (dx east, dy
# north): cov is gstat's covariance there, variogramLine(model,
# covariance = TRUE, dist_vector = h, dir = c(dx, dy, 0) / h) with h the
# lag's length. gstat computes it; nothing here restates its anisotropy.
# Numbers are written with the shortest decimal that reads back to the same
# double.
suppressMessages(library(gstat))
options(digits = 17)
outdir <- "testdata/r"
stopifnot(dir.exists(outdir))
source(file.path(outdir, "helpers.R")) # num2str

models <- list( # psill, range, kappa, p, s
  c(1, 0.2, 0.5, 30, 0.5),
  c(2.5, 150, 1.5, 120, 0.25),
  c(0.7, 3, 0.8, 0, 1 / 3),
  c(1, 1, 2.5, 165, 0.8),
  c(1.3, 40, 1, 90, 0.6))
rows <- list()
for (m in models) {
  for (f in c(0.3, 1, 2)) {          # the lag's length, in ranges
    for (deg in c(0, 35, 90, 150, 240, 301)) { # its direction, counter-clockwise from east
      h <- f * m[2]
      dx <- h * cos(deg * pi / 180); dy <- h * sin(deg * pi / 180)
      v <- vgm(m[1], "Mat", m[2], kappa = m[3], anis = c(m[4], m[5]))
      c0 <- variogramLine(v, covariance = TRUE, dist_vector = h, dir = c(dx, dy, 0) / h)$gamma
      rows[[length(rows) + 1]] <- data.frame(psill = m[1], range = m[2], kappa = m[3], p = m[4], s = m[5],
                                             dx = dx, dy = dy, cov = c0)
    }
  }
}
out <- do.call(rbind, rows)
out[] <- lapply(out, num2str)
f <- file.path(outdir, "gstat_anis.csv")
write.csv(out, f, row.names = FALSE, quote = FALSE)
cat("wrote", f, "\n")
