# The meuse analysis from R: REML fit of log(zinc) ~ dist + elev with profile intervals, then universal kriging onto meuse.grid (which has dist, not elev: log(zinc) ~ dist) as a SpatRaster and its map. Rscript docs/meuse.R [map.png]
library(exageostat); library(terra)
data(meuse, meuse.grid, package = "sp")
box <- list(lb = c(0.001, 1, 0.5, 1e-8), ub = c(100, 1e4, 0.5, 100))  # exponential (nu = 0.5), nugget estimated
fit <- eg_fit(meuse, log(zinc) ~ dist + elev, reml = TRUE, lb = box$lb, ub = box$ub, ci = "profile", progress = FALSE)
print(summary(fit))
print(confint(fit))                                                   # profile-likelihood intervals
uk <- eg_fit(meuse, log(zinc) ~ dist, reml = TRUE, lb = box$lb, ub = box$ub, progress = FALSE)
grid <- rast(meuse.grid[c("x", "y", "dist")], type = "xyz", crs = "EPSG:28992")
pred <- predict(uk, grid, progress = FALSE)                           # SpatRaster: z_hat, variance
png(if (length(commandArgs(TRUE))) commandArgs(TRUE)[1] else "meuse-kriging.png", 1000, 600)
plot(pred, main = c("log(zinc): universal kriging", "kriging variance"))
dev.off()
print(global(pred, "mean", na.rm = TRUE))
