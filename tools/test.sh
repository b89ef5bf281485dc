#!/usr/bin/env bash
# Install what is missing, build, and run the test stages, each pinned to
# its OpenCL implementation with OCL_ICD_VENDORS; one summary line per stage.
#   ./tools/test.sh              release build in build/: the stages pocl, rusticl, oclgrind
#   ./tools/test.sh --sanitize   ASan + UBSan build in build-sanitize/, PoCL only
#   ./tools/test.sh --stage S    release build, stage S only (repeatable)
# Stages: pocl       the whole ctest suite and the pytest suite (tests/python) on PoCL
#         rusticl    the portability subset (ctest label portability, pytest -m portability) on
#                    Mesa rusticl's llvmpipe device, which must reach every kernel path listed in
#                    tests/rusticl_paths.txt
#         rusticl-full  the whole ctest and pytest suites on rusticl; writes the paths they reach
#                    to build/rusticl_paths.txt (the source of tests/rusticl_paths.txt)
#         oclgrind   the GPU paths under Oclgrind
set -euo pipefail
CLPOOL_ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$CLPOOL_ROOT/tools/common.sh"
# clang: the kernel-warnings test; groff-base: the man-page test; oclgrind: the GPU-path stage
CLPOOL_APT_PACKAGES="$CLPOOL_APT_PACKAGES mesa-opencl-icd clang groff-base oclgrind"

BUILD="$CLPOOL_ROOT/build"
EXTRA=()
STAGES=()
SANITIZE=0
usage() { echo "usage: $0 [--sanitize | --stage pocl|rusticl|rusticl-full|oclgrind ...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    # Same kernels as the release build: reuse its PoCL kernel cache (a warm cache
    # skips only PoCL's compiles; every host call still runs under the sanitizers).
    --sanitize) SANITIZE=1; BUILD="$CLPOOL_ROOT/build-sanitize"
                EXTRA=(-DCLPOOL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCLPOOL_TEST_POCL_CACHE="$CLPOOL_ROOT/build/pocl-cache") ;;
    --stage) [ $# -ge 2 ] || usage
             case "$2" in pocl|rusticl|rusticl-full|oclgrind) STAGES+=("$2") ;; *) usage ;; esac
             shift ;;
    *) usage ;;
  esac
  shift
done
[ "$SANITIZE" = 0 ] || [ ${#STAGES[@]} = 0 ] || usage
[ ${#STAGES[@]} -gt 0 ] || STAGES=(pocl rusticl oclgrind)
[ "$SANITIZE" = 0 ] || STAGES=(pocl)
has_stage() { local s; for s in "${STAGES[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
clpool_setup
# Tests ON explicitly: tools/demo.sh configures the same build/ with them off.
clpool_build "$BUILD" -DCLPOOL_BUILD_TESTS=ON "${EXTRA[@]}"

summary=()
failed=0

# --- Python package: pytest over tests/python on each platform --------------
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
# Environment of a stage's tests: the platform pinned, kernel caches inside the
# build tree (one per platform; clpool's own off), HOME not used. On rusticl
# the tests run with tests/cl_path_trace.c preloaded: it writes every kernel
# path launched to $BUILD/paths-<stage>.trace for tests/check_paths.sh.
stage_env() { # stage platform
  local icd="/etc/OpenCL/vendors/$2.icd"
  STAGE_ENV=(OCL_ICD_VENDORS="$icd" RUSTICL_ENABLE=llvmpipe POCL_CACHE_DIR="$BUILD/pocl-cache"
             MESA_SHADER_CACHE_DIR="$BUILD/mesa-cache-$2" CLPOOL_CACHE_DIR=off XDG_CACHE_HOME="$BUILD/xdg-cache")
  if [ "$2" = rusticl ]; then
    STAGE_ENV+=(LD_PRELOAD="$BUILD/tests/libcl_path_trace.so" CLPOOL_PATH_TRACE="$BUILD/paths-$1.trace")
  fi
}
# python_stage STAGE PLATFORM [pytest args]: one summary line; no tests collected (pytest exit 5) is a failure.
python_stage() {
  local stage=$1 platform=$2 start log="$BUILD/pytest-$1.log" rc=0
  shift 2
  [ "$py_ready" = 1 ] || return 0
  echo "=== pytest on $platform${*:+ ($*)}"
  start=$(date +%s)
  stage_env "$stage" "$platform"
  (cd "$BUILD" && env "${STAGE_ENV[@]}" PYTHONDONTWRITEBYTECODE=1 \
     "$PY_VENV/bin/python" -m pytest -q -p no:cacheprovider "$@" "$CLPOOL_ROOT/tests/python") > "$log" 2>&1 || rc=$?
  local counts
  counts=$(tail -n 1 "$log" | grep -Eo '[0-9]+ (passed|failed|skipped|deselected|errors?)' | paste -sd, - | sed 's/,/, /g' || true)
  if [ "$rc" = 0 ]; then
    summary+=("$stage python${*:+ ($*)}: PASS, ${counts:-no pytest summary}, $(( $(date +%s) - start )) s")
  else
    cat "$log"
    [ "$rc" = 5 ] && counts="no tests collected"
    summary+=("$stage python${*:+ ($*)}: FAIL (pytest exit $rc), ${counts:-no pytest summary}, $(( $(date +%s) - start )) s")
    failed=1
  fi
}
# ctest_stage STAGE PLATFORM WHAT [ctest selection]: one summary line.
ctest_stage() {
  local stage=$1 platform=$2 what=$3 start log="$BUILD/ctest-$1.log" result=PASS
  shift 3
  oclgrind_finish # the simulator's ctest, if running, first: one ctest at a time in a build directory
  echo "=== ctest on $platform: $what"
  start=$(date +%s)
  stage_env "$stage" "$platform"
  if env "${STAGE_ENV[@]}" ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" "$@" > "$log" 2>&1; then
    # A run with no tests is not a pass.
    grep -q "tests passed" "$log" || { result=FAIL; failed=1; cat "$log"; }
  else
    result=FAIL
    failed=1
    cat "$log"
  fi
  tail -n 3 "$log" | grep -E "tests passed" || true
  summary+=("$stage ($what): $result, $(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" || echo 'no ctest summary'), $(( $(date +%s) - start )) s")
}
# --- Oclgrind stage --------------------------------------------------------
# Oclgrind simulates a GPU-type device and checks every memory access, API
# call and data race: test_oclgrind runs each kernel path the library takes on
# GPUs (PoCL and rusticl never take them) and lists the paths it reached. Its
# own ICD is not installed: the oclgrind wrapper preloads its runtime, which
# is also why the sanitizer build (ASan must load first) has no such stage.
# One simulator process: it runs in the background beside the pytest stages of
# PoCL and then rusticl, each of which leaves a core idle; ctest_stage waits
# for it before the next ctest (one build directory: ctest's own files there
# are not shared safely).
oclgrind_stage() { # prints its output, writes its summary line to $BUILD/oclgrind.summary
  local log="$BUILD/ctest-oclgrind.log" start result=PASS rc=0
  if ! command -v oclgrind >/dev/null; then
    echo "oclgrind: not installed, skipped" > "$BUILD/oclgrind.summary"
    return 0
  fi
  echo "=== ctest on oclgrind (test_oclgrind under oclgrind --check-api --data-races)"
  start=$(date +%s)
  if ctest --test-dir "$BUILD" -V -L oclgrind > "$log" 2>&1 && grep -q "tests passed" "$log"; then
    sed -n 's/^[0-9]*: //p' "$log" | sed -n '/^paths reached/,/^[0-9]*%: Checks/p'
  else
    result=FAIL
    rc=1
    cat "$log"
  fi
  local tests paths
  tests=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" || echo 'no ctest summary')
  paths=$(grep -Eo 'paths reached on the GPU-type device \([0-9]+\)' "$log" | grep -Eo '[0-9]+' || echo 0)
  echo "oclgrind: $result, $tests, $paths GPU paths, $(( $(date +%s) - start )) s" > "$BUILD/oclgrind.summary"
  return $rc
}
oclgrind_pid=
oclgrind_ran=0
oclgrind_start() { # once, if the stage is wanted
  [ "$SANITIZE" = 0 ] && has_stage oclgrind && [ "$oclgrind_ran" = 0 ] || return 0
  oclgrind_ran=1
  rm -f "$BUILD/oclgrind.summary"
  oclgrind_stage > "$BUILD/oclgrind-stage.out" 2>&1 &
  oclgrind_pid=$!
}
oclgrind_finish() {
  [ -n "$oclgrind_pid" ] || return 0
  wait "$oclgrind_pid" || failed=1
  oclgrind_pid=
  cat "$BUILD/oclgrind-stage.out"
  summary+=("$(cat "$BUILD/oclgrind.summary" 2>/dev/null || echo "oclgrind: FAIL, no summary")")
  [ -f "$BUILD/oclgrind.summary" ] || failed=1
}
# --- end of the Oclgrind stage ----------------------------------------------
# The package builds its own Release library: not part of the sanitizer run.
if [ "$SANITIZE" = 0 ] && { has_stage pocl || has_stage rusticl || has_stage rusticl-full; }; then python_setup; fi
for stage in "${STAGES[@]}"; do
  platform=${stage%-full}
  [ "$stage" != oclgrind ] || continue
  if [ ! -f "/etc/OpenCL/vendors/$platform.icd" ]; then
    summary+=("$stage: not installed (/etc/OpenCL/vendors/$platform.icd missing), skipped")
    continue
  fi
  case "$stage" in
    # Tests labelled platform_independent (no OpenCL in them) run here only, the one labelled
    # oclgrind in its own stage; those labelled subset repeat part of a suite for the rusticl run.
    pocl)
      if [ "$SANITIZE" = 1 ]; then
        # Of the platform-independent tests, the planner's (host code) runs under the sanitizers too.
        ctest_stage pocl pocl "the whole suite under ASan + UBSan" -LE 'oclgrind|subset' \
          -E '^(kernel_warnings|man_page|plot_sweep)$'
      else
        ctest_stage pocl pocl "the whole suite" -LE 'oclgrind|subset'
        oclgrind_start # beside the pytest stages
        # The programs the suite built from source (tests/program_count.c; docs/testing.md).
        summary+=("pocl programs: $(cmake -DDIR="$BUILD/tests/programs" -DMODE=total \
                    -P "$CLPOOL_ROOT/tests/program_count.cmake" 2>&1 | tail -n 1)")
        python_stage pocl pocl
      fi ;;
    # llvmpipe compiles each program several times slower than PoCL: a subset reaching every
    # kernel path the whole suite reaches there (docs/testing.md), checked from the trace.
    rusticl)
      rm -f "$BUILD/paths-rusticl.trace"
      python_stage rusticl rusticl -m portability
      ctest_stage rusticl rusticl "portability subset, label portability" -L portability
      echo "=== kernel paths reached on rusticl against tests/rusticl_paths.txt"
      if out=$("$CLPOOL_ROOT/tests/check_paths.sh" "$CLPOOL_ROOT/tests/rusticl_paths.txt" "$BUILD/paths-rusticl.trace"); then
        echo "$out"
        summary+=("rusticl paths: PASS, $(echo "$out" | tail -n 1)")
      else
        echo "$out"
        summary+=("rusticl paths: FAIL, $(echo "$out" | head -n 1)")
        failed=1
      fi ;;
    rusticl-full)
      rm -f "$BUILD/paths-rusticl-full.trace"
      ctest_stage rusticl-full rusticl "the whole suite" -LE 'platform_independent|oclgrind|subset'
      python_stage rusticl-full rusticl
      "$CLPOOL_ROOT/tests/check_paths.sh" --list "$BUILD/paths-rusticl-full.trace" > "$BUILD/rusticl_paths.txt"
      echo "=== kernel paths of the whole suite on rusticl: $BUILD/rusticl_paths.txt; against tests/rusticl_paths.txt:"
      diff <(grep -v '^#' "$CLPOOL_ROOT/tests/rusticl_paths.txt") "$BUILD/rusticl_paths.txt" || true
      summary+=("rusticl-full paths: $(wc -l < "$BUILD/rusticl_paths.txt") in $BUILD/rusticl_paths.txt") ;;
  esac
done
oclgrind_start # not yet run: no PoCL stage
oclgrind_finish

echo
echo "=== summary ($(basename "$BUILD"))"
printf '%s\n' "${summary[@]}"
exit $failed
