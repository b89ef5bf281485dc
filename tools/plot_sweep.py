#!/usr/bin/env python3
"""Plot the output of `clpool bench --sweep --csv` as a PNG: GB/s and time vs size.

The CSV is what bench_sweep in tools/cli_bench.c prints: the header
sweep_op,bytes,median_ms,gbps,copy_gbps and one row per op and size. `bytes`
counts everything one call moves (all inputs + all outputs), so for the same
input tensor the ops sit at different x (MaxPool 3x3/s2 moves ~1.25x its input,
Max of two inputs 3x). copy_gbps is a plain copy kernel over the same bytes in
the same run; it is drawn as one dashed reference line in both panels.

The CSV carries no date or device name: pass them with --note.

Usage: build/clpool bench --sweep --csv > sweep.csv
       tools/plot_sweep.py sweep.csv -o docs/sweep.png [--title TEXT] [--note TEXT]
       (FILE may be - for stdin)
Exit 0 ok, 1 bad input or unwritable output, 2 matplotlib missing or bad usage.
"""
import argparse
import csv
import math
import statistics
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # no display needed; must precede the pyplot import
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
except ImportError:
    print("plot_sweep.py needs matplotlib; pip install matplotlib", file=sys.stderr)
    sys.exit(2)

COLUMNS = ("sweep_op", "bytes", "median_ms", "gbps", "copy_gbps")


def fail(msg):
    print(f"plot_sweep.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_rows(f, name):
    """Return [(op, bytes, ms, gbps, copy_gbps)]; exit 1 naming the line on bad input."""
    reader = csv.reader(f)
    try:
        header = next(reader, None)
        if header is None:
            fail(f"{name}: empty input (expected the header {','.join(COLUMNS)})")
        header = [h.strip() for h in header]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            fail(f"{name}:1: missing column(s) {', '.join(missing)} (is this `clpool bench --sweep --csv` output?)")
        idx = [header.index(c) for c in COLUMNS]
        rows = []
        for fields in reader:
            line = reader.line_num
            if not any(s.strip() for s in fields):
                continue  # tolerate blank lines, e.g. a trailing one
            if len(fields) != len(header):
                fail(f"{name}:{line}: expected {len(header)} fields, got {len(fields)}")
            op = fields[idx[0]].strip()
            if not op:
                fail(f"{name}:{line}: empty sweep_op")
            values = []
            for col, i in zip(COLUMNS[1:], idx[1:]):
                try:
                    v = float(fields[i])
                except ValueError:
                    fail(f"{name}:{line}: {col} '{fields[i].strip()}' is not a number")
                # Log axes and GB/s need finite positive values; 0 or nan means a broken run.
                if not (math.isfinite(v) and v > 0):
                    fail(f"{name}:{line}: {col} '{fields[i].strip()}' must be a positive number")
                values.append(v)
            rows.append((op, *values))
    except (csv.Error, UnicodeDecodeError) as e:
        fail(f"{name}: unreadable CSV ({e})")
    if not rows:
        fail(f"{name}: no data rows after the header")
    return rows


def size_label(n):
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if n >= 1 << shift:
            return f"{n / (1 << shift):g}{unit}"
    return f"{n:g}"


def set_size_axis(ax, xs):
    # Ticks on powers of two spanning the data; step by 4x when 2x would crowd them.
    lo, hi = math.floor(math.log2(min(xs))), math.ceil(math.log2(max(xs)))
    hi = max(hi, lo + 1)  # a single power-of-two size would give an empty range
    step = 1 if hi - lo <= 8 else 2
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(lo, hi + 1, step)]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(2.0**lo, 2.0**hi)
    ax.set_xlabel("bytes moved per call (inputs + outputs)")
    ax.grid(True, alpha=0.3)


def plot(rows, out, title, note):
    fig, (ax_bw, ax_ms) = plt.subplots(1, 2, figsize=(11, 4.5))
    for op in dict.fromkeys(r[0] for r in rows):  # ops in CSV order
        pts = sorted(r[1:] for r in rows if r[0] == op)
        xs = [p[0] for p in pts]
        ax_bw.plot(xs, [p[2] for p in pts], marker="o", label=op)
        ax_ms.plot(xs, [p[1] for p in pts], marker="o", label=op)
    # The copy baseline is measured per row; merge all rows into one curve (median if a size repeats).
    copy = {}
    for r in rows:
        copy.setdefault(r[1], []).append(r[4])
    cx = sorted(copy)
    cg = [statistics.median(copy[x]) for x in cx]
    ref = dict(linestyle="--", color="0.4", label="copy kernel")
    ax_bw.plot(cx, cg, **ref)
    ax_ms.plot(cx, [x / (g * 1e6) for x, g in zip(cx, cg)], **ref)  # ms = bytes / (GB/s * 1e6)

    xs = [r[1] for r in rows]
    set_size_axis(ax_bw, xs)
    set_size_axis(ax_ms, xs)
    ax_bw.set_ylabel("GB/s")
    ax_bw.set_ylim(bottom=0)
    ax_bw.set_title("Bandwidth")
    ax_ms.set_yscale("log")
    ax_ms.set_ylabel("median time (ms)")
    ax_ms.set_title("Time")
    ax_bw.legend()
    ax_ms.legend()
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05 if note else 0, 1, 1))  # leave room for the caption
    if note:
        fig.text(0.01, 0.015, note, fontsize=9, color="0.3")
    try:
        fig.savefig(out, dpi=150)
    except OSError as e:
        fail(f"cannot write {out}: {e.strerror or e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", metavar="FILE", help="CSV from `clpool bench --sweep --csv`, or - for stdin")
    ap.add_argument("-o", "--output", default="sweep.png", help="PNG to write (default: sweep.png)")
    ap.add_argument("--title", default="clpool bench --sweep (float32)")
    ap.add_argument("--note", default="", help="caption line, e.g. date and device name")
    args = ap.parse_args()

    if args.csv == "-":
        rows = read_rows(sys.stdin, "<stdin>")
    else:
        try:
            with open(args.csv, newline="", encoding="utf-8") as f:
                rows = read_rows(f, args.csv)
        except OSError as e:
            fail(f"cannot read {args.csv}: {e.strerror or e}")
    plot(rows, args.output, args.title, args.note)


if __name__ == "__main__":
    main()
