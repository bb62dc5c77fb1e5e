#!/usr/bin/env bash
# scripts/concurrency.sh — many sessions running MergePath set operations at once, every
# answer checked (issue 12: one GPU shared safely by concurrent queries).
#
# Creates two int8 tables of CONC_ROWS rows each (about two copies per key), computes
# the answers of INTERSECT ALL / EXCEPT ALL / INTERSECT / EXCEPT (or INTERSECT ALL
# alone) with pg_mergepath off,
# checks that the plan with pg_mergepath on uses the MergePath node, then:
#   1. one session runs the four queries in a loop for CONC_BASELINE_SECONDS,
#   2. CONC_SESSIONS sessions run them at once for CONC_SECONDS,
# each query's count and checksum compared with the native answer inside the session
# (a wrong answer raises an ERROR). While they run, one more session samples
# pg_mergepath_status(): the most bytes reserved in the shared budget and the most
# backends waiting for room.
# Prints the queries per second of both phases, NOTICEs (queries moved to the CPU
# backend), errors and wrong answers; exits non-zero on any error or wrong answer.
#
#   CONC_CONN="host=... port=..."  an existing server with pg_mergepath preloaded and
#                                  installed; unset: a throwaway cluster (as bench-small)
#   CONC_SESSIONS (4) CONC_ROWS (200000) CONC_SECONDS (8) CONC_BASELINE_SECONDS (4)
#   CONC_DEVICE (cpu)              pg_mergepath.device of the sessions
#   CONC_OPS (all)                 all: the four operators; intersect_all: that one alone
#   CONC_SETTINGS                  more SET statements for every session, e.g. the CPU
#                                  test's "SET pg_mergepath.debug_cpu_shared_budget = '12MB'"
#   CONC_SERVER_OPTS               more server options for the throwaway cluster
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sessions=${CONC_SESSIONS:-4}
rows=${CONC_ROWS:-200000}
seconds=${CONC_SECONDS:-8}
baseline_seconds=${CONC_BASELINE_SECONDS:-4}
device=${CONC_DEVICE:-cpu}
settings=${CONC_SETTINGS:-}
ops=${CONC_OPS:-all}
tmp=$(mktemp -d /tmp/concurrency.XXXXXX)
as_pg=()
[ "$(id -u)" = 0 ] && { chown postgres "$tmp"; as_pg=(runuser -u postgres --); }
say() { echo "concurrency: $*"; }

bindir=${PG_BINDIR:-}
if [ -z "$bindir" ]; then
  if [ -x /usr/lib/postgresql/15/bin/pg_ctl ]; then bindir=/usr/lib/postgresql/15/bin
  else bindir=$(pg_config --bindir); fi
fi

cleanup() {
  [ -z "${CONC_CONN:-}" ] && "${as_pg[@]}" "$bindir/pg_ctl" -D "$tmp/data" -m immediate stop >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

conn=${CONC_CONN:-}
if [ -z "$conn" ]; then
  port=$(( 20000 + RANDOM % 20000 ))
  "${as_pg[@]}" "$bindir/initdb" -D "$tmp/data" -A trust -U postgres --no-sync >"$tmp/initdb.log" 2>&1 ||
    { cat "$tmp/initdb.log" >&2; exit 2; }
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
    -o "-c port=$port -c listen_addresses='' -c unix_socket_directories=$tmp -c fsync=off \
        -c max_connections=$((sessions + 20)) -c shared_preload_libraries=pg_mergepath ${CONC_SERVER_OPTS:-}" \
    start >/dev/null || { tail -20 "$tmp/server.log" >&2; exit 2; }
  conn="host=$tmp port=$port user=postgres dbname=postgres"
fi
psql_() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$conn" "$@"; }

say "$sessions sessions, $rows x $rows int8 rows, device $device, ${seconds}s (one session: ${baseline_seconds}s)"
psql_ >/dev/null <<SQL || exit 2
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_mergepath;
DROP TABLE IF EXISTS conc_l, conc_r, conc_answers;
CREATE TABLE conc_l AS SELECT (random() * $rows / 2)::int8 AS k FROM generate_series(1, $rows);
CREATE TABLE conc_r AS SELECT (random() * $rows / 2)::int8 AS k FROM generate_series(1, $rows);
ANALYZE conc_l, conc_r;
CREATE TABLE conc_answers (q text, answer text);
CREATE FUNCTION pg_temp.answer(q text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE a text;
BEGIN
  EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashint8(k)), 0) FROM (%s) s', q) INTO a;
  RETURN a;
END \$\$;
SET pg_mergepath.enabled = off;
INSERT INTO conc_answers
  SELECT 'SELECT k FROM conc_l ' || op || ' SELECT k FROM conc_r', NULL
  FROM unnest(ARRAY['INTERSECT ALL', 'EXCEPT ALL', 'INTERSECT', 'EXCEPT']) op
  WHERE '$ops' = 'all' OR op = 'INTERSECT ALL';
UPDATE conc_answers SET answer = pg_temp.answer(q);
-- runs the queries in turn for some seconds, each answer checked; returns how many ran
CREATE OR REPLACE FUNCTION conc_loop(seconds float8) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE
  stop timestamptz := clock_timestamp() + seconds * interval '1 second';
  n bigint := 0;
  r record;
  got text;
BEGIN
  WHILE clock_timestamp() < stop LOOP
    FOR r IN SELECT q, answer FROM conc_answers ORDER BY q LOOP
      EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashint8(k)), 0) FROM (%s) s', r.q) INTO got;
      IF got IS DISTINCT FROM r.answer THEN
        RAISE EXCEPTION 'WRONG ANSWER for %: % instead of %', r.q, got, r.answer;
      END IF;
      n := n + 1;
    END LOOP;
  END LOOP;
  RETURN n;
END \$\$;
-- the most bytes reserved in the shared budget and backends waiting, sampled every 20 ms
CREATE OR REPLACE FUNCTION conc_sample(seconds float8, OUT max_bytes bigint, OUT max_waiting int)
LANGUAGE plpgsql AS \$\$
DECLARE
  stop timestamptz := clock_timestamp() + seconds * interval '1 second';
  st record;
BEGIN
  max_bytes := 0;
  max_waiting := 0;
  WHILE clock_timestamp() < stop LOOP
    SELECT * INTO st FROM pg_mergepath_status();
    max_bytes := greatest(max_bytes, coalesce(st.gpu_shared_in_use, 0));
    max_waiting := greatest(max_waiting, coalesce(st.gpu_waiting_backends, 0));
    PERFORM pg_sleep(0.02);
  END LOOP;
END \$\$;
SQL

session_settings="SET pg_mergepath.device = $device; SET pg_mergepath.min_rows = 0;
  SET max_parallel_workers_per_gather = 0; $settings"
plan=$(psql_ -At -c "$session_settings" -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT k FROM conc_l INTERSECT ALL SELECT k FROM conc_r) s")
grep -q "Custom Scan (MergePath" <<<"$plan" || { say "the plan does not use the MergePath node:"; echo "$plan"; exit 1; }

# runs n sessions for s seconds; sets queries (total), notices, failures
run_phase() {
  local n=$1 s=$2 i pids=()
  rm -f "$tmp"/session.* "$tmp/sampled"
  # the sampler's own backend stays on the CPU (it must not start a GPU context)
  psql_ -At -F ' ' -c "SET pg_mergepath.device = cpu" -c "SELECT * FROM conc_sample($s)" >"$tmp/sampled" 2>&1 &
  local sampler=$!
  for ((i = 0; i < n; i++)); do
    psql_ -At -c "$session_settings" -c "SELECT conc_loop($s)" >"$tmp/session.$i.out" 2>"$tmp/session.$i.err" &
    pids[$i]=$!
  done
  failures=0
  for ((i = 0; i < n; i++)); do wait "${pids[$i]}" || failures=$((failures + 1)); done
  wait "$sampler"
  queries=$(cat "$tmp"/session.*.out 2>/dev/null | awk '/^[0-9]+$/ { n += $1 } END { print n + 0 }')
  notices=$(cat "$tmp"/session.*.err | grep -c NOTICE)
  grep -h -E "ERROR|WRONG" "$tmp"/session.*.err | sort | uniq -c | head -5
  read -r max_bytes max_waiting < "$tmp/sampled"
}

run_phase 1 "$baseline_seconds"
per_second() { awk -v q="$1" -v s="$2" 'BEGIN { printf "%.1f", q / s }'; }
one=$(per_second "$queries" "$baseline_seconds")
fail1=$failures
say "1 session: ${queries:-0} queries, $one queries/s"
run_phase "$sessions" "$seconds"
many=$(per_second "$queries" "$seconds")
say "$sessions sessions: ${queries:-0} queries, $many queries/s ($(awk -v a="$many" -v b="$one" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')x one session)," \
    "$notices moved to the CPU backend (NOTICE), $failures sessions failed;" \
    "shared budget: at most $max_bytes bytes reserved, $max_waiting backends waiting"
psql_ -c "DROP TABLE conc_l, conc_r, conc_answers; DROP FUNCTION conc_loop(float8), conc_sample(float8)" >/dev/null
[ "$fail1" = 0 ] && [ "$failures" = 0 ] && [ "${queries:-0}" -gt 0 ]
