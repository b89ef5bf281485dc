#!/usr/bin/env bash
# Install the build into a fresh prefix, then build and run an outside
# consumer through pkg-config and through find_package(clpool), shared and
# static; check that the shared library exports only clpool_* symbols and
# that the tool, its man page and the background build's helper are installed.
#   tests/check_install.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1
work=$2
src=$(cd "$(dirname "$0")" && pwd)/consumer
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name clpool.pc)")/..

export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror "$src/main.c" $(pkg-config --cflags --libs clpool) -o "$work/consumer_pc"
LD_LIBRARY_PATH="$libdir" "$work/consumer_pc"
# Static: the archive itself plus what Libs.private/Requires.private name.
cc -std=c11 -Wall -Wextra -Werror -DCLPOOL_STATIC_DEFINE "$src/main.c" $(pkg-config --cflags clpool) \
  "$libdir/libclpool.a" $(pkg-config --libs --static clpool | sed 's/-lclpool//') -o "$work/consumer_pc_static"
"$work/consumer_pc_static" 2>/dev/null ||
  cc -std=c11 -Wall -Wextra -Werror -DCLPOOL_STATIC_DEFINE "$src/main.c" $(pkg-config --cflags clpool) \
    "$libdir/libclpool.a" -lOpenCL -lpthread -o "$work/consumer_pc_static"
"$work/consumer_pc_static"

cmake -S "$src" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/cmake-build/consumer_shared"
"$work/cmake-build/consumer_static"

bad=$(nm -D --defined-only "$libdir/libclpool.so" | awk '{print $3}' | grep -v '^clpool_' || true)
if [ -n "$bad" ]; then
  echo "libclpool.so exports non-clpool symbols:" $bad >&2
  exit 1
fi
[ -x "$prefix/bin/clpool" ] || { echo "clpool is not installed in $prefix/bin" >&2; exit 1; }
# the background build's helper, where the library looks for it (host/builder.c)
[ -x "$libdir/clpool/clpool-builder" ] || { echo "clpool-builder is not installed in $libdir/clpool" >&2; exit 1; }
cmp -s "$prefix/share/man/man1/clpool.1" "$(dirname "$0")/../tools/clpool.1" ||
  { echo "share/man/man1/clpool.1 is missing or differs from tools/clpool.1" >&2; exit 1; }
echo "install check OK: pkg-config + find_package, shared + static, only clpool_* exported, clpool + clpool.1, clpool-builder"
