#!/usr/bin/env bash
# scripts/profile-device.sh — where a query's CPU time goes on the GPU host, over every
# process that runs it (the leader, its parallel workers, the kernel on their behalf):
# `perf record -a` while one session runs the query again and again, reported by symbol.
# (The host has no perf: Debian's, with the libraries it links, travels in .device/.)
#
# 1. Here, from the repo root (perf installed: apt-get install linux-perf):
#        bash scripts/profile-device.sh --prepare      # -> .device/perf.tar.xz (~7 MB)
# 2. In a device call, carry .device/perf.tar.xz with what bench-device.sh needs, once
#    the server runs and the tables exist (e.g. after bench-device.sh in the same call):
#        PROFILE_QUERY="SELECT count(*) FROM mp_bench.text_uniform_10m_n0_a a
#                       JOIN mp_bench.text_uniform_10m_n0_b b ON a.k = b.k" \
#          bash scripts/profile-device.sh
#    PROFILE_SETTINGS (default: the benchmark's gpu variant: device gpu, min_rows 0,
#    16 workers per Gather, jit off), PROFILE_RUNS (8 runs of the query), PROFILE_S (6 s
#    recorded, from the second run on).
# Writes into $OUT/profile: queries.log (the runs and their times), perf-sym.txt (self
# time by symbol), perf-children.txt (with callees), perf-dso.txt (by binary). Stripped
# PostgreSQL and the host's libc print as raw addresses; pg_mergepath's resolve here:
#     addr2line -f -C -e .device/stage/usr/lib/postgresql/15/lib/pg_mergepath.so 0xADDRESS
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "${1:-}" = --prepare ]; then
  perf=$(command -v perf) || { echo "profile-device: no perf here (apt-get install linux-perf)" >&2; exit 2; }
  tmp=$(mktemp -d)
  mkdir -p "$tmp/lib" .device
  cp "$(readlink -f "$perf")" "$tmp/perf"
  # every library perf links but the C library itself (the host's is newer)
  ldd "$tmp/perf" | awk '/=> \//{print $3}' | grep -v -E '/(libc|libm)\.so' | while read -r lib; do
    cp -L "$lib" "$tmp/lib/"
  done
  tar -C "$tmp" -cJf .device/perf.tar.xz .
  rm -rf "$tmp"
  echo "profile-device: .device/perf.tar.xz ($(du -h .device/perf.tar.xz | cut -f1)); .device/ holds $(du -sh .device | cut -f1)"
  exit 0
fi

[ -f .device/perf.tar.xz ] || { echo "profile-device: carry .device/perf.tar.xz (--prepare first)" >&2; exit 2; }
[ -f /opt/pg/env ] || { echo "profile-device: no server (run bench-device.sh or pg-up first)" >&2; exit 2; }
query=${PROFILE_QUERY:?PROFILE_QUERY: the query to profile}
settings=${PROFILE_SETTINGS:-"SET pg_mergepath.device = gpu; SET pg_mergepath.min_rows = 0; SET max_parallel_workers_per_gather = 16; SET jit = off;"}
runs=${PROFILE_RUNS:-8}
out=${OUT:-$root/bench-out}/profile
mkdir -p "$out"
bin=$(mktemp -d)
tar -C "$bin" -xJf .device/perf.tar.xz
perf() { LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin/perf" "$@"; }
# shellcheck disable=SC1091
. /opt/pg/env

{ echo "$settings"; echo '\timing on'; for _ in $(seq "$runs"); do echo "$query;"; done; } > "$bin/queries.sql"
psql -X -q -f "$bin/queries.sql" > "$out/queries.log" 2>&1 &
session=$!
sleep "${PROFILE_WAIT_S:-2.5}"  # past the first run (the GPU's start, cold caches)
perf record -a -g -e cpu-clock -F 999 -o "$bin/perf.data" -- sleep "${PROFILE_S:-6}" > "$out/record.log" 2>&1
wait "$session"
report() { perf report -i "$bin/perf.data" --stdio -g none "$@" 2>/dev/null | grep -v -e '^#' -e '^$' || true; }
report --no-children --sort sym | head -100 > "$out/perf-sym.txt"
report --children --sort sym | head -150 > "$out/perf-children.txt"
report --no-children --sort dso | head -30 > "$out/perf-dso.txt"
rm -rf "$bin"
grep -E '^Time' "$out/queries.log" || true
head -40 "$out/perf-sym.txt"
cat "$out/perf-dso.txt"
