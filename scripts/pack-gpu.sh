#!/usr/bin/env bash
# Packs what a GPU machine needs into one git-ignored folder (gpu-pack/,
# or $1): the CUDA build and the GPU kernel test binary (make gpu-pack
# builds both, stripped), the shared libraries they need besides CUDA and
# the C library (OpenBLAS, NLopt, GLPK, GSL, gfortran, ... as ldd lists
# them), a wrapper that sets LD_LIBRARY_PATH, and scripts/gpu-checks.sh.
# The GPU machines bring their own libcuda, cuBLAS and cuSOLVER and take at
# most 64 MiB with each command (the source tree included): the folder is
# also written compressed as $out/pack.tgz, and the script fails if that
# and the tree are bigger.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-gpu-pack}
limit=$((64 * 1024 * 1024))
bins=(bin/exageostat-cuda bin/cuda-kernels.test)
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "pack-gpu: $b missing: run make gpu-pack" >&2; exit 1; }
done

if ldd bin/exageostat-cuda | grep -q 'libmpi\.'; then
  echo "pack-gpu: bin/exageostat-cuda is built with MPI (make cuda); make gpu-pack builds it without" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for b in "${bins[@]}"; do
  cp "$b" "$out/bin/"
  strip "$out/bin/$(basename "$b")" 2>/dev/null || true
done

# Libraries the GPU machine has (CUDA, the C library, the loader, libgcc_s,
# which every Linux has and whose newer versions CUDA 13 may need) stay.
skip='^(libgcc_s|libcuda|libcublas|libcublasLt|libcusolver|libnvJitLink|libcudart|libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux[-a-z0-9_]*|linux-vdso)\.so'
for b in "${bins[@]}"; do
  ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if [[ "$name" =~ $skip ]]; then
    continue
  fi
  cp -L "$path" "$out/lib/$name"
done
missing=$(for b in "${bins[@]}"; do ldd "$b"; done | grep 'not found' || true)
[ -z "$missing" ] || { echo "pack-gpu: unresolved libraries here: $missing" >&2; exit 1; }

cat > "$out/env.sh" <<'ENV'
# Sourced by the wrappers: our libraries first, then the CUDA libraries'
# directories (EXAGEOSTAT_CUDA_LIBS, colon-separated) for the dynamic loader.
pack=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH="$pack/lib${EXAGEOSTAT_CUDA_LIBS:+:$EXAGEOSTAT_CUDA_LIBS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ENV
cat > "$out/exageostat-cuda" <<'WRAP'
#!/usr/bin/env bash
# The CUDA build with the packed libraries: gpu-pack/exageostat-cuda ARGS...
source "$(dirname "$0")/env.sh"
exec "$pack/bin/exageostat-cuda" "$@"
WRAP
cat > "$out/cuda-kernels.test" <<'WRAP'
#!/usr/bin/env bash
# The GPU kernel tests (package cuda) with the packed libraries.
source "$(dirname "$0")/env.sh"
exec "$pack/bin/cuda-kernels.test" "$@"
WRAP
cp scripts/gpu-checks.sh "$out/gpu-checks.sh"
chmod +x "$out/exageostat-cuda" "$out/cuda-kernels.test" "$out/gpu-checks.sh"

ls -la "$out/bin" "$out/lib"
# What travels to the GPU machine: the source tree (tracked files) and the
# pack, compressed (OpenBLAS alone is 37 MB), inside the folder itself so
# that carrying the one ignored folder takes it: $out/pack.tgz, unpacked
# there with `tar -xzf gpu-pack/pack.tgz -C /tmp` into /tmp/gpu-pack.
tar -czf "/tmp/pack-gpu.$$.tgz" -C "$(dirname "$out")" "$(basename "$out")"
mv "/tmp/pack-gpu.$$.tgz" "$out/pack.tgz"
tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
size=$(stat -c %s "$out/pack.tgz")
if [ $((size + tree)) -gt "$limit" ]; then
  echo "pack-gpu: $out/pack.tgz ($size bytes) and the source tree ($tree bytes) are over the 64 MiB ($limit bytes) a GPU machine takes" >&2
  exit 1
fi
awk -v o="$out/pack.tgz" -v s="$size" -v t="$tree" 'BEGIN {printf "pack-gpu: %s is %.1f MiB, with the source tree %.1f MiB of 64\n", o, s / 1048576, (s + t) / 1048576}'
