# The R example of r/README.md and the meuse analysis of docs/meuse.R run
# as written, from the repository root, in a fresh R.

rscript <- function(args, root) {
  processx::run(file.path(R.home("bin"), "Rscript"), args, wd = root, error_on_status = FALSE,
                env = c("current", R_LIBS = paste(.libPaths(), collapse = ":")))
}

test_that("the README's ten-line example runs as written", {
  need_binary()
  root <- repo()
  text <- readLines(file.path(root, "r", "README.md"))
  starts <- which(text == "```r")
  expect_gte(length(starts), 1)
  for (s in starts) {
    e <- s + which(text[(s + 1):length(text)] == "```")[1]
    code <- text[(s + 1):(e - 1)]
    expect_lte(length(code), 10)
    f <- tempfile(fileext = ".R")
    writeLines(code, f)
    r <- rscript(f, root)
    expect_equal(r$status, 0, info = r$stderr)
    expect_match(r$stdout, "log-likelihood", fixed = TRUE)
    expect_match(r$stdout, "z_hat", fixed = TRUE)
  }
})

test_that("docs/meuse.R: the whole meuse analysis in at most 15 lines, a map written", {
  need_binary()
  root <- repo()
  script <- file.path(root, "docs", "meuse.R")
  expect_lte(length(readLines(script)), 15)
  png <- tempfile(fileext = ".png")
  r <- rscript(c(script, png), root)
  expect_equal(r$status, 0, info = r$stderr)
  expect_gt(file.size(png), 10000)
  expect_match(r$stdout, "REML log-likelihood", fixed = TRUE)
  expect_match(r$stdout, "effective_range", fixed = TRUE)  # the profile intervals
})
