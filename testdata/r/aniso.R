# Dense reference log-likelihoods of the anisotropic 2D Matérn (kernel
# aniso-matern) with base R (besselK, chol, backsolve): the independent
# reference of pkg/likelihood's TestAnisoAgainstR.
#
#   Rscript testdata/r/aniso.R      (from the repository root)
#
# Model: theta = (sigma2, beta, nu, angle, ratio), angle in radians
# counter-clockwise from the x axis (the major axis), ratio = major/minor
# range >= 1. For two points with lag (dx, dy), the lag in the axes of the
# ellipse is
#   u =  cos(angle) dx + sin(angle) dy     (major axis)
#   v = -sin(angle) dx + cos(angle) dy     (minor axis)
# and, with r' = sqrt(u^2 + (ratio v)^2) and h = r'/beta,
#   C = sigma2 2^(1-nu)/Gamma(nu) h^nu K_nu(h),  C = sigma2 at h = 0.
# Sigma = C + tau2 I (the nugget on the diagonal only).
#   zero mean:      l = -1/2 z'S^-1 z - 1/2 log|S| - n/2 log(2 pi)
#   constant mean:  b_hat = (1'S^-1 1)^-1 1'S^-1 z, r = z - b_hat,
#                   l_P = -1/2 r'S^-1 r - 1/2 log|S| - n/2 log(2 pi)
# The data (aniso_n150.csv: 150 uniform points in the unit square, seed 2026,
# z drawn from theta = (1, 0.15, 0.8, 0.6, 3) with tau2 = 0.01) are written
# once and read back when present, so a rerun reproduces the committed
# values from the committed data.
options(digits = 17)
outdir <- "testdata/r"
stopifnot(dir.exists(outdir))
num2str <- function(v) vapply(v, function(x) {
  for (d in 15:17) { s <- sprintf("%.*g", d, x); if (as.numeric(s) == x) return(s) }
  s
}, "")
write_csv <- function(df, name) {
  f <- file.path(outdir, name)
  df[] <- lapply(df, function(c) if (is.numeric(c)) num2str(c) else c)
  write.csv(df, f, row.names = FALSE, quote = FALSE)
  cat("wrote", f, "\n")
}
aniso_cov <- function(x, y, th, tau2) {
  DX <- outer(x, x, "-"); DY <- outer(y, y, "-")
  u <- cos(th[4]) * DX + sin(th[4]) * DY
  v <- -sin(th[4]) * DX + cos(th[4]) * DY
  h <- sqrt(u^2 + (th[5] * v)^2) / th[2]
  S <- th[1] * 2^(1 - th[3]) / gamma(th[3]) * h^th[3] * besselK(h, th[3])
  S[h == 0] <- th[1]
  diag(S) <- diag(S) + tau2
  S
}
data_file <- file.path(outdir, "aniso_n150.csv")
if (!file.exists(data_file)) {
  set.seed(2026)
  n <- 150
  x <- runif(n); y <- runif(n)
  S <- aniso_cov(x, y, c(1, 0.15, 0.8, 0.6, 3), 0.01)
  z <- drop(t(chol(S)) %*% rnorm(n))
  write_csv(data.frame(x = x, y = y, z = z), "aniso_n150.csv")
}
d <- read.csv(data_file)
n <- nrow(d)
loglik <- function(th, tau2, constant) {
  R <- chol(aniso_cov(d$x, d$y, th, tau2))
  w <- backsolve(R, d$z, transpose = TRUE)
  q <- sum(w^2)
  if (constant) {
    v <- backsolve(R, rep(1, n), transpose = TRUE)
    q <- q - sum(v * w)^2 / sum(v^2)
  }
  -0.5 * q - sum(log(diag(R))) - n / 2 * log(2 * pi)
}
cases <- rbind(
  c(1, 0.15, 0.8, 0.6, 3, 0.01),
  c(1.3, 0.1, 0.5, 0, 1, 0),
  c(0.8, 0.2, 1.5, 2.2, 1.8, 0.05),
  c(1.1, 0.25, 1.2, 3.0, 5, 0.02),
  c(0.9, 0.12, 0.8, 1.2, 2.5, 0)
)
rows <- lapply(seq_len(nrow(cases)), function(i) {
  th <- cases[i, 1:5]; tau2 <- cases[i, 6]
  data.frame(case = i, sigma2 = th[1], beta = th[2], nu = th[3], angle = th[4],
             ratio = th[5], tau2 = tau2, loglik = loglik(th, tau2, FALSE),
             loglik_constant = loglik(th, tau2, TRUE))
})
write_csv(do.call(rbind, rows), "loglik_aniso.csv")
