#!/usr/bin/env bash
# GpGp's Vecchia fit against ours on the same data, in the same run, 2
# threads each, defaults on both sides (issue 29's whole-fit comparison):
#
#   scripts/vecchia-vs-gpgp.sh N matern|exponential RLIB [OUTDIR]
#
# N locations are simulated once (exageostat simulate --seed 29 at theta =
# (1, 0.1, 0.5) with the nugget tau2 = 0.1: exact below 20000 points, else
# --computation vecchia) into OUTDIR/data.csv (default
# vecchia-vs-gpgp-N-KERNEL/; reused when present). Then, one after the
# other:
#   - our fit: --computation vecchia (its defaults: maxmin, m = 10 then 30,
#     Fisher scoring), --mean constant, the nugget estimated, --workers 2,
#     --stderr, writing its ordering and sets (--vecchia-sets-out sets.txt);
#   - GpGp's fit_model (testdata/r/vecchia_gpgp_fit.R: constant mean, its
#     m = 10 then 30, its ordering, sets and grouping, Fisher scoring),
#     OMP_NUM_THREADS=2, GpGp loaded from the R library RLIB (it must be
#     installed there: this script builds nothing; testdata/r/README.md
#     says how it was built);
#   - with SAME_SETS=1, GpGp's fit_model again on our ordering and sets
#     (sets.txt as its NNarray; its grouping): the approximations then
#     differ by the grouping only;
#   - with UNGROUPED=1, both fits again on the same likelihood: ours with
#     --vecchia-sets sets.txt --vecchia-grouping none, GpGp's on sets.txt
#     with group=false (one conditional per location on both sides, the
#     same l to rounding: docs/vecchia.md, Against GpGp), so that the
#     estimates differ by the searches' stopping points only;
#   - for N <= 3600 (or EXACT=1) the exact fit with the same model.
# With REUSE=1 a step whose result (OUTDIR/NAME.json) exists is not run
# again (to add SAME_SETS or UNGROUPED to a finished run).
# matern estimates (sigma2, beta, nu, tau2); exponential fixes nu = 0.5.
# Each program's wall time, CPU time (user + system: what a busy box
# distorts least) and peak RSS come from /usr/bin/time; the load
# before and after is recorded. OUTDIR/summary.json (also printed) has,
# per GpGp run, the estimates side by side, each difference in our
# standard errors (against our ungrouped fit for GpGp's ungrouped one), with the exact fit their relative differences from the
# exact MLE and their distances from it in its standard errors, and the
# time (wall, CPU, GpGp's fit_model against our whole fit) and memory
# ratios.
# EXAGEOSTAT names the binary (default bin/exageostat).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,40p' "$0"; exit 2; }
n=$1 kernel=$2 rlib=$3
out=${4:-vecchia-vs-gpgp-$n-$kernel}
bin=${EXAGEOSTAT:-bin/exageostat}
case $kernel in
  matern) lb=0.001,0.001,0.05,0.0001 ub=10,5,5,5 ;;
  exponential) lb=0.001,0.001,0.5,0.0001 ub=10,5,0.5,5 ;;
  *) echo "vecchia-vs-gpgp: kernel $kernel: want matern or exponential" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "vecchia-vs-gpgp: $bin: not built (make build)" >&2; exit 2; }
R_LIBS="$rlib" Rscript -e 'suppressPackageStartupMessages(library(GpGp))' >/dev/null 2>&1 ||
  { echo "vecchia-vs-gpgp: GpGp is not installed in $rlib" >&2; exit 2; }
unset OPENBLAS_CORETYPE
mkdir -p "$out"
load() { cut -d' ' -f1-3 /proc/loadavg; }
timed() { # name command...: wall seconds and peak RSS (KB) into $out/name.time
  local name=$1; shift
  [ "${REUSE:-0}" != 1 ] || [ ! -f "$out/$name.json" ] || [ ! -s "$out/$name.time" ] || return 0
  echo "load $(load)" >"$out/$name.load"
  /usr/bin/time -f '%e %M %U %S' -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 ||
    { echo "vecchia-vs-gpgp: $name failed, see $out/$name.log" >&2; exit 1; }
  echo "load $(load)" >>"$out/$name.load"
}

data=$out/data.csv
if [ ! -f "$data" ]; then
  comp=exact
  [ "$n" -le 20000 ] || comp=vecchia
  timed simulate "$bin" simulate --n "$n" --theta 1,0.1,0.5,0.1 --seed 29 --computation "$comp" --workers 2 --out "$data"
fi
timed ours "$bin" fit --data "$data" --computation vecchia --mean constant --lb "$lb" --ub "$ub" \
  --workers 2 --stderr --quiet --checkpoint none --json "$out/ours.json" --vecchia-sets-out "$out/sets.txt"
gpgp() { # name [options of vecchia_gpgp_fit.R]
  local name=$1; shift
  timed "$name" env OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 R_LIBS="$rlib" \
    Rscript testdata/r/vecchia_gpgp_fit.R "$data" "$kernel" "$out/$name.json" "$@"
}
gpgp gpgp
[ "${REUSE:-0}" = 1 ] || rm -f "$out/gpgp_oursets.json" "$out/ours_ungrouped.json" "$out/gpgp_ungrouped.json"
[ "${SAME_SETS:-0}" != 1 ] || gpgp gpgp_oursets "sets=$out/sets.txt"
if [ "${UNGROUPED:-0}" = 1 ]; then
  timed ours_ungrouped "$bin" fit --data "$data" --computation vecchia --mean constant --lb "$lb" --ub "$ub" \
    --workers 2 --stderr --quiet --checkpoint none --json "$out/ours_ungrouped.json" \
    --vecchia-sets "$out/sets.txt" --vecchia-grouping none
  gpgp gpgp_ungrouped "sets=$out/sets.txt" group=false
fi
if [ "$n" -le 3600 ] || [ "${EXACT:-0}" = 1 ]; then
  timed exact "$bin" fit --data "$data" --mean constant --lb "$lb" --ub "$ub" \
    --workers 2 --stderr --quiet --checkpoint none --json "$out/exact.json"
fi

python3 - "$out" "$n" "$kernel" <<'EOF'
import json, os, sys
out, n, kernel = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def path(name, ext=".json"):
    return os.path.join(out, name + ext)
def load(name):
    return json.load(open(path(name))) if os.path.exists(path(name)) else None
def timed(name):
    wall, rss, user, system = open(path(name, ".time")).read().split()[-4:]
    loads = [l.split()[1:] for l in open(path(name, ".load"))]
    return {"wall_s": float(wall), "cpu_s": float(user) + float(system), "peak_rss_bytes": int(rss) * 1024,
            "load_before": loads[0], "load_after": loads[-1]}
ex = load("exact")
# Ours: theta = (sigma2, beta, nu, tau2); GpGp's exponential has no nu.
idx = [0, 1, 2, 3] if kernel == "matern" else [0, 1, 3]
names = ["sigma2", "beta", "nu", "tau2"]
def versus(g, o):
    rows = []
    for k, i in enumerate(idx):
        ours, gp, se = o["theta"][i], g["theta"][k], o["stderr"][i]
        r = {"param": names[i], "ours": ours, "gpgp": gp, "se": se, "diff_in_se": abs(ours - gp) / se}
        if ex:
            r.update(exact=ex["theta"][i], exact_se=ex["stderr"][i],
                     ours_rel_exact=abs(ours / ex["theta"][i] - 1), gpgp_rel_exact=abs(gp / ex["theta"][i] - 1),
                     ours_exact_in_se=abs(ours - ex["theta"][i]) / ex["stderr"][i],
                     gpgp_exact_in_se=abs(gp - ex["theta"][i]) / ex["stderr"][i])
        rows.append(r)
    return rows
def ours(name):
    o = load(name)
    return dict(timed(name), seconds=o["seconds"], loglik=o["loglik"], mean=o["mean_coefficients"][0],
                status=o["status"], evaluations=o["evaluations"])
s = {
    "n": n, "kernel": kernel,
    "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), ""),
    "ours": ours("ours"),
}
if load("ours_ungrouped"):
    s["ours_ungrouped"] = ours("ours_ungrouped")
for name in ["gpgp", "gpgp_oursets", "gpgp_ungrouped"]:
    g = load(name)
    if g is None:
        continue
    mine = "ours_ungrouped" if name == "gpgp_ungrouped" else "ours"
    o, to = load(mine), s[mine]
    tg = timed(name)
    rows = versus(g, o)
    s[name] = dict(tg, sets=g["sets"], seconds_fit=g["seconds_fit"], loglik=g["loglik"], mean=g["beta_hat"][0],
                   converged=g["converged"], estimates=rows,
                   max_diff_in_se=max(r["diff_in_se"] for r in rows),
                   speedup_wall=tg["wall_s"] / to["wall_s"], speedup_cpu=tg["cpu_s"] / to["cpu_s"],
                   speedup_fit=g["seconds_fit"] / o["seconds"],
                   memory_ratio=to["peak_rss_bytes"] / tg["peak_rss_bytes"])
if ex:
    s["exact"] = dict(timed("exact"), loglik=ex["loglik"], seconds=ex["seconds"])
json.dump(s, open(path("summary"), "w"), indent=2)
print(json.dumps(s, indent=2))
EOF
