#!/usr/bin/env bash
# scripts/bench-join-forced.sh — the join measurements bench/sql's runner cannot make,
# on the GPU host after `scripts/bench-device.sh --joins` in the same device call (it
# reuses that run's server and tables):
#   1. the fact x dimension join and the 10M inner join with our node forced (native join
#      methods off; no memory limit: the join node does not spill), GPU and CPU backend,
#      parallel and serial, the fact x dimension join also with both sides sorted
#      (pg_mergepath.stream_outer = off), with EXPLAIN ANALYZE (FORCED_FACTDIM_ONLY=1:
#      the fact x dimension runs alone; FORCED_1E9_ONLY=1: part 2 alone);
#   2. a join whose result has 1e9 rows (10M x 10M int8, 100 copies of each key per side)
#      on the GPU, forced, with the backend's peak RSS, and stock's time for it.
# Usage (carry [".device"]): bash scripts/bench-join-forced.sh > $OUT/forced.txt 2>&1
set -uo pipefail
. /opt/pg/env
F=mp_bench.factdim_100m_1m_m950
U=mp_bench.int8_uniform_10m_n0
FORCED_1E9_ONLY=${FORCED_1E9_ONLY:-}  # 1: part 2 alone (it makes its own tables)
run() {
  echo "=== $1"
  psql -X -c "set jit=off" -c "set enable_hashjoin=off" -c "set enable_mergejoin=off" -c "set enable_nestloop=off" \
    -c "set pg_mergepath.min_rows=0" -c "set pg_mergepath.memory_limit=-1" -c "$2" -c "\\timing on" -c "$3" -c "$3" -c "explain (analyze, costs on) $3" 2>&1 |
    grep -v "^SET" | grep -vE "Buffers|^\s*$"
}
if [ -z "$FORCED_1E9_ONLY" ]; then
Q1="select count(*), sum(a.p1), sum(a.p2), sum(b.p1), sum(b.p2) from ${F}_a a join ${F}_b b on a.k = b.k"
run "factdim gpu parallel" "set max_parallel_workers_per_gather=16; set pg_mergepath.device=gpu" "$Q1"
run "factdim gpu parallel, both sides sorted (stream_outer off)" \
  "set max_parallel_workers_per_gather=16; set pg_mergepath.device=gpu; set pg_mergepath.stream_outer=off" "$Q1"
run "factdim cpu parallel" "set max_parallel_workers_per_gather=16; set pg_mergepath.device=cpu" "$Q1"
run "factdim gpu serial" "set max_parallel_workers_per_gather=0; set pg_mergepath.device=gpu" "$Q1"
[ -n "${FORCED_FACTDIM_ONLY:-}" ] && exit 0
Q2="select count(*) from ${U}_a a join ${U}_b b on a.k = b.k"
run "inner gpu serial" "set max_parallel_workers_per_gather=0; set pg_mergepath.device=gpu" "$Q2"
echo "=== stock serial inner"
psql -X -c "set jit=off" -c "set pg_mergepath.enabled=off" -c "set max_parallel_workers_per_gather=0" \
  -c "\\timing on" -c "$Q2" -c "$Q2" | grep Time

fi

echo "=== 1e9-row result"
psql -X -q -c "drop table if exists bil_a, bil_b" \
  -c "create unlogged table bil_a as select (g % 100000)::int8 k from generate_series(1, 10000000) g" \
  -c "create unlogged table bil_b as select (g % 100000)::int8 k from generate_series(1, 10000000) g" \
  -c "alter table bil_a set (parallel_workers = 16)" -c "alter table bil_b set (parallel_workers = 16)" \
  -c "vacuum analyze bil_a, bil_b"
psql -X 2>&1 <<'SQL' | grep -vE "^SET|^RESET|Buffers"
set jit = off;
set max_parallel_workers_per_gather = 16;
set pg_mergepath.device = gpu;
select pg_backend_pid() as pid \gset
\setenv BPID :pid
explain (costs off) select count(*) from bil_a a join bil_b b on a.k = b.k;
\timing on
select count(*) from bil_a a join bil_b b on a.k = b.k;
\timing off
set enable_hashjoin = off;
set enable_mergejoin = off;
\timing on
select count(*) from bil_a a join bil_b b on a.k = b.k;
explain (analyze, timing off, costs off) select count(*) from bil_a a join bil_b b on a.k = b.k;
\timing off
\! grep -E 'VmHWM|VmRSS' /proc/$BPID/status
set pg_mergepath.enabled = off;
reset enable_hashjoin;
reset enable_mergejoin;
\timing on
select count(*) from bil_a a join bil_b b on a.k = b.k;
SQL
psql -X -q -c "drop table bil_a, bil_b"
