# Shared by tools/test.sh and tools/demo.sh: install what is missing, then configure + build.
# Usage: source tools/common.sh; clpool_setup; clpool_build BUILD_DIR [cmake args...]
# (clpool_configure: the same without building)

CLPOOL_APT_PACKAGES="cmake make gcc pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd check"

clpool_missing_packages() {
  local missing=()
  for p in $CLPOOL_APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]}"
}

clpool_setup() {
  local missing
  clpool_optional_python
  missing=$(clpool_missing_packages)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "Installing: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "Missing packages: $missing" >&2
    echo "Install them with: sudo apt-get install -y $missing" >&2
    return 1
  fi
}

# numpy and matplotlib are optional (the numpy cross-check and the sweep-plot
# test skip without them); try pip once for each.
clpool_optional_python() {
  command -v python3 >/dev/null || return 0
  local m
  for m in numpy matplotlib; do
    python3 -c "import $m" 2>/dev/null && continue
    python3 -m pip install --quiet --retries 1 --timeout 20 "$m" >/dev/null 2>&1 ||
      echo "$m unavailable: the tests that need it will be skipped"
  done
}

clpool_configure() {
  local dir=$1; shift
  cmake -S "$CLPOOL_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
}

clpool_build() {
  clpool_configure "$@"
  cmake --build "$1" -j"$(nproc)"
}
