# Helpers shared by the reference scripts of this directory (sourced from
# the repository root): numbers as the shortest decimal that reads back to
# the same double, a minimal JSON writer, and the reader of exageostat's
# Vecchia sets files.
num2str <- function(v) vapply(v, function(x) {
  if (is.na(x)) return("NA")
  for (d in 15:17) { s <- sprintf("%.*g", d, x); if (as.numeric(s) == x) return(s) }
  s
}, "")

# Minimal JSON writer (jsonlite rounds to 15 digits): numbers as the shortest
# round-trip decimal; a scalar marked with I() is written unboxed, every other
# vector as an array, a matrix as an array of its rows.
to_json <- function(x, ind = "") {
  ind2 <- paste0(ind, "  ")
  if (is.list(x)) {
    if (is.null(names(x)))
      return(paste0("[\n", paste0(ind2, vapply(x, to_json, "", ind = ind2), collapse = ",\n"), "\n", ind, "]"))
    return(paste0("{\n", paste0(ind2, '"', names(x), '": ', vapply(x, to_json, "", ind = ind2),
                                collapse = ",\n"), "\n", ind, "}"))
  }
  val <- function(v) if (is.character(v)) paste0('"', v, '"') else num2str(v)
  if (is.matrix(x))
    return(paste0("[", paste0(apply(x, 1, function(r) paste0("[", paste(val(r), collapse = ", "), "]")),
                              collapse = ", "), "]"))
  if (inherits(x, "AsIs")) return(val(unclass(x)))
  paste0("[", paste(val(x), collapse = ", "), "]")
}

# read_sets reads a sets file (--vecchia-sets-out, docs/vecchia-ordering.md):
# per location in the ordering, its position, its data row and its
# neighbours' rows, 1-based. It returns row (the data rows in the ordering)
# and NN, GpGp's NNarray of the data reordered by row: NN[k, ] = (k, the
# positions of the neighbours, NA padding), m + 1 columns.
read_sets <- function(f) {
  l <- strsplit(readLines(f), " +")
  l <- l[!vapply(l, function(v) startsWith(v[1], "#"), TRUE)]
  row <- as.integer(vapply(l, `[`, "", 2))
  pos <- integer(length(row)); pos[row] <- seq_along(row)
  stopifnot(all(as.integer(vapply(l, `[`, "", 1)) == seq_along(l)), all(pos > 0))
  m <- max(lengths(l)) - 2
  NN <- matrix(NA_integer_, length(l), m + 1)
  for (k in seq_along(l)) {
    v <- c(k, pos[as.integer(l[[k]][-(1:2)])])
    NN[k, seq_along(v)] <- v
  }
  list(row = row, NN = NN)
}
