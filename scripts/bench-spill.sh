#!/usr/bin/env bash
# scripts/bench-spill.sh — issue 12's large target on the GPU host, in one device call:
# N x N int8 (default 100M) INTERSECT ALL and EXCEPT ALL with pg_mergepath.memory_limit
# (default 1GB; parallel and serial), against the same queries with no limit (the
# parallel node, and the serial node), each answer checked against stock PostgreSQL's
# (its own set operation, run once with work_mem = 4GB; or SPILL_REF_INTERSECT_ALL /
# SPILL_REF_EXCEPT_ALL = "count|checksum" from an earlier stock run of the same data),
# each timed in a fresh connection whose peak RSS (VmHWM) is read after the query.
#
# Here, from the repo root: bash ../shared/device/prepare CUDA_ARCH=90 && bash scripts/bench-device.sh --prepare
# Device call, carry [".device"]: bash scripts/bench-spill.sh
# Environment: SPILL_ROWS (100M), SPILL_LIMIT (1GB), SPILL_OPS ("intersect_all except_all";
# also "join": the inner join on the key, our node forced), SPILL_SHAPE (int8, or text:
# bench/sql's text keys, image keys, which spill hash partitions),
# SPILL_DEVICE (gpu), SPILL_VARIANTS (a regex on the variant names, default all; "planned
# in memory" misleads the planner so that the parallel node switches to spilling while
# it reads). The server runs with shared_buffers = 1GB, so a sequential scan of
# these tables goes through a small ring of buffers and the backend's RSS is its own
# memory, not the tables' pages. "all MB" adds to the leader's the peak RSS of every
# parallel worker of the query (sampled from /proc every 50 ms while it runs; shared
# memory a worker touches counts in each process that touched it, so this over-counts);
# "grown MB" is what the query added: with parallel workers, the growth of the private
# memory (smaps_rollup's Anonymous, sampled) of the leader and of every worker, summed;
# serial, the backend's peak RSS less its RSS before the query.
# Writes spill.md (the table) and spill.log into $OUT.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/bench-out}
mkdir -p "$out"
rows=${SPILL_ROWS:-100M}
shape=${SPILL_SHAPE:-int8}
limit=${SPILL_LIMIT:-1GB}
device=${SPILL_DEVICE:-gpu}
t0=$(date +%s)
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - t0 ))s] bench-spill: $*" | tee -a "$out/spill.log" >&2; }

opts="-c shared_buffers=1GB -c max_worker_processes=16 -c max_parallel_workers=16 -c shared_preload_libraries=pg_mergepath"
opts+=" -c maintenance_work_mem=2GB -c max_wal_size=16GB -c synchronous_commit=off"
shm_kb=$(df -k --output=avail /dev/shm 2>/dev/null | tail -1 | tr -d ' ' || echo 0)
[ "${shm_kb:-0}" -ge $((8 * 1024 * 1024)) ] || opts+=" -c dynamic_shared_memory_type=mmap"
PG_UP_OPTS="$opts" bash .device/pg-up .device/pg15.tar.xz .device/stage > "$out/pg-up.log" 2>&1 ||
  { cat "$out/pg-up.log" >&2; exit 2; }
# shellcheck disable=SC1091
. /opt/pg/env
runuser -u postgres -- env LD_LIBRARY_PATH="$LD_LIBRARY_PATH" pg_ctl -D /opt/pgdata -w restart \
  -o "-c listen_addresses=127.0.0.1 -c port=5432 -c unix_socket_directories=/tmp $opts" > /dev/null
conn="host=127.0.0.1 port=5432 user=postgres dbname=postgres"

log "generating $rows x $rows $shape"
.device/bin/mp_bench --conn "$conn" --rows "$rows" --shapes "$shape" --gen-only --jobs 16 --table-workers 16 \
  >> "$out/spill.log" 2>&1
a=$(psql -X -At -d "$conn" -c "select 'mp_bench.' || relname from pg_class where relname ~ '^${shape}_uniform_.*_a\$' order by relpages desc limit 1")
b=${a%_a}_b
log "tables $a, $b"

# Every parallel worker seen until file $1 exists (one query runs at a time here), and
# its leader, sampled from /proc every 50 ms: "<sum of the workers' peak RSS kB> <sum
# over the leader and the workers of (peak - first) private anonymous memory kB>"
# (/proc/PID/smaps_rollup's Anonymous: what the process allocated itself, not shared
# memory nor file pages, which RSS also counts).
sample_workers() {
  local pid key value leader pids files peaks=0 grown=0
  declare -A peak=() first=() top=()
  while [ ! -e "$1" ]; do
    pids=$(pgrep -f "parallel worker for PID" || true)
    if [ -n "$pids" ]; then
      [ -n "${leader:-}" ] || leader=$(ps -o args= -p "${pids%%$'\n'*}" 2>/dev/null | grep -o 'PID [0-9]*' | cut -d' ' -f2)
      files=()
      for pid in $pids; do files+=("/proc/$pid/status" "/proc/$pid/smaps_rollup"); done
      [ -n "$leader" ] && files+=("/proc/$leader/smaps_rollup")
      # one awk a sample: "<pid> hwm|anon <kB>" for every file still there
      while read -r pid key value; do
        if [ "$key" = hwm ]; then
          [ "$value" -gt "${peak[$pid]:-0}" ] && peak[$pid]=$value
        else
          [ -n "${first[$pid]:-}" ] || first[$pid]=$value
          [ "$value" -gt "${top[$pid]:-0}" ] && top[$pid]=$value
        fi
      done < <(awk '{ split(FILENAME, p, "/") }
                    /^VmHWM:/ { print p[3], "hwm", $2 } /^Anonymous:/ { print p[3], "anon", $2 }' \
               "${files[@]}" 2>/dev/null)
    fi
    sleep 0.05
  done
  for pid in "${!peak[@]}"; do peaks=$(( peaks + peak[$pid] )); done
  for pid in "${!top[@]}"; do grown=$(( grown + top[$pid] - first[$pid] )); done
  echo "$peaks $grown"
}

# One measured query in a fresh connection: "<count>|<checksum> <ms> <VmHWM kB> <VmRSS
# before kB> <workers' peaks kB> <workers' growth kB>".
measure() {  # settings sql
  local stopfile workers sampler res
  stopfile=$(mktemp -u)
  workers=$(mktemp)
  sample_workers "$stopfile" > "$workers" &
  sampler=$!
  res=$(psql -X -At -v ON_ERROR_STOP=1 -d "$conn" <<SQL | awk '/^Time:/ { ms = $2; next } /^hwm / { hwm = $2; next } /^rss / { rss = $2; next } /\|/ { r = $0 } END { print r, ms, hwm, rss }'
$1
select 'rss ' || (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmRSS:\s*(\d+) kB'))[1];
\timing on
$2
\timing off
select 'hwm ' || (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\s*(\d+) kB'))[1];
SQL
)
  touch "$stopfile"
  wait "$sampler" || true
  echo "$res $(cat "$workers")"
  rm -f "$stopfile" "$workers"
}

# "JOIN": the inner join of the two tables on their key (the join node spills, in parallel too:
# its variants run with the hash, merge and nested-loop joins off, so that the node is what is timed)
ours_sql() {
  if [ "$1" = JOIN ]; then echo "select count(*), sum(hashint8(a.k)) from $a a join $b b on a.k = b.k;"
  else echo "select count(*), sum($checksum) from (select k from $a $1 select k from $b) s;"; fi
}
# the checksum hashes values as the set operation compares them: numeric's hash
# ignores the scale, since which of equal rows (1.50, 1.500) a group prints is the first
# one read, and a parallel plan (or PostgreSQL's own synchronized scan of a large
# table) reads in no fixed order
case "$shape" in
  int8) checksum="hashint8(k)" ;;
  numeric) checksum="hash_numeric(k)" ;;
  *) checksum="hashtext(k::text)" ;;
esac
base="set pg_mergepath.device = $device; set max_parallel_workers_per_gather = 16;"
# "planned in memory": the planner told both tables hold 1000 rows (in a transaction the
# connection's end rolls back), so that the parallel node is planned to hold its input
# and finds it past the limit while reading (it switches to spilling); pages cost nothing
# then, or the pages of such small tables make a serial plan as cheap as a parallel one
misled="begin; update pg_class set reltuples = 1000 where oid in ('$a'::regclass, '$b'::regclass);
set parallel_setup_cost = 0; set parallel_tuple_cost = 0; set seq_page_cost = 0; set pg_mergepath.min_rows = 0;"

echo "| query | variant | rows out | ms | peak RSS MB | all MB | grown MB | answer |" > "$out/spill.md"
echo "|---|---|---:|---:|---:|---:|---:|---|" >> "$out/spill.md"
status=0
for op in ${SPILL_OPS:-intersect_all except_all}; do
  sqlop=$(echo "$op" | tr '_a-z' ' A-Z')
  given=SPILL_REF_$(echo "$op" | tr a-z A-Z)
  if [ -n "${!given:-}" ]; then
    ref="${!given} given"
  else
    ref=$(measure "set pg_mergepath.enabled = off; set work_mem = '4GB';" "$(ours_sql "$sqlop")")
  fi
  log "$sqlop reference (stock): $ref"
  for variant in "limit $limit, parallel|set pg_mergepath.memory_limit = '$limit';" \
                 "limit $limit, parallel, planned in memory|$misled set pg_mergepath.memory_limit = '$limit';" \
                 "limit $limit, serial|set pg_mergepath.memory_limit = '$limit'; set max_parallel_workers_per_gather = 0;" \
                 "no limit, parallel|set pg_mergepath.memory_limit = -1;" \
                 "default limit, parallel|" \
                 "no limit, serial|set pg_mergepath.memory_limit = -1; set max_parallel_workers_per_gather = 0;"; do
    name=${variant%%|*}
    [[ $name =~ ${SPILL_VARIANTS:-.} ]] || continue
    force=
    [ "$op" = join ] && force="set enable_hashjoin = off; set enable_mergejoin = off; set enable_nestloop = off;"
    res=$(measure "$base $force ${variant#*|}" "$(ours_sql "$sqlop")")
    read -r answer ms hwm before workers grown <<< "$res"
    all=$(( ${hwm:-0} + ${workers:-0} ))
    node=${grown:-0}  # a parallel plan's: the leader's and workers' private memory grown
    [ "${workers:-0}" -gt 0 ] || node=$(( ${hwm:-0} - ${before:-0} ))  # serial: its peak RSS grown
    verdict=same
    [ "$answer" = "${ref%% *}" ] || { verdict="DIFFERENT (reference ${ref%% *})"; status=1; }
    log "$sqlop $name: $answer, $ms ms, VmHWM $hwm kB (before $before), workers' peaks $workers kB (grown $grown), $verdict"
    echo "| $sqlop | $name | ${answer%%|*} | $ms | $(( ${hwm:-0} / 1024 )) | $(( all / 1024 )) | $(( node / 1024 )) | $verdict |" >> "$out/spill.md"
  done
  psql -X -At -d "$conn" >> "$out/spill.log" 2>&1 <<SQL || true
$base set pg_mergepath.memory_limit = '$limit'; $( [ "$op" = join ] && echo "set enable_hashjoin = off; set enable_mergejoin = off;")
explain (analyze, costs off) $(ours_sql "$sqlop")
SQL
done
cp /opt/pgdata/server.log "$out/" 2>/dev/null || true
cat "$out/spill.md"
log "done, status $status"
exit $status
