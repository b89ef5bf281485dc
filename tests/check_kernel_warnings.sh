#!/usr/bin/env bash
# Kernel build warnings are bugs: compile every program the planners build
# (tests/plan_programs.c prints them from the family table: the target its
# device's driver compiles for, its parts, its options) as the library does
# (common.h and args.h first), with clang -O2 -Wall -Werror as an OpenCL C 1.2
# compiler (-O2: the optimizer reports pragma loops it could not unroll, as
# PoCL's build does). -Wno-unused-function: helpers are static inline and a
# variant uses only some of them; the compiler drops the rest.
# One clang per core (CLPOOL_KERNEL_WARNINGS_JOBS to override). Only the first
# program of each loop shape is compiled at -O2, the rest at -O0: programs that
# differ only in element type or storage order (STORAGE_ORDER=1: index arithmetic)
# have the same loops and trip counts, and a SPIR program whose shape is also
# listed for x86-64 has the same pragmas.
#   ./check_kernel_warnings.sh PLAN_PROGRAMS
# Exit 0 clean, 1 a warning or error, 77 no clang.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# = 1 ] || { echo "usage: $0 PLAN_PROGRAMS" >&2; exit 2; }
cc=$(command -v clang || command -v clang-15 || command -v clang-14 || true)
[ -n "$cc" ] || { echo "skip: no clang"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
k=$root/kernels
# One line per program: "family|target flags|options", each family's source written once.
jobs=$tmp/variants
"$1" | while IFS='|' read -r target parts opts; do
  f=${parts##* }
  f=${f%.cl}
  if [ ! -f "$tmp/$f.cl" ]; then
    (cd "$k" && cat common.h args.h $parts) > "$tmp/$f.cl"
  fi
  case $target in
    x86_64) t="-target x86_64-pc-linux-gnu -march=skylake-avx512" ;;
    *) t="-target $target" ;;
  esac
  printf '%s|%s|%s\n' "$f" "$t" "$opts"
done > "$jobs"
# One variant ("family|target|options|level"): compile it, print "FAIL ..." lines if it fails.
compile_one() {
  local f target opts level ll out
  IFS='|' read -r f target opts level <<< "$1"
  read -r -a target <<< "$target"
  read -r -a opts <<< "$opts"
  ll=$(mktemp "$tmp/out.XXXXXX")
  # CLPOOL_INLINE_SHARED: a program's kernels with their shared work-item inlined, as PoCL generates each (common.h)
  if ! out=$("$cc" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header "${target[@]}" "$level" -emit-llvm -S \
               -o "$ll" -Wall -Werror -Wno-unused-function -DCLPOOL_INLINE_SHARED "${opts[@]}" "$tmp/$f.cl" 2>&1); then
    echo "FAIL $f.cl ${target[*]} ${opts[*]}"
    echo "$out" | head -5
  elif [ "${target[1]}" = spir64 ] && grep -qE '<(32|64) x ' "$ll"; then
    # SPIR-V backends (rusticl's) abort on vectors of more than 16 lanes.
    echo "FAIL $f.cl ${target[*]} ${opts[*]}: vectors of more than 16 lanes in SPIR"
  fi
  rm -f "$ll"
}
export cc tmp
export -f compile_one
n=$(wc -l < "$jobs")
# Each distinct variant with its level (see the header for which are compiled at -O0): a variant's loop
# shape is its family, target and options less the element type and the storage order.
sort -u "$jobs" | awk -F'|' '
  function shape(o) { gsub(/-DDT_[A-Z0-9]+/, "", o); sub(/-DSTORAGE_ORDER=1/, "-DSTORAGE_ORDER=0", o); return o }
  { line[NR] = $0; fam[NR] = $1; tgt[NR] = $2; opt[NR] = shape($3)
    if ($2 != "-target spir64") native[$1 "|" opt[NR]] = 1 }
  END { for (i = 1; i <= NR; ++i) {
          key = fam[i] "|" tgt[i] "|" opt[i]
          o0 = (tgt[i] == "-target spir64" && (fam[i] "|" opt[i]) in native) || key in at_o2
          if (!o0) at_o2[key] = 1
          print line[i] "|" (o0 ? "-O0" : "-O2") } }' > "$jobs.distinct"
compiled=$(wc -l < "$jobs.distinct")
at_o0=$(grep -c '|-O0$' "$jobs.distinct" || true)
jobs_n=${CLPOOL_KERNEL_WARNINGS_JOBS:-$(nproc)}
xargs -d '\n' -n 1 -P "$jobs_n" bash -c 'compile_one "$1"' _ < "$jobs.distinct" > "$tmp/results"
cat "$tmp/results"
bad=$(grep -c '^FAIL' "$tmp/results" || true)
echo "programs the plans build: $n, compiled: $compiled ($jobs_n at a time, $at_o0 at -O0: loop shapes compiled at -O2 once) with $cc -O2 -Wall -Werror (x86-64 for a CPU whose work-item vectors are its SIMD, else spir64), failing: $bad"
[ "$bad" = 0 ]
