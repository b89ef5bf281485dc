#!/usr/bin/env bash
# Install what is missing, build, and run the whole ctest suite on the OpenCL device.
#   ./tools/test.sh              release build in build/, all tests
#   ./tools/test.sh --sanitize   ASan + UBSan build in build-sanitize/, all tests
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
clpool_setup

BUILD="$CLPOOL_ROOT/build"
EXTRA=()
case "${1:-}" in
  "") ;;
  --sanitize) BUILD="$CLPOOL_ROOT/build-sanitize"; EXTRA=(-DCLPOOL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug) ;;
  *) echo "usage: $0 [--sanitize]" >&2; exit 2 ;;
esac
clpool_build "$BUILD" "${EXTRA[@]}"
# Kernel caches stay inside the build tree; never $HOME.
export POCL_CACHE_DIR="$BUILD/pocl-cache"
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)"
