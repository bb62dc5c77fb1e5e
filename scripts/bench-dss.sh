#!/usr/bin/env bash
# scripts/bench-dss.sh — the decision-support benchmark (issue 32): the star schema of
# bench/dss/schema.sql and the 24 queries of bench/dss/queries.sql (set operations,
# EXISTS / NOT EXISTS / IN, outer joins, multi-way joins, aggregates), stock PostgreSQL
# (pg_mergepath.enabled = off) against the planner's choice with the extension loaded,
# each answer compared (count and checksum of the rows).
#
# On the GPU host, carry [".device/pg15.tar.xz", ".device/pg-up", ".device/stage"]
# (bash ../shared/device/prepare CUDA_ARCH=90 here first), from the repo root:
#     bash scripts/bench-dss.sh
# Elsewhere: a running server with pg_mergepath in shared_preload_libraries (PG*
# variables, psql on PATH).
# Environment: DSS_SCALE (10: 10M store sales, 5M web sales), DSS_REPS (3 timed runs,
# the median reported, after one verifying run), DSS_WORKERS (16: workers per Gather, both
# variants), DSS_TIMEOUT_S (60: a statement running longer is stopped and reported),
# DSS_INTERLEAVE=1 (after one verified run of each variant, the other timed runs
# alternate stock / ours, one per fresh session: a drift of the host falls on both),
# DSS_QUERIES (comma list of query ids; default all), DSS_KEEP=1 (reuse the schema of an
# earlier run with the same scale). Prints a markdown table and the geometric mean of
# stock / ours; the plans of both variants go to $OUT/dss-plans.txt (OUT defaults to
# ./device-out).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scale=${DSS_SCALE:-10}
reps=${DSS_REPS:-3}
workers=${DSS_WORKERS:-16}
timeout_s=${DSS_TIMEOUT_S:-60}
out=${OUT:-$root/device-out}
mkdir -p "$out"
plans=$out/dss-plans.txt
: > "$plans"

if [ -f .device/pg15.tar.xz ] && ! command -v psql >/dev/null 2>&1; then
  PG_UP_OPTS="-c shared_preload_libraries=pg_mergepath -c shared_buffers=16GB -c max_worker_processes=40 \
-c max_parallel_workers=32 -c effective_cache_size=64GB" \
    bash .device/pg-up .device/pg15.tar.xz .device/stage > /tmp/bench-dss-pgup.log 2>&1 ||
    { tail -20 /tmp/bench-dss-pgup.log; exit 2; }
  # shellcheck disable=SC1091
  . /opt/pg/env
fi
sql() { psql -X -v ON_ERROR_STOP=1 -qAt "$@"; }
sql -c "CREATE EXTENSION IF NOT EXISTS pg_mergepath" 2>/dev/null
have=$(sql -c "SELECT count(*) FROM pg_class WHERE relname = 'f_sales' AND relnamespace = 'dss'::regnamespace" 2>/dev/null || echo 0)
if [ "${DSS_KEEP:-0}" != 1 ] || [ "$have" != 1 ]; then
  start=$(date +%s)
  sql -v scale="$scale" -f bench/dss/schema.sql > /dev/null
  echo "bench-dss: schema at scale $scale made in $(( $(date +%s) - start )) s" >&2
fi

# session settings of a variant
settings() {
  echo "SET search_path = dss; SET max_parallel_workers_per_gather = $workers; SET statement_timeout = '${timeout_s}s';"
  [ "$1" = stock ] && echo "SET pg_mergepath.enabled = off;" || echo "SET pg_mergepath.enabled = on;"
}
# runs `checksum query` once (its answer) and $reps times (\timing), in one session;
# prints "answer|ms ms ms" (an ERROR, e.g. the timeout: "ERROR: ...|")
run_variant() {
  local variant=$1 q=$2 check
  check="SELECT count(*) || ':' || coalesce(sum(hashtext(s::text)::int8), 0) FROM ($q) s"
  { settings "$variant"
    [ "${verify:-1}" = 1 ] && echo "$check;"
    echo "\\timing on"
    for _ in $(seq "$reps"); do echo "$check;"; done
  } | psql -X -qAt 2>&1 | awk '
      /^Time: / { t = t " " $2; next }
      /ERROR/ { err = $0; next }
      !answer && /^[0-9]+:/ { answer = $0 }
      END { if (err) print "ERROR " err "|"; else print answer "|" t }'
}
median() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }

echo "| query | what | stock ms | with pg_mergepath ms | stock / ours | our nodes in the plan | same answer |"
echo "|---|---|---:|---:|---:|---|---|"
logsum=0; n=0; slower=0
while IFS='|' read -r id what q; do
  id=$(echo "$id" | sed 's/^ *//; s/ *$//'); what=$(echo "$what" | sed 's/^ *//; s/ *$//')
  case "$id" in ''|--*) continue ;; esac
  if [ -n "${DSS_QUERIES:-}" ] && ! echo ",$DSS_QUERIES," | grep -q ",$id,"; then continue; fi
  for v in stock ours; do
    { echo "==== $id $v: $q"; { settings "$v"; echo "EXPLAIN (COSTS OFF) $q;"; } | psql -X -qAt 2>&1; } >> "$plans"
  done
  nodes=$({ settings ours; echo "EXPLAIN (COSTS OFF) $q;"; } | psql -X -qAt 2>&1 | grep -o 'MergePath [A-Za-z]*' | sort | uniq -c |
          awk '{ printf "%s%s %s x%s", sep, $2, $3, $1; sep = ", " }' || true)
  if [ "${DSS_INTERLEAVE:-0}" = 1 ]; then
    # one verified run of each, then the other timed runs alternating stock / ours, each
    # in a fresh session, so that a drift of the host falls on both alike
    s=$(reps=1 run_variant stock "$q"); o=$(reps=1 run_variant ours "$q")
    for _ in $(seq $((reps - 1))); do
      t=$(verify=0 reps=1 run_variant stock "$q"); s="$s ${t#*|}"
      t=$(verify=0 reps=1 run_variant ours "$q"); o="$o ${t#*|}"
    done
  else
    s=$(run_variant stock "$q"); o=$(run_variant ours "$q")
  fi
  s_ans=${s%%|*}; o_ans=${o%%|*}
  s_ms=$(echo "${s#*|}" | median); o_ms=$(echo "${o#*|}" | median)
  same=no; [ "$s_ans" = "$o_ans" ] && case "$s_ans" in ERROR*) ;; *) same=yes ;; esac
  ratio=n/a
  if [ -n "$s_ms" ] && [ -n "$o_ms" ]; then
    ratio=$(awk -v a="$s_ms" -v b="$o_ms" 'BEGIN { printf "%.2fx", a / b }')
    logsum=$(awk -v l="$logsum" -v a="$s_ms" -v b="$o_ms" 'BEGIN { print l + log(a / b) }'); n=$((n + 1))
    awk -v a="$s_ms" -v b="$o_ms" 'BEGIN { exit !(b > 1.05 * a) }' && slower=$((slower + 1))
  fi
  echo "| $id | $what | ${s_ms:-${s_ans}} | ${o_ms:-${o_ans}} | $ratio | ${nodes:-none} | $same |"
done < bench/dss/queries.sql
[ "$n" -gt 0 ] && echo && awk -v l="$logsum" -v n="$n" -v s="$slower" \
  'BEGIN { printf "geometric mean of stock / ours over %d queries: %.2fx; slower than 1.05x stock: %d\n", n, exp(l / n), s }'
