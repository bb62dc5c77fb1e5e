#!/usr/bin/env bash
# scripts/check-layers.sh — checks that extension/'s includes only go down its layers
# (ARCHITECTURE.md): a file may include headers of its own folder and of the folders
# below it, never of one above. Prints each include that goes up; exits 1 if any does.
#
# Top down (the Makefile's EXT_DIRS order, the module entry above all):
#   pg_mergepath.cpp > setop, join, arrays > plan > spill > parallel > stage > store > keys > runtime
# setop, join and arrays are one layer: none includes another's headers. From outside its
# folder a node is seen through its public header alone (setop.h, join.h: one install
# call); its other headers (setop_node.h, join_node.h, ...) are its own.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/extension"
layers=(runtime keys store stage parallel spill plan "setop join arrays")
rank_of_dir() {
  local i
  for i in "${!layers[@]}"; do
    for d in ${layers[$i]}; do [ "$d" = "$1" ] && { echo "$i"; return; }; done
  done
  echo 99
}
declare -A header_dir
for h in */*.h; do header_dir[$(basename "$h")]=$(dirname "$h"); done
status=0
checked=0
for f in */*.cpp */*.h; do
  dir=$(dirname "$f")
  rank=$(rank_of_dir "$dir")
  while read -r inc; do
    target=${header_dir[$inc]:-}
    [ -n "$target" ] || continue  # PostgreSQL's or the library's header
    checked=$((checked + 1))
    trank=$(rank_of_dir "$target")
    if [ "$trank" -gt "$rank" ] || { [ "$trank" -eq "$rank" ] && [ "$target" != "$dir" ]; }; then
      echo "check-layers: $f includes $target/$inc (a layer above, or its sibling)"
      status=1
    fi
  done < <(sed -n 's/^#include "\([^"/]*\)".*/\1/p' "$f")
done
# the module entry, above every folder, sees the nodes through their public headers
while read -r inc; do
  target=${header_dir[$inc]:-}
  case "$target" in
    setop|join)
      checked=$((checked + 1))
      if [ "$inc" != "$target.h" ]; then
        echo "check-layers: pg_mergepath.cpp includes $target/$inc (not the node's public header)"
        status=1
      fi ;;
  esac
done < <(sed -n 's/^#include "\([^"/]*\)".*/\1/p' pg_mergepath.cpp)
[ "$checked" -gt 0 ] || { echo "check-layers: no include checked"; exit 1; }
[ "$status" -eq 0 ] && echo "check-layers: $checked includes, all going down"
exit "$status"
