#!/usr/bin/env bash
# Which Vecchia approximation: the KL study of docs/vecchia.md ("Which
# approximation: the KL divergence"), printed as markdown:
#
#   scripts/vecchia-kl-study.sh [OUTDIR]
#
# 1. The KL divergence of every ordering (maxmin, approxmaxmin, random,
#    coord, middleout) x m (10, 30, 60) x grouping (blocks, none) from
#    the exact Gaussian, on uniform random points: `exageostat bench
#    vecchia-kl` for N in NS (default "3000 10000"), nu in NUS (default
#    "0.5 1.5"), point sets SEEDS_3000 (default 1-5) at N = 3000 and
#    SEEDS_N (default 1-3) otherwise; theta = (1, 0.1, nu), tau2 = 0.1.
# 2. What it means for the estimates: exact simulations of FIT_N
#    (default 10000) jittered-grid locations (`exageostat simulate`,
#    seeds FIT_SEEDS_05 at nu = 0.5, default 101-124, and FIT_SEEDS_15 at
#    1.5, default 101-116), each fitted (`fit --computation vecchia
#    --stderr`, nu free, the nugget, a constant mean) at m = 30 with
#    maxmin, random, coord and middleout (and at nu = 1.5 also EXTRA_15,
#    default "maxmin 60, middleout 60, maxmin 120"; EXTRA_05 at 0.5,
#    default none), and at m = REFM_05 (default 120) or REFM_15
#    (default 200) with
#    maxmin as the reference (its KL is printed by part 1's command at
#    that m); the distance of each m = 30 estimate from the reference's in
#    the reference's standard errors.
# Results are OUTDIR/*.json (default OUTDIR vecchia-kl-study/), kept and
# reused when the script runs again; TABLE=1 only prints the tables of
# what is there. EXAGEOSTAT names the binary (default bin/exageostat),
# WORKERS the workers (default 2). Not run by make test: at the defaults
# part 1 takes about 10 minutes and part 2 about an hour on 2 cores.
set -euo pipefail
out=${1:-vecchia-kl-study}
bin=${EXAGEOSTAT:-bin/exageostat}
workers=${WORKERS:-2}
ns=${NS:-"3000 10000"}
nus=${NUS:-"0.5 1.5"}
fitn=${FIT_N:-10000}
mkdir -p "$out"
unset OPENBLAS_CORETYPE

if [ "${TABLE:-0}" != 1 ]; then
  for n in $ns; do
    seeds=${SEEDS_N:-"1 2 3"}
    [ "$n" = 3000 ] && seeds=${SEEDS_3000:-"1 2 3 4 5"}
    for seed in $seeds; do
      for nu in $nus; do
        f=$out/kl-n$n-nu$nu-s$seed.json
        [ -s "$f" ] && continue
        "$bin" bench vecchia-kl --n "$n" --seed "$seed" --m 10,30,60 --order maxmin,approxmaxmin,random,coord,middleout \
          --grouping blocks,none --theta "1,0.1,$nu,0.1" --workers "$workers" --json > "$f.tmp"
        mv "$f.tmp" "$f"
      done
    done
  done
  for nu in $nus; do
    v=FIT_SEEDS_${nu/./} seeds=${!v:-}
    [ -z "$seeds" ] && seeds=$(if [ "$nu" = 0.5 ]; then seq -s ' ' 101 124; else seq -s ' ' 101 116; fi)
    v=REFM_${nu/./} refm=${!v:-}
    [ -z "$refm" ] && refm=$(if [ "$nu" = 0.5 ]; then echo 120; else echo 200; fi)
    v=EXTRA_${nu/./} extra=${!v-}
    [ -z "${!v+set}" ] && [ "$nu" = 1.5 ] && extra="maxmin 60, middleout 60, maxmin 120"
    specs=("maxmin 30" "random 30" "coord 30" "middleout 30" "maxmin $refm")
    IFS=, read -ra more <<< "$extra"
    for x in "${more[@]}"; do [ -n "${x// /}" ] && specs+=("$x"); done
    for seed in $seeds; do
      d=$out/d-nu$nu-s$seed.csv
      if [ ! -s "$d" ]; then
        "$bin" simulate --n "$fitn" --theta "1,0.1,$nu" --nugget 0.1 --seed "$seed" --workers "$workers" --out "$d.tmp.csv" >/dev/null
        mv "$d.tmp.csv" "$d"
      fi
      for spec in "${specs[@]}"; do
        set -- $spec
        f=$out/fit-nu$nu-s$seed-$1-m$2.json
        [ -s "$f" ] && continue
        "$bin" fit --data "$d" --computation vecchia --vecchia-m "$2" --vecchia-order "$1" --mean constant \
          --lb 0.01,0.001,0.1,0.001 --ub 10,5,3,2 --stderr --workers "$workers" --quiet --checkpoint none --json "$f.tmp.json" >/dev/null
        mv "$f.tmp.json" "$f"
      done
    done
  done
fi

python3 - "$out" <<'EOF'
import glob, json, math, os, re, statistics as st, sys
out = sys.argv[1]
orders = ["maxmin", "approxmaxmin", "random", "coord", "middleout"]
cells = {}
for f in sorted(glob.glob(os.path.join(out, "kl-*.json"))):
    d = json.load(open(f))
    for r in d["rows"]:
        cells.setdefault((d["n"], d["theta"][2], r["m"], r["grouping"]), {}).setdefault(r["order"], []).append(r["kl"])
print("KL(p || q), nats: the mean over the point sets\n")
print("| N | nu | m | grouping | sets | " + " | ".join(orders) + " |")
print("|---|---|---|---|---|" + "---|" * len(orders))
for k in sorted(cells):
    c = cells[k]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {len(c['maxmin'])} | " + " | ".join(f"{st.mean(c[o]):.3g}" if o in c else "-" for o in orders) + " |")
fits = {}
for f in glob.glob(os.path.join(out, "fit-*.json")):
    nu, seed, order, m = re.match(r".*fit-nu([0-9.]+)-s(\d+)-(\w+)-m(\d+)\.json", f).groups()
    fits[(nu, int(seed), order, int(m))] = json.load(open(f))
for nu in sorted({k[0] for k in fits}):
    refm = int(os.environ.get("REFM_" + nu.replace(".", ""), "") or {"0.5": 120, "1.5": 200}.get(nu, 0))
    if not any(k[0] == nu and k[3] == refm for k in fits):
        continue
    seeds = sorted({k[1] for k in fits if k[0] == nu and (nu, k[1], "maxmin", refm) in fits})
    kinds = sorted({(k[2], k[3]) for k in fits if k[0] == nu and k[3] != refm}, key=lambda x: (x[1], x[0]))
    print(f"\nnu = {nu}: against m = {refm} (maxmin), in the reference's standard errors\n")
    print("| ordering, m | realisations | largest \\|d\\|/SE: median, mean, max | at most 0.25 | rms (sigma2, beta, nu, tau2) | mean signed | fit s (median) |")
    print("|---|---|---|---|---|---|---|")
    for o, m in kinds:
        v, secs = [], []
        for seed in seeds:
            f, ref = fits.get((nu, seed, o, m)), fits[(nu, seed, "maxmin", refm)]
            if f is None:
                continue
            v.append([(a - b) / e for a, b, e in zip(f["theta"], ref["theta"], ref["stderr"])])
            secs.append(f["seconds"])
        if not v:
            continue
        r = len(v)
        big = [max(abs(x) for x in d) for d in v]
        rms = [math.sqrt(st.mean([d[j] ** 2 for d in v])) for j in range(4)]
        mean = [st.mean([d[j] for d in v]) for j in range(4)]
        print(f"| {o}, {m} | {r} | {st.median(big):.2f}, {st.mean(big):.2f}, {max(big):.2f} | {sum(b <= 0.25 for b in big)} of {r} | "
              + ", ".join(f"{x:.2f}" for x in rms) + " | " + ", ".join(f"{x:+.2f}" for x in mean) + f" | {st.median(secs):.1f} |")
EOF
