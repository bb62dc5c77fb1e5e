#!/usr/bin/env bash
# scripts/bench-first-query.sh — what the first pg_mergepath query of a new connection
# costs over the same query in a warm connection (the GPU context's start, hidden or
# not). For each pg_mergepath.device setting (and stock for reference) it runs
#   cold: REPS new connections, each running the query once (its server time, \timing);
#   warm: one connection running it once to warm up, then REPS times;
# and prints the medians and cold - warm. The tables must exist (mp_bench generates them:
# mp_bench --rows 1M --shapes int8 --gen-only), the server must run with
# shared_preload_libraries = pg_mergepath, and psql must reach it (PG* environment).
#
#   bash scripts/bench-first-query.sh [ROWS_TAG] [REPS]     # defaults: 1m 5
# Query: SELECT count(*) FROM (SELECT k FROM a INTERSECT ALL SELECT k FROM b) s over
# mp_bench.int8_uniform_<ROWS_TAG>_n0_{a,b}, with 16 workers allowed.
set -euo pipefail
tag=${1:-1m}
reps=${2:-5}
a=mp_bench.int8_uniform_${tag}_n0_a
b=mp_bench.int8_uniform_${tag}_n0_b
query="SELECT count(*) FROM (SELECT k FROM $a INTERSECT ALL SELECT k FROM $b) s"
common="SET jit = off; SET max_parallel_workers_per_gather = 16; SET pg_mergepath.min_rows = 0;"

# server milliseconds of each statement of a psql session, from \timing
# (a statement that fails prints no time: that variant's cells stay empty)
times() { { psql -X -q -v ON_ERROR_STOP=1 -c '\timing on' "$@" 2>/dev/null || true; } | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

run() {  # label, settings
  local label=$1 set=$2 cold warm i
  local many=()
  for i in $(seq $((reps + 1))); do many+=(-c "$query"); done
  # the settings statement prints the first time; a failed query prints none
  cold=$(for i in $(seq "$reps"); do
    times -c "$common $set" -c "$query" | sed -n 2p
  done | median)
  warm=$(times -c "$common $set" "${many[@]}" | sed -n "3,\$p" | median)
  if [ -z "$cold" ] || [ -z "$warm" ]; then printf '| %s | error | error | - |\n' "$label"; return; fi
  printf '| %s | %s | %s | %s |\n' "$label" "$cold" "$warm" "$(awk -v c="$cold" -v w="$warm" 'BEGIN {printf "%.1f", c - w}')"
}

echo "first query on a new connection vs a warm one, $query (median of $reps, ms)"
echo
echo "| variant | first query of a new connection | warm connection | difference |"
echo "|---|---:|---:|---:|"
run "stock" "SET pg_mergepath.enabled = off;"
run "pg_mergepath device=auto" "SET pg_mergepath.device = auto;"
run "pg_mergepath device=gpu" "SET pg_mergepath.device = gpu;"
run "pg_mergepath device=cpu" "SET pg_mergepath.device = cpu;"
