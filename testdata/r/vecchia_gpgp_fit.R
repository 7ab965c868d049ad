# GpGp's whole fit of a data file, for scripts/vecchia-vs-gpgp.sh:
#
#   OMP_NUM_THREADS=2 R_LIBS=/path/to/lib Rscript testdata/r/vecchia_gpgp_fit.R data.csv matern out.json [sets=FILE] [group=false]
#
# data.csv has a header x,y,z (the project's format); the model is GpGp's
# fit_model with its defaults (constant mean, m_seq = c(10, 30), Fisher
# scoring, maxmin ordering below 10^5 points and random above, grouping)
# and covfun_name matern_isotropic (kernel "matern": sigma2, beta, nu and
# the nugget estimated) or exponential_isotropic ("exponential": nu = 1/2).
# sets=FILE (a sets file of exageostat's, --vecchia-sets-out) makes GpGp fit
# on our ordering and conditioning sets (fit_model's NNarray, reorder =
# FALSE; its m = 10 sets are the first 10 of each row, as ours); group=false
# turns GpGp's grouping off (group = FALSE: one conditional per location).
# Reading the sets file is not counted in the fit's seconds.
# GpGp must be installed in a library of yours (it is for comparison only;
# this script builds nothing). Writes out.json: GpGp's covparms, the same
# as ExaGeoStat's theta = (sigma2, beta, nu, tau2) (tau2 = sigma2 times
# GpGp's nugget ratio), their standard errors (from GpGp's Fisher
# information in its log parameters, by the delta method), the mean and
# its standard error, the log-likelihood, the seconds of fit_model alone
# (and of reading the file), and the process's peak resident set size
# (VmHWM) in bytes.
args <- commandArgs(trailingOnly = TRUE)
opt <- args[-(1:3)]
if (length(args) < 3 || !(args[2] %in% c("matern", "exponential")) || !all(grepl("^(sets=.+|group=(true|false))$", opt)))
  stop("usage: Rscript vecchia_gpgp_fit.R data.csv matern|exponential out.json [sets=FILE] [group=false]")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "helpers.R"))   # read_sets
suppressPackageStartupMessages(library(GpGp))
t_read <- system.time(d <- read.csv(args[1]))[["elapsed"]]
stopifnot(all(c("x", "y", "z") %in% names(d)))
covfun <- if (args[2] == "matern") "matern_isotropic" else "exponential_isotropic"
group <- !("group=false" %in% opt)
sets <- sub("^sets=", "", grep("^sets=", opt, value = TRUE))
NNarray <- NULL
if (length(sets) == 1) {
  t_read <- t_read + system.time(s <- read_sets(sets))[["elapsed"]]
  stopifnot(length(s$row) == nrow(d))
  d <- d[s$row, ]
  NNarray <- s$NN
}
locs <- as.matrix(d[, c("x", "y")])
set.seed(1)   # fit_model's random ordering above 10^5 points
t_fit <- system.time(fit <- fit_model(d$z, locs, covfun_name = covfun, NNarray = NNarray,
  reorder = is.null(NNarray), group = group, silent = TRUE))[["elapsed"]]

cp <- fit$covparms
k <- length(cp)
# Standard errors: fit$info is the Fisher information in log(covparms).
V <- tryCatch(solve(fit$info), error = function(e) matrix(NA, k, k))
# theta = (sigma2, beta, [nu,] tau2) with log theta = A log covparms:
# tau2 = sigma2 * ratio, so log tau2 = log cp[1] + log cp[k].
A <- diag(k); A[k, 1] <- 1
theta <- cp; theta[k] <- cp[1] * cp[k]
se_theta <- theta * sqrt(pmax(diag(A %*% V %*% t(A)), 0))
se_cp <- cp * sqrt(pmax(diag(V), 0))
names <- if (k == 4) c("sigma2", "beta", "nu", "tau2") else c("sigma2", "beta", "tau2")
vm <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
peak <- as.numeric(gsub("[^0-9]", "", vm)) * 1024

num <- function(v) paste0("[", paste(sprintf("%.17g", v), collapse = ", "), "]")
json <- paste0("{\n",
  '  "tool": "GpGp ', as.character(packageVersion("GpGp")), ' fit_model",\n',
  '  "covfun": "', covfun, '",\n',
  '  "n": ', nrow(d), ",\n",
  '  "omp_threads": "', Sys.getenv("OMP_NUM_THREADS"), '",\n',
  '  "sets": "', if (is.null(NNarray)) "GpGp's" else sets, '",\n',
  '  "group": ', tolower(as.character(group)), ",\n",
  '  "names": [', paste0('"', names, '"', collapse = ", "), "],\n",
  '  "covparms": ', num(cp), ",\n",
  '  "se_covparms": ', num(se_cp), ",\n",
  '  "theta": ', num(theta), ",\n",
  '  "se_theta": ', num(se_theta), ",\n",
  '  "beta_hat": ', num(fit$betahat), ",\n",
  '  "se_beta": ', num(fit$sebeta), ",\n",
  '  "loglik": ', sprintf("%.17g", fit$loglik), ",\n",
  '  "converged": ', tolower(as.character(isTRUE(fit$conv))), ",\n",
  '  "seconds_fit": ', sprintf("%.3f", t_fit), ",\n",
  '  "seconds_read": ', sprintf("%.3f", t_read), ",\n",
  '  "peak_rss_bytes": ', sprintf("%.0f", peak), "\n}\n")
writeLines(json, args[3], sep = "")
cat(json)
