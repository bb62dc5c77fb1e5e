#!/usr/bin/env bash
# scripts/regress-auto-explain.sh — runs the pg_regress suite a second time with
# auto_explain explaining every statement (log_min_duration = 0, VERBOSE, ANALYZE,
# nested statements: EXPLAIN of every plan our nodes are in, as production setups log
# them) and fails when any test has an ERROR that its expected output (the first run's;
# or an alternative expected file of another version) does not have, or when the server
# crashed. The outputs otherwise differ (auto_explain's
# LOG lines reach tests that lower client_min_messages, ANALYZE's instrumentation adds
# timings): only ERRORs, counted per message, are compared.
#
#   PGMP_DEVICE, PG_CONFIG, PGMP_TESTS: as for scripts/regress.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/pgmp-auto-explain.XXXXXX")
[ -n "${PGMP_KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
chmod 777 "$out"

PGMP_AUTO_EXPLAIN=1 PGMP_RESULTS="$out/results" PGMP_SERVER_LOG="$out/server.log" \
  bash "$root/scripts/regress.sh" > "$out/regress.log" 2>&1 || true
grep -E '^(test|ok|not ok) ' "$out/regress.log" | sed 's/^/  /' || true

errors() { grep -E '^(ERROR|FATAL|PANIC):' "$1" 2>/dev/null | sort || true; }
status=0
checked=0
for expected in "$root"/expected/*.out; do
  test=$(basename "$expected" .out)
  [ -f "$out/results/$test.out" ] || continue
  checked=$((checked + 1))
  # against the test's expected output or one of its alternatives (NAME_N.out, another
  # PostgreSQL version's wording), as pg_regress accepts whichever matches best
  new=
  for variant in "$expected" "$root/expected/${test}"_[0-9].out; do
    [ -f "$variant" ] || continue
    missing=$(comm -13 <(errors "$variant") <(errors "$out/results/$test.out"))
    [ -n "$missing" ] || { new=; break; }
    [ -n "$new" ] || new=$missing
  done
  if [ -n "$new" ]; then
    echo "regress-auto-explain: $test has ERRORs its first run did not have:"
    echo "$new" | sed 's/^/    /'
    status=1
  fi
done
[ "$checked" -gt 0 ] || { echo "regress-auto-explain: no test ran"; tail -n 40 "$out/regress.log"; exit 1; }
if grep -qE 'terminated by signal|server closed the connection unexpectedly|TRAP:|PANIC' "$out/server.log" "$out/results/"*.out; then
  echo "regress-auto-explain: the server crashed:"
  grep -hE 'terminated by signal|server closed the connection unexpectedly|TRAP:|PANIC' \
    "$out/server.log" "$out/results/"*.out | head -n 5 || true
  status=1
fi
explained=$(grep -c 'Custom Scan (MergePath' "$out/server.log" || true)
echo "regress-auto-explain: $checked tests, $explained plan lines with our nodes explained"
[ "$explained" -gt 0 ] || { echo "regress-auto-explain: auto_explain explained none of our nodes"; status=1; }
[ "$status" -eq 0 ] && echo "regress-auto-explain: no new ERROR"
exit "$status"
