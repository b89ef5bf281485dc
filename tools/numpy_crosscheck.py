#!/usr/bin/env python3
"""Cross-check `clpool run` against numpy on randomised cases (fixed seed).

Max: random broadcasting shapes of rank 0-6 with 1-8 inputs in all 12 dtypes
(NaN and signed zeros included) must equal numpy.maximum.reduce bit for bit.
Global pools: every rank 3-6 and float dtype against a float64 numpy result
within float32 1e-5, float16 2e-3, bfloat16 1e-2 relative tolerance.
AveragePool and LpPool: 2-D windows (kernel, strides, pads, count_include_pad,
p = 1, 2, 3) in every float dtype against window sums of the zero-padded input
and of its mask, with the same tolerances.

float64 cases the device refuses (no cl_khr_fp64: CLPOOL_ERROR_UNSUPPORTED_DEVICE)
are counted as skipped; any other failure of the tool is an error.

Usage: numpy_crosscheck.py CLPOOL_BINARY WORK_DIR [--cases N]
Exit 0 all equal, 1 any mismatch, 77 numpy missing (ctest reports a skip).
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipping the numpy cross-check")
    sys.exit(77)

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64"]


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """Round to nearest even, NaN kept quiet (what the library stores)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), r)


def random_values(rng, dtype, shape):
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        v = np.array(rng.integers(-4, 5, size=shape) / 2, dtype=np.float32)  # 0-d stays an array
        v[rng.random(shape) < 0.05] = np.nan
        v[rng.random(shape) < 0.05] = -0.0
        return f32_to_bf16(v) if dtype == "bfloat16" else v.astype(dtype)
    info = np.iinfo(dtype)
    return np.array(rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True))


def broadcast_shapes(rng, n):
    rank = int(rng.integers(0, 7))
    out = [int(rng.integers(1, 5)) for _ in range(rank)]
    if rank and rng.random() < 0.1:
        out[int(rng.integers(0, rank))] = 0
    shapes = []
    for _ in range(n):
        r = int(rng.integers(0, rank + 1))
        shapes.append(tuple(d if rng.random() < 0.6 else 1 for d in out[rank - r:]))
    return shapes


def numpy_max(dtype, arrays):
    """numpy.maximum folded left to right for integers. Floats keep the first maximum's bits (a later
    input wins only if greater, or a NaN over a non-NaN): numpy.maximum leaves which of -0 and +0
    it returns to its SIMD loops. bfloat16 compares as float32 and returns bits."""
    if dtype not in ("float16", "float32", "float64", "bfloat16"):
        return np.maximum.reduce(np.broadcast_arrays(*arrays)) if len(arrays) > 1 else arrays[0].copy()
    value = bf16_to_f32 if dtype == "bfloat16" else (lambda a: a)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    out = np.broadcast_to(arrays[0], shape).copy()
    for a in arrays[1:]:
        af = np.broadcast_to(value(a), shape)
        cur = value(out)
        take = (af > cur) | (np.isnan(af) & ~np.isnan(cur))
        out[take] = np.broadcast_to(a, shape)[take]
    return out


SKIPPED = []


# Relative tolerance of the sums per dtype (float32 accumulation tested to 1e-5; narrower outputs round).
SUM_TOLERANCE = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1e-2}


def float_input(rng, dtype, shape):
    """Positive values in [0.5, 1.5) of a float dtype (bfloat16 as uint16 bits) and their float64 values."""
    x32 = rng.random(shape).astype(np.float32) + 0.5
    x = f32_to_bf16(x32) if dtype == "bfloat16" else x32.astype(dtype)
    return x, float64_of(x, dtype)


def float64_of(x, dtype):
    return bf16_to_f32(x).astype(np.float64) if dtype == "bfloat16" else x.astype(np.float64)


def run(cli, args, dtype):
    """True if clpool ran; False if it refused float64 on a device without fp64."""
    p = subprocess.run([cli] + args, capture_output=True, text=True)
    if p.returncode != 0:
        if dtype == "float64" and "CLPOOL_ERROR_UNSUPPORTED_DEVICE" in p.stderr:
            SKIPPED.append(args[1])
            return False
        raise RuntimeError(f"clpool {' '.join(args)}: {p.stderr.strip()}")
    return True


def check_max(cli, work, rng, cases):
    bad = 0
    for case in range(cases):
        dtype = DTYPES[case % len(DTYPES)]
        # Inputs and shapes from one layout per dtype (case % 12), so later cases reuse
        # the programs the first built (program builds are most of the time); values stay fresh.
        layout = np.random.default_rng([20261122, case % len(DTYPES)])
        n = int(layout.integers(1, 9))
        shapes = broadcast_shapes(layout, n)
        arrays = [random_values(rng, dtype, s) for s in shapes]
        args = ["run", "Max", "-o", f"{work}/out.npy"]
        for i, a in enumerate(arrays):
            np.save(f"{work}/in{i}.npy", a)
            args += ["-i", f"{work}/in{i}.npy"]
        if dtype == "bfloat16":
            args.append("--bfloat16")
        if not run(cli, args, dtype):
            continue
        got = np.load(f"{work}/out.npy")
        want = numpy_max(dtype, arrays)
        same = got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()
        if not same:
            bad += 1
            print(f"MISMATCH Max {dtype} shapes {shapes}")
    return bad


def check_global(cli, work, rng, cases):
    tol = SUM_TOLERANCE
    bad = 0
    for case in range(cases):
        dtype = list(tol)[case % 4]
        op = ["GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"][case % 3]
        rank = 3 + case % 4
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 6)) for _ in range(rank - 2)]
        x, xf = float_input(rng, dtype, shape)
        np.save(f"{work}/in.npy", x)
        args = ["run", op, "-i", f"{work}/in.npy", "-o", f"{work}/out.npy"]
        p = [1, 2, 3, 2.5][case % 4]
        if op == "GlobalLpPool":
            args += ["--p", str(p)]
        if dtype == "bfloat16":
            args.append("--bfloat16")
        if not run(cli, args, dtype):
            continue
        got = np.load(f"{work}/out.npy")
        got = float64_of(got, dtype)
        axes = tuple(range(2, rank))
        if op == "GlobalMaxPool":
            want = xf.max(axis=axes, keepdims=True)
        elif op == "GlobalAveragePool":
            want = xf.mean(axis=axes, keepdims=True)
        else:
            want = (np.abs(xf) ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)
        err = np.max(np.abs(got - want) / np.abs(want)) if want.size else 0.0
        if got.shape != want.shape or err > tol[dtype]:
            bad += 1
            print(f"MISMATCH {op} {dtype} shape {shape}: relative error {err:.3g}")
    return bad


def check_windowed(cli, work, rng, cases):
    tol = SUM_TOLERANCE
    bad = 0
    for case in range(cases):
        dtype = list(tol)[case % 4]
        lp = case % 2 == 1
        # one window per (dtype, op): the programs the first case builds serve the rest
        layout = np.random.default_rng([20261129, case % 8])
        k = [int(layout.integers(1, 4)) for _ in range(2)]
        s = [int(layout.integers(1, 3)) for _ in range(2)]
        pads = [int(rng.integers(0, k[i % 2])) for i in range(4)]
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(3, 12)), int(rng.integers(3, 12))]
        x, xf = float_input(rng, dtype, shape)
        p, cip = [1, 2, 3][case % 3], case // 2 % 2
        np.save(f"{work}/in.npy", x)
        args = ["run", "LpPool" if lp else "AveragePool", "-i", f"{work}/in.npy", "-o", f"{work}/out.npy",
                "--kernel_shape", f"{k[0]},{k[1]}", "--strides", f"{s[0]},{s[1]}", "--pads", ",".join(map(str, pads))]
        args += ["--p", str(p)] if lp else ["--count_include_pad", str(cip)]
        if dtype == "bfloat16":
            args.append("--bfloat16")
        if not run(cli, args, dtype):
            continue
        got = np.load(f"{work}/out.npy")
        got = float64_of(got, dtype)
        padded = np.pad(np.abs(xf) ** p if lp else xf, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
        mask = np.pad(np.ones(shape[2:]), ((pads[0], pads[2]), (pads[1], pads[3])))
        oh, ow = (padded.shape[2] - k[0]) // s[0] + 1, (padded.shape[3] - k[1]) // s[1] + 1
        total, count = np.zeros(shape[:2] + [oh, ow]), np.zeros((oh, ow))
        for i in range(k[0]):
            for j in range(k[1]):
                total += padded[:, :, i:i + s[0] * oh:s[0], j:j + s[1] * ow:s[1]]
                count += mask[i:i + s[0] * oh:s[0], j:j + s[1] * ow:s[1]]
        with np.errstate(invalid="ignore", divide="ignore"):
            want = total ** (1.0 / p) if lp else total / (k[0] * k[1] if cip else count)
        ok = got.shape == want.shape and np.all((np.isnan(want) & np.isnan(got)) |
                                                (np.abs(got - want) <= tol[dtype] * np.abs(want)))
        if not ok:
            bad += 1
            print(f"MISMATCH {args[1]} {dtype} shape {shape} kernel {k} strides {s} pads {pads} p {p} cip {cip}")
    return bad


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cli, work = sys.argv[1], sys.argv[2]
    cases = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--cases" else 96
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(20261122)
    bad = check_max(cli, work, rng, cases) + check_global(cli, work, rng, cases // 2) + \
        check_windowed(cli, work, rng, cases // 2)
    print(f"numpy cross-check: {cases} Max cases, {cases // 2} global pool cases, {cases // 2} AveragePool/LpPool "
          f"cases, {bad} mismatches, "
          f"{len(SKIPPED)} float64 cases skipped (device has no cl_khr_fp64)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
