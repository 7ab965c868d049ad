# gstat references for issue 26 (columns, transforms, GIS, block kriging,
# semivariograms), on sp's meuse and meuse.grid:
#
#   OPENBLAS_NUM_THREADS=1 Rscript testdata/r/gis.R      (from the repository root)
#
# Needs r-cran-sp and r-cran-gstat (Debian; gstat 2.1-0, sp 1.6-0). Writes,
# under testdata/r:
#   krige_meuse_grid.csv  (a) universal kriging of log(zinc) ~ dist onto
#                         every cell of meuse.grid: x,y,dist (the grid's
#                         covariate, so the file is also predict's --at) and
#                         gstat's var1.pred, var1.var
#   block_meuse.csv       (b) block kriging of log(zinc) ~ dist over the three
#                         polygons of testdata/real/meuse-blocks.geojson (also
#                         written here, with sf), each discretised by the
#                         meuse.grid cells whose centres it contains: gstat's
#                         krige with block = those cells (offsets from the
#                         first) and the block's dist = their mean; block,
#                         cells, var1.pred, var1.var
# Numbers are written with the shortest decimal that reads back to the same
# double.
suppressMessages({ library(sp); library(gstat); library(sf) })
options(digits = 17)
outdir <- "testdata/r"
stopifnot(dir.exists(outdir))
num2str <- function(v) vapply(v, function(x) {
  if (is.na(x)) return("NA")
  for (d in 15:17) { s <- sprintf("%.*g", d, x); if (as.numeric(s) == x) return(s) }
  s
}, "")
write_csv <- function(df, name) {
  f <- file.path(outdir, name)
  df[] <- lapply(df, function(c) if (is.numeric(c)) num2str(c) else c)
  write.csv(df, f, row.names = FALSE, quote = FALSE)
  cat("wrote", f, "\n")
}

data(meuse); data(meuse.grid)
pts <- meuse
coordinates(pts) <- ~x + y
grid <- meuse.grid
coordinates(grid) <- ~x + y
gridded(grid) <- TRUE

# The model: exponential (our Matérn with nu = 0.5, beta = gstat's range),
# partial sill sigma2, nugget tau2 (our theta = 0.23,220,0.5,0.031).
model <- vgm(psill = 0.23, model = "Exp", range = 220, nugget = 0.031)

# (a) Universal kriging of log(zinc) with the covariate dist. gstat's
# var1.var at a cell (not a data point) includes the nugget: our
# --variance observation (the default).
k <- as.data.frame(krige(log(zinc) ~ dist, pts, grid, model = model, debug.level = 0))
stopifnot(all(k$x == meuse.grid$x), all(k$y == meuse.grid$y))
write_csv(data.frame(x = meuse.grid$x, y = meuse.grid$y, dist = meuse.grid$dist,
                     var1.pred = k$var1.pred, var1.var = k$var1.var), "krige_meuse_grid.csv")

# (b) Block kriging over three polygons (RD metres): a square, a triangle
# and a pentagon on the grid's edge, no cell centre on an edge (the vertices
# of b end in 7 m: the centres are on a 20 m lattice).
polys <- list(
  a = cbind(c(179000, 179600, 179600, 179000, 179000), c(330600, 330600, 331200, 331200, 330600)),
  b = cbind(c(180007, 180707, 180307, 180007), c(331807, 332307, 332907, 331807)),
  c = cbind(c(180700, 181200, 181300, 180950, 180650, 180700), c(332600, 332600, 333000, 333300, 333000, 332600)))
blocks <- NULL
for (nm in names(polys)) {
  p <- polys[[nm]]
  g <- meuse.grid[point.in.polygon(meuse.grid$x, meuse.grid$y, p[, 1], p[, 2]) == 1, ]
  nd <- data.frame(x = g$x[1], y = g$y[1], dist = mean(g$dist))
  coordinates(nd) <- ~x + y
  kb <- krige(log(zinc) ~ dist, pts, nd, model = model, block = data.frame(x = g$x - g$x[1], y = g$y - g$y[1]),
              debug.level = 0)
  blocks <- rbind(blocks, data.frame(block = nm, cells = nrow(g), var1.pred = kb$var1.pred, var1.var = kb$var1.var))
}
write_csv(blocks, "block_meuse.csv")
geo <- st_sf(name = names(polys), geometry = st_sfc(lapply(polys, function(p) st_polygon(list(p))), crs = 28992))
f <- "testdata/real/meuse-blocks.geojson"
if (file.exists(f)) file.remove(f)
st_write(geo, f, quiet = TRUE)
cat("wrote", f, "\n")

cat("sp", as.character(packageVersion("sp")), "gstat", as.character(packageVersion("gstat")),
    R.version.string, "\n")
