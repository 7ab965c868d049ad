# eg_fit: a formula and a data frame (or sf points) to `exageostat fit`.

eg_write_csv <- function(df, path) {
  cols <- lapply(df, function(v) {
    s <- sprintf("%.17g", as.numeric(v))
    s[is.na(v)] <- "NA"
    s
  })
  lines <- do.call(paste, c(cols, sep = ","))
  writeLines(c(paste(names(df), collapse = ","), lines), path)
}

eg_read_csv <- function(path) utils::read.csv(path, check.names = FALSE)

# The locations of data: an sf object's point coordinates (lon,lat when its
# CRS is geographic) or the coords columns.
eg_coords <- function(data, coords) {
  if (inherits(data, "sf")) {
    xy <- sf::st_coordinates(data)
    geo <- isTRUE(sf::st_is_longlat(data))
    return(list(xy = unname(xy[, 1:2, drop = FALSE]), names = if (geo) c("lon", "lat") else c("x", "y"),
                user = coords))
  }
  miss <- setdiff(coords, names(data))
  if (length(miss)) stop(sprintf("no column %s in the data (its columns: %s)",
                                 paste0("'", miss, "'", collapse = ", "), paste(names(data), collapse = ", ")))
  geo <- tolower(coords[1:2]) %in% c("lon", "long", "longitude", "lng", "lat", "latitude")
  list(xy = as.matrix(data[, coords[1:2]]), names = if (all(geo)) c("lon", "lat") else c("x", "y"), user = coords)
}

eg_plain <- function(data) if (inherits(data, "sf")) sf::st_drop_geometry(data) else as.data.frame(data)

# The mean's design: zero (z ~ 0), constant (z ~ 1) or an intercept and
# covariate columns (the model matrix's other columns, named c1, c2, ...
# for the binary, their own names in coef()).
eg_design <- function(formula, data) {
  tt <- terms(formula, data = data)
  mf <- model.frame(tt, data, na.action = na.pass)
  X <- model.matrix(tt, mf)
  icpt <- attr(tt, "intercept") == 1
  if (ncol(X) > 0 && !icpt)
    stop("the mean always has an intercept: drop the - 1 (or + 0) from the formula")
  z <- model.response(mf, "numeric")
  if (is.null(z)) stop("the formula needs a response: z ~ ...")
  cov <- X[, colnames(X) != "(Intercept)", drop = FALSE]
  mean <- if (ncol(X) == 0) "zero" else if (ncol(cov) == 0) "constant" else paste(sprintf("c%d", seq_len(ncol(cov))), collapse = ",")
  list(z = as.numeric(z), cov = cov, mean = mean, terms = tt, names = colnames(X),
       xlevels = .getXlevels(tt, mf))
}

eg_frame <- function(loc, z, cov, time = NULL) {
  df <- data.frame(loc$xy)
  names(df) <- loc$names
  if (!is.null(time)) df$t <- time
  if (!is.null(z)) df$z <- z
  if (ncol(cov)) for (i in seq_len(ncol(cov))) df[[sprintf("c%d", i)]] <- cov[, i]
  df
}

#' @export
eg_fit <- function(data, formula = z ~ 1, coords = c("x", "y"), time = NULL, kernel = "matern",
                   nugget = NULL, lb = NULL, ub = NULL, reml = FALSE, workers = NULL, ranks = NULL,
                   launcher = NULL, launcher_args = character(), binary = NULL, progress = TRUE,
                   check_version = TRUE, env = NULL, json = NULL, ...) {
  bin <- eg_binary(binary)
  if (check_version) eg_check_version(bin)
  dir <- tempfile("exageostat-")
  dir.create(dir)
  if (is.character(data) && length(data) == 1) {
    # A file the binary reads as is: the formula's names are its columns.
    rhs <- attr(terms(formula), "term.labels")
    d <- list(z = NULL, cov = matrix(0, 0, 0), terms = terms(formula), names = c(if (attr(terms(formula), "intercept")) "(Intercept)", rhs),
              mean = if (length(rhs)) paste(rhs, collapse = ",") else if (attr(terms(formula), "intercept")) "constant" else "zero")
    if (length(formula) != 3 || !is.name(formula[[2]]))
      stop("with a file path, the response must be a column name (transform = \"log\" for log(z))")
    zname <- as.character(formula[[2]])
    dflags <- list(data = data, z = if (!identical(zname, "z")) zname,
                   coords = if (!identical(coords, c("x", "y"))) coords, time = time)
    n <- NA
  } else {
    plain <- eg_plain(data)
    loc <- eg_coords(data, coords)
    d <- eg_design(formula, plain)
    path <- file.path(dir, "data.csv")
    eg_write_csv(eg_frame(loc, d$z, d$cov, if (!is.null(time)) plain[[time]]), path)
    dflags <- list(data = path)
    n <- length(d$z)
  }
  jpath <- if (is.null(json)) file.path(dir, "fit.json") else json
  prefix <- eg_launcher(launcher, ranks, launcher_args)
  flags <- c(dflags, list(mean = if (d$mean != "zero") d$mean, kernel = if (kernel != "matern") kernel,
                          nugget = nugget, lb = lb, ub = ub, reml = reml, workers = workers, json = jpath),
             list(...))
  ctx <- list(binary = bin, prefix = prefix, env = env, progress = progress, dir = dir, dflags = dflags,
              workers = workers, coords = coords, time = time, loc_names = if (exists("loc")) loc$names else c("x", "y"))
  argv <- c(prefix, bin, "fit", eg_flags(flags))
  ckpt <- if (!is.null(flags$checkpoint)) flags$checkpoint else if (!is.null(flags$resume)) flags$resume else
    sub("\\.[^./]*$", ".ckpt", jpath)
  stdout <- eg_run(argv, progress, env, interrupted = function(stdout, lines, status) {
    partial <- if (file.exists(jpath)) eg_new_fit(jsonlite::fromJSON(jpath, simplifyVector = FALSE), d, ctx, jpath, stdout, match.call(), n)
    stop(eg_condition("exageostat_interrupted", sprintf(
      "interrupted: the fit stopped after the evaluation under way; continue it with resume = \"%s\"", ckpt),
      status, lines, fit = partial, checkpoint = if (file.exists(ckpt)) ckpt))
  })
  res <- jsonlite::fromJSON(jpath, simplifyVector = FALSE)
  eg_new_fit(res, d, ctx, jpath, stdout, match.call(), n)
}

num <- function(x) if (is.null(x)) numeric() else as.numeric(unlist(x))

eg_new_fit <- function(res, d, ctx, jpath, stdout, call, n) {
  pars <- unlist(res$parameters)
  if (is.null(pars)) pars <- sprintf("theta%d", seq_along(res$theta))
  theta <- setNames(num(res$theta), pars)
  coefs <- setNames(num(res$mean_coefficients), d$names[seq_along(res$mean_coefficients)])
  se <- setNames(num(res$mean_stderr), names(coefs)[seq_along(res$mean_stderr)])
  tse <- num(res$stderr)
  structure(list(theta = theta, loglik = res$loglik, coefficients = coefs, coef_se = se,
                 stderr = if (length(tse)) setNames(tse, pars[seq_along(tse)]),
                 nugget = res$nugget, status = res$status, converged = res$converged,
                 warnings = unlist(res$warnings), run = res$run, json = res, json_path = jpath, table = stdout,
                 call = call, terms = d$terms, xlevels = d$xlevels, design = d[c("names", "mean")],
                 nobs = if (!is.null(res$n)) res$n else n, ctx = ctx),
            class = "eg_fit")
}
