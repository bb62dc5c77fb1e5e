#!/usr/bin/env bash
# scripts/install-deps.sh — installs the Debian 12 packages pg_mergepath needs to build
# and test (PostgreSQL 15 server + headers, Boost, GoogleTest, libpq, CMake). Skips
# apt-get when everything is already there. CUDA's nvcc is optional: without it the
# library builds its CPU backend only. Needs root (or sudo).
set -euo pipefail
packages=(postgresql-15 postgresql-server-dev-15 libpq-dev libboost-dev
          libgtest-dev cmake g++ make
          curl ca-certificates python3 xz-utils)  # scripts/install-pg.sh (PostgreSQL 17, 18)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
