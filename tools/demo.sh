#!/usr/bin/env bash
# Install what is missing, build, and run clpool-demo (each op checked against the C reference) on the default
# OpenCL device.
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
clpool_setup
BUILD="$CLPOOL_ROOT/build"
clpool_build "$BUILD" -DCLPOOL_BUILD_TESTS=OFF
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$BUILD/pocl-cache}"
"$BUILD/clpool-demo" "$@"
