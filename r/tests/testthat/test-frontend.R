# The package's own behaviour: flags, errors as conditions with the
# binary's message, discovery and version, MPI, sf and terra, cv, examples.

test_that("every flag is reachable: names, vectors, logicals", {
  expect_equal(eg_flags(list(lb = c(0.001, 1, 0.5), reml = TRUE, quiet = FALSE, max_evals = 50, nugget = NULL,
                             ci = "profile", coords = c("lon", "lat"), tolerance = 1e-7, ub = 0.1 + 0.2)),
               c("--lb", "0.001,1,0.5", "--reml", "--max-evals", "50", "--ci", "profile", "--coords", "lon,lat",
                 "--tolerance", "1e-07", "--ub", "0.30000000000000004"))
})

test_that("errors carry the binary's one-line message and exit status", {
  f <- tdata("real", "meuse.csv")
  e <- tryCatch(eg_fit(f, z ~ nosuch, progress = FALSE), error = identity)
  expect_s3_class(e, "exageostat_error")
  expect_equal(e$status, 2L)
  expect_match(e$binary_message, 'mean: no column "nosuch"', fixed = TRUE)
  meuse <- read.csv(f)
  e <- tryCatch(eg_fit(meuse, lb = c(1, 1, 1), ub = c(0.5, 2, 2), progress = FALSE), error = identity)
  expect_equal(e$binary_message, 'fit: key "lb": lower bound of sigma2 (1) is above its upper bound (0.5)')
  expect_equal(conditionMessage(e),
               'fit: key "lb": lower bound of sigma2 (1) is above its upper bound (0.5) (exit status 2)')
  expect_error(eg_fit(meuse, z ~ nosuch), "nosuch")  # a data frame: R's own model.frame error
  e <- tryCatch(eg_fit(meuse, no_such_flag = 3, progress = FALSE), error = identity)
  expect_match(e$binary_message, "unknown flag: --no-such-flag")
})

test_that("a missing binary, one on PATH, and the version check", {
  meuse <- read.csv(tdata("real", "meuse.csv"))
  bin <- Sys.getenv("EXAGEOSTAT_BIN")
  dir <- tempfile()
  dir.create(dir)
  withr_env <- function(vars, code) {
    old <- Sys.getenv(names(vars), unset = NA, names = TRUE)
    on.exit(for (n in names(old)) if (is.na(old[[n]])) Sys.unsetenv(n) else do.call(Sys.setenv, as.list(old[n])))
    do.call(Sys.setenv, as.list(vars))
    force(code)
  }
  withr_env(c(EXAGEOSTAT_BIN = file.path(dir, "nothere")),
            expect_error(eg_fit(meuse), class = "exageostat_binary_not_found"))
  Sys.unsetenv("EXAGEOSTAT_BIN")
  on.exit(Sys.setenv(EXAGEOSTAT_BIN = bin))
  withr_env(c(PATH = dir), expect_error(eg_fit(meuse), "not found: put it on PATH"))
  file.copy(bin, file.path(dir, "exageostat"))
  Sys.chmod(file.path(dir, "exageostat"), "755")
  withr_env(c(PATH = dir), expect_equal(eg_binary(), normalizePath(file.path(dir, "exageostat"))))
  fake <- file.path(dir, "fake")
  writeLines(c("#!/bin/sh", "echo 'exageostat v9.3.0 (commit 0123; go1.26 linux/amd64)'"), fake)
  Sys.chmod(fake, "755")
  expect_error(eg_fit(meuse, binary = fake), class = "exageostat_version_mismatch")
})

test_that("progress lines are forwarded", {
  meuse <- read.csv(tdata("real", "meuse.csv"))
  lines <- character()
  th <- c(0.5, 300, 0.5, 0.05)
  eg_fit(meuse, lb = th, ub = th, progress = function(l) lines <<- c(lines, l))
  expect_true(any(startsWith(lines, "fit: N=155")))
  expect_message(eg_fit(meuse, lb = th, ub = th), "fit: N=155")
})

test_that("mpirun on 2 ranks gives the 1-rank fit's l and theta", {
  expect_true(nzchar(Sys.which("mpirun")), label = "mpirun on PATH (scripts/deps.sh installs OpenMPI)")
  meuse <- read.csv(tdata("real", "meuse.csv"))
  lb <- c(1e-3, 1, 0.5, 1e-9)
  ub <- c(1e3, 1e4, 0.5, 100)
  one <- eg_fit(meuse, z ~ 1, lb = lb, ub = ub, nb = 40, progress = FALSE)
  two <- eg_fit(meuse, z ~ 1, lb = lb, ub = ub, nb = 40, ranks = 2, launcher = "mpirun",
                launcher_args = c("--allow-run-as-root", "--oversubscribe"), progress = FALSE,
                env = c(OMPI_MCA_btl_vader_single_copy_mechanism = "none"))
  expect_equal(two$json$ranks, 2)
  expect_identical(two$loglik, one$loglik)
  expect_identical(two$theta, one$theta)
})

test_that("sf points (projected and lon/lat) and a terra SpatRaster", {
  meuse <- read.csv(tdata("real", "meuse.csv"))
  th <- c(0.6, 300, 0.5, 0.05)
  f <- eg_fit(meuse, z ~ dist, lb = th, ub = th, progress = FALSE)
  pts <- sf::st_as_sf(meuse, coords = c("x", "y"), crs = 28992)
  fs <- eg_fit(pts, z ~ dist, lb = th, ub = th, progress = FALSE)
  expect_identical(fs$loglik, f$loglik)
  expect_equal(fs$json$distance, "euclidean")
  ll <- sf::st_transform(pts, 4326)
  fl <- eg_fit(ll, z ~ dist, lb = c(0.6, 0.3, 0.5, 0.05), ub = c(0.6, 0.3, 0.5, 0.05), progress = FALSE)
  expect_equal(fl$json$distance, "great-circle")
  r <- terra::rast(nrows = 3, ncols = 4, xmin = 179000, xmax = 181000, ymin = 330000, ymax = 333000,
                   crs = "EPSG:28992", names = "dist")
  terra::values(r) <- seq(0, 0.55, length.out = 12)
  terra::values(r)[5] <- NA
  pr <- predict(f, r, progress = FALSE)
  expect_s4_class(pr, "SpatRaster")
  expect_equal(names(pr), c("z_hat", "variance"))
  xy <- terra::as.data.frame(r, xy = TRUE, na.rm = FALSE)
  pd <- predict(f, xy[-5, ], progress = FALSE)
  expect_equal(terra::values(pr)[-5, "z_hat"], pd$z_hat)
  expect_true(is.na(terra::values(pr)[5, "z_hat"]))
  ps <- predict(fs, sf::st_as_sf(xy[-5, ], coords = c("x", "y"), crs = 28992), progress = FALSE)
  expect_s3_class(ps, "sf")
  expect_equal(ps$z_hat, pd$z_hat)
})

test_that("eg_cv, simulate and vcov", {
  meuse <- read.csv(tdata("real", "meuse.csv"))
  th <- c(0.6, 300, 0.5, 0.05)
  f <- eg_fit(meuse, z ~ dist + elev, lb = th, ub = th, progress = FALSE)
  cv <- eg_cv(f, progress = FALSE)
  direct <- read.csv(text = processx::run(Sys.getenv("EXAGEOSTAT_BIN"), c("cv", "--data", f$ctx$dflags$data,
                                          "--theta-from", f$json_path, "--out", "-", "-q"))$stdout)
  expect_equal(cv$table$z_loo, direct$z_loo, tolerance = 1e-14)
  expect_equal(cv$summary$mspe, mean((direct$z - direct$z_loo)^2), tolerance = 1e-12)
  s <- simulate(f, nsim = 3, seed = 2, newdata = meuse[1:4, ], progress = FALSE)
  expect_equal(names(s), c("x", "y", "z_hat", "variance", "draw_1", "draw_2", "draw_3"))
  g <- eg_fit(meuse, z ~ 1, lb = c(0.01, 10, 0.5, 0.01), ub = c(10, 5000, 0.5, 1), stderr = TRUE, progress = FALSE)
  expect_equal(sqrt(diag(vcov(g))), g$stderr[c("sigma2", "beta", "tau2")], tolerance = 1e-6)
  w <- confint(g, method = "wald")
  expect_equal(unname(w["beta", 2] - w["beta", 1]), unname(2 * qnorm(0.975) * g$stderr["beta"]))
})

test_that("an interrupt stops the binary with its checkpoint kept; resume finishes the fit", {
  need_binary()
  d <- eg_simulate(n = 900, theta = c(1, 0.1, 0.5), seed = 5, progress = FALSE)
  j <- tempfile(fileext = ".json")
  stop_at_4 <- function(l) if (grepl(" eval    4 ", l, fixed = TRUE)) tools::pskill(Sys.getpid(), tools::SIGINT)
  e <- tryCatch(eg_fit(d, z ~ 0, json = j, verbose = TRUE, progress = stop_at_4), condition = identity)
  expect_s3_class(e, "exageostat_interrupted")
  expect_equal(e$status, 130L)
  expect_equal(e$fit$status, "interrupted")
  expect_equal(e$checkpoint, sub("json$", "ckpt", j))
  expect_gt(file.size(e$checkpoint), 0)
  # the 4th evaluation's line comes after its checkpoint record; a 5th is there only when
  # the SIGINT landed after it (the box's load decides)
  kept <- length(jsonlite::fromJSON(e$checkpoint, simplifyVector = FALSE)$evaluations)
  expect_gte(kept, 4)
  done <- eg_fit(d, z ~ 0, resume = e$checkpoint, progress = FALSE)
  full <- eg_fit(d, z ~ 0, progress = FALSE)
  # all kept are replayed at no cost but the best, which resume recomputes to verify
  expect_equal(done$json$replayed_evaluations, kept - 1)
  expect_identical(done$loglik, full$loglik)
  expect_identical(done$theta, full$theta)
})

test_that("plot draws the GLS residuals' semivariogram with the fitted model", {
  meuse <- read.csv(tdata("real", "meuse.csv"))
  th <- c(0.6, 300, 0.5, 0.05)
  f <- eg_fit(meuse, z ~ dist, lb = th, ub = th, progress = FALSE)
  png(tempfile(fileext = ".png"))
  v <- plot(f, bins = 5)
  dev.off()
  r <- meuse$z - (coef(f)[1] + coef(f)[2] * meuse$dist)
  h <- as.matrix(dist(meuse[, c("x", "y")]))
  up <- upper.tri(h)
  br <- seq(0, max(h[up]) / 2, length.out = 6)
  inb <- up & h > br[2] & h <= br[3]  # the second distance class
  expect_equal(v$semivariance[2], mean(outer(r, r, "-")[inb]^2 / 2), tolerance = 1e-12)
  expect_equal(nrow(v), 5)
})
