#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan + UBSan) and run each one.
#   ./tools/fuzz.sh [SECONDS_PER_TARGET]     default 60
# Seeds come from tests/fuzz/corpus/<target>; new inputs go to a scratch copy
# under build-fuzz/, never into the repository. Exits non-zero on any crash.
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
CLPOOL_APT_PACKAGES="$CLPOOL_APT_PACKAGES clang libclang-rt-dev"
clpool_setup
SECONDS_PER_TARGET=${1:-60}
BUILD="$CLPOOL_ROOT/build-fuzz"
# The three fuzz targets and what they link (the readers, the static library), not the tool.
CC=clang clpool_configure "$BUILD" -DCLPOOL_BUILD_FUZZERS=ON -DCLPOOL_BUILD_TESTS=OFF -DCLPOOL_SANITIZE=ON \
  -DCMAKE_C_COMPILER=clang
cmake --build "$BUILD" -j"$(nproc)" --target fuzz_npy fuzz_onnx fuzz_attrs
# All three targets at once (libFuzzer runs one process per target), for as long as gives
# each SECONDS_PER_TARGET of a core: 1.5x that on 2 cores, where one at a time per core left
# a core idle while the third ran alone.
TARGETS=3
CORES=$(nproc)
WALL_SECONDS=$(( (SECONDS_PER_TARGET * TARGETS + CORES - 1) / CORES ))
[ "$WALL_SECONDS" -ge "$SECONDS_PER_TARGET" ] || WALL_SECONDS=$SECONDS_PER_TARGET
fuzz_one() {
  local target=$1 corpus="$BUILD/corpus-$1"
  mkdir -p "$corpus"
  cp -n "$CLPOOL_ROOT/tests/fuzz/corpus/$target/"* "$corpus/" 2>/dev/null || true
  [ -n "$(ls -A "$corpus")" ] || { echo "fuzz_$target: no seeds in $corpus" >&2; return 1; }
  "$BUILD/tests/fuzz/fuzz_$target" -max_total_time="$WALL_SECONDS" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$BUILD/crash-$target-" "$corpus" > "$BUILD/fuzz-$target.log" 2>&1 || true
}
export CLPOOL_ROOT BUILD WALL_SECONDS
export -f fuzz_one
printf '%s\n' npy onnx attrs | xargs -n 1 -P "$TARGETS" bash -c 'fuzz_one "$1"' _
crashed=0
for target in npy onnx attrs; do
  echo "== fuzz_$target for ${WALL_SECONDS}s beside the others (${SECONDS_PER_TARGET}s of a core)"
  grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" \
    "$BUILD/fuzz-$target.log" || true
  if ls "$BUILD"/crash-"$target"-* >/dev/null 2>&1; then
    echo "fuzz_$target: crash artifacts in $BUILD (log: $BUILD/fuzz-$target.log)" >&2
    crashed=1
  elif ! grep -q "DONE" "$BUILD/fuzz-$target.log"; then
    echo "fuzz_$target: did not run to its end (log: $BUILD/fuzz-$target.log)" >&2
    crashed=1
  fi
done
[ "$crashed" = 0 ] || exit 1
echo "fuzzing: no crashes"
