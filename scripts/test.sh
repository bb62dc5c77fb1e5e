#!/usr/bin/env bash
# scripts/test.sh — runs every test of pg_mergepath on this machine:
#   0. the layering of extension/'s folders (scripts/check-layers.sh),
#   1. the library's GoogleTest suite and the kernel benchmark's pair join tests (ctest;
#      GPU tests report Skipped without a GPU),
#   2. the pg_regress suite on a temporary instance (scripts/regress.sh), then again with
#      auto_explain explaining every statement, failing on any ERROR the first run did
#      not have (scripts/regress-auto-explain.sh), and the isolation suite (specs/:
#      concurrent sessions),
#   3. the SQL benchmark's small mode, which verifies answers (scripts/bench-small.sh),
#   4. several sessions at once under a small shared memory budget, every answer checked
#      (scripts/concurrency.sh; the CPU backend reserves in the budget through the
#      hidden pg_mergepath.debug_cpu_shared_budget, so waits and fallbacks happen).
# It installs missing packages, builds the library, tests and extension, and installs
# the extension into the local PostgreSQL 15. Exits non-zero if anything fails.
#
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

step "build: library + extension"
make -j"$jobs" CUDA_ARCH="$CUDA_ARCH" >/dev/null
make install >/dev/null

step "library and pair join unit tests (ctest)"
cmake -S . -B build -DMERGEPATH_TESTS=ON -DMERGEPATH_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" >/dev/null
cmake --build build -j"$jobs" >/dev/null
(cd build && ctest --output-on-failure -j"$jobs")

step "pg_regress suite"
bash scripts/regress.sh

step "pg_regress suite under auto_explain (VERBOSE, ANALYZE, nested statements)"
bash scripts/regress-auto-explain.sh

step "isolation suite (concurrent sessions: EvalPlanQual rechecks through the join)"
PGMP_SUITE=isolation bash scripts/regress.sh

step "SQL benchmark, small mode (answers verified)"
bash scripts/bench-small.sh

step "concurrent sessions under a shared budget (answers verified)"
CONC_SETTINGS="SET pg_mergepath.debug_cpu_shared_budget = '12MB'; SET pg_mergepath.gpu_wait_timeout = '300ms';" \
  bash scripts/concurrency.sh

step "all tests passed"
