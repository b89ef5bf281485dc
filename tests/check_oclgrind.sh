#!/usr/bin/env bash
# Runs a program under Oclgrind, the simulated GPU-type OpenCL device that
# checks every memory access, API call and (--data-races) race:
#   tests/check_oclgrind.sh PROGRAM [ARGS...]
# Oclgrind reports on stderr and still exits 0, so any stderr output fails
# (the program itself writes to stdout only). 77 (skip) without oclgrind.
set -uo pipefail
command -v oclgrind >/dev/null || { echo "oclgrind not installed: skipped"; exit 77; }
err=$(mktemp)
trap 'rm -f "$err"' EXIT
# Oclgrind 21.10's LLVM rejects the llvm.assume calls of optimised builds
# ("Undefined external function"); its --uninitialized plugin aborts on freeze.
OCLGRIND_BUILD_OPTIONS=-cl-opt-disable oclgrind --check-api --data-races "$@" 2>"$err"
rc=$?
if [ -s "$err" ]; then
  echo "=== Oclgrind diagnostics (stderr):"
  cat "$err"
  [ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
