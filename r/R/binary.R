# The binary: discovery, version check, running it with its progress
# forwarded and its one-line errors turned into R conditions.

.eg_versions <- new.env(parent = emptyenv())

eg_condition <- function(class, message, status = NA_integer_, stderr = character(), ...) {
  structure(class = c(class, "exageostat_error", "error", "condition"),
            list(message = message, call = NULL, status = status, stderr = stderr, ...))
}

#' @export
eg_binary <- function(binary = NULL) {
  for (src in list(list("binary =", binary), list("EXAGEOSTAT_BIN", Sys.getenv("EXAGEOSTAT_BIN")))) {
    b <- src[[2]]
    if (!is.null(b) && nzchar(b)) {
      p <- if (grepl("/", b, fixed = TRUE)) b else Sys.which(b)
      if (nzchar(p) && file.exists(p) && !dir.exists(p) && file.access(p, 1) == 0) return(normalizePath(p))
      stop(eg_condition("exageostat_binary_not_found",
                        sprintf("%s names '%s', which is not an executable file", src[[1]], b)))
    }
  }
  p <- Sys.which("exageostat")
  if (nzchar(p)) return(normalizePath(p))
  stop(eg_condition("exageostat_binary_not_found",
                    "the exageostat binary was not found: put it on PATH, set EXAGEOSTAT_BIN, or pass binary ="))
}

eg_binary_version <- function(path) {
  info <- file.info(path)
  key <- paste(path, as.numeric(info$mtime), info$size)
  if (is.null(.eg_versions[[key]])) {
    r <- processx::run(path, "--version", error_on_status = FALSE)
    m <- regmatches(r$stdout, regexec("^exageostat (\\S+)", r$stdout))[[1]]
    if (r$status != 0 || length(m) < 2)
      stop(eg_condition("exageostat_error", sprintf("%s --version printed '%s': not an exageostat binary",
                                                    path, trimws(r$stdout)), r$status))
    .eg_versions[[key]] <- m[2]
  }
  .eg_versions[[key]]
}

# A development build ("devel") is accepted; a release must match the
# package's major.minor.
eg_check_version <- function(path) {
  v <- eg_binary_version(path)
  if (v == "devel") return(invisible(v))
  pkg <- as.character(utils::packageVersion("exageostat"))
  got <- strsplit(sub("-.*", "", sub("^v", "", v)), ".", fixed = TRUE)[[1]][1:2]
  want <- strsplit(pkg, ".", fixed = TRUE)[[1]][1:2]
  if (!identical(got, want))
    stop(eg_condition("exageostat_version_mismatch", sprintf(
      "%s is exageostat %s, this package is %s: install matching versions (or check_version = FALSE)",
      path, v, pkg)))
  invisible(v)
}

eg_num <- function(x) {
  # The shortest decimal that reads back to the same double (15 to 17 digits).
  vapply(x, function(v) {
    if (!is.finite(v)) stop("not a finite number: ", v)
    for (d in 15:17) {
      s <- sprintf("%.*g", d, v)
      if (as.numeric(s) == v) return(s)
    }
    s
  }, "")
}

#' @export
eg_flags <- function(flags) {
  args <- character()
  for (k in names(flags)) {
    v <- flags[[k]]
    if (is.null(v) || (is.logical(v) && length(v) == 1 && (is.na(v) || !v))) next
    name <- paste0("--", gsub("[._]", "-", k))
    if (isTRUE(v)) {
      args <- c(args, name)
    } else {
      vals <- if (is.numeric(v)) {
        ifelse(v == round(v) & abs(v) < 1e15, sprintf("%.0f", v), eg_num(v))
      } else as.character(unlist(v))
      args <- c(args, name, paste(vals, collapse = ","))
    }
  }
  args
}

eg_launcher <- function(launcher, ranks, launcher_args = character()) {
  if (is.null(launcher)) {
    if (!is.null(ranks) && ranks != 1) stop("ranks = ", ranks, " needs launcher = \"mpirun\" or \"srun\"")
    return(character())
  }
  n <- as.character(if (is.null(ranks)) 1L else ranks)
  switch(launcher,
         mpirun = c("mpirun", "-np", n, launcher_args),
         srun = c("srun", "-n", n, launcher_args),
         c(launcher, launcher_args))
}

# Runs one command line; returns its standard output. stderr lines go to
# progress (TRUE: message(), a function, FALSE: dropped). A nonzero exit
# status is an exageostat_error with the binary's last "exageostat: " line;
# an interrupt (Ctrl-C) sends the binary one SIGINT, waits for it (it writes
# its best result and keeps its checkpoint) and calls interrupted().
eg_run <- function(argv, progress = TRUE, env = NULL, interrupted = NULL) {
  forward <- if (is.function(progress)) progress else if (isTRUE(progress)) function(l) message(l) else function(l) NULL
  e <- if (is.null(env)) NULL else c("current", env)
  p <- tryCatch(processx::process$new(argv[1], argv[-1], stdout = "|", stderr = "|", env = e),
                error = function(err) stop(eg_condition("exageostat_binary_not_found",
                                                        sprintf("%s: cannot start: %s", argv[1], conditionMessage(err)))))
  out <- character()
  lines <- character()
  pump <- function(final = FALSE) {
    o <- p$read_output()
    if (length(o) && nzchar(o)) out <<- c(out, o)
    l <- if (final) p$read_all_error_lines() else p$read_error_lines()
    for (x in l) { lines <<- c(lines, x); forward(x) }
  }
  stopped <- FALSE
  tryCatch({
    while (p$is_alive() || p$is_incomplete_error() || p$is_incomplete_output()) {
      p$poll_io(200)
      pump()
      if (!p$is_alive() && !p$is_incomplete_error() && !p$is_incomplete_output()) break
    }
  }, interrupt = function(cond) {
    stopped <<- TRUE
    p$interrupt()
    p$wait()
  })
  if (stopped) forward <- function(l) NULL
  p$wait()
  out <- c(out, p$read_all_output())
  rest <- p$read_all_error_lines()
  for (x in rest) { lines <- c(lines, x); forward(x) }
  status <- p$get_exit_status()
  stdout <- paste(out, collapse = "")
  if (stopped || status %in% c(130L, 143L)) {
    if (!is.null(interrupted)) interrupted(stdout, lines, status)
    stop(eg_condition("exageostat_interrupted", "interrupted", status, lines))
  }
  if (status != 0) {
    msg <- grep("^exageostat: ", lines, value = TRUE)
    msg <- if (length(msg)) sub("^exageostat: ", "", msg[length(msg)]) else
      if (length(lines)) lines[length(lines)] else "exited without a message"
    stop(eg_condition("exageostat_run_error", sprintf("%s (exit status %d)", msg, status), status, lines,
                      binary_message = msg, command = argv))
  }
  stdout
}
