# Profile-likelihood 95 % confidence intervals of the Matérn parameters
# (sigma2, beta, nu; zero mean, no nugget) on testdata/r/profile_n200.csv
# (simulated: exageostat simulate --n 200 --theta 1,0.1,0.5 --seed 3),
# computed densely with base R (besselK, chol, optim, uniroot): the
# independent reference of exageostat fit --ci profile.
#
#   Rscript testdata/r/profile_ci.R      (from the repository root; about 13
#   minutes on the shared 2-core box, most of it the effective range)
#
# l(theta) = -1/2 z'S^-1 z - 1/2 log|S| - n/2 log(2 pi),
# S_ij = sigma2 2^(1-nu)/Gamma(nu) (r/beta)^nu K_nu(r/beta), S_ii = sigma2.
# The interval of theta_j is {v : 2 (l_max - max_{theta_-j} l(v, theta_-j)) <= q},
# q = qchisq(0.95, 1); each end is the root of the profile minus l_max - q/2,
# searched in log v; the other parameters are maximised in log space by
# optim (BFGS) from three starts. Box: all parameters in [1e-3, 5] as the
# fit's default bounds (no end reaches them here).
#
# The effective range rho (the distance at which the correlation falls to
# 0.05) is beta c(nu), c(nu) the root of 2^(1-nu)/Gamma(nu) r^nu K_nu(r) =
# 0.05 (uniroot). Its interval is {rho : 2 (l_max - l_p(rho)) <= q} with
# l_p(rho) = max over (sigma2, nu) of l(sigma2, rho/c(nu), nu) (optim in
# log sigma2, log nu from three starts); the last row, param
# effective_range, with its estimate beta_hat c(nu_hat).
d <- read.csv("testdata/r/profile_n200.csv")
D <- as.matrix(dist(d[, c("x", "y")]))
z <- d$z
n <- length(z)
loglik <- function(th) {
  if (any(th < 1e-3) || any(th > 5)) return(-1e10) # the box of the fit
  h <- D / th[2]
  S <- th[1] * 2^(1 - th[3]) / gamma(th[3]) * h^th[3] * besselK(h, th[3])
  S[h == 0] <- th[1]
  R <- tryCatch(chol(S), error = function(e) NULL)
  if (is.null(R)) return(-1e10)
  w <- backsolve(R, z, transpose = TRUE)
  -0.5 * sum(w^2) - sum(log(diag(R))) - n / 2 * log(2 * pi)
}
fitfree <- function(fixed = NULL, value = NA, starts) {
  best <- list(value = -Inf)
  for (s in starts) {
    f <- function(lp) {
      th <- exp(lp)
      if (!is.null(fixed)) th <- append(th, value, after = fixed - 1)
      -loglik(th)
    }
    o <- optim(log(s), f, method = "BFGS", control = list(reltol = 1e-14, maxit = 1000))
    if (-o$value > best$value) best <- list(value = -o$value, par = exp(o$par))
  }
  best
}
full <- fitfree(starts = list(c(1, 0.1, 0.5), c(0.5, 0.05, 1), c(2, 0.2, 0.3)))
lmax <- full$value
that <- full$par
q <- qchisq(0.95, 1)
names <- c("sigma2", "beta", "nu")
rows <- list()
for (j in 1:3) {
  others <- that[-j]
  prof <- function(lv) fitfree(j, exp(lv), list(others, others * 1.3, others / 1.3))$value - (lmax - q / 2)
  lo <- uniroot(prof, c(log(that[j]) - 3, log(that[j])), tol = 1e-10)$root
  hi <- uniroot(prof, c(log(that[j]), log(that[j]) + 3), tol = 1e-10)$root
  rows[[j]] <- data.frame(param = names[j], mle = that[j], lower = exp(lo), upper = exp(hi), loglik_max = lmax)
}
cnu <- function(nu) {
  f <- function(r) 2^(1 - nu) / gamma(nu) * r^nu * besselK(r, nu) - 0.05
  uniroot(f, c(if (nu < 0.1) 1e-200 else 1e-6, 200), tol = 1e-14)$root
}
rho_hat <- that[2] * cnu(that[3])
lrho <- function(rho) {
  best <- -Inf
  for (s in list(that[c(1, 3)], that[c(1, 3)] * 1.3, that[c(1, 3)] / 1.3)) {
    f <- function(lp) {
      s2 <- exp(lp[1]); nu <- exp(lp[2])
      if (nu < 1e-3 || nu > 5) return(1e10) # the box of the fit
      -loglik(c(s2, rho / cnu(nu), nu))
    }
    o <- optim(log(s), f, method = "BFGS", control = list(reltol = 1e-14, maxit = 1000))
    best <- max(best, -o$value)
  }
  best
}
prof <- function(lr) lrho(exp(lr)) - (lmax - q / 2)
lo <- uniroot(prof, c(log(rho_hat) - 3, log(rho_hat)), tol = 1e-10)$root
hi <- uniroot(prof, c(log(rho_hat), log(rho_hat) + 3), tol = 1e-10)$root
rows[[4]] <- data.frame(param = "effective_range", mle = rho_hat, lower = exp(lo), upper = exp(hi), loglik_max = lmax)
out <- do.call(rbind, rows)
write.csv(out, "testdata/r/profile_ci.csv", row.names = FALSE, quote = FALSE)
print(out, digits = 12)
