#!/usr/bin/env bash
# The kernel paths of launch traces (tests/cl_path_trace.c: a line per
# launch, kernel function then build options) as entries:
#   dtype KERNEL DT_X       each kernel function on each dtype
#   path KERNEL KEY=V ...   the options that choose its code, sizes left out
#                           (KH KW KD NB_MAX PLANE_ELEMS FLAT_ELEMS; the sum row kernels'
#                           SH and SD, which only size their ring's refills; the channels-last
#                           kernel's NS and CB, which only unroll its walk): the whole
#                           set for the 2-D, global-pool and 3-D kernels; for the
#                           general kernels (maxpool_nd, sum_pool_nd) the rank (NS) apart; for
#                           Max's kernels (max_of_N) each option apart and their
#                           dtypes as one family (max_of)
# Only clpool's programs count (their options start with -DDT_).
#   ./check_paths.sh --list TRACE...            the entries, sorted
#   ./check_paths.sh REFERENCE TRACE...         fails (1) naming each entry of
#                                               REFERENCE the traces miss
set -euo pipefail
entries() {
  cat "$@" | awk '
    $2 !~ /^-DDT_/ { next }
    { k = $1; path = k
      print "dtype " (k ~ /^max_of_/ ? "max_of" : k) " " substr($2, 3)
      for (i = 3; i <= NF; ++i) {
        split(substr($i, 3), kv, "=")
        if (kv[1] ~ /^(KH|KW|KD|NB_MAX|PLANE_ELEMS|FLAT_ELEMS)$/ || (k ~ /^sum_pool_[23]d$/ && kv[1] ~ /^S[HD]$/) ||
            (k == "window_channels_last" && kv[1] ~ /^(NS|CB)$/)) continue
        if ((k == "maxpool_nd" || k == "sum_pool_nd") && kv[1] == "NS") { print "path " k " NS=" kv[2]; continue }
        if (k !~ /^max_of_/) path = path " " kv[1] "=" kv[2]
        else print "path max_of " kv[1] "=" kv[2]
      }
      print "path " path
    }' | sort -u
}
# As ctest's rusticl_paths fixture, on the trace a run names in CLPOOL_PATH_TRACE (the rusticl presets;
# without one, not a run that traces: skipped, 77):
#   ./check_paths.sh --reset                removes the trace before the run's tests
#   ./check_paths.sh --check PLAN_PROGRAMS  after them: the reference is every launch the planners plan for
#                                           llvmpipe (tests/plan_programs.c --trace), from the family table
case "${1:-}" in
  --reset|--check)
    [ -n "${CLPOOL_PATH_TRACE:-}" ] || { echo "no CLPOOL_PATH_TRACE: this run traces no kernel paths, skipped"; exit 77; }
    if [ "$1" = --reset ]; then rm -f "$CLPOOL_PATH_TRACE"; exit 0; fi
    [ $# = 2 ] || { echo "usage: $0 --check PLAN_PROGRAMS" >&2; exit 2; }
    planned=$(mktemp)
    trap 'rm -f "$planned"' EXIT
    "$2" --trace | "$0" --list /dev/stdin > "$planned"
    ref_name="the kernel paths planned for llvmpipe"
    set -- "$planned" "$CLPOOL_PATH_TRACE" ;;
esac
if [ "${1:-}" = --list ]; then
  shift
  entries "$@"
  exit 0
fi
[ $# -ge 2 ] || { echo "usage: $0 --list TRACE... | $0 REFERENCE TRACE..." >&2; exit 2; }
ref=$1; shift
ref_name=${ref_name:-kernel paths of $ref}
missing=$(comm -23 <(grep -v '^#' "$ref" | sort -u) <(entries "$@"))
total=$(grep -vc '^#' "$ref")
if [ -n "$missing" ]; then
  echo "$ref_name not reached: $(echo "$missing" | wc -l) of $total"
  echo "$missing" | sed 's/^/  /'
  exit 1
fi
echo "$ref_name reached: all $total"
