# Vecchia log-likelihood references from GpGp (Guinness et al., the R
# package "GpGp" 0.5.1), on OUR orderings and conditioning sets (the sets
# files that exageostat writes with --vecchia-sets-out), so that
# pkg/vecchia's tests can compare l, its gradient and Fisher information
# on identical sets.
#
#   Rscript testdata/r/vecchia_loglik.R data      # 1. the data (written once, read back after)
#   go test ./pkg/vecchia/neighbors -run TestGpGpSetsFiles -update   # 2. our sets files
#   R_LIBS=/path/to/lib Rscript testdata/r/vecchia_loglik.R   # 3. the references
#
# Run from the repository root. Step 3 needs GpGp installed in a library of
# yours (it is for comparison only, never a dependency of the project; see
# testdata/r/README.md for how it was built): this script loads it and
# builds nothing. Base R recomputes every meanzero l independently (dense
# conditionals with besselK) as a check of GpGp and of the parameter
# mapping below, and the ordering and the conditioning sets by brute
# force (they must be the file's). GpGp's own find_ordered_nn is printed
# for information only: it jitters the locations by 1e-4 of their spread
# (rnorm, unseeded), so near-ties go either way (0 to 1.2 % of the rows
# differed between runs here).
#
# Parametrisation. GpGp's matern_isotropic(covparms = (s2, a, nu, g)) is
#   C(r) = s2 2^(1-nu)/Gamma(nu) (r/a)^nu K_nu(r/a) + s2 g [r = 0],
# and exponential_isotropic(s2, a, g) is s2 exp(-r/a) + s2 g [r = 0]: no
# sqrt(2 nu) in the scale (as ExaGeoStat), and the nugget is a RATIO g to
# the variance. ExaGeoStat's theta = (sigma2, beta, nu, tau2) with tau2 the
# nugget variance maps to covparms = (sigma2, beta, nu, tau2/sigma2).
# GpGp's gradient and information are with respect to covparms; with
# p = covparms(theta), dp/dtheta = J (J[4,1] = -tau2/sigma2^2,
# J[4,4] = 1/sigma2, identity elsewhere), grad_theta = J' grad_p and
# info_theta = J' info_p J (both written). GpGp caps nu at 8.
#
# The sets file lists, per location in the ordering, its position, its data
# row and its neighbours' rows (1-based). NNarray[k, ] = (k, pos(rows)) for
# the data reordered by the rows; NNarray[, 1:(m+1)] is the set of size m
# (the files hold m = 30, nearest first, so the first 10 are the m = 10
# sets).
#
# Outputs (testdata/r/):
#   vecchia_loglik.json: per case (data, m, covfun, case, theta, covparms):
#     - loglik_meanzero: vecchia_meanzero_loglik (zero mean, ungrouped);
#     - loglik_meanzero_base_r: the same by base R (dense conditionals);
#     - loglik, beta_hat, grad_*, info_*: vecchia_profbeta_loglik_grad_info
#       with X = 1 (constant mean, GLS-profiled, no REML, ungrouped): l,
#       the mean, the gradient and the Fisher information in covparms and
#       in theta (over theta_names: nu is not a parameter of the
#       exponential).
#     GpGp's grouped likelihoods are not written: its grouping
#     (group_obs) is not pkg/vecchia's, so they would compare nothing.
options(digits = 17)
args <- commandArgs(trailingOnly = TRUE)
outdir <- "testdata/r"
stopifnot(dir.exists(outdir))
datasets <- c(n500 = 500)

source(file.path(outdir, "helpers.R"))   # num2str, to_json, read_sets

# ---------------------------------------------------------------- 1. data
# Uniform locations in the unit square (set.seed(29 + n), 10 digits), z = 2 + W + e, W
# exponential (sigma2 = 1, beta = 0.1), e ~ N(0, 0.1): dense Cholesky.
for (nm in names(datasets)) {
  f <- file.path(outdir, paste0("vecchia_", nm, ".csv"))
  if (file.exists(f)) next
  n <- datasets[[nm]]
  set.seed(29 + n)
  x <- signif(runif(n), 10); y <- signif(runif(n), 10)   # 10 digits: a small file
  D <- sqrt(outer(x, x, "-")^2 + outer(y, y, "-")^2)
  S <- exp(-D / 0.1); diag(S) <- diag(S) + 0.1
  z <- signif(2 + drop(t(chol(S)) %*% rnorm(n)), 10)
  write.csv(data.frame(x = num2str(x), y = num2str(y), z = num2str(z)), f, row.names = FALSE, quote = FALSE)
  cat("wrote", f, "\n")
}
if ("data" %in% args) quit(save = "no")

# ---------------------------------------------------------------- 2. references
suppressPackageStartupMessages(library(GpGp))
cat("GpGp", as.character(packageVersion("GpGp")), "\n")

maxmin_bf <- function(L) {
  n <- nrow(L); c0 <- colMeans(L)
  p <- which.min((L[, 1] - c0[1])^2 + (L[, 2] - c0[2])^2)
  near <- rep(Inf, n); done <- rep(FALSE, n); out <- integer(n)
  for (k in seq_len(n)) {
    out[k] <- p; done[p] <- TRUE
    near <- pmin(near, (L[p, 1] - L[, 1])^2 + (L[p, 2] - L[, 2])^2)
    near[done] <- -1
    p <- which.max(near)
  }
  out
}

# Base R: sum over k of log N(z_k | conditional mean, variance) on the set.
base_vecchia <- function(covparms, nu_free, locs, z, NN) {
  cv <- function(d) {
    h <- d / covparms[2]
    if (!nu_free) return(covparms[1] * exp(-h))
    nu <- covparms[3]
    out <- covparms[1] * 2^(1 - nu) / gamma(nu) * h^nu * besselK(h, nu)
    out[d == 0] <- covparms[1]
    out
  }
  g <- covparms[length(covparms)]
  l <- 0
  for (k in seq_len(nrow(NN))) {
    idx <- rev(NN[k, !is.na(NN[k, ])])   # the neighbours, then k last
    L <- locs[idx, , drop = FALSE]
    D <- sqrt(outer(L[, 1], L[, 1], "-")^2 + outer(L[, 2], L[, 2], "-")^2)
    S <- cv(D); diag(S) <- diag(S) + covparms[1] * g
    R <- chol(S)
    e <- backsolve(R, z[idx], transpose = TRUE)
    q <- length(idx)
    l <- l - 0.5 * (log(2 * pi) + 2 * log(R[q, q]) + e[q]^2)
  }
  l
}

# d covparms / d theta, over (sigma2, beta, nu, tau2) for matern_isotropic
# (k = 4) and (sigma2, beta, tau2) for exponential_isotropic (k = 3).
jac <- function(theta, k) {
  J <- diag(k); J[k, 1] <- -theta[4] / theta[1]^2; J[k, k] <- 1 / theta[1]; J
}

cases <- list(
  list(covfun = "exponential_isotropic", theta = c(1, 0.1, 0.5, 0.1)),
  list(covfun = "matern_isotropic", theta = c(1.5, 0.05, 1.3, 0.03)),
  list(covfun = "matern_isotropic", theta = c(0.8, 0.2, 0.7, 0.4)),
  list(covfun = "matern_isotropic", theta = c(1, 0.1, 0.5, 0.1))
)
js <- list()
for (nm in names(datasets)) {
  d <- read.csv(file.path(outdir, paste0("vecchia_", nm, ".csv")))
  s <- read_sets(file.path(outdir, paste0("vecchia_", nm, "_sets.txt")))
  locs <- as.matrix(d[s$row, c("x", "y")]); z <- d$z[s$row]; X <- matrix(1, nrow(d), 1)
  # Independent checks of the sets: brute force in base R on our ordering
  # (the m nearest earlier points, nearest first, must be the file's), and
  # GpGp's own find_ordered_nn (jittered: printed only).
  m_file <- ncol(s$NN) - 1
  bf_ok <- vapply(seq_len(nrow(locs)), function(k) {
    if (k == 1) return(all(is.na(s$NN[1, -1])))
    dd <- sqrt(colSums((t(locs[1:(k - 1), , drop = FALSE]) - locs[k, ])^2))
    identical(as.integer(order(dd)[seq_len(min(m_file, k - 1))]), as.integer(na.omit(s$NN[k, -1])))
  }, TRUE)
  stopifnot(all(bf_ok))
  # The ordering: maxmin by its definition (first the point nearest to the
  # centroid, then each time the point farthest from those ordered; ties
  # to the smaller row) must be the file's.
  stopifnot(identical(maxmin_bf(as.matrix(d[, c("x", "y")])), s$row))
  nn_gpgp <- find_ordered_nn(locs, m = m_file)
  same <- mean(vapply(seq_len(nrow(locs)), function(k)
    identical(sort(na.omit(nn_gpgp[k, ])), sort(na.omit(s$NN[k, ]))), TRUE))
  cat(nm, ": ordering = maxmin by brute force in R; sets equal to brute force in R: all; to GpGp's find_ordered_nn:", same, "\n")
  for (m in c(10, 30)) {
    NN <- s$NN[, 1:(m + 1)]
    for (ci in seq_along(cases)) {
      cs <- cases[[ci]]; th <- cs$theta
      p <- if (cs$covfun == "matern_isotropic") c(th[1:3], th[4] / th[1]) else c(th[1:2], th[4] / th[1])
      l0 <- vecchia_meanzero_loglik(p, cs$covfun, z, locs, NN)$loglik
      lb <- base_vecchia(p, cs$covfun == "matern_isotropic", locs, z, NN)
      cat(sprintf("%s m=%d case %d %s: l %.12f base R %.12f (rel %.1e)\n", nm, m, ci, cs$covfun, l0, lb, abs(l0 - lb) / abs(l0)))
      gi <- vecchia_profbeta_loglik_grad_info(p, cs$covfun, z, X, locs, NN)
      e <- list(data = I(nm), m = I(m), covfun = I(cs$covfun), case = I(ci), theta = th, covparms = p,
                loglik_meanzero = I(l0), loglik_meanzero_base_r = I(lb), loglik = I(gi$loglik),
                beta_hat = I(gi$betahat[1]), grad_covparms = drop(gi$grad), info_covparms = gi$info)
      J <- jac(th, length(p))
      e$theta_names <- if (length(p) == 4) c("sigma2", "beta", "nu", "tau2") else c("sigma2", "beta", "tau2")
      e$grad_theta <- drop(t(J) %*% drop(gi$grad)); e$info_theta <- t(J) %*% gi$info %*% J
      js[[length(js) + 1]] <- e
    }
  }
}
writeLines(to_json(js), file.path(outdir, "vecchia_loglik.json"))
cat("wrote vecchia_loglik.json\n")
