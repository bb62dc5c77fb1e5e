#!/usr/bin/env bash
# scripts/bench-spill-ab.sh — a serial MergePath Join over pg_mergepath.memory_limit, two
# builds against each other on the GPU host in one device call: the check that the join's
# spill (sorted runs of rows, spill/row_runs.cpp) is as fast as what it replaced. The
# planner seldom picks a serial spilled join over a native one (bench-ab.sh's runner then
# times the native plan, marked ‡), so this script forces the path: hash, merge and
# nested-loop joins off, no workers.
#
# 1. Here, from the repo root: both builds staged (see bench-ab.sh's header):
#        bash ../shared/device/prepare CUDA_ARCH=90
#        bash scripts/bench-ab.sh --prepare-base COMMIT     # -> .device/stage-base
# 2. One device call, carry .device/pg15.tar.xz, .device/pg-up, .device/stage, .device/stage-base:
#        bash scripts/bench-spill-ab.sh
# Two tables of SPILL_ROWS rows (default 4M; int8 keys, A's unique, B's over a range a
# quarter wider; B with a 32-character text column), three joins (inner, full with B's text, anti) under
# SPILL_LIMIT (default 64MB), each timed SPILL_REPS times (default 2) per build, the builds
# alternating base, new, base, new; the answers must agree. Writes $OUT/spill-ab.txt (one
# line per run: build, round, query, ms, answer) and $OUT/spill-explain.txt (EXPLAIN ANALYZE
# of each query under each build); prints the median per build and query.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rows=${SPILL_ROWS:-4000000}
limit=${SPILL_LIMIT:-64MB}
reps=${SPILL_REPS:-2}
out=${OUT:-$root/bench-out}
mkdir -p "$out"
[ -d .device/stage-base ] && [ -d .device/stage ] || { echo "bench-spill-ab: stage both builds first" >&2; exit 2; }

opts="-c shared_preload_libraries=pg_mergepath -c shared_buffers=8GB -c max_wal_size=16GB"
PG_UP_OPTS=$opts bash .device/pg-up .device/pg15.tar.xz .device/stage-base >/dev/null
# shellcheck disable=SC1091
. /opt/pg/env
restart_with() {
  runuser -u postgres -- env LD_LIBRARY_PATH="$LD_LIBRARY_PATH" pg_ctl -D /opt/pgdata -w stop -m fast >/dev/null
  local stage=.device/stage-base
  [ "$1" = new ] && stage=.device/stage
  cp -a --remove-destination "$stage"/usr/. /opt/pg/usr/
  runuser -u postgres -- env LD_LIBRARY_PATH="$LD_LIBRARY_PATH" pg_ctl -D /opt/pgdata -l /opt/pgdata/server.log -w \
    -o "-c listen_addresses=127.0.0.1 -c port=5432 -c unix_socket_directories=/tmp $opts" start >/dev/null
}

psql -qX -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION IF NOT EXISTS pg_mergepath;
DROP TABLE IF EXISTS spill_a, spill_b;
CREATE UNLOGGED TABLE spill_a AS SELECT (g::int8 * 7919) % $rows AS k, g AS pa FROM generate_series(1, $rows) g;
CREATE UNLOGGED TABLE spill_b AS SELECT (g::int8 * 104729) % ($rows * 5 / 4) AS k, g AS pb, md5(g::text) AS t
  FROM generate_series(1, $rows) g;
VACUUM ANALYZE spill_a, spill_b;
SQL

settings="SET max_parallel_workers_per_gather = 0; SET enable_hashjoin = off; SET enable_mergejoin = off;
SET enable_nestloop = off; SET pg_mergepath.min_rows = 0; SET pg_mergepath.memory_limit = '$limit'; SET jit = off;"
queries=(
  "inner|SELECT count(*), sum(a.pa + b.pb) FROM spill_a a JOIN spill_b b ON a.k = b.k"
  "full|SELECT count(*), sum(length(b.t)) FROM spill_a a FULL JOIN spill_b b ON a.k = b.k"
  "anti|SELECT count(*) FROM spill_a a WHERE NOT EXISTS (SELECT 1 FROM spill_b b WHERE b.k = a.k)"
)
: > "$out/spill-ab.txt"
: > "$out/spill-explain.txt"
for round in 1 2; do
  for build in base new; do
    restart_with "$build"
    for q in "${queries[@]}"; do
      name=${q%%|*} sql=${q#*|}
      if [ "$round" = 1 ]; then
        echo "== $build: $name" >> "$out/spill-explain.txt"
        psql -qXAt -c "$settings" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $sql" >> "$out/spill-explain.txt"
      fi
      for rep in $(seq 1 "$reps"); do
        line=$(psql -qXAt -c "$settings" -c '\timing on' -c "$sql" | tr '\n' ' ')
        ms=$(echo "$line" | sed -E 's/.*Time: ([0-9.]+) ms.*/\1/')
        answer=$(echo "$line" | sed -E 's/ *Time:.*//')
        echo "$build $round $name $ms $answer" | tee -a "$out/spill-ab.txt"
      done
    done
  done
done
status=0
for q in "${queries[@]}"; do
  name=${q%%|*}
  answers=$(awk -v n="$name" '$3 == n { $1 = $2 = $3 = $4 = ""; print }' "$out/spill-ab.txt" | sort -u | wc -l)
  [ "$answers" = 1 ] || { echo "bench-spill-ab: $name: the builds disagree" >&2; status=1; }
  for build in base new; do
    med=$(awk -v n="$name" -v b="$build" '$1 == b && $3 == n { print $4 }' "$out/spill-ab.txt" | sort -n |
          awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    echo "median $name $build: $med ms ($rows rows per side, memory_limit $limit)"
  done
done
exit $status
