#!/usr/bin/env bash
# scripts/device-tests.sh — every test on the GPU host, in one device call: the library's
# unit tests and the kernel benchmark's pair join tests with the CUDA backend (the
# binaries built here, since that host has no GoogleTest), the pg_regress suite, the
# isolation specs and the pg_regress suite under auto_explain (no new ERROR), all with
# pg_mergepath.device = gpu.
# AUTO_EXPLAIN_TESTS (default: every test) narrows the auto_explain run to fit the call
# (setop_setup and join_basic first: the others use their helpers).
#
# 1. Here, from the repo root:
#        bash ../shared/device/prepare CUDA_ARCH=90 && bash scripts/device-tests.sh --prepare
#    (builds build-gpu/ with the tests for sm_90 and puts the stripped binaries in .device/bin)
# 2. On the GPU host, carry [".device"], from the repo root:
#        bash scripts/device-tests.sh
#    PGMP_PG_VERSION=17 or 18: the PostgreSQL tests on that version (carry its
#    .device/pgVERSION.tar.xz, made here by scripts/pg-device.sh pack VERSION).
#    Writes unit.log, regress.log, isolation.log and auto-explain.log into $OUT (or ./device-out); prints their summaries;
#    exits non-zero when either fails. UNIT_TIMEOUT_S (default 300) bounds each unit test
#    binary (unit.log holds both: the library's, then the pair join's; a binary not
#    carried is said so and not run).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "${1:-}" = --prepare ]; then
  set -e
  cmake -S . -B build-gpu -DMERGEPATH_TESTS=ON -DMERGEPATH_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build build-gpu -j"$(nproc)" --target mergepath_tests pair_join_tests >/dev/null
  mkdir -p .device/bin
  strip -o .device/bin/mergepath_tests build-gpu/gpu/tests/mergepath_tests
  strip -o .device/bin/pair_join_tests build-gpu/bench/pair_join/tests/pair_join_tests
  echo "device-tests: .device/ holds $(du -sh .device | cut -f1) (carry limit 64 MiB)"
  exit 0
fi

out=${OUT:-$root/device-out}
mkdir -p "$out"
status=0

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
: > "$out/unit.log"
for tests in mergepath_tests pair_join_tests; do
  [ -x ".device/bin/$tests" ] || { echo "unit tests ($tests): not carried, not run"; continue; }
  timeout "${UNIT_TIMEOUT_S:-300}" ".device/bin/$tests" --gtest_brief=1 > "$out/$tests.log" 2>&1 || status=1
  cat "$out/$tests.log" >> "$out/unit.log"
  echo "unit tests ($tests): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' "$out/$tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$out/$tests.log" | head -20
  rm -f "$out/$tests.log"
done

pg_version=${PGMP_PG_VERSION:-15}
if [ "$pg_version" = 15 ]; then
  bash .device/pg-up .device/pg15.tar.xz .device/stage > "$out/pg-up.log" 2>&1 || { cat "$out/pg-up.log"; exit 2; }
  # shellcheck disable=SC1091
  . /opt/pg/env
else
  bash scripts/pg-device.sh up "$pg_version" > "$out/pg-up.log" 2>&1 || { cat "$out/pg-up.log"; exit 2; }
  # shellcheck disable=SC1090
  . "${PGMP_PG_HOME:-/opt/pg_mergepath}/pg$pg_version/env"  # PG_CONFIG for the scripts below
fi
echo "PostgreSQL: $(pg_config --version 2>/dev/null || "$PG_CONFIG" --version)"
PGMP_DEVICE=gpu bash scripts/regress.sh > "$out/regress.log" 2>&1 || status=1
grep -E '^test |^(ok|not ok) |tests passed|tests failed|regress.sh' "$out/regress.log"
PGMP_DEVICE=gpu PGMP_SUITE=isolation bash scripts/regress.sh > "$out/isolation.log" 2>&1 || status=1
grep -E '^test |^(ok|not ok) |tests passed|tests failed|regress.sh' "$out/isolation.log"
PGMP_DEVICE=gpu PGMP_TESTS="${AUTO_EXPLAIN_TESTS:-}" bash scripts/regress-auto-explain.sh > "$out/auto-explain.log" 2>&1 || status=1
grep -E 'regress-auto-explain' "$out/auto-explain.log"
exit $status
