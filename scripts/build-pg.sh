#!/usr/bin/env bash
# scripts/build-pg.sh VERSION — builds pg_mergepath for PostgreSQL VERSION (15, 17 or 18)
# in its own folder, build/pgVERSION (the PostgreSQL-free library in build/ is shared by
# every version), installs it into that PostgreSQL and prints its pg_config. 15 is
# Debian 12's own; 17 and 18 come from scripts/install-pg.sh.
#
#   CUDA_ARCH=90 (default) picks the GPU architectures nvcc builds for.
set -euo pipefail
version=${1:?usage: build-pg.sh 15|17|18}
root=$(cd "$(dirname "$0")/.." && pwd)
case "$version" in
  15) pg_config=/usr/lib/postgresql/15/bin/pg_config ;;
  *) pg_config=$(bash "$root/scripts/install-pg.sh" "$version") ;;
esac
[ -x "$pg_config" ] || { echo "build-pg: no pg_config for PostgreSQL $version at $pg_config" >&2; exit 2; }
dir=$root/build/pg$version
mkdir -p "$dir"
jobs=$(nproc 2>/dev/null || echo 2)
make -C "$dir" -f "$root/Makefile" PG_CONFIG="$pg_config" CUDA_ARCH="${CUDA_ARCH:-90}" -j"$jobs" >/dev/null
make -C "$dir" -f "$root/Makefile" PG_CONFIG="$pg_config" install >/dev/null
echo "$pg_config"
