#!/usr/bin/env bash
# scripts/test.sh — runs every test of pg_mergepath on this machine:
#   0. the layering of extension/'s folders (scripts/check-layers.sh),
#   1. the library's GoogleTest suite and the kernel benchmark's pair join tests, once
#      (ctest; GPU tests report Skipped without a GPU),
#   then for each PostgreSQL version (15, 17 and 18; the extension built and installed
#   for each, scripts/build-pg.sh; 17 and 18 fetched by scripts/install-pg.sh):
#   2. the pg_regress suite on a temporary instance (scripts/regress.sh) and the isolation
#      suite (specs/: concurrent sessions); on the oldest and the newest version also
#      pg_regress again with auto_explain explaining every statement, failing on any
#      ERROR the first run did not have (scripts/regress-auto-explain.sh),
#   3. several sessions at once under a small shared memory budget, every answer checked
#      (scripts/concurrency.sh; the CPU backend reserves in the budget through the
#      hidden pg_mergepath.debug_cpu_shared_budget, so waits and fallbacks happen),
#   on the newest version the parallel and spill suites again with dynamic shared memory
#   from the main segment (min_dynamic_shared_memory: README, Tuning),
#   and once, on the first version, the SQL benchmark's small mode, which verifies
#   answers (scripts/bench-small.sh).
# It installs missing packages, builds the library, tests and extension. Exits non-zero
# if anything fails.
#
#   PGMP_PG_VERSIONS="15 17 18" (default) the versions to test, oldest first.
#   CUDA_ARCH=90 (default) picks the GPU architectures nvcc builds for.
#   PGMP_DEVICE=gpu runs pg_regress with pg_mergepath.device = gpu (on a GPU host).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)
export CUDA_ARCH=${CUDA_ARCH:-90}
step() { echo; echo "=== $* ($(date +%T))"; }

step "dependencies"
bash scripts/install-deps.sh

step "layers: extension/'s includes only go down (scripts/check-layers.sh)"
bash scripts/check-layers.sh

step "build: library + extension (PostgreSQL 15, in the tree)"
make -j"$jobs" CUDA_ARCH="$CUDA_ARCH" PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config >/dev/null

step "library and pair join unit tests (ctest)"
cmake -S . -B build -DMERGEPATH_TESTS=ON -DMERGEPATH_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" >/dev/null
cmake --build build -j"$jobs" >/dev/null
(cd build && ctest --output-on-failure -j"$jobs")

versions=(${PGMP_PG_VERSIONS:-15 17 18})
first=${versions[0]}
last=${versions[${#versions[@]}-1]}
for v in "${versions[@]}"; do
  step "PostgreSQL $v: build and install"
  if [ "$v" = 15 ]; then
    pg_config=/usr/lib/postgresql/15/bin/pg_config
    make install PG_CONFIG="$pg_config" >/dev/null  # the in-tree build above
  else
    pg_config=$(bash scripts/build-pg.sh "$v")
  fi
  "$pg_config" --version
  export PG_CONFIG=$pg_config

  step "PostgreSQL $v: pg_regress suite"
  bash scripts/regress.sh

  if [ "$v" = "$first" ] || [ "$v" = "$last" ]; then
    step "PostgreSQL $v: pg_regress suite under auto_explain (VERBOSE, ANALYZE, nested statements)"
    bash scripts/regress-auto-explain.sh
  fi

  if [ "$v" = "$last" ]; then
    # README, Tuning: dynamic shared memory carved from the main segment is reused, not
    # zeroed, from query to query
    step "PostgreSQL $v: parallel and spill suites with min_dynamic_shared_memory"
    PGMP_CONF="min_dynamic_shared_memory = 1GB" \
    PGMP_TESTS="setop_setup setop_image_spill setop_parallel setop_images join_basic join_parallel join_spill_parallel" \
      bash scripts/regress.sh
  fi

  step "PostgreSQL $v: isolation suite (concurrent sessions: EvalPlanQual rechecks through the join)"
  PGMP_SUITE=isolation bash scripts/regress.sh

  if [ "$v" = "$first" ]; then
    step "PostgreSQL $v: SQL benchmark, small mode (answers verified)"
    PG_BINDIR=$("$pg_config" --bindir) bash scripts/bench-small.sh
  fi

  step "PostgreSQL $v: concurrent sessions under a shared budget (answers verified)"
  PG_BINDIR=$("$pg_config" --bindir) \
  CONC_SETTINGS="SET pg_mergepath.debug_cpu_shared_budget = '12MB'; SET pg_mergepath.gpu_wait_timeout = '300ms';" \
    bash scripts/concurrency.sh
done

step "all tests passed (PostgreSQL ${versions[*]})"
