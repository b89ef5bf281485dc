#!/usr/bin/env bash
# Install what is missing, build, and run ctest's test presets (CMakePresets.json says what each runs, on
# which OpenCL platform; tests/CMakeLists.txt labels the tests):
#   ./tools/test.sh                  build/: the presets pocl (the whole suite, pytest, the GPU paths under
#                                    Oclgrind) and rusticl (the portability subset, which must reach every
#                                    kernel path the planners plan for llvmpipe)
#   ./tools/test.sh --sanitize       build-sanitize/ (ASan + UBSan): the preset sanitize
#   ./tools/test.sh --preset P ...   build/: the presets named (pocl, rusticl, rusticl-full)
# rusticl-full runs the whole suite on rusticl; its rusticl_paths test names every planned kernel path
# the run did not reach.
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
# clang: the kernel-warnings test; groff-base: the man-page test; oclgrind: the GPU-path test; patch: the
# mutant patches' check
CLPOOL_APT_PACKAGES="$CLPOOL_APT_PACKAGES mesa-opencl-icd clang groff-base oclgrind patch"

CONFIGURE=default
PRESETS=()
usage() { echo "usage: $0 [--sanitize | --preset pocl|rusticl|rusticl-full ...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) CONFIGURE=sanitize ;;
    --preset) [ $# -ge 2 ] || usage
              case "$2" in pocl|rusticl|rusticl-full) PRESETS+=("$2") ;; *) usage ;; esac
              shift ;;
    *) usage ;;
  esac
  shift
done
[ "$CONFIGURE" = default ] || [ ${#PRESETS[@]} = 0 ] || usage
[ ${#PRESETS[@]} -gt 0 ] || PRESETS=(pocl rusticl)
[ "$CONFIGURE" = default ] || PRESETS=(sanitize)
cd "$CLPOOL_ROOT" # the presets' home
clpool_setup
BUILD="$CLPOOL_ROOT/build"
[ "$CONFIGURE" = default ] || BUILD="$CLPOOL_ROOT/build-sanitize"

# The Python package, as a manylinux wheel, in build/venv with its test dependencies (not for the sanitizer
# build: the package builds its own Release library).
python_args=()
if [ "$CONFIGURE" = default ]; then
  echo "=== Python package: tools/python_venv.sh"
  python=$("$CLPOOL_ROOT/tools/python_venv.sh" "$BUILD" | tail -n 1)
  python_args=(-DCLPOOL_PYTHON="$python")
fi
cmake --preset "$CONFIGURE" "${python_args[@]}" >/dev/null
cmake --build --preset "$CONFIGURE" -j"$(nproc)"

summary=()
failed=0
for preset in "${PRESETS[@]}"; do
  echo "=== ctest --preset $preset"
  start=$(date +%s)
  log="$BUILD/ctest-$preset.log"
  result=PASS
  ctest --preset "$preset" -j"$(nproc)" 2>&1 | tee "$log" || true
  # A run with no tests, or with a failed one, is not a pass.
  grep -q "100% tests passed" "$log" || { result=FAIL; failed=1; }
  summary+=("$preset: $result, $(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" ||
                                 echo 'no ctest summary'), $(( $(date +%s) - start )) s")
  # pocl: the programs the suite built from source (tests/program_count.c), the GPU paths Oclgrind ran;
  # sanitize: host/'s coverage (the ctest coverage, against tests/coverage_floor)
  for what in "programs built by the suite: .*" "paths reached on the GPU-type device \([0-9]+\)" \
              "coverage of host/: .*"; do
    found=$(grep -Eo "$what" "$BUILD/Testing/Temporary/LastTest.log" | tail -n 1) && summary+=("$found") || true
  done
done

echo
echo "=== summary ($(basename "$BUILD"))"
printf '%s\n' "${summary[@]}"
exit $failed
