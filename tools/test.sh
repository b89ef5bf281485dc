#!/usr/bin/env bash
# Install what is missing, build, and run ctest's test presets (CMakePresets.json says what each runs, on
# which OpenCL platform; tests/CMakeLists.txt labels the tests):
#   ./tools/test.sh                  build/: the presets pocl (the whole suite, pytest, the GPU paths under
#                                    Oclgrind) and rusticl (the portability subset, which must reach every
#                                    kernel path the planners plan for llvmpipe)
#   ./tools/test.sh --sanitize       build-sanitize/ (ASan + UBSan): the preset sanitize
#   ./tools/test.sh --preset P ...   build/: the presets named (pocl, rusticl, rusticl-full)
# rusticl-full runs the whole suite on rusticl and writes the kernel paths it reaches to
# build/rusticl_paths.txt, and how they differ from the planned ones.
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
# clang: the kernel-warnings test; groff-base: the man-page test; oclgrind: the GPU-path test
CLPOOL_APT_PACKAGES="$CLPOOL_APT_PACKAGES mesa-opencl-icd clang groff-base oclgrind"

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

# The Python package and its test dependencies (onnx and onnxruntime: the references AveragePool and LpPool
# are compared with; hypothesis and mypy: the property and type tests; auditwheel: the wheel's manylinux
# check) in a venv inside build/ (not for the sanitizer build: the package builds its own Release library).
# The package goes in as the wheel pip builds, after auditwheel finds it manylinux (libOpenCL.so.1 is the
# system's). pip must reach its index: when it cannot, this fails loudly.
python_args=()
if [ "$CONFIGURE" = default ]; then
  venv="$BUILD/venv"
  echo "=== Python package: a wheel, auditwheel show, pip install into $venv"
  rm -rf "$BUILD/wheel"
  { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } &&
    "$venv/bin/pip" install --quiet --retries 2 --timeout 30 pytest numpy pyopencl ml_dtypes mako onnx onnxruntime \
      hypothesis mypy auditwheel &&
    "$venv/bin/pip" wheel --quiet --retries 2 --timeout 30 --no-deps -w "$BUILD/wheel" \
      --config-settings=build-dir="$BUILD/python-build" "$CLPOOL_ROOT" ||
    { echo "FAIL: could not create the venv, its test dependencies or the package's wheel" >&2; exit 1; }
  "$venv/bin/auditwheel" show "$BUILD"/wheel/clpool-*.whl 2>/dev/null | tr -s ' \n' ' ' |
    grep -q 'consistent with the following platform tag: "manylinux' ||
    { echo "FAIL: auditwheel does not find the wheel manylinux:" >&2; "$venv/bin/auditwheel" show "$BUILD"/wheel/*.whl >&2; exit 1; }
  "$venv/bin/pip" install --quiet --force-reinstall --no-deps "$BUILD"/wheel/clpool-*.whl ||
    { echo "FAIL: could not pip-install the package's wheel" >&2; exit 1; }
  python_args=(-DCLPOOL_PYTHON="$venv/bin/python")
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
  [ "$preset" != sanitize ] || "$CLPOOL_ROOT/tools/coverage.sh" --reset "$BUILD"
  ctest --preset "$preset" -j"$(nproc)" 2>&1 | tee "$log" || true
  # A run with no tests, or with a failed one, is not a pass.
  grep -q "100% tests passed" "$log" || { result=FAIL; failed=1; }
  summary+=("$preset: $result, $(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" ||
                                 echo 'no ctest summary'), $(( $(date +%s) - start )) s")
  if [ "$preset" = pocl ]; then
    # The programs the suite built from source (tests/program_count.c), and the GPU paths Oclgrind ran.
    summary+=("pocl programs: $(cmake -DDIR="$BUILD/tests/programs" -DMODE=total \
                -P "$CLPOOL_ROOT/tests/program_count.cmake" 2>&1 | tail -n 1)")
    summary+=("oclgrind: $(grep -Eo 'paths reached on the GPU-type device \([0-9]+\)' \
                "$BUILD/Testing/Temporary/LastTest.log" || echo 'no paths reached: skipped or failed')")
  fi
  if [ "$preset" = sanitize ]; then
    # host/'s line and branch coverage over the run, against tests/coverage_floor
    coverage=$("$CLPOOL_ROOT/tools/coverage.sh" "$BUILD" 2>&1) || failed=1
    echo "$coverage"
    summary+=("$coverage")
  fi
  if [ "$preset" = rusticl-full ]; then
    "$CLPOOL_ROOT/tests/check_paths.sh" --list "$BUILD/paths-rusticl-full.trace" > "$BUILD/rusticl_paths.txt"
    "$BUILD/tests/plan_programs" --trace | "$CLPOOL_ROOT/tests/check_paths.sh" --list /dev/stdin > "$BUILD/planned_paths.txt"
    diff "$BUILD/planned_paths.txt" "$BUILD/rusticl_paths.txt" || true
    summary+=("rusticl-full paths: $(wc -l < "$BUILD/rusticl_paths.txt") in $BUILD/rusticl_paths.txt")
  fi
done

echo
echo "=== summary ($(basename "$BUILD"))"
printf '%s\n' "${summary[@]}"
exit $failed
