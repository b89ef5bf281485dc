#!/usr/bin/env bash
# tools/plot_sweep.py on a small synthetic `clpool bench --sweep --csv`: a valid
# CSV must give a PNG, a bad number must exit 1 with a one-line message.
#   tests/test_plot_sweep.sh        (PYTHON=... to pick the interpreter)
# Exit 0 pass, 1 fail, 77 matplotlib not importable (ctest reports a skip).
set -euo pipefail
py=${PYTHON:-python3}
script=$(cd "$(dirname "$0")/.." && pwd)/tools/plot_sweep.py
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
  echo "skip: matplotlib not importable by $py"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Same layout as bench_sweep prints (bytes = inputs + outputs).
cat > "$tmp/sweep.csv" <<'EOF'
sweep_op,bytes,median_ms,gbps,copy_gbps
maxpool,81920,0.0264,3.100,6.459
maxpool,327680,0.0334,9.800,17.112
max,196608,0.0378,5.200,12.523
max,786432,0.0528,14.900,25.188
EOF
"$py" "$script" "$tmp/sweep.csv" -o "$tmp/sweep.png" --note "test"
magic=$(head -c 8 "$tmp/sweep.png" | od -An -tx1 | tr -d ' \n')
if [ "$magic" != 89504e470d0a1a0a ]; then
  echo "FAIL: $tmp/sweep.png is not a PNG (magic '$magic')"
  exit 1
fi

sed '3s/0.0334/0.03x4/' "$tmp/sweep.csv" > "$tmp/bad.csv"
rc=0
"$py" "$script" "$tmp/bad.csv" -o "$tmp/bad.png" 2> "$tmp/err" || rc=$?
if [ "$rc" != 1 ] || ! grep -q 'bad.csv:3: median_ms .* not a number' "$tmp/err" ||
   [ "$(wc -l < "$tmp/err")" != 1 ] || [ -e "$tmp/bad.png" ]; then
  echo "FAIL: bad number: want exit 1 and one line naming line 3, got exit $rc:"
  cat "$tmp/err"
  exit 1
fi
echo "plot_sweep: ok"
