#!/usr/bin/env bash
# The Python package and its test dependencies in a venv: onnx and onnxruntime (references), hypothesis and
# mypy (the property and type tests), auditwheel (the wheel must be manylinux: libOpenCL.so.1 is the
# system's). The package goes in as the wheel pip builds, and only after auditwheel accepts it. pip must
# reach its index: when it cannot, this fails loudly.
#   tools/python_venv.sh BUILD       makes BUILD/venv; prints its python on the last line
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1 venv=$1/venv
fail() { echo "FAIL: $*" >&2; exit 1; }
pip=(--quiet --retries 2 --timeout 30)
rm -rf "$build/wheel"
{ [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } || fail "could not create $venv"
"$venv/bin/pip" install "${pip[@]}" pytest numpy pyopencl ml_dtypes mako onnx onnxruntime hypothesis mypy auditwheel ||
  fail "could not pip-install the test dependencies into $venv"
"$venv/bin/pip" wheel "${pip[@]}" --no-deps -w "$build/wheel" --config-settings=build-dir="$build/python-build" "$root" ||
  fail "could not build the package's wheel"
"$venv/bin/auditwheel" show "$build"/wheel/clpool-*.whl 2>/dev/null | tr -s ' \n' ' ' |
  grep -q 'consistent with the following platform tag: "manylinux' || {
  "$venv/bin/auditwheel" show "$build"/wheel/clpool-*.whl >&2
  fail "auditwheel does not find the wheel manylinux"
}
"$venv/bin/pip" install --quiet --force-reinstall --no-deps "$build"/wheel/clpool-*.whl || fail "could not install the wheel"
echo "$venv/bin/python"
