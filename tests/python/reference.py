"""Plain numpy references of the ONNX semantics (independent of clpool: loops over windows and taps)."""
import functools
import itertools
import math

import numpy as np


def maxpool_geometry(spatial, kernel, strides, pads, dilations, ceil_mode, auto_pad):
    """(output dims, pads at the begin) per the ONNX MaxPool rules."""
    r = len(spatial)
    strides = list(strides or [1] * r)
    dilations = list(dilations or [1] * r)
    eff = [(kernel[i] - 1) * dilations[i] + 1 for i in range(r)]
    out, begin = [], []
    for i in range(r):
        n, s, e = spatial[i], strides[i], eff[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-n // s)
            total = max(0, (o - 1) * s + e - n)
            b = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        elif auto_pad == "VALID":
            o, b = (n - e) // s + 1, 0
        else:
            pb, pe = (pads[i], pads[i + r]) if pads else (0, 0)
            span = n + pb + pe - e
            if ceil_mode:
                o = -(-span // s) + 1
                if (o - 1) * s >= n + pb:  # a window may not start in the right padding
                    o -= 1
            else:
                o = span // s + 1
            b = pb
        out.append(o)
        begin.append(b)
    return out, begin, strides, dilations


def maxpool(x, kernel, strides=None, pads=None, dilations=None, ceil_mode=0, auto_pad="NOTSET", storage_order=0):
    """(y, indices): the first maximum in row-major tap order wins; a NaN wins over numbers and the first
    NaN stays (the library's documented NaN rule); padding never wins."""
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    out, begin, strides, dilations = maxpool_geometry(spatial, kernel, strides, pads, dilations, ceil_mode,
                                                      auto_pad)
    plane = math.prod(spatial)
    flat = x.reshape(n * c, plane).astype(np.float64) if x.dtype.kind == "V" or x.dtype == np.float16 \
        else x.reshape(n * c, plane)
    col_mult = [math.prod(spatial[:i]) for i in range(len(spatial))]
    y = np.empty((n * c, math.prod(out)), flat.dtype)
    idx = np.empty((n * c, math.prod(out)), np.int64)
    for k, o in enumerate(itertools.product(*map(range, out))):
        best = best_i = None
        for tap in itertools.product(*map(range, kernel)):
            pos = [o[i] * strides[i] - begin[i] + tap[i] * dilations[i] for i in range(len(spatial))]
            if any(p < 0 or p >= spatial[i] for i, p in enumerate(pos)):
                continue
            offset = int(np.ravel_multi_index(pos, spatial))
            where = offset if storage_order == 0 else sum(p * m for p, m in zip(pos, col_mult))
            v = flat[:, offset]
            if best is None:
                best, best_i = v.copy(), np.full(n * c, where, np.int64)
                continue
            if flat.dtype.kind == "f":
                take = (v > best) | (np.isnan(v) & ~np.isnan(best))
                take &= ~np.isnan(best)
            else:
                take = v > best
            best = np.where(take, v, best)
            best_i = np.where(take, where, best_i)
        assert best is not None, "a window without a valid tap"
        y[:, k] = best
        idx[:, k] = best_i
    idx += (np.arange(n * c, dtype=np.int64) * plane)[:, None]
    shape = (n, c, *out)
    return y.astype(x.dtype).reshape(shape), idx.reshape(shape)


def sum_pool(x, kernel, lp=False, p=2.0, count_include_pad=0, strides=None, pads=None, dilations=None,
             ceil_mode=0, auto_pad="NOTSET"):
    """AveragePool (lp false) or LpPool in float64: over each window's taps inside the input, the sum of x
    divided by their count (or, with count_include_pad, by the count of taps inside [-pad_begin, n + pad_end)
    per axis), or (sum |x|^p)^(1/p). IEEE NaN/inf; a window with no tap inside the input gives 0/0 = NaN
    (AveragePool; 0 with count_include_pad, whose count is never 0 there) or 0 (LpPool)."""
    spatial = list(x.shape[2:])
    r = len(spatial)
    out, begin, strides, dilations = maxpool_geometry(spatial, kernel, strides, pads, dilations, ceil_mode,
                                                      auto_pad)
    end = []
    for i in range(r):
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            eff = (kernel[i] - 1) * dilations[i] + 1
            end.append(max(0, (out[i] - 1) * strides[i] + eff - spatial[i]) - begin[i])
        else:
            end.append(pads[i + r] if pads and auto_pad == "NOTSET" else 0)
    n, c = x.shape[0], x.shape[1]
    flat = x.reshape(n * c, math.prod(spatial)).astype(np.float64)
    y = np.empty((n * c, math.prod(out)), np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for k, o in enumerate(itertools.product(*map(range, out))):
            total, count = np.zeros(n * c), 1
            for i in range(r):
                taps = [o[i] * strides[i] - begin[i] + j * dilations[i] for j in range(kernel[i])]
                lo = -begin[i] if count_include_pad else 0
                hi = spatial[i] + end[i] if count_include_pad else spatial[i]
                count *= sum(lo <= t < hi for t in taps)
            for tap in itertools.product(*map(range, kernel)):
                pos = [o[i] * strides[i] - begin[i] + tap[i] * dilations[i] for i in range(r)]
                if any(q < 0 or q >= spatial[i] for i, q in enumerate(pos)):
                    continue
                v = flat[:, int(np.ravel_multi_index(pos, spatial))]
                total = total + (np.abs(v) ** p if lp else v)
            y[:, k] = total ** (1.0 / p) if lp else total / count
    return y.reshape((n, c, *out))


def global_pool(x, which, p=2.0):
    """Global max / average / Lp over every axis after the first two, computed in float64."""
    axes = tuple(range(2, x.ndim))
    v = x.astype(np.float64)
    if which == "max":
        r = v.max(axis=axes, keepdims=True)
    elif which == "average":
        r = v.mean(axis=axes, keepdims=True)
    else:
        r = (np.abs(v) ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)
    return r


def elementwise_max(*inputs):
    """numpy.maximum folded left to right (NaN propagates; on ties the earlier input wins)."""
    if inputs[0].dtype.itemsize == 2 and inputs[0].dtype.kind not in "iu":  # float16, bfloat16: exact in float64
        return functools.reduce(np.maximum, [a.astype(np.float64) for a in inputs]).astype(inputs[0].dtype)
    return functools.reduce(np.maximum, inputs)


def unpool_inferred_shape(x_shape, kernel, strides=None, pads=None):
    """MaxUnpool's output shape from its attributes: N x C x ((X_i - 1) * strides_i + kernel_i - pads)."""
    r = len(kernel)
    strides = list(strides or [1] * r)
    pads = list(pads or [0] * 2 * r)
    return tuple(x_shape[:2]) + tuple((x_shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[r + i]
                                      for i in range(r))


def max_unpool(x, indices, kernel, strides=None, pads=None, output_shape=None, indices_of="inferred"):
    """(y, skipped): the output zero-filled and each x element copied (bits unchanged) to its index. An index
    counts positions in its own (n, c) plane of the inferred shape (indices_of "inferred": the element lands
    at the same coordinates of the output, dropped where they lie outside it) or of the output's shape
    ("output"); skipped counts those dropped: outside their plane, or (inferred) outside the output. Where
    indices repeat, the library keeps any one of their values: the tests give such elements equal values."""
    inferred = unpool_inferred_shape(x.shape, kernel, strides, pads)
    out = tuple(output_shape) if output_shape is not None else inferred
    space = inferred[2:] if indices_of == "inferred" else out[2:]
    planes = x.shape[0] * x.shape[1]
    plane_size = math.prod(space)
    y = np.zeros((planes, math.prod(out[2:])), x.dtype)
    if planes == 0:
        return y.reshape(out), 0
    per_plane = x.size // planes
    xs = x.reshape(planes, per_plane)
    plane_of = np.repeat(np.arange(planes, dtype=np.int64), per_plane).reshape(planes, per_plane)
    idx, base = indices.reshape(planes, per_plane), plane_of * plane_size
    ok = (idx >= base) & (idx < base + plane_size)  # compared before subtracting: no int64 wrap-around
    coords = np.unravel_index(np.where(ok, idx - base, 0), space)
    for c, limit in zip(coords, out[2:]):
        ok &= c < limit
    at = np.ravel_multi_index(tuple(c[ok] for c in coords), out[2:])
    y[plane_of[ok], at] = xs[ok]
    return y.reshape(out), int(ok.size - np.count_nonzero(ok))
