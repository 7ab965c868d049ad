#!/usr/bin/env bash
# Front-end overhead (issue 27): a fit of meuse (z ~ dist + elev, Matérn with
# nu and the nugget estimated) through the Python and the R package against
# the binary alone on the same command, 5 interleaved pairs each, timed
# inside the interpreter (its start-up and the package's import excluded).
# Prints the medians and their difference, in seconds.
#   scripts/frontend-overhead.sh [BINARY]      (default bin/exageostat)
# R needs the package installed (R CMD INSTALL r, or R_LIBS naming a library
# that has it).
set -euo pipefail
cd "$(dirname "$0")/.."
export EXAGEOSTAT_BIN=$(realpath "${1:-bin/exageostat}")
unset OPENBLAS_CORETYPE
ARGS="--mean dist,elev --lb 0.001,1,0.05,1e-8 --ub 100,10000,8,100"
PYTHONPATH=python /usr/bin/python3 - "$ARGS" <<'PY'
import statistics, subprocess, sys, tempfile, time, os
import pandas as pd, exageostat as eg
args = sys.argv[1].split()
meuse = pd.read_csv("testdata/real/meuse.csv", float_precision="round_trip")
d = tempfile.mkdtemp()
direct, front = [], []
for i in range(5):
    t = time.perf_counter()
    subprocess.run([os.environ["EXAGEOSTAT_BIN"], "fit", "--data", "testdata/real/meuse.csv", *args,
                    "--json", os.path.join(d, "r.json")], check=True, capture_output=True)
    direct.append(time.perf_counter() - t)
    t = time.perf_counter()
    eg.fit(meuse, mean=["dist", "elev"], bounds=([0.001, 1, 0.05, 1e-8], [100, 1e4, 8, 100]), progress=False)
    front.append(time.perf_counter() - t)
a, b = statistics.median(direct), statistics.median(front)
print("python: binary alone median %.3f s, through the package %.3f s, overhead %.3f s" % (a, b, b - a))
PY
Rscript - "$ARGS" <<'RS'
suppressMessages(library(exageostat))
args <- strsplit(commandArgs(TRUE)[1], " ")[[1]]
meuse <- read.csv("testdata/real/meuse.csv")
j <- tempfile(fileext = ".json")
direct <- front <- numeric()
for (i in 1:5) {
  direct <- c(direct, system.time(processx::run(Sys.getenv("EXAGEOSTAT_BIN"),
              c("fit", "--data", "testdata/real/meuse.csv", args, "--json", j)))[["elapsed"]])
  front <- c(front, system.time(eg_fit(meuse, z ~ dist + elev, lb = c(0.001, 1, 0.05, 1e-8),
              ub = c(100, 1e4, 8, 100), progress = FALSE))[["elapsed"]])
}
cat(sprintf("R: binary alone median %.3f s, through the package %.3f s, overhead %.3f s\n",
            median(direct), median(front), median(front) - median(direct)))
RS
