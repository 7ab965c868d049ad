# S3 methods of eg_fit, prediction, simulation and cross-validation.

#' @export
print.eg_fit <- function(x, ...) {
  cat("exageostat fit (", x$json$kernel, ", ", x$json$distance, " distance, n = ", x$nobs, ")\n", sep = "")
  cat("covariance parameters:\n")
  print(x$theta)
  if (length(x$coefficients)) {
    cat("mean coefficients (GLS):\n")
    print(x$coefficients)
  }
  cat(sprintf("%slog-likelihood %.6f, status %s\n", if (isTRUE(x$json$reml)) "REML " else "", x$loglik, x$status))
  for (w in x$warnings) cat("warning:", w, "\n")
  invisible(x)
}

#' @export
summary.eg_fit <- function(object, ...) {
  th <- data.frame(estimate = object$theta, row.names = names(object$theta))
  if (length(object$json$lb) == length(object$theta)) {
    th$lb <- num(object$json$lb)
    th$ub <- num(object$json$ub)
  }
  th$std.error <- if (is.null(object$stderr)) NA_real_ else object$stderr[names(object$theta)]
  ab <- unlist(object$json$at_bound)
  th$at_bound <- if (length(ab) == nrow(th)) ab else ""
  th$std.error[th$at_bound == "fixed"] <- NA
  mc <- data.frame(estimate = object$coefficients, std.error = object$coef_se[names(object$coefficients)])
  mc$z.value <- mc$estimate / mc$std.error
  structure(list(covariance = th, mean = mc, loglik = object$loglik, reml = isTRUE(object$json$reml),
                 nobs = object$nobs, status = object$status, warnings = object$warnings,
                 aic = stats::AIC(object), ci = object$json$profile_intervals),
            class = "summary.eg_fit")
}

#' @export
print.summary.eg_fit <- function(x, ...) {
  cat("Covariance parameters:\n")
  print(x$covariance)
  if (nrow(x$mean)) {
    cat("\nMean (GLS):\n")
    print(x$mean)
  }
  cat(sprintf("\n%slog-likelihood %.6f (n = %d), AIC %.4f, status %s\n", if (x$reml) "REML " else "",
              x$loglik, x$nobs, x$aic, x$status))
  for (w in x$warnings) cat("warning:", w, "\n")
  invisible(x)
}

#' @export
coef.eg_fit <- function(object, type = c("mean", "covariance"), ...) {
  if (match.arg(type) == "mean") object$coefficients else object$theta
}

eg_free <- function(object) {
  lb <- num(object$json$lb)
  ub <- num(object$json$ub)
  if (length(lb) == length(object$theta)) sum(lb != ub) else length(object$theta)
}

#' @export
logLik.eg_fit <- function(object, ...) {
  structure(object$loglik, df = eg_free(object) + length(object$coefficients), nobs = object$nobs,
            class = "logLik")
}

#' @export
nobs.eg_fit <- function(object, ...) object$nobs

#' @export
vcov.eg_fit <- function(object, type = c("covariance", "mean"), ...) {
  if (match.arg(type) == "mean") {
    # The binary writes the standard errors of the GLS coefficients, not
    # their covariances: the off-diagonal is unknown here.
    v <- diag(object$coef_se^2, length(object$coef_se))
    v[row(v) != col(v)] <- NA
    dimnames(v) <- list(names(object$coef_se), names(object$coef_se))
    return(v)
  }
  fi <- object$json$fisher_information
  if (is.null(fi)) stop("no Fisher information: fit with stderr = TRUE")
  m <- do.call(rbind, lapply(fi, num))
  p <- unlist(object$json$fisher_parameters)
  v <- solve(m)
  dimnames(v) <- list(p, p)
  v
}

#' @export
confint.eg_fit <- function(object, parm, level = 0.95, method = c("profile", "wald"), ...) {
  method <- match.arg(method)
  if (method == "profile") {
    iv <- object$json$profile_intervals
    if (is.null(iv) || !isTRUE(all.equal(object$json$ci_level, level))) {
      # Refit with the profile intervals at this level (each end a constrained fit).
      args <- as.list(object$call)[-1]
      args$ci <- "profile"
      args$ci_level <- level
      args$progress <- FALSE
      args$json <- NULL
      f <- do.call(eg_fit, args, envir = parent.frame())
      iv <- f$json$profile_intervals
    }
    ci <- t(vapply(iv, function(r) c(r$lower, r$upper), numeric(2)))
    rownames(ci) <- vapply(iv, function(r) r$param, "")
  } else {
    q <- qnorm(1 - (1 - level) / 2)
    if (is.null(object$stderr)) stop("no standard errors: fit with stderr = TRUE")
    est <- c(object$theta[names(object$stderr)], object$coefficients)
    se <- c(object$stderr, object$coef_se)
    ci <- cbind(est - q * se, est + q * se)
  }
  colnames(ci) <- sprintf("%g %%", 100 * c((1 - level) / 2, 1 - (1 - level) / 2))
  if (!missing(parm)) ci <- ci[parm, , drop = FALSE]
  ci
}

# The locations and covariates of newdata: a data frame, sf points or a
# terra SpatRaster (its cells' centres; its layers the covariates).
eg_newframe <- function(object, newdata) {
  ctx <- object$ctx
  if (inherits(newdata, "SpatRaster")) {
    df <- terra::as.data.frame(newdata, xy = TRUE, na.rm = FALSE)
    keep <- stats::complete.cases(df)
    loc <- list(xy = as.matrix(df[keep, c("x", "y")]), names = ctx$loc_names)
    plain <- df[keep, , drop = FALSE]
  } else {
    loc <- if (inherits(newdata, "sf")) eg_coords(newdata, ctx$coords) else eg_coords(newdata, ctx$coords)
    plain <- eg_plain(newdata)
    keep <- NULL
  }
  tt <- delete.response(object$terms)
  X <- if (object$design$mean %in% c("zero", "constant")) matrix(0, nrow(plain), 0) else {
    X <- model.matrix(tt, model.frame(tt, plain, na.action = na.pass, xlev = object$xlevels))
    X[, colnames(X) != "(Intercept)", drop = FALSE]
  }
  list(frame = eg_frame(loc, NULL, X, if (!is.null(ctx$time)) plain[[ctx$time]]), keep = keep)
}

eg_at <- function(object, command, newdata, flags) {
  ctx <- object$ctx
  nf <- eg_newframe(object, newdata)
  at <- file.path(ctx$dir, paste0(command, "-at.csv"))
  out <- file.path(ctx$dir, paste0(command, ".csv"))
  eg_write_csv(nf$frame, at)
  progress <- if (is.null(flags$progress)) ctx$progress else flags$progress
  flags$progress <- NULL
  f <- c(ctx$dflags, list(theta_from = object$json_path, at = at, out = out, workers = ctx$workers), flags)
  eg_run(c(ctx$prefix, ctx$binary, command, eg_flags(f)), progress, ctx$env)
  res <- eg_read_csv(out)
  vals <- res[, !(names(res) %in% ctx$loc_names), drop = FALSE]
  if (inherits(newdata, "SpatRaster")) {
    r <- terra::rast(newdata, nlyrs = ncol(vals), names = names(vals))
    m <- matrix(NA_real_, terra::ncell(newdata), ncol(vals))
    m[nf$keep, ] <- as.matrix(vals)
    terra::values(r) <- m
    return(r)
  }
  if (inherits(newdata, "sf")) return(sf::st_sf(vals, geometry = sf::st_geometry(newdata)))
  names(res)[match(ctx$loc_names, names(res))] <- ctx$coords[1:2]
  res
}

#' @export
predict.eg_fit <- function(object, newdata, variance = c("observation", "latent"), draws = NULL, seed = NULL, ...) {
  eg_at(object, "predict", newdata, c(list(variance = match.arg(variance), draws = draws, seed = seed), list(...)))
}

#' @export
simulate.eg_fit <- function(object, nsim = 1, seed = NULL, newdata, ...) {
  eg_at(object, "simulate", newdata, c(list(conditional = TRUE, draws = nsim, seed = seed), list(...)))
}

#' @export
eg_cv <- function(fit, folds = NULL, seed = NULL, ...) {
  ctx <- fit$ctx
  out <- file.path(ctx$dir, "cv.csv")
  js <- file.path(ctx$dir, "cv.json")
  dots <- list(...)
  progress <- if (is.null(dots$progress)) ctx$progress else dots$progress
  dots$progress <- NULL
  f <- c(ctx$dflags, list(theta_from = fit$json_path, out = out, json = js, folds = folds, seed = seed,
                          workers = ctx$workers), dots)
  eg_run(c(ctx$prefix, ctx$binary, "cv", eg_flags(f)), progress, ctx$env)
  tab <- eg_read_csv(out)
  names(tab)[match(ctx$loc_names, names(tab))] <- ctx$coords[1:2]
  res <- jsonlite::fromJSON(js)
  structure(list(summary = res$summary, table = tab, json = res), class = "eg_cv")
}

#' @export
print.eg_cv <- function(x, ...) {
  s <- x$summary
  cat(sprintf("cross-validation over %d observations: MSPE %.6g, mean log score %.6g, 95%% coverage %.1f%%\n",
              s$n, s$mspe, s$mean_log_score, 100 * s$coverage_95))
  invisible(x)
}

#' @export
eg_simulate <- function(n = 1600, theta = c(1, 0.1, 0.5), seed = 1, kernel = "matern", nugget = NULL,
                        binary = NULL, progress = TRUE, check_version = TRUE, launcher = NULL, ranks = NULL,
                        launcher_args = character(), env = NULL, ...) {
  bin <- eg_binary(binary)
  if (check_version) eg_check_version(bin)
  out <- tempfile("exageostat-sim-", fileext = ".csv")
  on.exit(unlink(out))
  f <- c(list(n = n, theta = theta, seed = seed, kernel = if (kernel != "matern") kernel, nugget = nugget, out = out),
         list(...))
  eg_run(c(eg_launcher(launcher, ranks, launcher_args), bin, "simulate", eg_flags(f)), progress, env)
  eg_read_csv(out)
}

# The Matérn correlation M_nu(r) = 2^(1-nu)/Gamma(nu) r^nu K_nu(r), M(0) = 1.
eg_matern <- function(r, nu) {
  m <- 2^(1 - nu) / gamma(nu) * r^nu * besselK(r, nu)
  m[r == 0] <- 1
  m
}

#' @export
plot.eg_fit <- function(x, bins = 15, ...) {
  if (x$json$kernel != "matern") stop("plot draws the Matern semivariogram; use the binary's --plot for ", x$json$kernel)
  d <- eg_read_csv(x$ctx$dflags$data)
  X <- cbind(if (length(x$coefficients)) 1, as.matrix(d[, grep("^c[0-9]+$", names(d)), drop = FALSE]))
  r <- d$z - if (length(x$coefficients)) drop(X %*% x$coefficients) else 0
  h <- as.matrix(stats::dist(d[, 1:2]))
  g <- outer(r, r, function(a, b) (a - b)^2 / 2)
  up <- upper.tri(h)
  br <- seq(0, max(h[up]) / 2, length.out = bins + 1)
  k <- cut(h[up], br)
  emp <- tapply(g[up], k, mean)
  mid <- (br[-1] + br[-length(br)]) / 2
  th <- x$theta
  tau2 <- if (length(th) >= 4) th[4] else if (is.null(x$nugget)) 0 else x$nugget
  hh <- seq(0, max(br), length.out = 200)
  model <- tau2 + th[1] * (1 - eg_matern(hh / th[2], th[3]))
  model[1] <- 0
  plot(mid, emp, xlab = "distance", ylab = "semivariance", ylim = c(0, max(c(emp, model), na.rm = TRUE)),
       main = "empirical semivariogram of the GLS residuals and the fitted model", ...)
  lines(hh, model)
  invisible(data.frame(distance = mid, semivariance = as.numeric(emp)))
}
