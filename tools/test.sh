#!/usr/bin/env bash
# Install what is missing, build, and run the whole ctest suite on the OpenCL device(s).
#   ./tools/test.sh              build/ + ctest
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
clpool_setup
BUILD="$CLPOOL_ROOT/build"
clpool_build "$BUILD"
# Kernel caches stay inside the build tree; never $HOME.
export POCL_CACHE_DIR="$BUILD/pocl-cache"
ctest --test-dir "$BUILD" --output-on-failure -j2
