# Exports the real data sets used by the examples and the R references.
#   Rscript testdata/real/export.R        (from the repository root)
# Needs Debian's r-cran-sp and r-cran-fields (scripts/install-r.sh).
# Values are written with 17 significant digits, so they round-trip exactly.
suppressMessages({ library(sp); library(fields) })

out <- "testdata/real"
# Shortest decimal (15 to 17 significant digits) that reads back to the same double.
num2str <- function(v) vapply(v, function(x) {
  for (d in 15:17) { s <- sprintf("%.*g", d, x); if (as.numeric(s) == x) return(s) }
  s
}, "")
w <- function(df, name) {
  stopifnot(!anyNA(df), !any(duplicated(df[, 1:2])))
  f <- file.path(out, paste0(name, ".csv"))
  write.csv(as.data.frame(lapply(df, num2str)), f, row.names = FALSE, quote = FALSE)
  cat(sprintf("%s: %d rows, columns %s\n", f, nrow(df), paste(names(df), collapse = ",")))
}

# 1. meuse (sp): 155 topsoil samples on the Meuse flood plain near Stein (NL).
#    x, y: Rijksdriehoek (RDH, EPSG:28992) coordinates in metres.
#    z = log(zinc), zinc in mg/kg (ppm); natural logarithm.
#    Covariates: dist (distance to the river Meuse, normalised to [0, 1]),
#    elev (relative elevation above the local river bed, m).
data(meuse, package = "sp")
w(data.frame(x = meuse$x, y = meuse$y, z = log(meuse$zinc),
             dist = meuse$dist, elev = meuse$elev), "meuse")

# 2. RMprecip (fields): total precipitation of August 1997 at 806 stations of
#    the US Cooperative observer network in the Rocky Mountain region.
#    lon, lat in degrees (WGS84 style, lon in [-111, -99], lat in [35, 45]).
#    z = sqrt(precipitation in mm) (0 occurs: no log). Covariate elev: station
#    elevation in km (the package gives metres).
RMprecip <- fields::RMprecip
w(data.frame(lon = RMprecip$x[, 1], lat = RMprecip$x[, 2], z = sqrt(RMprecip$y),
             elev = RMprecip$elev / 1000), "rmprecip")

# 3. The same two sets as their packages give them, for the walk-through
#    (docs/walkthrough.md) and the reading of raw files (issue 26):
#    meuse-raw.csv is R's write.csv(meuse) as is (row names, quoted factors,
#    NA in om); rmprecip-raw.csv holds the stations' longitude, latitude,
#    elevation in metres and the precipitation in mm, untransformed.
write.csv(meuse, file.path(out, "meuse-raw.csv"))
cat(sprintf("%s: %d rows\n", file.path(out, "meuse-raw.csv"), nrow(meuse)))
write.csv(data.frame(longitude = RMprecip$x[, 1], latitude = RMprecip$x[, 2], elev = RMprecip$elev,
                     precip = RMprecip$y), file.path(out, "rmprecip-raw.csv"), row.names = FALSE)
cat(sprintf("%s: %d rows\n", file.path(out, "rmprecip-raw.csv"), nrow(RMprecip$x)))

cat("sp", as.character(packageVersion("sp")), "fields", as.character(packageVersion("fields")),
    "R", R.version.string, "\n")
