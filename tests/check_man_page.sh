#!/usr/bin/env bash
# The man page clpool.1: groff renders it without a single warning (-ww), its
# title carries the project version, and it documents every subcommand, every
# option the tool's --help lists and every CLPOOL_* variable host/ reads.
#   tests/check_man_page.sh MAN_PAGE CLPOOL_BINARY VERSION
# Exit 0 clean, 1 a problem, 77 no groff.
set -euo pipefail
man=$1 cli=$2 version=$3
root=$(cd "$(dirname "$0")/.." && pwd)
command -v groff >/dev/null || { echo "skip: no groff (Debian package groff-base)"; exit 77; }
bad=0
fail() { echo "clpool.1: $*" >&2; bad=1; }

warnings=$(groff -man -ww -z "$man" 2>&1 >/dev/null) || fail "groff failed"
[ -z "$warnings" ] || fail "groff warnings:"$'\n'"$warnings"

grep -q "^\.TH CLPOOL 1 .*\"clpool $version\"" "$man" || fail "the .TH line does not name clpool $version"
for section in NAME SYNOPSIS DESCRIPTION COMMANDS ENVIRONMENT "EXIT STATUS" EXAMPLES; do
  grep -q "^\.SH $section\$" "$man" || fail "no section $section"
done

# The source with groff's \- as a plain hyphen, for word matches.
text=$(sed 's/\\-/-/g' "$man")
has_word() { grep -Eq -- "(^|[^-[:alnum:]_])$1([^-[:alnum:]_]|\$)" <<<"$text"; }
for cmd in devices run onnx-test bench; do
  grep -Eq "^\.SS $cmd( |\$)" <<<"$text" || fail "no subsection for '$cmd'"
  for opt in $("$cli" "$cmd" --help | grep -Eo -- '(^|[][ |(])--?[a-z][a-z0-9_]*' | grep -Eo -- '--?[a-z][a-z0-9_]*' | sort -u); do
    has_word "$opt" || fail "'clpool $cmd --help' lists $opt, the man page does not"
  done
done
for opt in $("$cli" --help | grep -Eo -- '(^|[][ |(])--?[a-z][a-z0-9_]*' | grep -Eo -- '--?[a-z][a-z0-9_]*' | sort -u); do
  has_word "$opt" || fail "'clpool --help' lists $opt, the man page does not"
done
for var in $(grep -ho 'getenv("CLPOOL_[A-Z_]*")' "$root"/host/*.c | grep -o 'CLPOOL_[A-Z_]*' | sort -u); do
  grep -q "^\.B $var\$" "$man" || fail "no ENVIRONMENT entry for $var"
done
[ "$bad" = 0 ] && echo "clpool.1 OK: no groff warnings, every subcommand, option and CLPOOL_* variable documented"
exit "$bad"
