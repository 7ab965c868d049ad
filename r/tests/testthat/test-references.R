# Fits and predictions through the package against the R references of
# testdata/r (1e-8) and the binary's own output for the same command.

test_that("meuse l (ML, REML) and GLS coefficients of z ~ dist + elev at R's theta", {
  meuse <- read.csv(tdata("real", "meuse.csv"))
  ref <- read.csv(tdata("r", "loglik_mean.csv"))
  ref <- ref[ref$data == "meuse" & ref$mean == "covariates:dist+elev", ]
  gls <- jsonlite::fromJSON(tdata("r", "gls.json"), simplifyVector = FALSE)
  gls <- Filter(function(g) g$data == "meuse" && g$mean == "covariates:dist+elev", gls)
  expect_equal(nrow(ref), 4)
  for (i in seq_len(nrow(ref))) {
    th <- unlist(ref[i, c("sigma2", "beta", "nu", "tau2")])
    ml <- eg_fit(meuse, z ~ dist + elev, lb = th, ub = th, progress = FALSE)
    reml <- eg_fit(meuse, z ~ dist + elev, lb = th, ub = th, reml = TRUE, progress = FALSE)
    expect_lte(rel(ml$loglik, ref$loglik[i]), 1e-8 * abs(ref$loglik[i]))
    expect_lte(rel(reml$loglik, ref$loglik_reml[i]), 1e-8 * abs(ref$loglik_reml[i]))
    g <- gls[[which(vapply(gls, function(g) g$case, 1) == ref$case[i])]]
    expect_equal(unname(coef(ml)), unlist(g$beta_hat), tolerance = 1e-8)
    expect_equal(unname(ml$coef_se), unlist(g$se), tolerance = 1e-8)
    expect_equal(names(coef(ml)), c("(Intercept)", "dist", "elev"))
  }
})

box <- list(lb = c(1e-3, 1, 0.05, 1e-9), ub = c(1e3, 1e4, 8, 100))

test_that("the meuse ML fit is the binary's own run and reaches R's maximum", {
  meuse <- read.csv(tdata("real", "meuse.csv"))
  f <- eg_fit(meuse, z ~ 1, lb = box$lb, ub = box$ub, progress = FALSE)
  out <- tempfile(fileext = ".json")
  processx::run(Sys.getenv("EXAGEOSTAT_BIN"), c("fit", "--data", tdata("real", "meuse.csv"), "--mean", "constant",
                "--lb", paste(box$lb, collapse = ","), "--ub", paste(box$ub, collapse = ","), "--json", out,
                "--checkpoint", "none", "-q"))
  direct <- jsonlite::fromJSON(out)
  expect_equal(f$loglik, direct$loglik, tolerance = 1e-12)
  expect_equal(unname(f$theta), direct$theta, tolerance = 1e-8)
  fr <- read.csv(tdata("r", "fits_real.csv"))
  want <- fr$loglik_max[fr$data == "meuse" & fr$method == "ml" & fr$nu_fixed == "free"]
  expect_lte(abs(f$loglik - want), 1e-4)
  expect_equal(names(f$theta), c("sigma2", "beta", "nu", "tau2"))
  expect_equal(attr(logLik(f), "df"), 5)
  expect_equal(AIC(f), -2 * f$loglik + 10)
  expect_equal(BIC(f), -2 * f$loglik + 5 * log(155))
})

test_that("the 200-point data: R's MLE and l, and the profile intervals", {
  d <- read.csv(tdata("r", "profile_n200.csv"))
  ref <- read.csv(tdata("r", "profile_ci.csv"))
  mle <- ref$mle[1:3]
  f <- eg_fit(d, z ~ 0, progress = FALSE)
  expect_equal(unname(f$theta), mle, tolerance = 1e-3)
  expect_lte(abs(f$loglik - ref$loglik_max[1]), 1e-6)
  at <- eg_fit(d, z ~ 0, lb = mle, ub = mle, progress = FALSE)
  expect_lte(rel(at$loglik, ref$loglik_max[1]), 1e-8 * abs(ref$loglik_max[1]))
  ci <- confint(f)  # profile: refits with ci = "profile"
  expect_equal(rownames(ci), ref$param)
  expect_equal(unname(ci[, 1]), ref$lower, tolerance = 1e-3)
  expect_equal(unname(ci[, 2]), ref$upper, tolerance = 1e-3)
})

test_that("kriging at 20 new points equals base R's (both variances, three means)", {
  ref <- read.csv(tdata("r", "kriging_synth.csv"))
  d <- read.csv(tdata("r", "synth_n200.csv"))
  for (mean in c("zero", "constant", "linear")) {
    r <- ref[ref$mean == mean, ]
    th <- unlist(r[1, c("sigma2", "beta", "nu", "tau2")])
    form <- switch(mean, zero = z ~ 0, constant = z ~ 1, linear = z ~ x + y)
    f <- eg_fit(d, form, lb = th, ub = th, progress = FALSE)
    for (v in c("observation", "latent")) {
      p <- predict(f, r[, c("x", "y")], variance = v, progress = FALSE)
      expect_equal(p$x, r$x)
      expect_equal(p$z_hat, r$pred, tolerance = 1e-8)
      expect_equal(p$variance, if (v == "latent") r$var_field else r$var_obs, tolerance = 1e-8)
    }
  }
})
