#!/usr/bin/env bash
# scripts/bench-small.sh — small mode of the SQL benchmark, for CI on CPU machines.
#
# Builds the runner (make -C bench/sql; needs libpq-dev), starts a throwaway PostgreSQL
# cluster in a temporary folder (as user postgres when run as root) with
# shared_preload_libraries=pg_mergepath (the extension must already be installed by
# `make install`), runs `mp_bench --small` (20k rows per side, every key shape, uniform /
# zipf / disjoint / identical / uniform with 10% NULLs, the four set operations and the six
# joins (inner, left, right, full, semi, anti; not the Zipf joins of int4, text and numeric
# keys, 4.6M output rows each), plus a 200k x 20k fact x dimension pair with its two
# joins; stock, stock tuned and pg_mergepath device=cpu (with pg_mergepath.enable_join = on
# where the build defines it), every answer verified against stock; the floors; the
# backend's peak RSS with --peak-rss), stops the cluster and removes it. Takes about 40 s
# on 2 cores (10 s of it the set operations).
# A pg_mergepath plan without its Custom Scan (a join the node does not take, text or
# numeric join keys, a build without the join node) is timed, verified and marked ‡ in
# the report (counted as nocustom in the RESULT line), never a failure.
#
# Prints "bench-small: N passed, M failed" last (N/M: verified query variants) and exits
# non-zero on any wrong answer, on a pg_mergepath cpu variant that errors, or if the
# runner or the cluster fails.
#
# Environment: PG_BINDIR (default: /usr/lib/postgresql/15/bin, else pg_config --bindir),
# BENCH_SMALL_NO_EXT=1 (run without pg_mergepath: its variants are n/a, not failures),
# BENCH_SMALL_KEEP=DIR (copy the report, log and server log there), BENCH_SMALL_ARGS
# (extra runner options, e.g. "--variants stock,tuned,cpu,gpu").
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if ! make -s -C "$root/bench/sql" >/dev/null; then
  echo "bench-small: cannot build bench/sql (is libpq-dev installed?)" >&2
  echo "bench-small: 0 passed, 1 failed"
  exit 1
fi
runner=$root/bench/sql/build/mp_bench

bindir=${PG_BINDIR:-}
if [ -z "$bindir" ]; then
  if [ -x /usr/lib/postgresql/15/bin/pg_ctl ]; then bindir=/usr/lib/postgresql/15/bin
  else bindir=$(pg_config --bindir); fi
fi

tmp=$(mktemp -d /tmp/bench-small.XXXXXX)
port=$(( 20000 + RANDOM % 20000 ))
as_pg=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$tmp"
  as_pg=(runuser -u postgres --)
fi

cleanup() {
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$tmp/data" -m immediate stop >/dev/null 2>&1
  if [ -n "${BENCH_SMALL_KEEP:-}" ]; then
    mkdir -p "$BENCH_SMALL_KEEP" && cp -f "$tmp"/*.md "$tmp"/*.log "$BENCH_SMALL_KEEP"/ 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

preload="-c shared_preload_libraries=pg_mergepath"
require="--require cpu"
if [ -n "${BENCH_SMALL_NO_EXT:-}" ]; then preload=""; require=""; fi

if ! "${as_pg[@]}" "$bindir/initdb" -D "$tmp/data" -A trust -U postgres --no-sync >"$tmp/initdb.log" 2>&1; then
  cat "$tmp/initdb.log" >&2
  echo "bench-small: 0 passed, 1 failed"
  exit 1
fi
if ! "${as_pg[@]}" "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
     -o "-c port=$port -c listen_addresses='' -c unix_socket_directories=$tmp -c fsync=off \
         -c shared_buffers=256MB -c max_parallel_workers=4 $preload" start >/dev/null; then
  echo "bench-small: the server did not start (is pg_mergepath installed? make install):" >&2
  tail -20 "$tmp/server.log" >&2
  echo "bench-small: 0 passed, 1 failed"
  exit 1
fi

# shellcheck disable=SC2086
"$runner" --small --peak-rss $require --conn "host=$tmp port=$port user=postgres dbname=postgres" \
  --out "$tmp/bench-small.md" --log "$tmp/bench-small.log" ${BENCH_SMALL_ARGS:-} >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
grep -v '^RESULT' "$tmp/stdout"
result=$(grep '^RESULT' "$tmp/stdout" | tail -1)
passed=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result")
failed=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result")
if [ "$rc" != 0 ] || [ -z "$result" ]; then
  grep -B2 -A3 -E 'FAILURE|mp_bench:' "$tmp/stderr" >&2 || tail -20 "$tmp/stderr" >&2
fi
[ -n "$passed" ] || passed=0
[ -n "$failed" ] || failed=0
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
echo "bench-small: $passed passed, $failed failed"
[ "$rc" = 0 ] && [ "$failed" = 0 ]
