#!/usr/bin/env bash
# scripts/demo.sh — shows pg_mergepath on a fresh Debian 12 machine: installs what it
# needs, builds and installs the extension for the newest PostgreSQL it can have (18,
# fetched by scripts/install-pg.sh; else Debian 12's 15; DEMO_PG_VERSION=15|17|18 to
# choose), starts a throwaway cluster in a temporary directory with
# shared_preload_libraries = 'pg_mergepath', loads two tables of DEMO_ROWS (default
# 2,000,000) int8 keys with ~2 copies per key, and runs an INTERSECT ALL and a join
# without and with pg_mergepath (EXPLAIN ANALYZE for both), printing the speedups. The
# cluster is stopped and removed at the end. Uses the GPU when one is usable, else the
# CPU backend.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rows=${DEMO_ROWS:-2000000}
port=${DEMO_PORT:-54329}

bash scripts/install-deps.sh
echo "demo: building and installing pg_mergepath (first build compiles the CUDA kernels: a few minutes)"
make -j"$(nproc)" CUDA_ARCH="${CUDA_ARCH:-90}" >/dev/null
version=${DEMO_PG_VERSION:-}
if [ -z "$version" ]; then
  version=18
  bash scripts/install-pg.sh 18 >/dev/null || { echo "demo: PostgreSQL 18 is not available here: using 15"; version=15; }
fi
if [ "$version" = 15 ]; then
  make install >/dev/null
  pg_config=/usr/lib/postgresql/15/bin/pg_config
else
  pg_config=$(bash scripts/build-pg.sh "$version")
fi
echo "demo: $("$pg_config" --version)"

bindir=$("$pg_config" --bindir)
work=$(mktemp -d /tmp/pgmp-demo.XXXXXX)
run=()
if [ "$(id -u)" = 0 ]; then chown postgres "$work"; run=(runuser -u postgres --); fi
cleanup() { "${run[@]}" "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

"${run[@]}" "$bindir/initdb" -D "$work/data" -A trust -U postgres --no-locale >/dev/null
"${run[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w start -o \
  "-p $port -k $work -c listen_addresses='' -c shared_preload_libraries=pg_mergepath -c work_mem=64MB" >/dev/null
psql=("$bindir/psql" -X -q -h "$work" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1)

echo "demo: loading 2 x $rows rows"
"${psql[@]}" <<SQL
CREATE EXTENSION pg_mergepath;
CREATE TABLE a AS SELECT ((hashint8(i) & 2147483647) % ($rows / 2))::int8 AS k FROM generate_series(1, $rows) i;
CREATE TABLE b AS SELECT ((hashint8(-i) & 2147483647) % ($rows / 2))::int8 AS k FROM generate_series(1, $rows) i;
VACUUM ANALYZE a, b;
SQL

explain() {
  "${psql[@]}" -c "SET pg_mergepath.enabled = $1" -c "EXPLAIN (ANALYZE, TIMING OFF) $2"
}
time_of() { grep -o 'Execution Time: [0-9.]*' | awk '{print $3}'; }

summary=
for query in "SELECT k FROM a INTERSECT ALL SELECT k FROM b" "SELECT count(*) FROM a JOIN b ON a.k = b.k"; do
  echo; echo "=== $query: stock PostgreSQL (pg_mergepath.enabled = off)"
  stock=$(explain off "$query"); echo "$stock"
  echo; echo "=== $query: with pg_mergepath"
  ours=$(explain on "$query"); echo "$ours"
  t_stock=$(echo "$stock" | time_of); t_ours=$(echo "$ours" | time_of)
  summary+=$(awk -v s="$t_stock" -v o="$t_ours" -v q="$query" \
    'BEGIN { printf "  %s: stock %.0f ms, pg_mergepath %.0f ms: %.1fx faster\n", q, s, o, s / o }')$'\n'
done
echo; echo "demo:"; printf '%s' "$summary"
