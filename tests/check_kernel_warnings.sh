#!/usr/bin/env bash
# Kernel build warnings are bugs: compile each kernel file (common.h and args.h
# prepended, as the library does) for every dtype and a spread of the -D variants
# the host picks, with clang -O2 -Wall -Werror as an OpenCL C 1.2 compiler (-O2:
# the optimizer reports pragma loops it could not unroll, as PoCL's build does).
# -Wno-unused-function: helpers are static inline and a variant uses only some
# of them; the compiler drops the rest, which is why they are static.
# The variants are listed first, then each distinct one (family, target,
# options) is compiled once, in parallel: one clang per core
# (CLPOOL_KERNEL_WARNINGS_JOBS to override). A SPIR variant whose options are
# also listed for x86-64 is compiled at -O0: its twin at -O2 reports the loops
# left unrolled, and the front end's warnings and SPIR's vector widths need no
# optimizer; so is a pair's second dtype where its first has the same options.
# Exit 0 clean, 1 a warning or error, 77 no clang.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cc=$(command -v clang || command -v clang-15 || command -v clang-14 || true)
[ -n "$cc" ] || { echo "skip: no clang"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each program as the library builds it: common.h, args.h, then its family's
# parts in host order (host/families.c).
k=$root/kernels
d2="$k/maxpool_lanes.h $k/maxpool2d_common.h $k/maxpool2d_fast.h $k/maxpool2d_exact.h"
family() { # name, parts...
  local name=$1; shift
  cat "$k/common.h" "$k/args.h" "$@" > "$tmp/$name.cl"
}
family maxpool_nd "$k/window.h" "$k/maxpool_lanes.h" "$k/maxpool_nd.cl"
family maxpool2d $d2 "$k/maxpool2d_argmax.h" "$k/maxpool2d_block.h" "$k/maxpool2d_sweep.h" "$k/maxpool2d.cl"
family maxpool2d_plane $d2 "$k/maxpool2d_block.h" "$k/maxpool2d_band.h" "$k/maxpool2d_plane.cl"
family maxpool2d_flat $d2 "$k/maxpool2d_block.h" "$k/maxpool2d_band.h" "$k/maxpool2d_flat.cl"
family maxpool3d "$k/maxpool3d.cl"
family global_max_pool "$k/global_pool.h" "$k/global_max_pool.cl"
family global_sum_pool "$k/global_pool.h" "$k/global_sum_pool.cl"
family max "$k/max.cl"
family maxpool_generic "$k/window.h" "$k/maxpool_generic.cl"
target=(-target spir64)
jobs=$tmp/variants
: > "$jobs"
check() { # program (maxpool and global_pool: the family its options pick), options...
  local f=$1; shift
  case "$f $*" in
    "maxpool "*-DNS=*) f=maxpool_nd ;;
    "maxpool "*-DPLANE_ELEMS=*) f=maxpool2d_plane ;;
    "maxpool "*-DFLAT_ELEMS=*) f=maxpool2d_flat ;;
    "maxpool "*) f=maxpool2d ;;
    "global_pool "*-DOP=1*) f=global_max_pool ;;
    "global_pool "*) f=global_sum_pool ;;
  esac
  printf '%s|%s|%s\n' "$f" "${target[*]}" "$*" >> "$jobs"
}
# One variant ("family|target|options"): compile it, print "FAIL ..." lines if it fails.
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
pool_types="FLOAT32 FLOAT64 FLOAT16 BFLOAT16 INT8 UINT8"
# The widened fast path (-DWIDEN, 1- and 2-byte types without Indices): as
# SPIR (blocks of 16 lanes in turn) and for an AVX-512 CPU, as PoCL builds it
# (clang vectors of 32/64 lanes).
for t in "-target spir64" "-target x86_64-pc-linux-gnu -march=skylake-avx512"; do
  read -r -a target <<< "$t"
  for dt in FLOAT16 BFLOAT16 INT8 UINT8; do
    for geo in "-DKH=3 -DKW=3 -DSH=2 -DSW=2" "-DKH=2 -DKW=7 -DSH=1 -DSW=1" "-DKH=7 -DKW=2 -DSH=1 -DSW=2" "-DKH=3 -DKW=9 -DSH=2 -DSW=2"; do
      for widen in 2 4; do check maxpool -DDT_$dt -DWITH_INDICES=0 -DSTORAGE_ORDER=0 $geo -DVW=16 -DWIDEN=$widen -DEXACT_ROWS=4; done
    done
  done
done
# The row sweep (-DSWEEP_BLOCKS, on CPUs for large inputs), with and without Indices: as
# PoCL builds it for an AVX-512 CPU, and as SPIR. Stride 2 also with -DODD_START=1
# (row loads from the output column times 2 under an odd left pad, tap 0 from a
# broadcast: the host asks for it for float32 and the 16-bit floats without Indices, the kernel takes it
# for every type; 3x6 has the third load too), those without Indices with
# -DSTREAM_STORES=1 (non-temporal stores, data beyond 1.5x the cache).
for t in "-target spir64" "-target x86_64-pc-linux-gnu -march=skylake-avx512"; do
  read -r -a target <<< "$t"
  for dtw in "FLOAT32 1" "FLOAT64 1" "FLOAT16 2" "BFLOAT16 2" "INT8 4" "UINT8 4"; do
    read -r dt widen <<< "$dtw"
    for geo in "-DKH=3 -DKW=3 -DSH=2 -DSW=2 -DEXACT_ROWS=4" "-DKH=2 -DKW=2 -DSH=2 -DSW=2 -DEXACT_ROWS=4" \
               "-DKH=3 -DKW=6 -DSH=2 -DSW=2 -DEXACT_ROWS=4" \
               "-DKH=5 -DKW=5 -DSH=1 -DSW=1 -DEXACT_ROWS=1" "-DKH=13 -DKW=13 -DSH=1 -DSW=1 -DEXACT_ROWS=1"; do
      odd_starts=0
      case $geo in *SW=2*) odd_starts="0 1" ;; esac
      for odd in $odd_starts; do
        check maxpool -DDT_$dt -DWITH_INDICES=0 -DSTORAGE_ORDER=0 $geo -DVW=16 -DWIDEN=$widen -DSWEEP_BLOCKS=16 -DODD_START=$odd -DSTREAM_STORES=$odd
        check maxpool -DDT_$dt -DWITH_INDICES=1 -DSTORAGE_ORDER=1 $geo -DVW=16 -DWIDEN=1 -DSWEEP_BLOCKS=16 -DODD_START=$odd
      done
    done
  done
done
# GPUs and llvmpipe: 8 lanes, a row's last block partial rather than overlapping (-DOVERLAP_BLOCKS=0).
target=(-target spir64)
for dt in FLOAT32 FLOAT64 FLOAT16 BFLOAT16 INT8 UINT8; do
  for ix in "-DWITH_INDICES=0 -DSTORAGE_ORDER=0" "-DWITH_INDICES=1 -DSTORAGE_ORDER=1"; do
    check maxpool -DDT_$dt $ix -DKH=3 -DKW=3 -DSH=2 -DSW=2 -DVW=8 -DWIDEN=1 -DEXACT_ROWS=1 -DOVERLAP_BLOCKS=0
  done
done
# The plane path (-DPLANE_ELEMS: stride 1, no Indices, CPUs with 512-bit vectors),
# tap by tap and log-step: as PoCL builds it, and as SPIR.
for t in "-target spir64" "-target x86_64-pc-linux-gnu -march=skylake-avx512"; do
  read -r -a target <<< "$t"
  for dtw in "FLOAT32 16 1 2048" "FLOAT64 8 1 1024" "FLOAT16 16 2 4096" "BFLOAT16 16 2 4096" "INT8 16 4 8192" "UINT8 16 4 8192"; do
    read -r dt vw widen elems <<< "$dtw"
    for geo in "-DKH=5 -DKW=5" "-DKH=13 -DKW=13" "-DKH=12 -DKW=9"; do
      check maxpool -DDT_$dt -DWITH_INDICES=0 -DSTORAGE_ORDER=0 $geo -DSH=1 -DSW=1 -DVW=$vw -DWIDEN=$widen -DEXACT_ROWS=1 -DPLANE_ELEMS=$elems
    done
  done
done
# The flat path (-DFLAT_ELEMS: types of at most 4 bytes at stride 1 without
# Indices, OW == W, CPUs with 512-bit vectors; a kernel per left pad; 1- and
# 2-byte types widened): as PoCL builds it, and as SPIR.
for t in "-target spir64" "-target x86_64-pc-linux-gnu -march=skylake-avx512"; do
  read -r -a target <<< "$t"
  for dtw in "FLOAT32 1 4096" "FLOAT16 2 8192" "BFLOAT16 2 8192" "INT8 4 16384" "UINT8 4 16384"; do
    read -r dt widen elems <<< "$dtw"
    for geo in "-DKH=5 -DKW=5" "-DKH=13 -DKW=13" "-DKH=4 -DKW=2" "-DKH=1 -DKW=6"; do
      check maxpool -DDT_$dt -DWITH_INDICES=0 -DSTORAGE_ORDER=0 $geo -DSH=1 -DSW=1 -DVW=16 -DWIDEN=$widen -DEXACT_ROWS=1 -DFLAT_ELEMS=$elems
    done
  done
done
# The second pass of 3-D pooling with Indices (-DINDEX_MAP: a window of one
# column, Indices mapped through the first pass's), with and without the row
# sweep: as PoCL builds it, and as SPIR.
for t in "-target spir64" "-target x86_64-pc-linux-gnu -march=skylake-avx512"; do
  read -r -a target <<< "$t"
  for dt in $pool_types; do
    for geo in "-DKH=3 -DKW=1 -DSH=2 -DSW=1 -DEXACT_ROWS=4" "-DKH=2 -DKW=1 -DSH=1 -DSW=1 -DEXACT_ROWS=4 -DSWEEP_BLOCKS=16"; do
      for vw in 16 8; do check maxpool -DDT_$dt -DWITH_INDICES=1 -DSTORAGE_ORDER=0 -DINDEX_MAP=1 $geo -DVW=$vw; done
    done
  done
done
# Strides 3 and 4 (four vector loads kept whole, then shuffles) as PoCL
# builds them: the general kernel, and the 2-D kernel with and without Indices
# (its 16-bit types also widened, in blocks of 16 lanes in turn).
target=(-target x86_64-pc-linux-gnu -march=skylake-avx512)
for dtw in "FLOAT32 1" "FLOAT64 1" "FLOAT16 2" "BFLOAT16 2" "INT8 4" "UINT8 4"; do
  read -r dt widen <<< "$dtw"
  vw=16
  [ "$dt" = FLOAT64 ] && vw=8
  for sw in 3 4; do
    check maxpool -DDT_$dt -DWITH_INDICES=$((sw & 1)) -DSTORAGE_ORDER=0 -DNS=2 -DVW=16 -DNB_MAX=4 -DSW=$sw
    check maxpool -DDT_$dt -DWITH_INDICES=0 -DSTORAGE_ORDER=0 -DKH=3 -DKW=$sw -DSH=$sw -DSW=$sw -DVW=$vw -DWIDEN=$widen -DEXACT_ROWS=4
    check maxpool -DDT_$dt -DWITH_INDICES=1 -DSTORAGE_ORDER=$((sw & 1)) -DKH=5 -DKW=7 -DSH=$sw -DSW=$sw -DVW=$vw -DEXACT_ROWS=1 -DSWEEP_BLOCKS=16
  done
done
# One-pass 3-D MaxPool (float32 on CPUs, with and without Indices) and the global pools'
# grouped kernels and prefetches: x86-64 as PoCL builds them, and as SPIR.
for t in "-target spir64" "-target x86_64-pc-linux-gnu -march=skylake-avx512"; do
  read -r -a target <<< "$t"
  for geo in "-DKD=3 -DKH=3 -DKW=3 -DSH=2 -DSW=2" "-DKD=2 -DKH=2 -DKW=2 -DSH=2 -DSW=1" "-DKD=1 -DKH=7 -DKW=5 -DSH=1 -DSW=2" \
             "-DKD=7 -DKH=1 -DKW=1 -DSH=7 -DSW=1"; do
    for ix in 0 1; do check maxpool3d -DDT_FLOAT32 -DWITH_INDICES=$ix -DSTORAGE_ORDER=0 $geo; done
  done
  for dt in FLOAT32 FLOAT64; do
    for op in "-DOP=1 -DLP_KIND=0" "-DOP=2 -DLP_KIND=0" "-DOP=3 -DLP_KIND=1" "-DOP=3 -DLP_KIND=2" "-DOP=3 -DLP_KIND=3"; do
      check global_pool -DDT_$dt $op -DCHUNKED=1
    done
  done
done
target=(-target x86_64-pc-linux-gnu -march=skylake-avx512)
# Max with non-temporal stores (large outputs on CPUs): x86-64 as PoCL builds it.
for dtw in "FLOAT32 16" "FLOAT16 16" "INT8 16" "INT64 8"; do
  read -r dt vw <<< "$dtw"
  check max -DDT_$dt -DVW=$vw -DSTREAM_STORES=1
  check max -DDT_$dt -DVW=$vw
done
target=(-target spir64)
for dt in $pool_types; do
  for ix in "-DWITH_INDICES=0 -DSTORAGE_ORDER=0" "-DWITH_INDICES=1 -DSTORAGE_ORDER=1"; do
    # the general kernel's lane variants, each at rank 1 or 3 in turn (the rank changes only its index loops)
    ns=1
    check maxpool -DDT_$dt $ix -DNS=3 -DVW=16 -DSW=0
    for sv in "-DVW=16 -DSW=0" "-DVW=16 -DSW=0 -DWINDOW_INT_AT=1" "-DVW=8 -DSW=0" "-DVW=16 -DNB_MAX=4 -DSW=1" "-DVW=16 -DNB_MAX=4 -DSW=2" "-DVW=8 -DNB_MAX=4 -DSW=2" "-DVW=8 -DNB_MAX=4 -DSW=0" "-DVW=16 -DNB_MAX=4 -DSW=3" "-DVW=16 -DNB_MAX=4 -DSW=4"; do
      check maxpool -DDT_$dt $ix -DNS=$ns $sv
      ns=$((4 - ns))
    done
    for geo in "-DKH=3 -DKW=3 -DSH=2 -DSW=2" "-DKH=2 -DKW=7 -DSH=1 -DSW=1" "-DKH=7 -DKW=2 -DSH=1 -DSW=2"; do
      for vw in "-DVW=16 -DEXACT_ROWS=4" "-DVW=8 -DEXACT_ROWS=1"; do check maxpool -DDT_$dt $ix $geo $vw; done
    done
    # large windows (SPP's 13x13); the exact path's rows are -D constants (the others' a kernel argument)
    for geo in "-DKH=13 -DKW=13 -DSH=1 -DSW=1 -DEXACT_ROWS=1" "-DKH=9 -DKW=10 -DSH=2 -DSW=1 -DEXACT_ROWS=2"; do
      check maxpool -DDT_$dt $ix $geo -DVW=16
    done
  done
done
# Max's lanes as the host picks them: 8 for 8-byte types, else 16 (host/max.c).
for dtw in "FLOAT32 16" "FLOAT64 8" "FLOAT16 16" "BFLOAT16 16" "INT8 16" "UINT8 16" "INT16 16" "UINT16 16" \
           "INT32 16" "UINT32 16" "INT64 8" "UINT64 8"; do
  read -r dt vw <<< "$dtw"
  for st in 0 1; do check max -DDT_$dt -DVW=$vw -DSTREAM_STORES=$st; done
done
for dt in FLOAT32 FLOAT64 FLOAT16 BFLOAT16; do
  for op in "-DOP=1 -DLP_KIND=0" "-DOP=2 -DLP_KIND=0" "-DOP=3 -DLP_KIND=1" "-DOP=3 -DLP_KIND=2" \
            "-DOP=3 -DLP_KIND=3" "-DOP=3 -DLP_KIND=0"; do
    for ch in 0 1; do check global_pool -DDT_$dt $op -DCHUNKED=$ch; done
  done
done
# MaxPool's first tier (one program per dtype): as SPIR, and as PoCL builds it.
for t in "-target spir64" "-target x86_64-pc-linux-gnu -march=skylake-avx512"; do
  read -r -a target <<< "$t"
  for dt in $pool_types; do check maxpool_generic -DDT_$dt; done
done
export cc tmp
export -f compile_one
n=$(wc -l < "$jobs")
# Each distinct variant with its level: -O0 for a SPIR one with an x86-64 twin, and for the
# second dtype of a pair (bfloat16, uint8, Max's unsigned integers) whose first has the same
# options at -O2: the element type changes loads and keys, not the loops' trip counts.
sort -u "$jobs" | awk -F'|' '{ line[NR] = $0; fam[NR] = $1; tgt[NR] = $2; opt[NR] = $3
                               if ($2 != "-target spir64") twin[$1 "|" $3] = 1 }
  END { for (i = 1; i <= NR; ++i) {
          lvl[i] = tgt[i] == "-target spir64" && (fam[i] "|" opt[i]) in twin ? "-O0" : "-O2"
          if (lvl[i] == "-O2") at_o2[fam[i] "|" tgt[i] "|" opt[i]] = 1 }
        for (i = 1; i <= NR; ++i) {
          first = opt[i]
          if (!sub(/-DDT_BFLOAT16/, "-DDT_FLOAT16", first)) sub(/-DDT_U(INT)/, "-DDT_INT", first)
          if (first != opt[i] && (fam[i] "|" tgt[i] "|" first) in at_o2) lvl[i] = "-O0"
          print line[i] "|" lvl[i] } }' > "$jobs.distinct"
compiled=$(wc -l < "$jobs.distinct")
at_o0=$(grep -c '|-O0$' "$jobs.distinct" || true)
jobs_n=${CLPOOL_KERNEL_WARNINGS_JOBS:-$(nproc)}
xargs -d '\n' -n 1 -P "$jobs_n" bash -c 'compile_one "$1"' _ < "$jobs.distinct" > "$tmp/results"
cat "$tmp/results"
bad=$(grep -c '^FAIL' "$tmp/results" || true)
echo "kernel variants listed: $n, distinct ones compiled: $compiled ($jobs_n at a time, $at_o0 at -O0: SPIR twins, pairs' second dtypes) with $cc -O2 -Wall -Werror (spir64; x86-64 for WIDEN, SWEEP_BLOCKS, PLANE_ELEMS, FLAT_ELEMS, INDEX_MAP, strides 3 and 4, STREAM_STORES, one-pass 3-D and the grouped global pools), failing: $bad"
[ "$bad" = 0 ]
