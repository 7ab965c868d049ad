# Draws docs/real-data-r.png: the fields fitted in R (testdata/r/fits_real.csv,
# ML, nu free, Matérn + nugget + constant mean) kriged over each data set's
# region, with the data points. Run from the repository root after
# testdata/r/references.R:   Rscript testdata/real/picture.R
# Needs r-cran-sp (meuse.grid) and r-cran-maps (state borders).
suppressMessages({ library(sp); library(maps) })
fits <- read.csv("testdata/r/fits_real.csv")
matern <- function(d, s2, beta, nu) {
  h <- d / beta
  out <- s2 * 2^(1 - nu) / gamma(nu) * h^nu * besselK(h, nu)
  out[d == 0] <- s2
  out
}
hav <- function(a, b) {                    # rows of a x rows of b, lon/lat degrees -> km
  r <- pi / 180
  u <- sin(outer(a[, 2], b[, 2], "-") * r / 2); v <- sin(outer(a[, 1], b[, 1], "-") * r / 2)
  2 * 6371 * asin(pmin(sqrt(u^2 + outer(cos(a[, 2] * r), cos(b[, 2] * r)) * v^2), 1))
}
euc <- function(a, b) sqrt(outer(a[, 1], b[, 1], "-")^2 + outer(a[, 2], b[, 2], "-")^2)
krige <- function(dat, grid, f, dist) {
  S <- matern(dist(dat, dat), f$sigma2, f$beta, f$nu); diag(S) <- diag(S) + f$tau2
  Si <- chol2inv(chol(S)); one <- rep(1, nrow(dat))
  C0 <- matern(dist(dat, grid), f$sigma2, f$beta, f$nu)
  w <- Si %*% C0; a <- sum(Si)
  u <- 1 - colSums(w)
  list(pred = f$mean_hat + drop(t(w) %*% (dat$z - f$mean_hat)),
       sd = sqrt(f$sigma2 - colSums(C0 * w) + u^2 / a))
}
pal <- hcl.colors(64, "viridis")
png("docs/real-data-r.png", width = 1400, height = 640, res = 110)
par(mfrow = c(1, 2), mar = c(4, 4, 3, 5))

m <- read.csv("testdata/real/meuse.csv")
data(meuse.grid, package = "sp")
f <- fits[fits$data == "meuse" & fits$method == "ml" & fits$nu_fixed == "free", ]
k <- krige(m, as.matrix(meuse.grid[, c("x", "y")]), f, euc)
zr <- range(k$pred, m$z)
plot(meuse.grid$x, meuse.grid$y, pch = 15, cex = 0.55, asp = 1,
     col = pal[cut(k$pred, seq(zr[1], zr[2], length.out = 65), include.lowest = TRUE)],
     xlab = "x (m, RDH)", ylab = "y (m, RDH)",
     main = sprintf("meuse: log(zinc) kriged\nML fit: beta %.0f m, nu %.2f, tau2 %.2g", f$beta, f$nu, f$tau2),
     cex.main = 0.9)
points(m$x, m$y, pch = 21, cex = 0.7, bg = pal[cut(m$z, seq(zr[1], zr[2], length.out = 65), include.lowest = TRUE)])
legend("topleft", legend = sprintf("%.1f", seq(zr[1], zr[2], length.out = 5)), fill = pal[c(1, 16, 32, 48, 64)], bty = "n", cex = 0.8)

p <- read.csv("testdata/real/rmprecip.csv")
f <- fits[fits$data == "rmprecip" & fits$method == "ml" & fits$nu_fixed == "free", ]
gx <- seq(-111, -99, length.out = 121); gy <- seq(35, 45, length.out = 101)
g <- as.matrix(expand.grid(gx, gy))
k <- krige(p, g, f, hav)
image(gx, gy, matrix(k$pred, length(gx)), col = pal, xlab = "longitude", ylab = "latitude", asp = 1.3,
      main = sprintf("RMprecip: sqrt(precipitation, mm), Aug 1997, kriged\nML fit: beta %.0f km, nu %.2f, tau2 %.2g", f$beta, f$nu, f$tau2),
      cex.main = 0.9)
map("state", add = TRUE, col = "grey30")
points(p$lon, p$lat, pch = 20, cex = 0.35)
zr <- range(k$pred)
legend("bottomleft", legend = sprintf("%.1f", seq(zr[1], zr[2], length.out = 5)), fill = pal[c(1, 16, 32, 48, 64)], bty = "o", bg = "white", cex = 0.8)
invisible(dev.off())
cat("wrote docs/real-data-r.png\n")
