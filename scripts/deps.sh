#!/usr/bin/env bash
# Installs the system packages exageostat needs, from Debian, if missing.
# Idempotent: does nothing (and needs no network) when all are present.
set -euo pipefail

# pajeng (pj_dump) and vite check the Paje traces in the tests.
pkgs=(libopenblas-dev libnlopt-dev libglpk-dev pkg-config libopenmpi-dev openmpi-bin python3 pajeng vite)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
