#!/usr/bin/env bash
# bench/sql/merge-results.sh — merges the markdown reports of several mp_bench runs (e.g.
# one device call per key shape at 10M x 10M) into one report on stdout: each run's header
# (date, GPU, settings...), then one table with the rows of every run that were measured
# (rows skipped for the time budget are left out), then each run's footnotes, renumbered
# [run.n]. The table columns must be the same in every run.
#   bash bench/sql/merge-results.sh run1/RESULTS.md run2/RESULTS.md > bench/RESULTS.md
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: merge-results.sh REPORT.md..." >&2; exit 2; }
echo "# pg_mergepath SQL benchmark"
echo
echo "Merged from $# runs of bench/sql/mp_bench (scripts/bench-device.sh)."
k=0
for f in "$@"; do
  k=$((k + 1))
  echo
  echo "## Run $k"
  echo
  grep '^- ' "$f"
done
echo
echo "## Results"
echo
header=$(grep -m1 "^| rows/side |" "$1")
echo "$header"
grep -m1 '^|---' "$1"
k=0
for f in "$@"; do
  k=$((k + 1))
  [ "$(grep -m1 "^| rows/side |" "$f")" = "$header" ] || { echo "merge-results: $f has other columns" >&2; exit 1; }
  # measured rows only (rows out is not "-"), footnote marks renumbered [k.n]
  grep '^| ' "$f" | grep -v "^| rows/side |" | awk -F' [|] ' '$6 != "-"' | sed "s/\[\([0-9]*\)\]/[$k.\1]/g"
done
echo
k=0
for f in "$@"; do
  k=$((k + 1))
  sed -n '/^|/,$p' "$f" | grep -v '^|' | grep -v '^$' | sed "s/^\[\([0-9]*\)\]/[$k.\1]/; s/^/run $k: /"
done
