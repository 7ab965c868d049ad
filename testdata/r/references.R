# R reference values for issue 19: Matérn + nugget with a mean model (profile
# and restricted likelihood, GLS coefficients), the maxima on real data,
# universal kriging, and ExaGeoStat's space-time and bivariate kernels.
#
#   OPENBLAS_NUM_THREADS=1 Rscript testdata/r/references.R   # everything
#   Rscript testdata/r/references.R nofits     # skip the maximisations (b)
#
# Run from the repository root. Needs r-base-core (besselK, chol, optim) and,
# for the cross-checks only, r-cran-fields and r-cran-randomfields
# (scripts/install-r.sh). The data it simulates (synth_n200.csv, st_n100.csv,
# biv_n80.csv) are written once and read back when they exist, so a rerun
# reproduces the committed values from the committed data.
#
# Conventions (the project's, docs: /work/shared/FACTS.md):
#   Matérn  C(r) = sigma2 2^(1-nu)/Gamma(nu) (r/beta)^nu K_nu(r/beta), C(0) = sigma2
#           (no sqrt(2 nu) in the scale).
#   Nugget  Sigma = C + tau2 I (tau2 on the diagonal only).
#   Distance: Euclidean in the file's units; for lon/lat files great-circle by
#           haversine, R = 6371 km, degrees, x = lon, y = lat.
#   Log-likelihood of z ~ N(X b, Sigma), n observations, p = ncol(X):
#     zero mean (p = 0):  l = -1/2 z' S^-1 z - 1/2 log|S| - n/2 log(2 pi)
#     profile (GLS):      b_hat = (X'S^-1X)^-1 X'S^-1 z,  r = z - X b_hat,
#                         l_P = -1/2 r' S^-1 r - 1/2 log|S| - n/2 log(2 pi)
#     REML (default):     l_R = -1/2 [ (n-p) log(2 pi) + log|S| + log|X'S^-1X| + r'S^-1 r ]
#                         (no log|X'X| term: depends on how X is scaled; X is
#                          built from the raw file columns, see below)
#     REML with X'X:      l_RX = l_R + 1/2 log|X'X|   (the likelihood of the
#                          error contrasts A'z with A'A = I, A'X = 0; invariant
#                          to X -> X T for invertible T)
#     Cov(b_hat) = (X'S^-1X)^-1.
#   Mean models: zero (no X), constant X = 1, linear X = (1, x, y) with x, y the
#   raw coordinates of the file (metres for meuse, unit square for synth),
#   covariates X = (1, named columns).
options(digits = 17)
args <- commandArgs(trailingOnly = TRUE)
do_fits <- !("nofits" %in% args)
outdir <- "testdata/r"
realdir <- "testdata/real"
stopifnot(dir.exists(outdir), dir.exists(realdir))

# ---------------------------------------------------------------- helpers
source(file.path(outdir, "helpers.R"))   # num2str, to_json
write_csv <- function(df, name) {
  f <- file.path(outdir, name)
  df[] <- lapply(df, function(c) if (is.numeric(c)) num2str(c) else c)
  write.csv(df, f, row.names = FALSE, quote = FALSE)
  cat("wrote", f, "\n")
}

matern <- function(d, sigma2, beta, nu) {
  h <- d / beta
  if (nu == 0.5) return(sigma2 * exp(-h))     # the same function, exactly
  out <- sigma2 * 2^(1 - nu) / gamma(nu) * h^nu * besselK(h, nu)
  out[d == 0] <- sigma2
  out
}
haversine <- function(lon1, lat1, lon2, lat2) {
  rad <- pi / 180
  u <- sin((lat2 - lat1) * rad / 2)
  v <- sin((lon2 - lon1) * rad / 2)
  2 * 6371 * asin(pmin(1, sqrt(u * u + cos(lat1 * rad) * cos(lat2 * rad) * v * v)))
}
# distance matrix between the rows of a (n x 2) and b (m x 2)
distmat <- function(a, b = a, metric = c("euclidean", "gc")) {
  metric <- match.arg(metric)
  a <- as.matrix(a); b <- as.matrix(b)
  if (metric == "euclidean")
    return(sqrt(outer(a[, 1], b[, 1], "-")^2 + outer(a[, 2], b[, 2], "-")^2))
  outer(seq_len(nrow(a)), seq_len(nrow(b)),
        function(i, j) haversine(a[i, 1], a[i, 2], b[j, 1], b[j, 2]))
}

# Full log-likelihoods at theta = (sigma2, beta, nu, tau2) for a given X
# (NULL = zero mean). Returns the profile, REML and REML-with-X'X values and
# the GLS coefficients with their covariance.
loglik <- function(theta, z, D, X = NULL) {
  n <- length(z)
  S <- matern(D, theta[1], theta[2], theta[3])
  diag(S) <- diag(S) + theta[4]
  R <- chol(S)                                # S = R'R
  logdet <- 2 * sum(log(diag(R)))
  zt <- backsolve(R, z, transpose = TRUE)     # R'^-1 z
  c0 <- n * log(2 * pi)
  if (is.null(X)) {
    l <- -0.5 * (sum(zt^2) + logdet + c0)
    return(list(profile = l, reml = l, reml_xx = l, b = numeric(0), cov = matrix(0, 0, 0)))
  }
  X <- as.matrix(X); p <- ncol(X)
  Xt <- backsolve(R, X, transpose = TRUE)     # R'^-1 X
  q <- qr(Xt)
  b <- qr.coef(q, zt)
  r <- zt - Xt %*% b
  quad <- sum(r^2)
  ldXSX <- 2 * sum(log(abs(diag(qr.R(q)))))   # log|X'S^-1X|
  ldXX <- 2 * sum(log(abs(diag(qr.R(qr(X))))))  # log|X'X|
  Ri <- backsolve(qr.R(q), diag(p))           # (X'S^-1X)^-1 = Ri Ri'
  cv <- Ri %*% t(Ri)
  cv <- cv[order(q$pivot), order(q$pivot), drop = FALSE]
  lp <- -0.5 * (quad + logdet + c0)
  lr <- -0.5 * ((n - p) * log(2 * pi) + logdet + ldXSX + quad)
  list(profile = lp, reml = lr, reml_xx = lr + 0.5 * ldXX, b = as.vector(b), cov = cv)
}

design <- function(mean, dat) {
  switch(mean,
    zero = NULL,
    constant = matrix(1, nrow(dat), 1, dimnames = list(NULL, "1")),
    linear = cbind("1" = 1, x = dat[[1]], y = dat[[2]]),
    {
      cols <- strsplit(sub("^covariates:", "", mean), "+", fixed = TRUE)[[1]]
      cbind("1" = 1, as.matrix(dat[, cols]))
    })
}

# ---------------------------------------------------------------- data
# Synthetic: 200 uniform points in the unit square, z = 2 + x - 0.5 y + W + e,
# W Matérn(sigma2 = 1, beta = 0.1, nu = 0.5), e ~ N(0, 0.1).
synth_file <- file.path(outdir, "synth_n200.csv")
if (!file.exists(synth_file)) {
  set.seed(19)
  n <- 200
  x <- runif(n); y <- runif(n)
  S <- matern(distmat(cbind(x, y)), 1, 0.1, 0.5)
  z <- 2 + x - 0.5 * y + drop(t(chol(S)) %*% rnorm(n)) + sqrt(0.1) * rnorm(n)
  write_csv(data.frame(x = x, y = y, z = z), "synth_n200.csv")
}
synth <- read.csv(synth_file)
meuse <- read.csv(file.path(realdir, "meuse.csv"))
rmprecip <- read.csv(file.path(realdir, "rmprecip.csv"))
Dsynth <- distmat(synth[, 1:2])
Dmeuse <- distmat(meuse[, 1:2])
Dprecip <- distmat(rmprecip[, 1:2], metric = "gc")

# ---------------------------------------------------------------- (a) logliks
thetas <- list(
  synth = rbind(c(1, 0.1, 0.5, 0.1), c(0.8, 0.05, 1.0, 0.2),
                c(1.5, 0.2, 0.73, 0.01), c(1.2, 0.08, 1.5, 0)),
  meuse = rbind(c(0.6, 300, 0.5, 0.05), c(0.5, 150, 1.0, 0.1),
                c(0.7, 500, 0.35, 0.02), c(0.4, 200, 1.5, 0.08)))
sets <- list(synth = list(dat = synth, D = Dsynth,
                          means = c("zero", "constant", "linear")),
             meuse = list(dat = meuse, D = Dmeuse,
                          means = c("zero", "constant", "linear", "covariates:dist+elev")))
rows <- list(); gls <- list()
for (nm in names(sets)) {
  s <- sets[[nm]]; th <- thetas[[nm]]
  for (mean in s$means) for (k in seq_len(nrow(th))) {
    X <- design(mean, s$dat)
    L <- loglik(th[k, ], s$dat$z, s$D, X)
    rows[[length(rows) + 1]] <- data.frame(
      data = nm, mean = mean, case = k, sigma2 = th[k, 1], beta = th[k, 2],
      nu = th[k, 3], tau2 = th[k, 4], n = nrow(s$dat), p = if (is.null(X)) 0 else ncol(X),
      loglik = L$profile, loglik_reml = L$reml, loglik_reml_xx = L$reml_xx)
    if (!is.null(X))
      gls[[length(gls) + 1]] <- list(data = I(nm), mean = I(mean), case = I(k),
        theta = th[k, ], names = colnames(X), beta_hat = L$b,
        se = sqrt(diag(L$cov)), cov = unname(L$cov), kappa_cov = I(kappa(L$cov, exact = TRUE)))
  }
}
write_csv(do.call(rbind, rows), "loglik_mean.csv")
writeLines(to_json(gls), file.path(outdir, "gls.json"))
cat("wrote", file.path(outdir, "gls.json"), "\n")

# ---------------------------------------------------------------- (c) kriging
# Universal kriging at 20 new points (uniform, seed 1919) at theta_k = case 1.
# pred = x0'b_hat + c0'S^-1 (z - X b_hat)
# var_field = sigma2 - c0'S^-1 c0 + u'(X'S^-1X)^-1 u,  u = x0 - X'S^-1 c0
#   (the error variance of predicting the noiseless field W + mean at x0)
# var_obs = var_field + tau2 (predicting a new measurement at x0).
# zero mean: simple kriging, pred = c0'S^-1 z, var_field = sigma2 - c0'S^-1 c0.
set.seed(1919)
newloc <- data.frame(x = runif(20), y = runif(20))
th <- thetas$synth[1, ]
S <- matern(Dsynth, th[1], th[2], th[3]); diag(S) <- diag(S) + th[4]
Si <- chol2inv(chol(S))
C0 <- matern(distmat(synth[, 1:2], newloc), th[1], th[2], th[3])   # n x 20
kr <- list()
for (mean in c("zero", "constant", "linear")) {
  X <- design(mean, synth); X0 <- design(mean, newloc)
  z <- synth$z
  if (is.null(X)) {
    pred <- drop(t(C0) %*% Si %*% z)
    vf <- th[1] - colSums(C0 * (Si %*% C0))
  } else {
    A <- t(X) %*% Si %*% X; Ai <- solve(A)
    b <- Ai %*% t(X) %*% Si %*% z
    pred <- drop(X0 %*% b + t(C0) %*% Si %*% (z - X %*% b))
    U <- t(X0) - t(X) %*% Si %*% C0                                   # p x 20
    vf <- th[1] - colSums(C0 * (Si %*% C0)) + colSums(U * (Ai %*% U))
  }
  kr[[mean]] <- data.frame(mean = mean, x = newloc$x, y = newloc$y, pred = pred,
                           var_field = vf, var_obs = vf + th[4])
}
kr <- do.call(rbind, kr)
write_csv(data.frame(sigma2 = th[1], beta = th[2], nu = th[3], tau2 = th[4], kr),
          "kriging_synth.csv")

# ---------------------------------------------------------------- (d) ExaGeoStat kernels
# Space-time: ExaGeoStat "univariate_spacetime_matern_stationary" (exact
# version, core_dcmg_spacetime_matern in cpu_core/compute/core_zcmg.c),
# Gneiting (2002) eq. (16) with d = 2. theta = (sigma2, a_s, nu, a_t, alpha,
# b, delta): variance, spatial range, spatial smoothness, temporal range,
# temporal smoothness, non-separability, auxiliary time parameter. With h the
# spatial distance and u the time lag,
#   psi(u)  = |u|^(2 alpha) / a_t + 1
#   C(h, u) = sigma2 / psi(u)^(b + delta) * M_nu( h / (a_s psi(u)^(b/2)) ),
#   M_nu(s) = 2^(1-nu)/Gamma(nu) s^nu K_nu(s),  M_nu(0) = 1.
# Note a_t DIVIDES |u|^(2 alpha) (Gneiting writes a |u|^(2 alpha)), and the
# exponent b + delta is Gneiting's delta + b d/2 with d = 2. Valid for
# alpha in (0, 1], b in [0, 1], delta >= 0. Spatial distance uses x, y only
# (ExaGeoStat's z_flag = 1); the time column is the third one.
st_cov <- function(D, U, th) {
  psi <- abs(U)^(2 * th[5]) / th[4] + 1
  h <- D / (th[2] * psi^(th[6] / 2))
  M <- 2^(1 - th[3]) / gamma(th[3]) * h^th[3] * besselK(h, th[3])
  M[h == 0] <- 1
  th[1] * M / psi^(th[6] + th[7])
}
# Bivariate parsimonious Matérn: ExaGeoStat "bivariate_matern_parsimonious"
# (core_dcmg_bivariate_parsimonious), Gneiting, Kleiber & Schlather (2010).
# theta = (sigma2_1, sigma2_2, a, nu_1, nu_2, rho_par):
#   C_ii(r) = sigma2_i M_{nu_i}(r / a),  C_12(r) = rho sigma_1 sigma_2 M_{nu12}(r / a),
#   nu12 = (nu_1 + nu_2)/2,
#   rho = rho_par * sqrt(Gamma(nu_1+1) Gamma(nu_2+1) / (Gamma(nu_1) Gamma(nu_2)))
#                 * Gamma(nu12) / Gamma(nu12+1)  = rho_par sqrt(nu_1 nu_2) / nu12.
# So ExaGeoStat's sixth parameter is NOT the co-located correlation: the
# co-located correlation is rho = rho_par sqrt(nu_1 nu_2)/nu12 (GKS's bound for
# d = 2 times rho_par); |rho_par| <= 1 is the validity condition.
# ExaGeoStat orders the 2N vector location by location (z1(s1), z2(s1),
# z1(s2), ...); l does not depend on the order if z is permuted with Sigma.
biv_cov <- function(D, th) {
  M <- function(nu) { h <- D / th[3]; m <- 2^(1 - nu) / gamma(nu) * h^nu * besselK(h, nu); m[h == 0] <- 1; m }
  nu12 <- (th[4] + th[5]) / 2
  rho <- th[6] * sqrt(gamma(th[4] + 1) * gamma(th[5] + 1) / (gamma(th[4]) * gamma(th[5]))) *
    gamma(nu12) / gamma(nu12 + 1)
  n <- nrow(D)
  S <- matrix(0, 2 * n, 2 * n)
  i1 <- seq(1, 2 * n, 2); i2 <- i1 + 1
  S[i1, i1] <- th[1] * M(th[4])
  S[i2, i2] <- th[2] * M(th[5])
  S[i1, i2] <- S[i2, i1] <- rho * sqrt(th[1] * th[2]) * M(nu12)
  S
}
ll_zero <- function(S, z) {
  R <- chol(S); zt <- backsolve(R, z, transpose = TRUE)
  -0.5 * sum(zt^2) - sum(log(diag(R))) - length(z) / 2 * log(2 * pi)
}

st_file <- file.path(outdir, "st_n100.csv")
st_true <- c(1, 0.1, 0.5, 0.5, 0.9, 0.6, 0.2)
if (!file.exists(st_file)) {
  # 20 uniform locations in the unit square observed at times 1..5 (x,y,t).
  set.seed(20)
  loc <- cbind(runif(20), runif(20))
  d <- data.frame(x = rep(loc[, 1], 5), y = rep(loc[, 2], 5), t = rep(1:5, each = 20))
  S <- st_cov(distmat(d[, 1:2]), outer(d$t, d$t, "-"), st_true)
  d$z <- drop(t(chol(S)) %*% rnorm(100))
  write_csv(d, "st_n100.csv")
}
st <- read.csv(st_file)
Dst <- distmat(st[, 1:2]); Ust <- outer(st$t, st$t, "-")
st_thetas <- rbind(st_true, c(1.3, 0.2, 1.0, 1.5, 0.5, 0.3, 0.5), c(0.7, 0.05, 0.35, 0.8, 1.0, 1.0, 0))
st_rows <- do.call(rbind, lapply(1:3, function(k) {
  th <- st_thetas[k, ]
  data.frame(case = k, sigma2 = th[1], range_s = th[2], nu_s = th[3], range_t = th[4],
             alpha_t = th[5], nonsep = th[6], delta = th[7],
             loglik = ll_zero(st_cov(Dst, Ust, th), st$z))
}))
write_csv(st_rows, "loglik_spacetime.csv")

biv_file <- file.path(outdir, "biv_n80.csv")
biv_true <- c(1, 2, 0.1, 0.5, 1.2, 0.6)
if (!file.exists(biv_file)) {
  set.seed(21)
  loc <- cbind(runif(80), runif(80))
  S <- biv_cov(distmat(loc), biv_true)
  v <- drop(t(chol(S)) %*% rnorm(160))
  write_csv(data.frame(x = loc[, 1], y = loc[, 2], z1 = v[seq(1, 160, 2)],
                       z2 = v[seq(2, 160, 2)]), "biv_n80.csv")
}
biv <- read.csv(biv_file)
Dbiv <- distmat(biv[, 1:2])
zbiv <- as.vector(rbind(biv$z1, biv$z2))     # z1(s1), z2(s1), z1(s2), ...
biv_thetas <- rbind(biv_true, c(0.5, 1.5, 0.2, 1.5, 0.5, -0.4), c(1.2, 0.8, 0.05, 0.8, 0.8, 0.9))
biv_rows <- do.call(rbind, lapply(1:3, function(k) {
  th <- biv_thetas[k, ]
  nu12 <- (th[4] + th[5]) / 2
  data.frame(case = k, sigma2_1 = th[1], sigma2_2 = th[2], range = th[3], nu_1 = th[4],
             nu_2 = th[5], rho_par = th[6], rho_colocated = th[6] * sqrt(th[4] * th[5]) / nu12,
             loglik = ll_zero(biv_cov(Dbiv, th), zbiv))
}))
write_csv(biv_rows, "loglik_bivariate.csv")

# Cross-check of the bivariate kernel with RandomFields (an independent
# implementation): RMbiwm with nudiag = (nu1, nu2), nured12 = 1 (nu12 the
# mean), s = (a, a, a), cdiag = (sigma2_1, sigma2_2), rhored = rho_par.
if (requireNamespace("RandomFields", quietly = TRUE)) {
  suppressMessages(library(RandomFields))
  RFoptions(printlevel = 0, spConform = FALSE)
  for (k in 1:3) {
    th <- biv_thetas[k, ]
    m <- RMbiwm(nudiag = th[4:5], nured12 = 1, s = rep(th[3], 3), cdiag = th[1:2], rhored = th[6])
    Srf <- RFcovmatrix(m, x = as.matrix(biv[, 1:2]))
    Smine <- biv_cov(Dbiv, th)
    # RandomFields orders the vector variable by variable: permute.
    perm <- c(seq(1, 160, 2), seq(2, 160, 2))
    cat(sprintf("bivariate case %d: max |Sigma_RandomFields - Sigma| = %.3g, l(RF) - l = %.3g\n",
                k, max(abs(Srf - Smine[perm, perm])),
                ll_zero(Srf, zbiv[perm]) - biv_rows$loglik[k]))
  }
}

# ---------------------------------------------------------------- (b) maxima
# Matérn + nugget + constant mean, ML (profile) and REML, nu fixed at 0.5 and
# nu free. Search over phi = log(beta, g = tau2/sigma2[, nu]) with sigma2 and
# the mean profiled out in closed form (S = sigma2 (Corr + g I) = sigma2 Rg):
#   ML:   sigma2_hat = r'Rg^-1 r / n,       l = -n/2 (log(2 pi sigma2_hat) + 1) - 1/2 log|Rg|
#   REML: sigma2_hat = r'Rg^-1 r / (n - p), l_R = -(n-p)/2 (log(2 pi sigma2_hat) + 1)
#                                              - 1/2 log|Rg| - 1/2 log|X'Rg^-1 X|
# (r = z - X b_hat, b_hat the GLS estimate, which does not depend on sigma2).
# optim L-BFGS-B from 4 starts (nu fixed: beta at two values x g in
# {0.03, 0.5}; nu free: beta at two values x nu in {0.5, 1.5}, g = 0.1), then
# L-BFGS-B (factr = 1), Nelder-Mead and L-BFGS-B again from the best; the reported l_max is the full (unprofiled) loglik() at
# theta_hat = (sigma2_hat, beta, nu, g sigma2_hat) and b_hat.
# Only the upper triangle of the correlation matrix is computed: R's chol()
# reads only the upper triangle. P = list(v = D[upper.tri(D)], ut = upper.tri(D)).
corr_upper <- function(P, beta, nu, g) {
  M <- diag(1 + g, nrow(P$ut))
  M[P$ut] <- matern(P$v, 1, beta, nu)
  M
}
prof <- function(phi, z, P, X, reml, nu_fixed) {
  beta <- exp(phi[1]); g <- exp(phi[2]); nu <- if (is.na(nu_fixed)) exp(phi[3]) else nu_fixed
  n <- length(z); p <- ncol(X)
  R <- tryCatch(chol(corr_upper(P, beta, nu, g)), error = function(e) NULL)
  if (is.null(R)) return(-1e300)
  zt <- backsolve(R, z, transpose = TRUE); Xt <- backsolve(R, X, transpose = TRUE)
  q <- qr(Xt); r <- qr.resid(q, zt); quad <- sum(r^2)
  ld <- 2 * sum(log(diag(R)))
  if (!reml) return(-n / 2 * (log(2 * pi * quad / n) + 1) - ld / 2)
  -(n - p) / 2 * (log(2 * pi * quad / (n - p)) + 1) - ld / 2 - sum(log(abs(diag(qr.R(q)))))
}
theta_of <- function(phi, z, P, X, reml, nu_fixed) {
  beta <- exp(phi[1]); g <- exp(phi[2]); nu <- if (is.na(nu_fixed)) exp(phi[3]) else nu_fixed
  R <- chol(corr_upper(P, beta, nu, g))
  zt <- backsolve(R, z, transpose = TRUE); Xt <- backsolve(R, X, transpose = TRUE)
  quad <- sum(qr.resid(qr(Xt), zt)^2)
  s2 <- quad / (length(z) - if (reml) ncol(X) else 0)
  c(sigma2 = s2, beta = beta, nu = nu, tau2 = g * s2)
}
fit_one <- function(z, P, X, reml, nu_fixed, box) {
  free_nu <- is.na(nu_fixed)
  lo <- log(c(box$beta[1], box$g[1], if (free_nu) box$nu[1]))
  hi <- log(c(box$beta[2], box$g[2], if (free_nu) box$nu[2]))
  evals <- 0
  f <- function(phi) { evals <<- evals + 1; -prof(phi, z, P, X, reml, nu_fixed) }
  fbox <- function(phi) if (any(phi < lo | phi > hi)) 1e300 else f(phi)
  starts <- if (free_nu) expand.grid(b = log(box$beta_starts), g = log(0.1), nu = log(c(0.5, 1.5)))
            else expand.grid(b = log(box$beta_starts), g = log(c(0.03, 0.5)))
  best <- NULL; ends <- numeric(0)
  for (i in seq_len(nrow(starts))) {
    o <- optim(unlist(starts[i, ]), f, method = "L-BFGS-B", lower = lo, upper = hi)
    ends <- c(ends, o$value)
    if (is.null(best) || o$value < best$value) best <- o
  }
  # polish inside the box: L-BFGS-B to machine tolerance (central differences,
  # step 1e-5 in log parameters), then Nelder-Mead; keep the best
  o2 <- optim(best$par, f, method = "L-BFGS-B", lower = lo, upper = hi,
              control = list(factr = 1, pgtol = 0, maxit = 1000, ndeps = rep(1e-5, length(lo))))
  o3 <- optim(o2$par, fbox, method = "Nelder-Mead", control = list(reltol = 1e-15, maxit = 400))
  o4 <- optim(o3$par, f, method = "L-BFGS-B", lower = lo, upper = hi,
              control = list(factr = 1, pgtol = 0, maxit = 1000, ndeps = rep(1e-5, length(lo))))
  fin <- best
  for (o in list(o2, o3, o4)) if (o$value < fin$value) fin <- o
  # central-difference gradient of l in the log parameters at the end point
  # (one-sided inwards at a bound)
  gr <- sapply(seq_along(fin$par), function(j) {
    e <- replace(numeric(length(fin$par)), j, 1e-5)
    if (fin$par[j] + 1e-5 > hi[j]) return((f(fin$par - e) - f(fin$par)) / 1e-5)
    if (fin$par[j] - 1e-5 < lo[j]) return((f(fin$par) - f(fin$par + e)) / 1e-5)
    (f(fin$par - e) - f(fin$par + e)) / 2e-5
  })
  bound <- abs(fin$par - lo) < 1e-6 | abs(fin$par - hi) < 1e-6
  list(phi = fin$par, lmax_prof = -fin$value, grad = gr[!bound], evals = evals,
       at_bound = paste(c("beta", "g", "nu")[seq_along(lo)][bound], collapse = "+"),
       starts_near = sum(ends - min(ends) < 1e-4), starts = length(ends))
}
if (do_fits) {
  fits <- list(); fj <- list()
  # The search box (the reference is the maximum inside it; at_bound names
  # the parameters that end on a bound): g = tau2/sigma2, beta in the data's
  # distance unit.
  fsets <- list(meuse = list(dat = meuse, D = Dmeuse, metric = "euclidean (m)",
                             box = list(beta = c(1, 1e4), g = c(1e-8, 100), nu = c(0.05, 8),
                                        beta_starts = c(200, 1000))),
                rmprecip = list(dat = rmprecip, D = Dprecip, metric = "great-circle (km)",
                                box = list(beta = c(0.5, 5000), g = c(1e-8, 100), nu = c(0.05, 8),
                                           beta_starts = c(50, 300))))
  jobs <- expand.grid(nuf = c(0.5, NA), reml = c(FALSE, TRUE), nm = names(fsets),
                      stringsAsFactors = FALSE)
  one <- function(i) {
    nm <- jobs$nm[i]; reml <- jobs$reml[i]; nuf <- jobs$nuf[i]
    s <- fsets[[nm]]; X <- design("constant", s$dat)
    P <- list(v = s$D[upper.tri(s$D)], ut = upper.tri(s$D))
    t0 <- proc.time()[3]
    F <- fit_one(s$dat$z, P, X, reml, nuf, s$box)
    th <- theta_of(F$phi, s$dat$z, P, X, reml, nuf)
    L <- loglik(th, s$dat$z, s$D, X)
    lfull <- if (reml) L$reml else L$profile
    msg <- sprintf("%s %s nu=%s: l_max %.12f (profiled %.12f) |grad interior| %.2g evals %d starts %d/%d %.1fs: %s",
                   nm, if (reml) "REML" else "ML", if (is.na(nuf)) "free" else nuf,
                   lfull, F$lmax_prof, max(abs(F$grad), 0), F$evals, F$starts_near, F$starts,
                   proc.time()[3] - t0, paste(signif(th, 10), collapse = " "))
    list(msg = msg, row = data.frame(
      data = nm, distance = s$metric, mean = "constant", method = if (reml) "reml" else "ml",
      nu_fixed = if (is.na(nuf)) "free" else "0.5", n = nrow(s$dat),
      sigma2 = th[1], beta = th[2], nu = th[3], tau2 = th[4],
      mean_hat = L$b, mean_se = sqrt(L$cov[1, 1]),
      loglik_max = lfull, loglik_reml_xx = if (reml) L$reml_xx else NA,
      max_abs_grad_logparams = if (length(F$grad)) max(abs(F$grad)) else NA,
      at_bound = F$at_bound,
      beta_box = sprintf("[%g;%g]", s$box$beta[1], s$box$beta[2]),
      g_box = sprintf("[%g;%g]", s$box$g[1], s$box$g[2]),
      nu_box = if (is.na(nuf)) sprintf("[%g;%g]", s$box$nu[1], s$box$nu[2]) else "fixed",
      starts_within_1e4 = sprintf("%d/%d", F$starts_near, F$starts),
      evaluations = F$evals, row.names = NULL))
  }
  # the slow (rmprecip) fits first, 4 at a time in forked processes (only
  # with OPENBLAS_NUM_THREADS=1: a threaded OpenBLAS can hang after fork)
  cores <- if (Sys.getenv("OPENBLAS_NUM_THREADS") == "1") 4L else 1L
  res <- parallel::mclapply(rev(seq_len(nrow(jobs))), one, mc.cores = cores)
  res <- res[order(rev(seq_len(nrow(jobs))))]
  for (r in res) cat(r$msg, "\n")
  fits <- lapply(res, `[[`, "row")
  fits <- do.call(rbind, fits)
  write_csv(fits, "fits_real.csv")

  # Cross-check of the ML maxima with fields::mKrig (its own GLS and profile
  # likelihood code): lnProfileLike.FULL at our theta_hat, constant mean
  # (m = 1), lambda = tau2/sigma2, aRange = beta, smoothness = nu. Exact
  # distances are passed through a covariance function: fields' rdist
  # (|x|^2 + |y|^2 - 2 x'y) and rdist.earth (acos, default R = 6378.388 km)
  # give the diagonal 1e-3 m / 3e-5 km instead of 0, which moves l by 1e-5
  # at nu = 0.5 and 2e-2 at nu = 0.2. fields' "REML" (lnProfileREML = the ML
  # profile + 1/2 log|(X'Rg^-1X)^-1|, sigma2 = quad/n) is not the REML above,
  # so only the ML rows are compared.
  if (requireNamespace("fields", quietly = TRUE)) {
    suppressMessages(library(fields))
    exactCov <- function(x1, x2 = NULL, aRange, smoothness, metric, C = NA, marginal = FALSE, ...) {
      if (marginal) return(rep(1, nrow(x1)))
      if (is.null(x2)) x2 <- x1
      K <- matern(distmat(x1, x2, metric = metric), 1, aRange, smoothness)
      if (!is.na(C[1])) return(K %*% C)
      K
    }
    for (i in which(fits$method == "ml")) {
      r <- fits[i, ]; d <- fsets[[r$data]]$dat
      mk <- mKrig(as.matrix(d[, 1:2]), d$z, m = 1, lambda = r$tau2 / r$sigma2, cov.function = "exactCov",
                  cov.args = list(smoothness = r$nu, aRange = r$beta,
                                  metric = if (r$data == "meuse") "euclidean" else "gc"))
      cat(sprintf("fields::mKrig %s ML nu=%s: lnProfileLike.FULL %.12f, ours %.12f, relative difference %.2g; sigma2 %.12g, ours %.12g\n",
                  r$data, r$nu_fixed, mk$summary["lnProfileLike.FULL"], r$loglik_max,
                  mk$summary["lnProfileLike.FULL"] / r$loglik_max - 1, mk$summary["sigma2"], r$sigma2))
    }
  }
}
cat("R", R.version.string, "\n")
