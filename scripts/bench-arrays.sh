#!/usr/bin/env bash
# scripts/bench-arrays.sh — the SQL functions over sorted arrays against the same answers
# computed with SQL over unnest, in one device call (or on any server with pg_mergepath
# loaded: PG* variables / psql on PATH).
#
# On the GPU host, carry [".device/pg15.tar.xz", ".device/pg-up", ".device/stage"]
# (bash ../shared/device/prepare CUDA_ARCH=90 here first), from the repo root:
#     bash scripts/bench-arrays.sh
# ARRAY_ELEMENTS (10000000) per array, two bigint arrays sorted ascending with repeats
# (about 2 copies per value); ARRAY_REPS (3) timed runs each after an untimed one, in one
# session (a long-lived connection), the best reported. Each function's answer is
# checked equal to the SQL one (the arrays compared whole; the SQL runs with
# pg_mergepath.enabled = off) before timing. Prints a markdown table. Ours runs on each
# of ARRAY_DEVICES (default: cpu, and gpu where nvidia-smi sees a GPU) through
# pg_mergepath.device; the CPU backend uses pg_mergepath.cpu_threads (all cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
n=${ARRAY_ELEMENTS:-10000000}
reps=${ARRAY_REPS:-3}
if [ -f .device/pg15.tar.xz ] && ! command -v psql >/dev/null 2>&1; then
  PG_UP_OPTS="-c shared_preload_libraries=pg_mergepath -c shared_buffers=8GB -c work_mem=1GB" \
    bash .device/pg-up .device/pg15.tar.xz .device/stage > /tmp/bench-arrays-pgup.log 2>&1 ||
    { tail -20 /tmp/bench-arrays-pgup.log; exit 2; }
  # shellcheck disable=SC1091
  . /opt/pg/env
fi
sql() { psql -X -v ON_ERROR_STOP=1 -qAt "$@"; }
sql -c "CREATE EXTENSION IF NOT EXISTS pg_mergepath"
sql -c "DROP TABLE IF EXISTS mp_arrays; SET work_mem = '1GB';
        CREATE TABLE mp_arrays AS SELECT
          (SELECT array_agg(g::int8 * 7919 % ($n / 2) ORDER BY g::int8 * 7919 % ($n / 2)) FROM generate_series(1, $n) g) AS a,
          (SELECT array_agg(g::int8 * 104729 % ($n / 2 + 1000) ORDER BY g::int8 * 104729 % ($n / 2 + 1000)) FROM generate_series(1, $n) g) AS b"
schema=$(sql -c "SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'pg_mergepath'")

# name | our SQL | the same answer in SQL over unnest
queries=(
  "merge|SELECT $schema.merge(a, b) FROM mp_arrays|SELECT array_agg(x ORDER BY x) FROM (SELECT unnest(a) x FROM mp_arrays UNION ALL SELECT unnest(b) FROM mp_arrays) s"
  "intersect_all|SELECT $schema.intersect_all(a, b) FROM mp_arrays|SELECT array_agg(x ORDER BY x) FROM (SELECT unnest(a) x FROM mp_arrays INTERSECT ALL SELECT unnest(b) FROM mp_arrays) s"
  "except_all|SELECT $schema.except_all(a, b) FROM mp_arrays|SELECT array_agg(x ORDER BY x) FROM (SELECT unnest(a) x FROM mp_arrays EXCEPT ALL SELECT unnest(b) FROM mp_arrays) s"
  "sorted_search|SELECT $schema.sorted_search(a, b) FROM mp_arrays|"
)
# the devices ours runs on: the CPU backend, and the GPU where there is one
devices=${ARRAY_DEVICES:-cpu$(nvidia-smi -L >/dev/null 2>&1 && echo " gpu" || true)}
best_ms() {  # best_ms DEVICE QUERY: the best of $reps runs after one untimed run, in one
  local dev=$1 q=$2     # session (a long-lived connection: the GPU started, the TOAST pages cached)
  { echo "SET work_mem = '1GB'; SET max_parallel_workers_per_gather = 0;"
    if [ "$dev" = - ]; then echo "SET pg_mergepath.enabled = off;"; else echo "SET pg_mergepath.device = '$dev';"; fi
    echo "SELECT cardinality(r) FROM ($q) s(r);"
    echo "\\timing on"
    for _ in $(seq "$reps"); do echo "SELECT cardinality(r) FROM ($q) s(r);"; done
  } | psql -X -v ON_ERROR_STOP=1 -qAt | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sort -n | head -1
}
header="| function | elements per array | result elements |"
rule="|---|---:|---:|"
for dev in $devices; do header="$header ours ($dev) ms |"; rule="$rule---:|"; done
echo "$header SQL over unnest ms | speed-up (ours at best) |"
echo "$rule---:|---:|"
for entry in "${queries[@]}"; do
  IFS='|' read -r name ours theirs <<< "$entry"
  count=$(sql -c "SELECT cardinality(r) FROM ($ours) s(r)")
  if [ -n "$theirs" ]; then
    same=$(sql -c "SET work_mem = '1GB'" -c "SELECT (SELECT r FROM ($ours) s(r)) = (SELECT r FROM ($theirs) s(r))")
    [ "$same" = t ] || { echo "bench-arrays: $name differs from SQL over unnest" >&2; exit 1; }
  fi
  row="| $name | $n | $count |"
  best=
  for dev in $devices; do
    o=$(best_ms "$dev" "$ours")
    row="$row $o |"
    if [ -z "$best" ] || awk -v a="$o" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$o; fi
  done
  if [ -z "$theirs" ]; then  # no set-based SQL computes every needle's position cheaply
    echo "$row n/a | n/a |"
    continue
  fi
  t=$(best_ms - "$theirs")
  echo "$row $t | $(awk -v a="$t" -v b="$best" 'BEGIN { printf "%.1fx", a / b }') |"
done
