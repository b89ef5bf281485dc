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
CC=clang clpool_build "$BUILD" -DCLPOOL_BUILD_FUZZERS=ON -DCLPOOL_BUILD_TESTS=OFF -DCLPOOL_SANITIZE=ON \
  -DCMAKE_C_COMPILER=clang
for target in npy onnx attrs; do
  corpus="$BUILD/corpus-$target"
  mkdir -p "$corpus"
  cp -n "$CLPOOL_ROOT/tests/fuzz/corpus/$target/"* "$corpus/" 2>/dev/null || true
  echo "== fuzz_$target for ${SECONDS_PER_TARGET}s"
  "$BUILD/tests/fuzz/fuzz_$target" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$BUILD/crash-$target-" "$corpus" 2>&1 | grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" || true
  if ls "$BUILD"/crash-"$target"-* >/dev/null 2>&1; then
    echo "fuzz_$target: crash artifacts in $BUILD" >&2
    exit 1
  fi
done
echo "fuzzing: no crashes"
