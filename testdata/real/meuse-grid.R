# meuse.grid as a GeoTIFF (issue 26, the walk-through's prediction grid):
#
#   Rscript testdata/real/meuse-grid.R      (from the repository root)
#
# Needs r-cran-sp and r-cran-terra (Debian). Writes testdata/real/meuse-grid.tif:
# sp's meuse.grid (3103 cells of 40 m x 40 m, Rijksdriehoek EPSG:28992) as
# a float64 GeoTIFF with the bands dist, soil and ffreq (the factors as
# their codes) named by their band descriptions, NaN outside the grid's
# cells (the flood plain's shape).
suppressMessages({ library(sp); library(terra) })
data(meuse.grid)
g <- data.frame(x = meuse.grid$x, y = meuse.grid$y, dist = meuse.grid$dist,
                soil = as.numeric(meuse.grid$soil), ffreq = as.numeric(meuse.grid$ffreq))
r <- rast(g, type = "xyz", crs = "EPSG:28992")
stopifnot(all(res(r) == 40), sum(!is.na(values(r$dist))) == nrow(g))
f <- "testdata/real/meuse-grid.tif"
writeRaster(r, f, datatype = "FLT8S", overwrite = TRUE, NAflag = NaN,
            gdal = c("COMPRESS=DEFLATE"))
cat("wrote", f, dim(r), "\n")
