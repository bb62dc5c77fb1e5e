#!/usr/bin/env bash
# scripts/regress.sh — runs pg_mergepath's pg_regress suite (sql/, expected/, test list in
# the Makefile's REGRESS) on a temporary PostgreSQL instance started with
# shared_preload_libraries = 'pg_mergepath'. The extension must be installed into the
# PostgreSQL of the pg_config on PATH (make install). Prints the summary; on failure
# prints regression.diffs and exits non-zero.
#
#   PGMP_DEVICE=auto|gpu|cpu   pg_mergepath.device of the instance (default auto).
#                              With gpu, setop_nogpu is skipped: it expects no GPU.
#   PG_CONFIG=...              another pg_config (default: the one on PATH)
#   PGMP_TESTS="a b ..."       run these tests instead of the whole list (setop_setup,
#                              which the others need, first)
#   PGMP_SUITE=isolation       run the isolation suite instead (specs/, the Makefile's
#                              ISOLATION, pg_isolation_regress: concurrent sessions)
#   PGMP_RESULTS=DIR           copy the actual outputs (results/*.out) there, to review
#                              and adopt changed expected files
#   PGMP_AUTO_EXPLAIN=1        load auto_explain too and have it explain every statement,
#                              nested ones included (VERBOSE, ANALYZE); the outputs then
#                              differ from the expected ones (scripts/regress-auto-explain.sh
#                              compares their ERRORs)
#   PGMP_SERVER_LOG=FILE       copy the server's log there
#   PGMP_CONF="name = value"   more settings for the instance (lines of postgresql.conf),
#                              e.g. "min_dynamic_shared_memory = 1GB" (README, Tuning)
#
# The database is UTF8 with the C locale (identical results on every host); tests
# that need another collation name an ICU one explicitly.
# Works with a relocated PostgreSQL (e.g. /opt/pg): binaries come from
# `pg_config --bindir`, pg_regress from `pg_config --pkglibdir`/pgxs. As root, the
# instance runs as user postgres (PGMP_RUN_AS, or nobody when there is no such user)
# in a temporary directory that user owns.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pg_config=${PG_CONFIG:-pg_config}
device=${PGMP_DEVICE:-auto}
bindir=$("$pg_config" --bindir)
suite=${PGMP_SUITE:-regress}
case "$suite" in
  regress) pg_regress=$("$pg_config" --pkglibdir)/pgxs/src/test/regress/pg_regress; list=REGRESS ;;
  isolation) pg_regress=$("$pg_config" --pkglibdir)/pgxs/src/test/isolation/pg_isolation_regress; list=ISOLATION ;;
  *) echo "regress.sh: PGMP_SUITE must be regress or isolation" >&2; exit 2 ;;
esac
sharedir=$("$pg_config" --sharedir)

die() { echo "regress.sh: $*" >&2; exit 2; }
[ -x "$pg_regress" ] || die "pg_regress not found at $pg_regress (install the server dev package)"
[ -x "$bindir/postgres" ] || die "no postgres binary in $bindir"
[ -f "$sharedir/extension/pg_mergepath.control" ] || die "pg_mergepath is not installed: run make install"
case "$device" in auto|gpu|cpu) ;; *) die "PGMP_DEVICE must be auto, gpu or cpu" ;; esac

# The test list is the Makefile's REGRESS or ISOLATION (read directly: the GPU host has
# no make/PGXS).
tests=$(awk -v var="$list" '$0 ~ "^" var " *=" { on = 1; sub("^" var " *=", "") }
                             on { cont = sub(/\\$/, ""); print; if (!cont) exit }' "$root/Makefile" | tr -s ' \n' ' ')
[ -n "${PGMP_TESTS:-}" ] && tests=$PGMP_TESTS
if [ "$device" = gpu ]; then
  tests=$(echo "$tests" | tr ' ' '\n' | grep -vx setop_nogpu | tr '\n' ' ')
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pgmp-regress.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$root/sql" "$root/specs" "$root/expected" "$work/"
cat > "$work/regress.conf" <<EOF
shared_preload_libraries = 'pg_mergepath'
pg_mergepath.device = '$device'
pg_mergepath.hashed_keys = on
# plans depend on statistics (ranged keys: the key width): only the tests' own ANALYZE sets them
autovacuum = off
${PGMP_CONF:-}
EOF
if [ -n "${PGMP_AUTO_EXPLAIN:-}" ]; then
  cat >> "$work/regress.conf" <<EOF
shared_preload_libraries = 'pg_mergepath,auto_explain'
auto_explain.log_min_duration = 0
auto_explain.log_verbose = on
auto_explain.log_analyze = on
auto_explain.log_nested_statements = on
EOF
fi

run=()
if [ "$(id -u)" = 0 ]; then
  user=${PGMP_RUN_AS:-postgres}
  id "$user" >/dev/null 2>&1 || user=nobody
  chown -R "$user" "$work"
  run=(runuser -u "$user" --)
fi

status=0
(cd "$work" && ${run[@]+"${run[@]}"} "$pg_regress" \
    --temp-instance="$work/tmp_check" --temp-config="$work/regress.conf" \
    --bindir="$bindir" --inputdir="$work" --outputdir="$work" \
    --encoding=UTF8 --no-locale --dbname=contrib_regression $tests) || status=$?

if [ -n "${PGMP_RESULTS:-}" ]; then
  mkdir -p "$PGMP_RESULTS" && { cp "$work"/results/*.out "$PGMP_RESULTS"/ 2>/dev/null || true; }
fi
if [ -n "${PGMP_SERVER_LOG:-}" ]; then
  cat "$work"/log/postmaster.log > "$PGMP_SERVER_LOG" 2>/dev/null || true
fi
if [ "$status" -ne 0 ]; then
  [ -f "$work/regression.diffs" ] && cat "$work/regression.diffs"
  for log in "$work"/log/*.log; do
    [ -f "$log" ] && { echo "---- tail of $log"; tail -n 30 "$log"; }
  done
  echo "regress.sh: FAILED (device=$device)" >&2
  exit "$status"
fi
echo "regress.sh: all tests passed (device=$device)"
