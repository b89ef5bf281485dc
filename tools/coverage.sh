#!/usr/bin/env bash
# Line and branch coverage of host/ from the gcov counters a run of the sanitizer build left
# (CMakeLists.txt compiles the library with --coverage there), against a floor that only rises
# (tests/coverage_floor: "lines PERCENT branches PERCENT"): prints both, every line not run, and
# fails (1) below the floor.
#   tools/coverage.sh [BUILD]           BUILD: build-sanitize by default
#   tools/coverage.sh --reset [BUILD]   removes the counters before a run
#   tools/coverage.sh --arcs [BUILD]    also lists each line with arcs not taken (the next tests to write)
# Branches are the code's own: UBSan's checks are compiled in before gcov's instrumentation and add
# a pair of arcs each, one of them taken only by undefined behaviour. The build also compiles host/
# without them (clpool_branch_map, never linked), and a line counts that object's branches: of the
# sanitized line's taken arcs, one per check is taken off (a lower bound on the code's own).
# Exclusions, in the source, each with its reason after a colon (lcov's names):
#   LCOV_EXCL_LINE: why        the line (and its branches)
#   LCOV_EXCL_START: why ... LCOV_EXCL_STOP   the lines from one to the other
#   LCOV_EXCL_BR_LINE: why     the line's branches only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
reset=0
arcs=0
case "${1:-}" in --reset) reset=1; shift ;; --arcs) arcs=1; shift ;; esac
build=${1:-$root/build-sanitize}
objdir="$build/CMakeFiles/clpool_objects.dir/host"
mapdir="$build/CMakeFiles/clpool_branch_map.dir/host"
[ -d "$objdir" ] && [ -d "$mapdir" ] ||
  { echo "coverage: no $objdir or $mapdir (configure with CLPOOL_SANITIZE=ON)" >&2; exit 2; }
if [ "$reset" = 1 ]; then find "$objdir" -name '*.gcda' -delete; exit 0; fi
ls "$objdir"/*.gcda >/dev/null 2>&1 || { echo "coverage: no counters in $objdir: run the tests first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run" "$tmp/map"
# gcov -b writes SOURCE.gcov per source into the working directory (the map's without counters: all zero)
(cd "$tmp/run" && gcov -b -c -o "$objdir" "$objdir"/*.gcno >/dev/null 2>&1)
(cd "$tmp/map" && gcov -b -o "$mapdir" "$mapdir"/*.gcno >/dev/null 2>&1)
for f in "$root"/host/*.c; do
  g=$(basename "$f").gcov
  [ -f "$tmp/run/$g" ] || [ -f "$tmp/map/$g" ] || continue # no executable line (a table)
  [ -f "$tmp/run/$g" ] && [ -f "$tmp/map/$g" ] || { echo "coverage: gcov wrote only one $g" >&2; exit 2; }
  # one line per source line: "file line executable hit branches taken mapped-branches excluded brexcluded"
  awk -v file="$(basename "$f")" '
    FNR == 1 { part++ }
    # the .gcov lines: "count:line:source"; count "-" not executable, "#####"/"=====" not run
    part < 3 && /^ +[-#=0-9]+\*?: +[0-9]+:/ {
      split($0, a, ":"); ln = a[2] + 0; c = a[1]; gsub(/[ *]/, "", c)
      if (part == 1 && ln > 0) { exe[ln] = c != "-"; hit[ln] = c ~ /^[0-9]+$/ && c > 0 }
      next }
    part < 3 && /^branch / { if (part == 1) { br[ln]++; if ($0 ~ /taken [1-9]/) tk[ln]++ } else map[ln]++; next }
    part == 3 {
      if ($0 ~ /LCOV_EXCL_(LINE|START|BR_LINE)/ && $0 !~ /LCOV_EXCL_(LINE|START|BR_LINE): [^ ]/) {
        printf "coverage: %s:%d: an exclusion without its reason\n", file, FNR > "/dev/stderr"; bad = 1 }
      if ($0 ~ /LCOV_EXCL_START/) on = 1
      ex[FNR] = on || $0 ~ /LCOV_EXCL_LINE/; bx[FNR] = $0 ~ /LCOV_EXCL_BR_LINE/
      if ($0 ~ /LCOV_EXCL_STOP/) on = 0
      last = FNR }
    END { for (i = 1; i <= last; ++i)
            print file, i, exe[i] + 0, hit[i] + 0, br[i] + 0, tk[i] + 0, map[i] + 0, ex[i] + 0, bx[i] + 0
          exit bad }' "$tmp/run/$g" "$tmp/map/$g" "$f"
done > "$tmp/lines"
read -r lc lt bc bt xl xb < <(awk '
  { exe = $3; hit = $4; br = $5; tk = $6; map = $7; ex = $8; bx = $9
    if (ex) { xl += exe; xb += map; next }
    lt += exe; lc += hit
    if (bx) { xb += map; next }
    # the code s own taken arcs: at least the taken ones less one per UBSan check
    own = tk - (br - map) / 2; if (own < 0) own = 0; if (own > map) own = map
    bt += map; bc += own }
  END { printf "%d %d %d %d %d %d\n", lc, lt, bc, bt, xl, xb }' "$tmp/lines")
[ "$lt" -gt 0 ] || { echo "coverage: gcov reported no host/ lines" >&2; exit 2; }
lines=$(awk -v c="$lc" -v t="$lt" 'BEGIN { printf "%.1f", 100 * c / t }')
branches=$(awk -v c="$bc" -v t="$bt" 'BEGIN { printf "%.1f", t ? 100 * c / t : 100 }')
read -r _ floor_lines _ floor_branches < "$root/tests/coverage_floor"
missed=$(awk '$3 && !$4 && !$8 { printf " %s:%d", $1, $2 }' "$tmp/lines")
[ -z "$missed" ] || echo "lines not run:$missed"
if [ "$arcs" = 1 ]; then
  echo "arcs not taken (file:line count):"
  awk '!$8 && !$9 && $7 { own = $6 - ($5 - $7) / 2; if (own < 0) own = 0
                          if (own < $7) printf "%s:%d %d\n", $1, $2, $7 - own }' "$tmp/lines"
fi
echo "coverage of host/: lines $lines% ($lc of $lt), branches taken $branches% ($bc of $bt);" \
     "excluded: $xl lines, $xb branches; floor: lines $floor_lines%, branches $floor_branches%"
awk -v l="$lines" -v b="$branches" -v fl="$floor_lines" -v fb="$floor_branches" 'BEGIN { exit !(l >= fl && b >= fb) }' ||
  { echo "coverage: below the floor (tests/coverage_floor)" >&2; exit 1; }
