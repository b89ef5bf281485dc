#!/usr/bin/env python3
"""Side-by-side benchmark: `clpool bench --csv` and ONNX Runtime's CPU provider
on the same float32 shapes, in one run.

Each peer case is a one-node ONNX model built with `onnx`, run with
onnxruntime's CPUExecutionProvider (default thread settings); its time is the
median wall time of ONNX Runtime's `run` over --repeat runs after a warm-up, each
run after a read of 64 MiB (twice a 32 MiB L3) evicts its data, as
`clpool bench` evicts the caches before each run. clpool's time is its device
time from `clpool bench`. Prints a Markdown table:
case, clpool GB/s, fraction of the copy bandwidth, ORT GB/s, clpool/ORT speed.

Where the bench_onednn binary exists (tools/bench_onednn.c, built with oneDNN
2.x; --onednn, by default build/tools/bench_onednn), it runs once up front with
the same --repeat and --filter, timed the same way (wall time, median, evicted
caches, default threads), and the table gains two columns: oneDNN ms and
clpool/oneDNN speed (oneDNN time / clpool time), "n/a" where oneDNN has no
primitive for the case (MaxPool's Indices, LpPool, MaxUnpool).

Usage: tools/bench_ort.py [--clpool build/clpool] [--repeat 15] [--device N]
                          [--filter TEXT] [--onednn build/tools/bench_onednn]
Needs: pip install onnx onnxruntime numpy
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
except ImportError as e:  # pragma: no cover
    sys.exit(f"bench_ort.py needs numpy, onnx and onnxruntime ({e}); pip install numpy onnx onnxruntime")

# case name -> (op, attributes, input shapes, number of outputs)
CASES = {
    "maxpool_3x3s2p1_8x64x112x112_f32": ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), [[8, 64, 112, 112]], 1),
    "maxpool_idx_3x3s2p1_8x64x112x112_f32": ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), [[8, 64, 112, 112]], 2),
    "maxpool_2x2s2_8x128x56x56_f32": ("MaxPool", dict(kernel_shape=[2, 2], strides=[2, 2]), [[8, 128, 56, 56]], 1),
    "maxpool_5x5s1p2_8x512x20x20_f32": ("MaxPool", dict(kernel_shape=[5, 5], pads=[2, 2, 2, 2]), [[8, 512, 20, 20]], 1),
    "maxpool_13x13s1p6_8x512x20x20_f32": ("MaxPool", dict(kernel_shape=[13, 13], pads=[6, 6, 6, 6]), [[8, 512, 20, 20]], 1),
    "maxpool1d_3s2p1_8x256x4096_f32": ("MaxPool", dict(kernel_shape=[3], strides=[2], pads=[1, 1]), [[8, 256, 4096]], 1),
    "maxpool3d_1x3x3s1x2x2p0x1x1_2x64x16x56x56_f32": (
        "MaxPool", dict(kernel_shape=[1, 3, 3], strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1]), [[2, 64, 16, 56, 56]], 1),
    "maxpool3d_3x3x3s2p1_2x64x16x56x56_f32": (
        "MaxPool", dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1]), [[2, 64, 16, 56, 56]], 1),
    "maxpool_3x3s3_8x64x112x112_f32": ("MaxPool", dict(kernel_shape=[3, 3], strides=[3, 3]), [[8, 64, 112, 112]], 1),
    "maxpool_3x3s2p2d2_8x64x112x112_f32": (
        "MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[2, 2, 2, 2], dilations=[2, 2]), [[8, 64, 112, 112]], 1),
    "maxpool_3x3s5_8x64x112x112_f32": ("MaxPool", dict(kernel_shape=[3, 3], strides=[5, 5]), [[8, 64, 112, 112]], 1),
    "maxpool4d_3x1x1x3_2x16x16x16x16x16_f32": ("MaxPool", dict(kernel_shape=[3, 1, 1, 3]), [[2, 16, 16, 16, 16, 16]], 1),
    "maxpool_idx_28x28_8x512x28x28_f32": ("MaxPool", dict(kernel_shape=[28, 28]), [[8, 512, 28, 28]], 2),
    "maxpool3d_idx_3x3x3s2p1_2x64x16x56x56_f32": (
        "MaxPool", dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1]), [[2, 64, 16, 56, 56]], 2),
    "avgpool_3x3s1p1_8x192x35x35_f32": (
        "AveragePool", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=0), [[8, 192, 35, 35]], 1),
    "avgpool_2x2s2_8x256x56x56_f32": ("AveragePool", dict(kernel_shape=[2, 2], strides=[2, 2]), [[8, 256, 56, 56]], 1),
    "avgpool_5x5s3_8x512x17x17_f32": ("AveragePool", dict(kernel_shape=[5, 5], strides=[3, 3]), [[8, 512, 17, 17]], 1),
    "avgpool3d_2x2x2s2_2x64x16x56x56_f32": (
        "AveragePool", dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2]), [[2, 64, 16, 56, 56]], 1),
    "lppool2_3x3s2_8x64x112x112_f32": ("LpPool", dict(kernel_shape=[3, 3], strides=[2, 2], p=2), [[8, 64, 112, 112]], 1),
    # MaxUnpool: [X's shape, the output's]; X and Indices come from MaxPool of a random output-shaped input
    "maxunpool_2x2s2_8x64x28x28_f32": ("MaxUnpool", dict(kernel_shape=[2, 2], strides=[2, 2]),
                                       [[8, 64, 28, 28], [8, 64, 56, 56]], 1),
    "maxunpool_3x3s2p1_8x64x56x56_f32": ("MaxUnpool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
                                         [[8, 64, 56, 56], [8, 64, 112, 112]], 1),
    "globalavg_32x2048x7x7_f32": ("GlobalAveragePool", {}, [[32, 2048, 7, 7]], 1),
    "globalmax_32x2048x7x7_f32": ("GlobalMaxPool", {}, [[32, 2048, 7, 7]], 1),
    "globalavg_8x256x56x56_f32": ("GlobalAveragePool", {}, [[8, 256, 56, 56]], 1),
    "globallp2_8x256x56x56_f32": ("GlobalLpPool", dict(p=2), [[8, 256, 56, 56]], 1),
    "globalavg_1x3x1024x1024_f32": ("GlobalAveragePool", {}, [[1, 3, 1024, 1024]], 1),
    "max_16x64x128x128_f32": ("Max", {}, [[16, 64, 128, 128], [16, 64, 128, 128]], 1),
    "max_bcast_16x64x128x128_1x64x1x1_f32": ("Max", {}, [[16, 64, 128, 128], [1, 64, 1, 1]], 1),
}


EVICT = np.ones(16 << 20, dtype=np.float32)  # 64 MiB, read before each timed run
ONEDNN_DEFAULT = "build/tools/bench_onednn"


def ort_model(op, inputs, outputs, attrs):
    """A one-node model of `op` loaded into ONNX Runtime's CPU provider."""
    node = helper.make_node(op, [v.name for v in inputs], [v.name for v in outputs], **attrs)
    model = helper.make_model(helper.make_graph([node], "peer", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", 13 if op == "Max" else 12)], ir_version=8)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def unpool_feed(attrs, x_shape, y_shape):
    """MaxUnpool's loaded model and feed: X and Indices from ORT's own MaxPool of a random input of the output's shape."""
    value = lambda name, t, shape: helper.make_tensor_value_info(name, t, shape)
    pool = ort_model("MaxPool", [value("x", TensorProto.FLOAT, y_shape)],
                   [value("y", TensorProto.FLOAT, None), value("idx", TensorProto.INT64, None)], attrs)
    x, idx = pool.run(None, {"x": np.random.default_rng(1).random(y_shape, dtype=np.float32)})
    assert list(x.shape) == x_shape
    sess = ort_model("MaxUnpool", [value("x0", TensorProto.FLOAT, x_shape), value("x1", TensorProto.INT64, x_shape),
                                 value("x2", TensorProto.INT64, [len(y_shape)])],
                   [value("y", TensorProto.FLOAT, None)], attrs)
    return sess, {"x0": x, "x1": idx, "x2": np.array(y_shape, dtype=np.int64)}


# What onnxruntime raises for a model it cannot run (its pybind11 exceptions are not Python's own).
ORT_ERRORS = (ort.capi.onnxruntime_pybind11_state.InvalidArgument, ort.capi.onnxruntime_pybind11_state.Fail,
              ort.capi.onnxruntime_pybind11_state.NotImplemented)


def ort_time(op, attrs, shapes, n_out, repeat):
    if op == "MaxUnpool":
        sess, feed = unpool_feed(attrs, *shapes)
        return timed(sess, feed, repeat)
    inputs = [helper.make_tensor_value_info(f"x{i}", TensorProto.FLOAT, s) for i, s in enumerate(shapes)]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if n_out == 2:
        outputs.append(helper.make_tensor_value_info("idx", TensorProto.INT64, None))
    sess = ort_model(op, inputs, outputs, attrs)
    rng = np.random.default_rng(1)
    feed = {f"x{i}": rng.random(s, dtype=np.float32) for i, s in enumerate(shapes)}
    return timed(sess, feed, repeat)


def timed(sess, feed, repeat):
    sess.run(None, feed)
    times = []
    for _ in range(repeat):
        EVICT.sum()
        t0 = time.perf_counter()
        sess.run(None, feed)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def onednn_times(path, repeat, filter_text):
    """Case name -> oneDNN median ms (None where unsupported), from one `bench_onednn --csv` run."""
    cmd = [path, "--csv", "--repeat", str(repeat), "--filter", filter_text]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    times = {}
    for line in out.splitlines():
        name, _, value = line.partition(",")
        times[name] = None if value == "unsupported" else float(value)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clpool", default="build/clpool")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--device", default=None)
    ap.add_argument("--filter", default="", help="only cases whose name contains this text")
    ap.add_argument("--onednn", default=None,
                    help=f"bench_onednn binary for the oneDNN columns (default: {ONEDNN_DEFAULT}, if it exists)")
    args = ap.parse_args()
    if args.onednn is not None and not os.path.isfile(args.onednn):
        sys.exit(f"bench_ort.py: --onednn {args.onednn}: no such file")
    onednn_path = args.onednn or ONEDNN_DEFAULT
    onednn = onednn_times(onednn_path, args.repeat, args.filter) if os.path.isfile(onednn_path) else None

    def clpool_time(name):
        """One case in its own clpool run, right before ONNX Runtime runs it:
        the pair shares the machine's state (this is a shared, noisy host)."""
        cmd = [args.clpool, "bench", "--csv", "--repeat", str(args.repeat), "--filter", name]
        if args.device is not None:
            cmd += ["--device", args.device]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines()[1:]:
            row = line.split(",")
            if row[0] == name:
                return tuple(float(x) for x in row[1:])
        return None

    peers = "ORT and oneDNN (bench_onednn) wall time" if onednn is not None else "ORT wall time"
    print(f"onnxruntime {ort.__version__}, clpool device time vs {peers}, medians of {args.repeat}\n")
    header = ("| case | clpool ms | clpool GB/s | copy GB/s | fraction of copy | ORT ms | ORT GB/s | "
              "clpool / ORT speed |")
    if onednn is not None:
        header += " oneDNN ms | clpool / oneDNN speed |"
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for name, (op, attrs, shapes, n_out) in CASES.items():
        if args.filter not in name:
            continue
        row = clpool_time(name)
        if row is None:
            continue
        nbytes, ms, gbps, copy = row
        try:
            ort_ms = ort_time(op, attrs, shapes, n_out, args.repeat)
            ort_cells = f"{ort_ms:.3f} | {nbytes / (ort_ms * 1e6):.2f} | {ort_ms / ms:.2f}"
        except ORT_ERRORS as e:  # a case ONNX Runtime does not run (MaxPool over 4 spatial dims)
            print(f"bench_ort.py: ONNX Runtime cannot run {name}: {e}", file=sys.stderr)
            ort_cells = "n/a | n/a | n/a"
        line = f"| {name} | {ms:.3f} | {gbps:.2f} | {copy:.2f} | {gbps / copy:.2f} | {ort_cells} |"
        if onednn is not None:
            onednn_ms = onednn.get(name)
            line += " n/a | n/a |" if onednn_ms is None else f" {onednn_ms:.3f} | {onednn_ms / ms:.2f} |"
        print(line, flush=True)


if __name__ == "__main__":
    main()
