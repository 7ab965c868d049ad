#!/usr/bin/env bash
# Runs every GPU check of issue 28 on a GPU machine, from the folder that
# scripts/pack-gpu.sh made (this script is copied into it):
#   gpu-pack/gpu-checks.sh [OUTDIR]
# Needs one NVIDIA GPU with its driver, and cuBLAS/cuSOLVER (CUDA 11, 12 or
# 13): found through the loader, EXAGEOSTAT_CUDA_LIBS, or searched for
# below (e.g. NVIDIA's Python wheels). Each check runs under its own time
# limit (timeout), so that one hang cannot use up a lease; each prints its
# command before its output. At the end one table gives each check, its
# figure, its goal and pass/fail, and OUTDIR (default $OUT, else
# gpu-pack/out) receives it as gpu-checks.json, with the full log, the
# calibrated performance model, and every check's output, JSON and trace
# in gpu-checks-all.tgz (a GPU machine sends back few files). Exits
# non-zero when a check fails.
#
# Environment: GPU_CHECKS_N (default 32768), GPU_CHECKS_BIG (40000), the
# orders of the Cholesky and of the one-evaluation comparison;
# GPU_CHECKS_ONLY, a space-separated list of check names to run (default:
# all of them; the names are those of the table).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-${OUT:-$here/out}}
out=$here/out # every file of the run; dest gets the summary, the log, the model and out/ as one archive
mkdir -p "$out" "$dest"
exec > >(tee "$out/gpu-checks.log") 2>&1
n=${GPU_CHECKS_N:-32768}
big=${GPU_CHECKS_BIG:-40000}
only=${GPU_CHECKS_ONLY:-}
cores=$(nproc)
gw=$((cores > 1 ? cores - 1 : 1)) # CPU workers beside a GPU worker, which needs a core to drive its GPU
model=$out/gpu-model.json
results=$out/.results
: >"$results"

# The CUDA libraries: the loader's, else every folder holding them (the
# Python wheels of CUDA 13 keep them under site-packages/nvidia).
if [ -z "${EXAGEOSTAT_CUDA_LIBS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.'; then
  dirs=$(find /usr /opt /usr/local /root -xdev \( -name 'libcublas.so.1[0-9]*' -o -name 'libcusolver.so.1[0-9]*' \
    -o -name 'libcublasLt.so.1[0-9]*' -o -name 'libnvJitLink.so.1[0-9]*' \) 2>/dev/null |
    xargs -r -n1 dirname | sort -u | paste -sd: -)
  export EXAGEOSTAT_CUDA_LIBS=$dirs
fi
# The driver's libcuda.so.1, which the CUDA build links: the loader's, else
# its folder is added (the GPU machines mount the driver under /usr/local).
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  d=$(find /usr/local/nvidia /usr/lib64 /usr/lib /usr/local -xdev -name 'libcuda.so.1' 2>/dev/null | head -1 | xargs -r dirname)
  [ -n "$d" ] && export EXAGEOSTAT_CUDA_LIBS=${EXAGEOSTAT_CUDA_LIBS:+$EXAGEOSTAT_CUDA_LIBS:}$d
fi
echo "EXAGEOSTAT_CUDA_LIBS=${EXAGEOSTAT_CUDA_LIBS:-}"

# want NAME: whether check NAME runs (GPU_CHECKS_ONLY).
want() { [ -z "$only" ] || [[ " $only " == *" $1 "* ]]; }

# run NAME LIMIT COMMAND...: prints, runs under a time limit (seconds),
# keeps stdout in $out/NAME.out, returns the exit status (124: the limit).
run() {
  local name=$1 limit=$2; shift 2
  echo; echo "== $name (limit ${limit} s)"; echo "\$ $*"
  local t0 rc
  t0=$(date +%s.%N)
  timeout -k 10 "$limit" "$@" > >(tee "$out/$name.out") 2>&1; rc=$?
  sleep 0.2 # tee's last line
  echo "-- exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
  [ $rc -eq 124 ] && echo "-- $name: stopped at its limit of $limit s"
  return $rc
}

# record NAME FIGURE GOAL STATUS: one row of the summary (STATUS pass,
# fail or info).
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$results"; }

# jnum FILE KEY: the first number of "KEY": in a JSON file.
jnum() { grep -o "\"$2\": *[-0-9.eE+]*" "$1" 2>/dev/null | head -1 | sed 's/.*: *//'; }

command -v nvidia-smi >/dev/null && nvidia-smi -L
nproc; grep -m1 'model name' /proc/cpuinfo
device=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)
record devices "${device:-none}, $cores CPU cores" "one NVIDIA GPU" "$([ -n "$device" ] && echo info || echo fail)"

# 1. The shared kernel suite over the GPU's one kernel set (the kernels
#    fit --gpus runs on resident tiles; each call's tiles staged there and
#    back): gemm, gemv, syrk, trsm, trmm to 1e-12 relative to their error
#    bounds, dpotrf at nb = 960 to 1e-10 relative, its not-positive-definite
#    report.
if want kernels; then
  run kernels 120 "$here/cuda-kernels.test" -test.v -test.count=1 -test.run 'Test'; rc=$?
  passed=$(grep -c -- '--- PASS' "$out/kernels.out"); failed=$(grep -c -- '--- FAIL' "$out/kernels.out")
  record kernels "$passed subtests passed, $failed failed (exit $rc)" "all agree with OpenBLAS" "$([ $rc -eq 0 ] && echo pass || echo fail)"
fi

# 2. The anchor: one whole-matrix cusolverDnDpotrf at n (GFLOP/s).
anchor=
if want cusolver; then
  run cusolver 120 env EXAGEOSTAT_POTRF_N="$n" "$here/cuda-kernels.test" -test.run '^$' -test.bench 'BenchmarkPotrfWhole' -test.benchtime 3x; rc=$?
  anchor=$(grep -o '[0-9.]* GFLOP/s' "$out/cusolver.out" | tail -1 | cut -d' ' -f1)
  record cusolver "${anchor:-?} GFLOP/s (n = $n)" "the anchor" "$([ $rc -eq 0 ] && [ -n "$anchor" ] && echo info || echo fail)"
fi

# 3. The measured GPU performance model: calibrate on the GPU (device
#    kernel time, as on resident tiles) and on the CPU cores, 4 tile sizes.
#    Later checks schedule with it (dmda) and add their history to it.
if want calibrate; then
  run calibrate 120 "$here/exageostat-cuda" calibrate --gpus 1 --nb 480,960,1440,1920 --reps 3 --max-reps 9 \
    --workers "$cores" --perfmodel "$model"; rc=$?
  g=$(grep -E 'cuda gemm +nb=960' "$out/calibrate.out" | tail -1 | grep -o '([0-9.]* GFLOP/s' | tr -d '(')
  record calibrate "cuda gemm at nb 960: ${g:-?}" "a model with cuda entries" "$([ $rc -eq 0 ] && grep -q '"cuda"' "$model" 2>/dev/null && echo pass || echo fail)"
  cp "$model" "$out/gpu-model-calibrated.json" 2>/dev/null
fi

# 4. The tiled Cholesky at n, nb 960, with 1 GPU + the CPU workers (dmda;
#    goal: 80 % of the anchor); the CPU-only run beside it comes last.
if want chol-gpu; then
  run chol-gpu 120 "$here/exageostat-cuda" bench cholesky --gpus 1 --scheduler dmda --perfmodel "$model" \
    --n "$n" --nb 960 --workers "$gw" --reps 3 --check=false --reference=false --json --trace "$out/chol-gpu-trace.json"; rc=$?
  gf=$(jnum "$out/chol-gpu.out" gflops | xargs -r printf '%.0f')
  ok=$(awk -v g="${gf:-0}" -v a="${anchor:-0}" 'BEGIN { print (a > 0 && g >= 0.8 * a) ? "pass" : "fail" }')
  [ $rc -eq 0 ] || ok=fail
  record chol-gpu "${gf:-?} GFLOP/s = $(awk -v g="${gf:-0}" -v a="${anchor:-0}" 'BEGIN { if (a > 0) printf "%.2f", g / a; else print "?" }') of the anchor" ">= 0.80 of the anchor" "$ok"
fi
# The GPU factor's residual at a size the CPU checks in seconds.
if want chol-check; then
  run chol-check 60 "$here/exageostat-cuda" bench cholesky --gpus 1 --scheduler dmda --perfmodel "$model" \
    --n 5760 --nb 960 --workers "$gw" --reps 1 --reference=false --json; rc=$?
  r=$(jnum "$out/chol-check.out" residual)
  record chol-check "residual ${r:-?} (n = 5760)" "<= 1e-14" "$([ $rc -eq 0 ] && awk -v r="${r:-1}" 'BEGIN { exit !(r <= 1e-14) }' && echo pass || echo fail)"
fi

# 5. fit at N = 3600: on the CPU, then with 1 GPU (l to 1e-6 relative,
#    theta to 1e-4).
if want fit; then
  run fit-cpu 90 "$here/exageostat-cuda" fit --n 3600 --workers "$cores" --json "$out/fit-cpu.json" --checkpoint none; rc1=$?
  run fit-gpu 90 "$here/exageostat-cuda" fit --gpus 1 --scheduler dmda --perfmodel "$model" \
    --n 3600 --workers "$gw" --json "$out/fit-gpu.json" --checkpoint none; rc2=$?
  cmp="fit exit $rc1 (CPU), $rc2 (GPU)	fail"
  [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && cmp=$(python3 - "$out/fit-cpu.json" "$out/fit-gpu.json" <<'PY' 2>&1 | tail -1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
dl = abs(a["loglik"] - b["loglik"]) / abs(a["loglik"])
dt = max(abs(x - y) / abs(x) for x, y in zip(a["theta"], b["theta"]))
ok = dl <= 1e-6 and dt <= 1e-4
print(f"l {a['loglik']:.8f} / {b['loglik']:.8f} (rel {dl:.1e}), theta rel {dt:.1e}, {a['evaluations']}/{b['evaluations']} evaluations\t{'pass' if ok else 'fail'}")
PY
)
  [[ "$cmp" == *$'\t'* ]] || cmp="comparison failed: $cmp	fail"
  record fit "${cmp%%	*}" "l 1e-6, theta 1e-4 relative" "${cmp##*	}"
fi

# 6. One likelihood evaluation at N = big: 1 GPU + the CPU workers against
#    the CPU workers alone (ExaGeoStat reports about 10x for a GPU over a
#    CPU socket).
if want like; then
  run like-gpu 120 "$here/exageostat-cuda" bench likelihood --gpus 1 --scheduler dmda --perfmodel "$model" \
    --n "$big" --nb 960 --workers "$gw" --reps 2 --reference=false --json; rc1=$?
  run like-cpu 100 "$here/exageostat-cuda" bench likelihood --n "$big" --nb 960 --workers "$cores" --reps 1 \
    --reference=false --json; rc2=$?
  sg=$(jnum "$out/like-gpu.out" seconds); sc=$(jnum "$out/like-cpu.out" seconds)
  lg=$(jnum "$out/like-gpu.out" loglik); lc=$(jnum "$out/like-cpu.out" loglik)
  fig=$(awk -v g="${sg:-0}" -v c="${sc:-0}" -v lg="${lg:-0}" -v lc="${lc:-0}" 'BEGIN {
    d = lg - lc; if (d < 0) d = -d; r = lc < 0 ? -lc : lc
    if (g > 0 && r > 0) printf "GPU %.2f s, CPU %.2f s: %.1fx; l rel diff %.1e", g, c, c / g, d / r; else print "?" }')
  ok=$(awk -v lg="${lg:-0}" -v lc="${lc:-0}" 'BEGIN { d = lg - lc; if (d < 0) d = -d; r = lc < 0 ? -lc : lc; print (r > 0 && d <= 1e-9 * r) ? "pass" : "fail" }')
  [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || ok=fail
  record like "$fig (N = $big)" "speed-up reported; l to 1e-9" "$ok"
fi

# 7. The CPU-only run beside the GPU's (last: its time is predictable): the
#    tiled Cholesky at n on the CPU workers, with LAPACK dpotrf beside it.
if want chol-cpu; then
  run chol-cpu 100 "$here/exageostat-cuda" bench cholesky --n "$n" --nb 960 --workers "$cores" --reps 1 --check=false --json; rc=$?
  gf=$(jnum "$out/chol-cpu.out" gflops | xargs -r printf '%.0f'); lg=$(jnum "$out/chol-cpu.out" lapack_gflops | xargs -r printf '%.0f')
  record chol-cpu "tiled ${gf:-?} GFLOP/s, LAPACK ${lg:-?} ($cores threads)" "beside the GPU run" "$([ $rc -eq 0 ] && echo info || echo fail)"
fi
# The summary: a table here, JSON in $out.
echo
echo "== summary ($(date -u +%FT%TZ))"
awk -F'\t' '{ printf "%-11s %-6s %s  [goal: %s]\n", $1, $4, $2, $3 }' "$results"
python3 - "$results" "$out/gpu-checks.json" <<'PY' || true
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
json.dump({"checks": [dict(zip(("check", "figure", "goal", "status"), r)) for r in rows if len(r) == 4],
           "failed": [r[0] for r in rows if r[3] == "fail"]}, open(sys.argv[2], "w"), indent=1)
PY
nfail=$(awk -F'\t' '$4 == "fail"' "$results" | wc -l)
rm -f "$results"
if [ "$dest" != "$out" ]; then
  cp "$out/gpu-checks.json" "$out/gpu-checks.log" "$model" "$dest/" 2>/dev/null
  tar -czf "$dest/gpu-checks-all.tgz" -C "$out" .
fi
if [ "$nfail" -eq 0 ]; then echo "gpu-checks: all passed"; exit 0; fi
echo "gpu-checks: $nfail check(s) FAILED (see the table)"; exit 1
