# gstat's sample semivariograms on sp's meuse, the references of
# pkg/variogram and the `variogram` command (issue 26, item 7):
#
#   OPENBLAS_NUM_THREADS=1 Rscript testdata/r/variogram.R      (from the repository root)
#
# Needs r-cran-sp and r-cran-gstat (Debian; gstat 2.1-0, sp 1.6-0). A
# second of work. Writes, under testdata/r:
#   variogram_meuse.csv      case,dir.hor,np,dist,gamma: the rows of gstat's
#                            variogram() (bins with at least one pair), for
#     resid      variogram(log(zinc) ~ dist + elev, meuse): the residual
#                semivariogram (gstat: the OLS residuals of the formula),
#                gstat's default cutoff (a third of the bounding box's
#                diagonal) and width (cutoff / 15)
#     resid_dir  the same, alpha = c(0, 45, 90, 135): directions in degrees
#                clockwise from north (the +y axis), tol.hor = 22.5 (gstat's
#                default 90 / length(alpha)), a pair counted in a direction
#                when its lag is within tol.hor of it, either way
#     raw        variogram(log(zinc) ~ 1, meuse, cutoff = 1500, width = 100):
#                the semivariogram of the values (a constant mean)
#     resid_cw   the residual one with cutoff = 1200, width = 90 (a last bin
#                narrower than the others)
#   variogram_map_meuse.csv  dx,dy,np,gamma: gstat's semivariogram map of
#                            log(zinc) ~ dist + elev (map = TRUE, cutoff =
#                            1000, width = 200): the cells, centred on
#                            multiples of width in [-cutoff, cutoff]^2, that
#                            hold at least one pair
#   variogram_meuse_resid.csv  x,y,resid: the OLS residuals of
#                            log(zinc) ~ dist + elev (lm), the values the
#                            residual semivariogram is made of
# Numbers are written with the shortest decimal that reads back to the same
# double.
suppressMessages({ library(sp); library(gstat) })
options(digits = 17)
outdir <- "testdata/r"
stopifnot(dir.exists(outdir))
source(file.path(outdir, "helpers.R")) # num2str
write_csv <- function(df, name) {
  df[] <- lapply(df, function(c) if (is.numeric(c)) num2str(c) else c)
  write.csv(df, file.path(outdir, name), row.names = FALSE, quote = FALSE)
  cat("wrote", file.path(outdir, name), "\n")
}

data(meuse)
pts <- meuse
coordinates(pts) <- ~x + y

rows <- function(case, v) data.frame(case = case, dir.hor = v$dir.hor, np = v$np, dist = v$dist, gamma = v$gamma)
out <- rbind(
  rows("resid", variogram(log(zinc) ~ dist + elev, pts)),
  rows("resid_dir", variogram(log(zinc) ~ dist + elev, pts, alpha = c(0, 45, 90, 135))),
  rows("raw", variogram(log(zinc) ~ 1, pts, cutoff = 1500, width = 100)),
  rows("resid_cw", variogram(log(zinc) ~ dist + elev, pts, cutoff = 1200, width = 90)))
write_csv(out, "variogram_meuse.csv")

m <- variogram(log(zinc) ~ dist + elev, pts, cutoff = 1000, width = 200, map = TRUE)
md <- as.data.frame(m$map)
md <- md[!is.na(md$np.var1) & md$np.var1 > 0, ]
write_csv(data.frame(dx = md$dx, dy = md$dy, np = md$np.var1, gamma = md$var1), "variogram_map_meuse.csv")

write_csv(data.frame(x = meuse$x, y = meuse$y, resid = residuals(lm(log(zinc) ~ dist + elev, meuse))),
          "variogram_meuse_resid.csv")

cat("sp", as.character(packageVersion("sp")), "gstat", as.character(packageVersion("gstat")),
    R.version.string, "\n")
