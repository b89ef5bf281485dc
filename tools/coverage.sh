#!/usr/bin/env bash
# Line and branch coverage of host/ from the gcov counters a run of the sanitizer build left
# (CMakeLists.txt compiles the library with --coverage there), against a floor that only rises
# (tests/coverage_floor: "lines PERCENT branches PERCENT"): prints both and fails (1) below it.
#   tools/coverage.sh [BUILD]      BUILD: build-sanitize by default
#   tools/coverage.sh --reset [BUILD]   removes the counters before a run
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
reset=0
[ "${1:-}" = --reset ] && { reset=1; shift; }
build=${1:-$root/build-sanitize}
objdir="$build/CMakeFiles/clpool_objects.dir/host"
[ -d "$objdir" ] || { echo "coverage: no $objdir (configure with CLPOOL_SANITIZE=ON)" >&2; exit 2; }
if [ "$reset" = 1 ]; then find "$objdir" -name '*.gcda' -delete; exit 0; fi
ls "$objdir"/*.gcda >/dev/null 2>&1 || { echo "coverage: no counters in $objdir: run the tests first" >&2; exit 2; }
# gcov -n: summaries only; per file "Lines executed:P% of N" and "Taken at least once:P% of N".
report=$(cd "$objdir" && gcov -b -n -o . ./*.gcno 2>/dev/null)
read -r lc lt bc bt < <(awk '
  # each file block once; gcov repeats an object-wide total after its files
  /^File / { inhost = $0 ~ /\/host\/[^\/]*\.c\047$/; lines = branches = 0; next }
  inhost && !lines && /^Lines executed:/ { split($2, a, "[:%]"); n = $NF; lc += a[2] * n / 100; lt += n; lines = 1 }
  inhost && !branches && /^Taken at least once:/ { split($4, a, "[:%]"); n = $NF; bc += a[2] * n / 100; bt += n; branches = 1 }
  END { printf "%.0f %d %.0f %d\n", lc, lt, bc, bt }' <<<"$report")
[ "$lt" -gt 0 ] || { echo "coverage: gcov reported no host/ lines" >&2; exit 2; }
lines=$(awk -v c="$lc" -v t="$lt" 'BEGIN { printf "%.1f", 100 * c / t }')
branches=$(awk -v c="$bc" -v t="$bt" 'BEGIN { printf "%.1f", t ? 100 * c / t : 100 }')
read -r _ floor_lines _ floor_branches < "$root/tests/coverage_floor"
echo "coverage of host/: lines $lines% ($lc of $lt), branches taken $branches% ($bc of $bt); floor: lines $floor_lines%, branches $floor_branches%"
awk -v l="$lines" -v b="$branches" -v fl="$floor_lines" -v fb="$floor_branches" 'BEGIN { exit !(l >= fl && b >= fb) }' ||
  { echo "coverage: below the floor (tests/coverage_floor)" >&2; exit 1; }
