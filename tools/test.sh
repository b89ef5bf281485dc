#!/usr/bin/env bash
# Install what is missing, build, and run the whole ctest suite once per
# OpenCL implementation found (PoCL, and Mesa rusticl on its llvmpipe CPU
# device), each pinned with OCL_ICD_VENDORS, with the Python package's pytest suite
# (tests/python, in a venv in the build dir) on each, then the GPU paths on
# Oclgrind; one summary line per platform and stage.
#   ./tools/test.sh              release build in build/, every platform
#   ./tools/test.sh --sanitize   ASan + UBSan build in build-sanitize/, PoCL only
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
# clang: the kernel-warnings test; groff-base: the man-page test; oclgrind: the GPU-path stage
CLPOOL_APT_PACKAGES="$CLPOOL_APT_PACKAGES mesa-opencl-icd clang groff-base oclgrind"
clpool_setup

BUILD="$CLPOOL_ROOT/build"
EXTRA=()
PLATFORMS=(pocl rusticl)
case "${1:-}" in
  "") ;;
  # Same kernels as the release build: reuse its PoCL kernel cache (a warm cache
  # skips only PoCL's compiles; every host call still runs under the sanitizers).
  --sanitize) BUILD="$CLPOOL_ROOT/build-sanitize"; PLATFORMS=(pocl)
              EXTRA=(-DCLPOOL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCLPOOL_TEST_POCL_CACHE="$CLPOOL_ROOT/build/pocl-cache") ;;
  *) echo "usage: $0 [--sanitize]" >&2; exit 2 ;;
esac
# Tests ON explicitly: tools/demo.sh configures the same build/ with them off.
clpool_build "$BUILD" -DCLPOOL_BUILD_TESTS=ON "${EXTRA[@]}"

summary=()
failed=0

# --- Python package stage: pytest over tests/python on each platform ---------
# The package is pip-installed from this tree into a venv inside the build dir
# (with pytest numpy pyopencl ml_dtypes mako). pip must reach its index: when it
# cannot, the stage fails loudly instead of skipping.
PY_VENV="$BUILD/venv"
py_ready=0
python_setup() {
  echo "=== Python package: pip install into $PY_VENV"
  if ! { [ -x "$PY_VENV/bin/python" ] || python3 -m venv "$PY_VENV"; } ||
     ! "$PY_VENV/bin/pip" install --quiet --retries 2 --timeout 30 pytest numpy pyopencl ml_dtypes mako ||
     ! "$PY_VENV/bin/pip" install --quiet --retries 2 --timeout 30 --force-reinstall --no-deps \
         --config-settings=build-dir="$BUILD/python-build" "$CLPOOL_ROOT"; then
    echo "FAIL: could not create the venv or pip-install the Python package and its test dependencies" >&2
    summary+=("python: FAIL, venv or pip install failed (see above)")
    failed=1
    return
  fi
  py_ready=1
}
# python_stage PLATFORM ICD: one summary line; no tests collected (pytest exit 5) is a failure.
python_stage() {
  local platform=$1 icd=$2 start log="$BUILD/pytest-$1.log" rc=0
  [ "$py_ready" = 1 ] || return 0
  echo "=== pytest on $platform ($icd)"
  start=$(date +%s)
  # Caches inside the build tree (clpool's own off); HOME is not used.
  (cd "$BUILD" && env OCL_ICD_VENDORS="$icd" RUSTICL_ENABLE=llvmpipe POCL_CACHE_DIR="$BUILD/pocl-cache" \
     MESA_SHADER_CACHE_DIR="$BUILD/mesa-cache-$platform" CLPOOL_CACHE_DIR=off XDG_CACHE_HOME="$BUILD/xdg-cache" \
     PYTHONDONTWRITEBYTECODE=1 "$PY_VENV/bin/python" -m pytest -q -p no:cacheprovider "$CLPOOL_ROOT/tests/python") \
     > "$log" 2>&1 || rc=$?
  local counts
  counts=$(tail -n 1 "$log" | grep -Eo '[0-9]+ (passed|failed|skipped|errors?)' | paste -sd, - | sed 's/,/, /g' || true)
  if [ "$rc" = 0 ]; then
    summary+=("$platform python: PASS, ${counts:-no pytest summary}, $(( $(date +%s) - start )) s")
  else
    cat "$log"
    [ "$rc" = 5 ] && counts="no tests collected"
    summary+=("$platform python: FAIL (pytest exit $rc), ${counts:-no pytest summary}, $(( $(date +%s) - start )) s")
    failed=1
  fi
}
# The package builds its own Release library: not part of the sanitizer run.
[ -n "${1:-}" ] || python_setup
# Tests labelled platform_independent (no OpenCL in them) run on the first
# platform of the release build only; the one labelled oclgrind in its own stage.
select=(-LE oclgrind)
[ -z "${1:-}" ] || select=(-LE 'platform_independent|oclgrind')
for platform in "${PLATFORMS[@]}"; do
  icd="/etc/OpenCL/vendors/$platform.icd"
  if [ ! -f "$icd" ]; then
    summary+=("$platform: not installed ($icd missing), skipped")
    continue
  fi
  echo "=== ctest on $platform ($icd)"
  start=$(date +%s)
  # Kernel caches stay inside the build tree (per platform); never $HOME.
  if env OCL_ICD_VENDORS="$icd" RUSTICL_ENABLE=llvmpipe POCL_CACHE_DIR="$BUILD/pocl-cache" \
      MESA_SHADER_CACHE_DIR="$BUILD/mesa-cache-$platform" \
      ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" "${select[@]}" > "$BUILD/ctest-$platform.log" 2>&1; then
    result=PASS
    # A run with no tests is not a pass.
    grep -q "tests passed" "$BUILD/ctest-$platform.log" || { result=FAIL; failed=1; cat "$BUILD/ctest-$platform.log"; }
  else
    result=FAIL
    failed=1
    cat "$BUILD/ctest-$platform.log"
  fi
  tail -n 3 "$BUILD/ctest-$platform.log" | grep -E "tests passed" || true
  select=(-LE 'platform_independent|oclgrind')
  summary+=("$platform: $result, $(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$BUILD/ctest-$platform.log" || echo 'no ctest summary'), $(( $(date +%s) - start )) s")
  python_stage "$platform" "$icd"
done
# --- Oclgrind stage --------------------------------------------------------
# Oclgrind simulates a GPU-type device and checks every memory access, API
# call and data race: test_oclgrind runs each kernel path the library takes on
# GPUs (PoCL and rusticl never take them) and lists the paths it reached. Its
# own ICD is not installed: the oclgrind wrapper preloads its runtime, which
# is also why the sanitizer build (ASan must load first) has no such stage.
oclgrind_stage() {
  local log="$BUILD/ctest-oclgrind.log" start result=PASS
  if ! command -v oclgrind >/dev/null; then
    summary+=("oclgrind: not installed, skipped")
    return
  fi
  echo "=== ctest on oclgrind (test_oclgrind under oclgrind --check-api --data-races)"
  start=$(date +%s)
  if ctest --test-dir "$BUILD" -V -L oclgrind > "$log" 2>&1 && grep -q "tests passed" "$log"; then
    sed -n 's/^[0-9]*: //p' "$log" | sed -n '/^paths reached/,/^[0-9]*%: Checks/p'
  else
    result=FAIL
    failed=1
    cat "$log"
  fi
  local tests paths
  tests=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" || echo 'no ctest summary')
  paths=$(grep -Eo 'paths reached on the GPU-type device \([0-9]+\)' "$log" | grep -Eo '[0-9]+' || echo 0)
  summary+=("oclgrind: $result, $tests, $paths GPU paths, $(( $(date +%s) - start )) s")
}
[ -n "${1:-}" ] || oclgrind_stage
# --- end of the Oclgrind stage ----------------------------------------------

echo
echo "=== summary ($(basename "$BUILD"))"
printf '%s\n' "${summary[@]}"
exit $failed
