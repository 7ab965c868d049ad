#!/usr/bin/env bash
# Runs every GPU check there is, on a GPU machine, from the folder that
# scripts/pack-gpu.sh made (this script is copied into it): gpu-pack/gpu-checks.sh.
# Needs one NVIDIA GPU with its driver, and cuBLAS/cuSOLVER (CUDA 11, 12 or
# 13): found through the loader, EXAGEOSTAT_CUDA_LIBS, or searched for
# below (e.g. NVIDIA's Python wheels). Prints each command before its
# output; ends non-zero when a check fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fail=0

if [ -z "${EXAGEOSTAT_CUDA_LIBS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.'; then
  dirs=$(find / -xdev \( -name 'libcublas.so.1[0-9]*' -o -name 'libcusolver.so.1[0-9]*' -o -name 'libcublasLt.so.1[0-9]*' -o -name 'libnvJitLink.so.1[0-9]*' \) \
    -not -path '*/proc/*' 2>/dev/null | xargs -r -n1 dirname | sort -u | paste -sd: -)
  export EXAGEOSTAT_CUDA_LIBS=$dirs
fi
echo "EXAGEOSTAT_CUDA_LIBS=${EXAGEOSTAT_CUDA_LIBS:-}"

run() { # run NAME COMMAND...: prints, runs, records a failure
  echo; echo "== $1"; shift; echo "\$ $*"
  local t0=$(date +%s.%N)
  "$@"; local rc=$?
  echo "-- exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
  return $rc
}

command -v nvidia-smi >/dev/null && run "devices" nvidia-smi -L
nproc; grep -m1 'model name' /proc/cpuinfo

# 2. The shared kernel suite over the GPU's one kernel set (the kernels
#    fit --gpus runs; each call's tiles staged to the device and back):
#    gemm, gemv, syrk, trsm, trmm against the suite's references to 1e-12
#    relative to their error bounds, dpotrf at nb=960 to 1e-10 relative,
#    and its not-positive-definite report.
run "kernel tests" "$here/cuda-kernels.test" -test.v -test.count=1 -test.run 'Test' || fail=1

# 3. The anchor: one whole-matrix cusolverDnDpotrf at n=32768 (GFLOP/s).
run "whole-matrix cusolverDnDpotrf, n=32768" "$here/cuda-kernels.test" -test.run '^$' \
  -test.bench 'BenchmarkPotrfWhole' -test.benchtime 3x || fail=1

# 4. The tiled Cholesky: CPU workers only, then 1 GPU + the CPU workers
#    (dmda; the GPU's model is learnt in the run and saved); compare the
#    GPU run's GFLOP/s with the anchor of step 3 (goal: within 80 %).
cores=$(nproc)
run "tiled Cholesky on the CPU, n=32768" "$here/exageostat-cuda" bench cholesky --n 32768 --nb 960 \
  --workers "$cores" --reps 1 --check=false || fail=1
run "tiled Cholesky, 1 GPU + CPUs, n=32768" "$here/exageostat-cuda" bench cholesky --gpus 1 --scheduler dmda \
  --perfmodel "$here/gpu-model.json" --n 32768 --nb 960 --workers "$cores" --reps 3 || fail=1

# 5. fit at N=3600: the CPU optimum, then with 1 GPU (l within 1e-6).
run "fit on the CPU, N=3600" "$here/exageostat-cuda" fit --n 3600 --workers "$cores" --json "$here/fit-cpu.json" \
  --checkpoint none || fail=1
run "fit with 1 GPU, N=3600" "$here/exageostat-cuda" fit --gpus 1 --scheduler dmda --perfmodel "$here/gpu-model.json" \
  --n 3600 --workers "$cores" --json "$here/fit-gpu.json" --checkpoint none || fail=1
l() { grep -o '"loglik": *[-0-9.eE+]*' "$1" | head -1 | sed 's/.*: *//'; }
if [ -f "$here/fit-cpu.json" ] && [ -f "$here/fit-gpu.json" ]; then
  a=$(l "$here/fit-cpu.json"); b=$(l "$here/fit-gpu.json")
  echo "l CPU $a, l GPU $b"
  awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; r = a; if (r < 0) r = -r; exit !(d <= 1e-6 * r) }' \
    && echo "fit: l within 1e-6" || { echo "FAIL: fit --gpus 1 l differs by more than 1e-6"; fail=1; }
fi

# 6. One evaluation at N=40000 with 1 GPU + the CPU workers.
run "likelihood, 1 GPU + CPUs, N=40000" "$here/exageostat-cuda" bench likelihood --gpus 1 --scheduler dmda \
  --perfmodel "$here/gpu-model.json" --n 40000 --nb 960 --workers "$cores" --reps 1 --reference=false || fail=1
run "likelihood, CPUs only, N=40000" "$here/exageostat-cuda" bench likelihood --n 40000 --nb 960 \
  --workers "$cores" --reps 1 --reference=false || fail=1
[ -f "$here/gpu-model.json" ] && { echo; echo "== the performance model learnt (cuda and cpu entries)"; grep -c '"arch":"cuda"' "$here/gpu-model.json"; }

[ $fail -eq 0 ] && echo "gpu-checks: all passed" || echo "gpu-checks: FAILED"
exit $fail
