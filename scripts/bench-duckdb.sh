#!/usr/bin/env bash
# scripts/bench-duckdb.sh OUT — DuckDB on the same host and the same data, after the SQL
# benchmark (scripts/bench-device.sh calls it at its end when .device/duckdb holds
# libduckdb.so.xz and .device/bin/duck_bench; BENCH_DUCKDB=0 leaves it out).
#
# For every dataset the runner timed (its "ref TAG | QUERY" lines in OUT/bench.log),
# the two tables are copied out of PostgreSQL as CSV, loaded into an in-memory DuckDB
# (BENCH_DUCKDB_THREADS, default 16 threads) and each set operation the runner timed is
# (and join) run there as SELECT count(*) FROM (query) s (a warm-up, then BENCH_REPS runs, 3 by
# default); the row count must equal PostgreSQL's reference count. Appends a table to
# OUT/RESULTS.md and prints it; exit status non-zero when a count differs.
#
# Prepare here:  bash scripts/bench-duckdb.sh --prepare   (npm's
# @duckdb/node-bindings-linux-x64, the only DuckDB build a registry here serves: its
# libduckdb.so, xz-compressed, into .device/duckdb; the runner bench/duckdb/duck_bench.cpp
# built into .device/bin/duck_bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
duck_version=${DUCKDB_NPM_VERSION:-1.5.6-r.1}

if [ "${1:-}" = --prepare ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "@duckdb/node-bindings-linux-x64@$duck_version" >/dev/null && tar xzf ./*.tgz)
  mkdir -p .device/duckdb .device/bin
  xz -T0 -6 -c "$tmp/package/libduckdb.so" > .device/duckdb/libduckdb.so.xz
  echo "$duck_version" > .device/duckdb/VERSION
  rm -rf "$tmp"
  g++ -O2 -std=c++17 -Wall -Wextra -o .device/bin/duck_bench bench/duckdb/duck_bench.cpp -ldl
  strip .device/bin/duck_bench
  echo "bench-duckdb: DuckDB $duck_version staged ($(du -sh .device/duckdb | cut -f1))"
  exit 0
fi

out=${1:?usage: bench-duckdb.sh OUT | --prepare}
lib_dir=${TMPDIR:-/tmp}/pgmp-duckdb
mkdir -p "$lib_dir"
chmod 777 "$lib_dir"  # the server (user postgres) writes the CSV files here
xz -dc .device/duckdb/libduckdb.so.xz > "$lib_dir/libduckdb.so"
version=$(cat .device/duckdb/VERSION 2>/dev/null || echo unknown)

# The set operations' and the joins' SQL (bench/sql/queries.hpp), by the runner's query
# titles. Not the ordered ones: DuckDB drops an ORDER BY in a subquery under count(*),
# PostgreSQL sorts. {ACOLS} / {BCOLS}: the columns of a / b; {ON}: their equalities.
declare -A sql=(
  ["INTERSECT ALL"]="SELECT {COLS} FROM a INTERSECT ALL SELECT {COLS} FROM b"
  ["EXCEPT ALL"]="SELECT {COLS} FROM a EXCEPT ALL SELECT {COLS} FROM b"
  ["INTERSECT"]="SELECT {COLS} FROM a INTERSECT SELECT {COLS} FROM b"
  ["EXCEPT"]="SELECT {COLS} FROM a EXCEPT SELECT {COLS} FROM b"
  ["UNION"]="SELECT {COLS} FROM a UNION SELECT {COLS} FROM b"
  ["inner join"]="SELECT {ACOLS}, {BCOLS} FROM a JOIN b ON {ON}"
  ["left join"]="SELECT {ACOLS}, {BCOLS} FROM a LEFT JOIN b ON {ON}"
  ["right join"]="SELECT {ACOLS}, {BCOLS} FROM a RIGHT JOIN b ON {ON}"
  ["full join"]="SELECT {ACOLS}, {BCOLS} FROM a FULL JOIN b ON {ON}"
  ["semi join"]="SELECT {ACOLS} FROM a WHERE EXISTS (SELECT 1 FROM b WHERE {ON})"
  ["anti join"]="SELECT {ACOLS} FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE {ON})"
)
# The query's SQL for these columns (comma list).
query_sql() {
  local q=$1 cols=$2 ac="" bc="" on="" c
  IFS=', ' read -r -a names <<< "$cols"
  for c in "${names[@]}"; do
    [ -n "$c" ] || continue
    ac+="${ac:+, }a.$c"; bc+="${bc:+, }b.$c"; on+="${on:+ AND }a.$c = b.$c"
  done
  q=${q//\{COLS\}/$cols}; q=${q//\{ACOLS\}/$ac}; q=${q//\{BCOLS\}/$bc}; q=${q//\{ON\}/$on}
  echo "$q"
}
# DuckDB's type for a column of both tables (PostgreSQL's type; for numeric the larger
# declared precision and scale of the two sides).
duck_type() {
  case "$1" in
    bigint) echo BIGINT ;; integer) echo INTEGER ;; smallint) echo SMALLINT ;;
    text | "character varying") echo VARCHAR ;;
    numeric) [ -n "$2" ] && [ "$2" -le 38 ] && echo "DECIMAL($2,$3)" || echo "" ;;  # fixed-point: declared only
    *) echo "" ;;  # the rest: DuckDB's types differ
  esac
}

table="| dataset | query | DuckDB $version ms (best of ${BENCH_REPS:-3}) | runs ms | rows | PostgreSQL rows | same |"$'\n'"|---|---|---:|---|---:|---:|---|"
status=0
tags=$(grep -o 'ref [a-z0-9_]* | [A-Za-z ]* |' "$out/bench.log" | awk '{print $2}' | sort -u || true)
for tag in $tags; do
  cols=$(psql -Atc "SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) FROM information_schema.columns
                    WHERE table_schema = 'mp_bench' AND table_name = '${tag}_a'")
  defs=""
  while IFS='|' read -r name type precision scale; do
    t=$(duck_type "$type" "$precision" "$scale")
    [ -n "$t" ] || { defs=""; break; }
    defs+="${defs:+, }$name $t"
  done < <(psql -Atc "SELECT column_name, data_type, max(numeric_precision), max(numeric_scale)
                      FROM information_schema.columns
                      WHERE table_schema = 'mp_bench' AND table_name IN ('${tag}_a', '${tag}_b')
                      GROUP BY column_name, data_type ORDER BY min(ordinal_position)")
  if [ -z "$defs" ]; then echo "bench-duckdb: $tag: a column type DuckDB does not share, skipped" >&2; continue; fi
  args=()
  for side in a b; do
    psql -qc "COPY (SELECT $cols FROM mp_bench.${tag}_$side) TO '$lib_dir/${tag}_$side.csv' WITH (FORMAT csv)"
    args+=(--table "$side=$lib_dir/${tag}_$side.csv:$defs")
  done
  titles=()
  while IFS= read -r title; do
    [ -n "${sql[$title]:-}" ] || continue
    titles+=("$title")
    args+=(--query "$title=$(query_sql "${sql[$title]}" "$cols")")
  done < <(grep -o "ref $tag | [A-Za-z ]* |" "$out/bench.log" | sed "s/^ref $tag | //; s/ |\$//" | sort -u)
  [ ${#titles[@]} -gt 0 ] || continue
  res=$("$root/.device/bin/duck_bench" "$lib_dir/libduckdb.so" --threads "${BENCH_DUCKDB_THREADS:-16}" \
        --reps "${BENCH_REPS:-3}" "${args[@]}")
  echo "$res" | grep '^DUCKDB-LOAD' >&2 || true
  for title in "${titles[@]}"; do
    line=$(echo "$res" | grep "^DUCKDB $title rows=" || true)
    rows=$(echo "$line" | sed -n 's/.* rows=\([0-9]*\) .*/\1/p')
    best=$(echo "$line" | sed -n 's/.* best_ms=\([0-9]*\) .*/\1/p')
    runs=$(echo "$line" | sed -n 's/.* runs_ms=\([0-9,]*\)$/\1/p')
    ref=$(grep -o "ref $tag | $title | [^:]*: count=[0-9]*" "$out/bench.log" | head -1 | sed 's/.*count=//')
    same=yes
    [ -n "$rows" ] && [ "$rows" = "$ref" ] || { same=NO; status=1; }
    table+=$'\n'"| $tag | $title | ${best:-n/a} | ${runs:-} | ${rows:-n/a} | ${ref:-n/a} | $same |"
  done
  rm -f "$lib_dir/${tag}_a.csv" "$lib_dir/${tag}_b.csv"
done
{
  echo
  echo "### DuckDB $version on the same host and data ($(date -u +%Y-%m-%d\ %H:%M) UTC, ${BENCH_DUCKDB_THREADS:-16} threads, in-memory tables loaded from the benchmark's tables)"
  echo
  echo "$table"
} | tee -a "$out/RESULTS.md"
exit $status
