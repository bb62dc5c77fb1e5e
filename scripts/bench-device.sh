#!/usr/bin/env bash
# scripts/bench-device.sh — the end-to-end SQL benchmark on the GPU host, in one device call.
#
# 1. Here, from the repo root (builds the extension for sm_90 into .device/stage, and the
#    runner, stripped, into .device/bin/mp_bench):
#        bash ../shared/device/prepare CUDA_ARCH=90 && bash scripts/bench-device.sh --prepare
# 2. One device call, carry [".device"], from the repo root:
#        bash scripts/bench-device.sh                 # 10M x 10M, shapes in order until the budget
#        bash scripts/bench-device.sh --rows 1M       # quick check; any mp_bench option
#                                                     # given here overrides the defaults
#        bash scripts/bench-device.sh --joins         # the join benchmark: the six joins at
#                                                     # 10M x 10M int8 uniform, then the fact x
#                                                     # dimension join 100M x 1M (fact_dim_sum)
#    --joins (first argument) only changes the defaults of BENCH_OPS (joins,fact_dim_sum),
#    BENCH_SHAPES (int8) and BENCH_FACT_DIM (100M:1M); the environment and later options
#    still override them, e.g. BENCH_FACT_DIM= bash scripts/bench-device.sh --joins (the six
#    joins alone), or BENCH_OPS=fact_dim_sum bash scripts/bench-device.sh --joins (the fact x
#    dimension join alone). In the pg_mergepath variants pg_mergepath.enable_join = on (left
#    out when the staged build does not define it: their join plans are then native, marked
#    ‡, like any pg_mergepath plan without the node, never a failure).
#    PGMP_PG_VERSION=17 or 18 benchmarks that version instead (carry .device/bin and
#    .device/pgVERSION.tar.xz, made here by scripts/pg-device.sh pack VERSION; its server
#    runs on port 5400 + VERSION, the extension always loaded).
#    It starts PostgreSQL 15 (pg-up; shared_preload_libraries=pg_mergepath when the
#    extension is staged, shared_buffers=16GB, 16 workers), generates the tables (16 at a
#    time) and sets their parallel_workers (BENCH_TABLE_WORKERS), and runs the matrix:
#    stock, stock tuned, pg_mergepath gpu / cpu (BENCH_PAR_WORKERS workers per Gather, so
#    the parallel node can be planned) and the two floors (one process; parallel, with
#    BENCH_PAR_WORKERS workers), each answer verified against stock; the backend's peak RSS
#    over the timed runs of the pg_mergepath variants is measured too (--peak-rss), and the
#    GPU's memory in use is sampled every 200 ms while the runner runs (its maximum goes to
#    progress.log and stdout). It stays within BENCH_TOTAL_S (default 540 s): the runner
#    skips what no longer fits and says so in the table. At 10M x 10M one call covers about
#    one key shape (stock takes 15-24 s per query there), so for the whole matrix run
#    BENCH_SHAPES=int8, then int4, pair, text, numeric, and merge the reports with
#    bench/sql/merge-results.sh. Progress lines carry timestamps.
#    DuckDB: when .device/duckdb and .device/bin/duck_bench are staged (bash
#    scripts/bench-duckdb.sh --prepare; carry .device/duckdb too), the set operations the
#    runner timed run in DuckDB on the same tables afterwards (scripts/bench-duckdb.sh,
#    BENCH_DUCKDB_S seconds kept for it, BENCH_DUCKDB=0 leaves it out), counts checked.
#    Writes into $OUT: RESULTS.md (the markdown table), bench.log (plans, EXPLAIN ANALYZE of
#    the pg_mergepath variants, per-run times), stdout.txt (the runner's stdout),
#    progress.log, server.log, pg-up.log, nvidia-smi.txt, gpu-mem.csv (MiB in use per GPU,
#    one line per GPU every 200 ms).
#
# Environment: BENCH_ROWS (10M), BENCH_SHAPES (int8,int4,pair,text,numeric; in priority
# order), BENCH_DISTS (uniform), BENCH_OPS (query ids or groups for --ops, comma list, e.g.
# joins or join_inner,join_full; default: the runner's, the four set operations; --joins:
# joins,fact_dim_sum), BENCH_FACT_DIM (--fact-dim FACT_ROWS:DIM_ROWS[:MATCH], e.g. 100M:1M:
# the fact x dimension pair, generated only when set; --joins: 100M:1M), BENCH_SKIP (for
# --skip SHAPE/DIST/QUERY,...), BENCH_VARIANTS (for --variants; default: the
# runner's, stock,tuned,gpu,cpu), BENCH_TABLE_WORKERS (16: the tables' parallel_workers),
# BENCH_PAR_WORKERS (16: max_parallel_workers_per_gather of the pg_mergepath variants and
# of the parallel read floor), BENCH_REPS (3 timed runs per variant), BENCH_VARIANT_S (15:
# fewer runs for a variant slower than that in all), BENCH_TOTAL_S (540),
# BENCH_REQUIRE_GPU=1 (a gpu variant that errors is a failure), BENCH_PG_OPTS (more server
# settings, e.g. "-c min_dynamic_shared_memory=24GB"; a warm server started with other
# settings is restarted with these), BENCH_HUGEPAGES (a number of 2 MB huge pages the
# host reserves, as root, for the server's shared memory, which then needs them:
# huge_pages=on; README, Tuning).
# Time use: per dataset the stock plans first race each other (8 connections; the loser
# is stopped at 1.2x the winner, as it is not the best stock plan), then each variant runs.
# Exit status: non-zero on any wrong answer (or a runner / server failure).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
t0=$(date +%s)

if [ "${1:-}" = --prepare ]; then
  make -s -C bench/sql strip
  mkdir -p .device/bin
  cp bench/sql/build/mp_bench.stripped .device/bin/mp_bench
  [ -f .device/pg15.tar.xz ] && [ -f .device/pg-up ] ||
    echo "bench-device: .device/ lacks the PostgreSQL bundle: run bash ../shared/device/prepare first" >&2
  [ -f .device/stage/usr/lib/postgresql/15/lib/pg_mergepath.so ] ||
    echo "bench-device: warning: no pg_mergepath.so in .device/stage: its variants will be n/a" >&2
  echo "bench-device: .device/ holds $(du -sh .device | cut -f1) (carry limit 64 MiB)"
  exit 0
fi

preset=
if [ "${1:-}" = --joins ]; then
  preset=joins
  shift
  : "${BENCH_OPS=joins,fact_dim_sum}" "${BENCH_SHAPES=int8}" "${BENCH_FACT_DIM=100M:1M}"
fi

out=${OUT:-$root/bench-out}
mkdir -p "$out"
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - t0 ))s] bench-device: $*" | tee -a "$out/progress.log" >&2; }

pg_version=${PGMP_PG_VERSION:-15}
[ -x .device/bin/mp_bench ] || { log "no .device/bin/mp_bench: run scripts/bench-device.sh --prepare here first"; exit 2; }
if [ "$pg_version" = 15 ]; then
  [ -f .device/pg15.tar.xz ] || { log "no .device/pg15.tar.xz: run bash ../shared/device/prepare first"; exit 2; }
else
  [ -f ".device/pg$pg_version.tar.xz" ] ||
    { log "no .device/pg$pg_version.tar.xz: run bash scripts/pg-device.sh pack $pg_version first"; exit 2; }
fi

nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
log "GPU: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo none)"

opts="-c shared_buffers=16GB -c max_worker_processes=16 -c max_parallel_workers=16"
opts+=" -c maintenance_work_mem=2GB -c max_wal_size=16GB -c synchronous_commit=off"
opts+=" ${BENCH_PG_OPTS:-}"
if [ -n "${BENCH_HUGEPAGES:-}" ]; then
  if [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)" -lt "$BENCH_HUGEPAGES" ]; then
    { echo "$BENCH_HUGEPAGES" > /proc/sys/vm/nr_hugepages; } 2>/dev/null || true
  fi
  [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)" -ge "$BENCH_HUGEPAGES" ] ||
    { echo "bench-device: could not reserve $BENCH_HUGEPAGES huge pages" >&2; exit 2; }
  opts+=" -c huge_pages=on"
fi
if [ "$pg_version" != 15 ]; then
  :  # scripts/pg-device.sh loads the extension its archive holds
elif [ -f .device/stage/usr/lib/postgresql/15/lib/pg_mergepath.so ]; then
  opts+=" -c shared_preload_libraries=pg_mergepath"
else
  log "warning: pg_mergepath is not staged (.device/stage): stock only"
fi
# parallel queries allocate dynamic shared memory in /dev/shm, which containers keep small
shm_kb=$(df -k --output=avail /dev/shm 2>/dev/null | tail -1 | tr -d ' ' || echo 0)
if [ "${shm_kb:-0}" -lt $((8 * 1024 * 1024)) ]; then
  opts+=" -c dynamic_shared_memory_type=mmap"
  log "/dev/shm has ${shm_kb:-0} kB free: dynamic_shared_memory_type=mmap"
fi

if [ "$pg_version" = 15 ]; then
  PG_UP_OPTS="$opts" bash .device/pg-up .device/pg15.tar.xz .device/stage >"$out/pg-up.log" 2>&1 ||
    { cat "$out/pg-up.log" >&2; cp /opt/pgdata/server.log "$out/" 2>/dev/null || true; log "pg-up failed"; exit 2; }
  # shellcheck disable=SC1091
  . /opt/pg/env
  # a warm host may still run a server started with other settings: restart it with ours
  if [ "$(psql -Atc 'show shared_buffers')" != 16GB ] || [ "$(cat /opt/pgdata/bench-opts 2>/dev/null)" != "$opts" ] ||
     { [[ $opts == *pg_mergepath* ]] && [ "$(psql -Atc 'show shared_preload_libraries')" != pg_mergepath ]; }; then
    log "restarting the server with the benchmark settings"
    runuser -u postgres -- env LD_LIBRARY_PATH="$LD_LIBRARY_PATH" pg_ctl -D /opt/pgdata -w restart \
      -o "-c listen_addresses=127.0.0.1 -c port=5432 -c unix_socket_directories=/tmp $opts" >/dev/null
  fi
  echo "$opts" > /opt/pgdata/bench-opts
  server_log=/opt/pgdata/server.log
else
  # 17 / 18: the extension travels inside the version's archive (scripts/pg-device.sh)
  bash scripts/pg-device.sh up "$pg_version" "$opts" >"$out/pg-up.log" 2>&1 ||
    { cat "$out/pg-up.log" >&2; cp "/opt/pgdata$pg_version/server.log" "$out/" 2>/dev/null || true
      log "pg-device.sh up failed"; exit 2; }
  # shellcheck disable=SC1090
  . "${PGMP_PG_HOME:-/opt/pg_mergepath}/pg$pg_version/env"
  server_log=/opt/pgdata$pg_version/server.log
fi
log "$(psql -Atc 'select version()' | cut -c1-60); settings: $opts"

if ! LD_LIBRARY_PATH=${PGMP_CLIENT_LIBS:+$PGMP_CLIENT_LIBS:}${LD_LIBRARY_PATH:-} .device/bin/mp_bench --help >/dev/null 2>&1; then
  log "the runner does not start here:"; ldd .device/bin/mp_bench >&2 || true; exit 2
fi

# GPU memory in use while the runner runs: nvidia-smi samples it every 200 ms (MiB, one
# line per GPU) into gpu-mem.csv; stop_gpu_sampler stops it and reports the maximum.
gpu_sampler=
gpu_mem_line=
start_gpu_sampler() {
  command -v nvidia-smi >/dev/null 2>&1 || { log "no nvidia-smi: GPU memory is not sampled"; return 0; }
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$out/gpu-mem.csv" 2>&1 &
  gpu_sampler=$!
}
stop_gpu_sampler() {
  [ -n "$gpu_sampler" ] || return 0
  kill "$gpu_sampler" 2>/dev/null || true
  wait "$gpu_sampler" 2>/dev/null || true
  gpu_sampler=
  local max first
  max=$(awk '$1 ~ /^[0-9]+$/ { n++; if ($1 + 0 > m) m = $1 + 0 } END { if (n) print m }' "$out/gpu-mem.csv" || true)
  first=$(awk '$1 ~ /^[0-9]+$/ { print $1; exit }' "$out/gpu-mem.csv" || true)
  gpu_mem_line="GPU memory used while the runner ran: max ${max:-unknown} MiB (${first:-unknown} MiB at the start; samples every 200 ms in gpu-mem.csv)"
  log "$gpu_mem_line"
}
trap stop_gpu_sampler EXIT

total=${BENCH_TOTAL_S:-540}
duckdb=0
if [ "${BENCH_DUCKDB:-1}" != 0 ] && [ -f .device/duckdb/libduckdb.so.xz ] && [ -x .device/bin/duck_bench ]; then
  duckdb=1
fi
# DuckDB after the runner (scripts/bench-duckdb.sh): BENCH_DUCKDB_S (60) kept for it
budget=$(( total - ($(date +%s) - t0) - 15 - duckdb * ${BENCH_DUCKDB_S:-60} ))
log "runner budget ${budget} s${preset:+; preset $preset}; ops ${BENCH_OPS:-(default)}${BENCH_FACT_DIM:+; fact x dimension $BENCH_FACT_DIM}"
args=(--conn "host=127.0.0.1 port=${PGPORT:-5432} user=postgres dbname=postgres"
      --rows "${BENCH_ROWS:-10M}" --shapes "${BENCH_SHAPES:-int8,int4,pair,text,numeric}"
      --dists "${BENCH_DISTS:-uniform}" --reps "${BENCH_REPS:-3}" --stock-reps 1
      --quick-stock --stock-cutoff 1.2 --ref-jobs 8 --variant-budget-s "${BENCH_VARIANT_S:-15}"
      --jobs 16 --budget-s "$budget"
      --table-workers "${BENCH_TABLE_WORKERS:-16}" --par-workers "${BENCH_PAR_WORKERS:-16}" --peak-rss
      --out "$out/RESULTS.md" --log "$out/bench.log")
[ -n "${BENCH_OPS:-}" ] && args+=(--ops "$BENCH_OPS")
[ -n "${BENCH_FACT_DIM:-}" ] && args+=(--fact-dim "$BENCH_FACT_DIM")
[ -n "${BENCH_SKIP:-}" ] && args+=(--skip "$BENCH_SKIP")
[ -n "${BENCH_VARIANTS:-}" ] && args+=(--variants "$BENCH_VARIANTS")
[ -n "${BENCH_REQUIRE_GPU:-}" ] && args+=(--require gpu)
start_gpu_sampler
set +e
LD_LIBRARY_PATH=${PGMP_CLIENT_LIBS:+$PGMP_CLIENT_LIBS:}${LD_LIBRARY_PATH:-} \
  .device/bin/mp_bench "${args[@]}" "$@" > "$out/stdout.txt" 2> >(tee -a "$out/progress.log" >&2)
rc=$?
set -e
stop_gpu_sampler
cp "$server_log" "$out/server.log" 2>/dev/null || true
grep -v '^RESULT' "$out/stdout.txt" || true
[ -z "$gpu_mem_line" ] || echo "$gpu_mem_line"
grep '^RESULT' "$out/stdout.txt" || true
if [ "$duckdb" = 1 ]; then
  log "DuckDB on the same data (scripts/bench-duckdb.sh)"
  bash scripts/bench-duckdb.sh "$out" 2> >(tee -a "$out/progress.log" >&2) || rc=1
fi
log "done, exit status $rc"
exit $rc
