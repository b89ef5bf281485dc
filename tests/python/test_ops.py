"""Every op and dtype against the numpy references on random cases (fixed seeds), through numpy arrays and
through pyopencl arrays that sit at a byte offset inside a larger buffer."""
import os

import numpy as np
import pytest

import clpool
from clpool import _lib
import reference
from conftest import FLOAT_DTYPES, MAX_DTYPES, MAXPOOL_DTYPES, dtype_params, expect_fp64_unsupported, np_dtype

CASES = 6
TOLERANCE = {"float32": 2e-6, "float64": 1e-13, "float16": 1e-3, "bfloat16": 8e-3}


def random_data(rng, shape, dtype, nan=False, ties=False):
    """Values of `dtype`: integers over the whole range, floats normal (optionally coarse to force ties,
    with a NaN planted, with +-inf); bfloat16 and float16 via float32."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    v = rng.standard_normal(shape).astype(np.float32) * 4
    if ties:
        v = np.round(v)
    if nan and v.size:
        v.flat[rng.integers(v.size)] = np.nan
    return v.astype(dtype)


def assert_same(got, want, msg=""):
    """Equal values, NaN equal to NaN (bfloat16 compared through float64, where numpy sees its NaNs)."""
    assert got.dtype == want.dtype and got.shape == want.shape, msg
    if got.dtype.kind == "V":
        got, want = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(got, want, err_msg=msg)


def to_device(queue, x, rng):
    """A pyopencl array holding x at a random element offset inside a larger array (a slice view)."""
    import pyopencl.array as cla
    before, after = int(rng.integers(1, 9)), int(rng.integers(0, 9))
    host = np.zeros(before + x.size + after, x.dtype)
    host[before:before + x.size] = x.ravel()
    big = cla.to_device(queue, host)
    view = big[before:before + x.size].reshape(x.shape)
    assert view.offset == before * x.dtype.itemsize
    return view


# MaxPool's windows (kernel, strides) by rank, two each: its kernels are built per window, so the random
# cases share these few.
MAX_WINDOWS = {1: (((3,), (2,)), ((2,), (1,))), 2: (((3, 3), (2, 2)), ((2, 3), (1, 2))),
               3: (((2, 2, 2), (2, 2, 2)), ((3, 1, 2), (1, 2, 1)))}


def maxpool_cases(seed, count):
    """Random MaxPool cases (rank 1-3, windows from MAX_WINDOWS, dilations, pads, ceil mode, auto_pad, storage
    order) that the library's shape inference accepts."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        r = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 9)) for _ in range(r)]
        kernel, strides = (list(v) for v in MAX_WINDOWS[r][len(cases) % 2])
        attrs = dict(strides=strides,
                     dilations=[int(rng.integers(1, 3)) for _ in range(r)],
                     ceil_mode=int(rng.integers(0, 2)),
                     auto_pad=str(rng.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])),
                     storage_order=int(rng.integers(0, 2)))
        if attrs["auto_pad"] == "NOTSET":
            attrs["pads"] = [int(rng.integers(0, k)) for k in kernel * 2]
        try:
            clpool.max_pool(np.zeros([0] + shape[1:], np.float32), kernel, **attrs)
        except (clpool.InvalidArgumentError, clpool.InvalidShapeError):
            continue  # e.g. a window with no valid tap: the bad-input tests cover those
        cases.append((shape, kernel, attrs, bool(rng.integers(0, 2))))
    return cases


@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype_name", dtype_params(MAXPOOL_DTYPES))
def test_max_pool(dtype_name, on_device, device, request):
    dtype = np_dtype(dtype_name)
    queue = request.getfixturevalue("queue") if on_device else None
    rng = np.random.default_rng(100 + MAXPOOL_DTYPES.index(dtype_name))
    offsets = np.random.default_rng(1)  # apart from rng: both variants run the same cases
    for i, (shape, kernel, attrs, indices) in enumerate(maxpool_cases(7, CASES)):
        x = random_data(rng, shape, dtype, nan=i % 3 == 1, ties=i % 2 == 0)
        want_y, want_i = reference.maxpool(x, kernel, **attrs)
        arg = to_device(queue, x, offsets) if on_device else x
        if expect_fp64_unsupported(dtype, device, lambda: clpool.max_pool(arg, kernel, **attrs)):
            return
        got = clpool.max_pool(arg, kernel, return_indices=indices, **attrs)
        got_y, got_i = got if indices else (got, None)
        if on_device:
            assert got_y.queue is queue and len(got_y.events) == 1
            got_y, got_i = got_y.get(), got_i.get() if indices else None
        assert got_y.dtype == dtype
        assert_same(got_y, want_y, f"case {i}: {shape} {kernel} {attrs}")
        if indices:
            assert got_i.dtype == np.int64
            np.testing.assert_array_equal(got_i, want_i, err_msg=f"case {i}: {shape} {kernel} {attrs}")


@pytest.mark.parametrize("which", ["max", "average", "lp"])
@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype_name", dtype_params(FLOAT_DTYPES))
def test_global_pools(dtype_name, on_device, which, device, request):
    dtype = np_dtype(dtype_name)
    queue = request.getfixturevalue("queue") if on_device else None
    rng = np.random.default_rng(200 + FLOAT_DTYPES.index(dtype_name))
    offsets = np.random.default_rng(1)  # apart from rng: both variants run the same cases
    for i in range(CASES):
        shape = [int(rng.integers(1, 4)), int(rng.integers(1, 5))] + \
                [int(rng.integers(1, 12)) for _ in range(int(rng.integers(1, 4)))]
        x = random_data(rng, shape, dtype, nan=which == "max" and i == 3)
        p = [1, 2, 3, 0.5, 2.5, 2][i]
        call = {"max": clpool.global_max_pool, "average": clpool.global_average_pool,
                "lp": lambda a: clpool.global_lp_pool(a, p=p)}[which]
        arg = to_device(queue, x, offsets) if on_device else x
        if expect_fp64_unsupported(dtype, device, lambda: call(arg)):
            return
        got = call(arg)
        got = got.get() if on_device else got
        assert got.dtype == dtype and got.shape == tuple(shape[:2]) + (1,) * (len(shape) - 2)
        want = reference.global_pool(x, which, p)
        if which == "max":
            assert_same(got, want.astype(dtype))
        else:
            # The result is rounded once to the dtype (it may overflow float16 to inf, as it should).
            with np.errstate(over="ignore"):
                want = want.astype(dtype).astype(np.float64)
            np.testing.assert_allclose(got.astype(np.float64), want, rtol=TOLERANCE[dtype_name], atol=0,
                                       err_msg=f"case {i}: {shape} p={p}")


# The 2-D and 3-D windows of sum_pool_cases (kernel, strides but the last): the row kernels are built per
# window, so every dtype and op takes the one of its rank, as tests/test_sum_pool.c's float32 cases do.
SUM_WINDOWS = {2: ((3, 2), (2,)), 3: ((2, 3, 3), (1, 1))}


def sum_pool_cases(seed, count, lp):
    """Random AveragePool or LpPool cases that the library's shape inference accepts. Every 6 cases take in
    turn auto_pad NOTSET, SAME_UPPER, NOTSET, SAME_LOWER, NOTSET, VALID, count_include_pad 0, 0, 1, 1, 0, 0
    or p 1, 2, 3, 1.5, 1, 2, and rank 1, 2, 3, 1, 2, 3 (LpPool: 1, 2, 3, 1, 1, 2) with the last axis' stride
    2, 1, 1 by rank, 2-D and 3-D windows from SUM_WINDOWS: few programs (dtype, rank, last stride, op, p) to
    build. Random: the shapes, 1-D kernels, dilations, ceil mode, pads up to the kernel (so that some windows
    lie wholly in the padding)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        j = len(cases) % 6
        r = ([1, 2, 3, 1, 1, 2] if lp else [1, 2, 3, 1, 2, 3])[j]
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 9)) for _ in range(r)]
        kernel = [int(rng.integers(1, 4)) for _ in range(r)] if r == 1 else list(SUM_WINDOWS[r][0])
        attrs = dict(strides=(list(SUM_WINDOWS[r][1]) if r > 1 else []) + [[2, 1, 1][r - 1]],
                     dilations=[int(rng.integers(1, 3)) for _ in range(r)],
                     ceil_mode=int(rng.integers(0, 2)),
                     auto_pad=["NOTSET", "SAME_UPPER", "NOTSET", "SAME_LOWER", "NOTSET", "VALID"][j])
        if attrs["auto_pad"] == "NOTSET":
            attrs["pads"] = [int(rng.integers(0, k + 1)) for k in kernel * 2]
        if lp:
            attrs["p"] = [1, 2, 3, 1.5, 1, 2][j]
        else:
            attrs["count_include_pad"] = j // 2 % 2
        call = clpool.lp_pool if lp else clpool.average_pool
        try:
            call(np.zeros([0] + shape[1:], np.float32), kernel, **attrs)
        except clpool.InvalidShapeError:
            continue  # e.g. padded input smaller than the window: the bad-input tests cover those
        cases.append((shape, kernel, attrs))
    return cases


def assert_close(got, want, dtype_name, lp, msg):
    """got (of the dtype) against the float64 reference rounded once to the dtype: NaN where it has NaN,
    else within TOLERANCE relative to |want| (AveragePool: to at least 8, the scale of cancellation of
    values |x| ~ 4)."""
    dtype = np_dtype(dtype_name)
    assert got.dtype == dtype and got.shape == want.shape, msg
    with np.errstate(over="ignore"):
        want = want.astype(dtype).astype(np.float64)
    got = got.astype(np.float64)
    scale = np.abs(want) if lp else np.maximum(np.abs(want), 8.0)
    with np.errstate(invalid="ignore"):
        ok = np.isnan(want) & np.isnan(got) | (want == got) | (np.abs(got - want) <= TOLERANCE[dtype_name] * scale)
    assert ok.all(), f"{msg}: got {got[~ok][:4]}, want {want[~ok][:4]}"


@pytest.mark.parametrize("lp", [False, True], ids=["average_pool", "lp_pool"])
@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype_name", dtype_params(FLOAT_DTYPES))
def test_sum_pools(dtype_name, on_device, lp, device, request):
    dtype = np_dtype(dtype_name)
    queue = request.getfixturevalue("queue") if on_device else None
    rng = np.random.default_rng(300 + FLOAT_DTYPES.index(dtype_name))
    offsets = np.random.default_rng(1)  # apart from rng: both variants run the same cases
    call = clpool.lp_pool if lp else clpool.average_pool
    for i, (shape, kernel, attrs) in enumerate(sum_pool_cases(9 + lp, CASES, lp)):
        x = random_data(rng, shape, dtype, nan=i == 3)
        arg = to_device(queue, x, offsets) if on_device else x
        if expect_fp64_unsupported(dtype, device, lambda: call(arg, kernel, **attrs)):
            return
        got = call(arg, kernel, **attrs)
        if on_device:
            assert got.queue is queue and len(got.events) == 1
            got = got.get()
        assert_close(got, reference.sum_pool(x, kernel, lp=lp, **attrs), dtype_name, lp,
                     f"case {i}: {shape} {kernel} {attrs}")


def test_params_structs_have_the_c_layout():
    """The ctypes structs as the C init functions see them: their sizes, and the defaults init writes read
    back from every field (the window nested at its offset, p and count_include_pad after it)."""
    import ctypes
    from clpool import _lib
    kernel = (ctypes.c_int64 * 3)(2, 3, 4)
    for struct, init in [(_lib.WindowParams, "window"), (_lib.MaxPoolParams, "maxpool"),
                         (_lib.MaxUnpoolParams, "max_unpool"), (_lib.AveragePoolParams, "average_pool"),
                         (_lib.LpPoolParams, "lp_pool")]:
        params = struct()
        _lib.check(getattr(_lib.lib, f"clpool_{init}_params_init")(ctypes.byref(params), 3, kernel))
        assert params.struct_size == ctypes.sizeof(struct)
        window = getattr(params, "window", params)
        assert window.struct_size == ctypes.sizeof(_lib.WindowParams if window is not params else struct)
        assert window.spatial_rank == 3 and list(window.kernel_shape[:4]) == [2, 3, 4, 0]
        assert list(window.strides[:3]) == list(window.dilations[:3]) == [1, 1, 1]
        assert list(window.pads) == [0] * 20 and window.ceil_mode == window.auto_pad == 0
        if struct is _lib.MaxUnpoolParams:
            assert params.has_output_shape == params.output_shape.rank == params.indices == 0
            unpool = params
    assert params.p == 2.0
    # MaxUnpool's fields after the window, each seen by the C checks at its offset.
    x_shape, out = _lib.shape_of((1, 1, 2, 2, 2)), _lib.Shape()
    unpool.indices = 2
    with pytest.raises(clpool.InvalidArgumentError, match="indices = 2 is not a clpool_unpool_indices value"):
        _lib.check(_lib.lib.clpool_max_unpool_output_shape(ctypes.byref(x_shape), ctypes.byref(unpool),
                                                           ctypes.byref(out)))
    unpool.indices, unpool.has_output_shape, unpool.output_shape = 1, 1, _lib.shape_of((1, 1, 5, 6, 7))
    _lib.check(_lib.lib.clpool_max_unpool_output_shape(ctypes.byref(x_shape), ctypes.byref(unpool),
                                                       ctypes.byref(out)))
    assert _lib.dims_of(out) == (1, 1, 5, 6, 7)


# Hand-computed values of the corners of the semantics on x = 1, 2, ..., n (1-D, stride 2 and p 1 or 1.5: the
# programs sum_pool_cases builds for rank 1): (op, n, kernel, attrs, y).
SUM_POOL_BY_HAND = [
    # ceil_mode's last window {5, 6, 7} overruns the end pad (6): count_include_pad counts 5 and 6 only.
    ("average", 6, [3], dict(pads=[1, 1], ceil_mode=1), [1.5, 3, 5, 6]),
    ("average", 6, [3], dict(pads=[1, 1], ceil_mode=1, count_include_pad=1), [1, 3, 5, 3]),
    # A window wholly in the begin pad: NaN, 0 with count_include_pad, 0 for LpPool.
    ("average", 2, [2], dict(pads=[2, 0]), [np.nan, 1.5]),
    ("average", 2, [2], dict(pads=[2, 0], count_include_pad=1), [0, 1.5]),
    ("lp", 2, [2], dict(pads=[2, 0], p=1), [0, 3]),
    # SAME's pads (total 1: at the end for SAME_UPPER, at the begin for SAME_LOWER) count as pads.
    ("average", 5, [2], dict(auto_pad="SAME_UPPER"), [1.5, 3.5, 5]),
    ("average", 5, [2], dict(auto_pad="SAME_UPPER", count_include_pad=1), [1.5, 3.5, 2.5]),
    ("average", 5, [2], dict(auto_pad="SAME_LOWER"), [1, 2.5, 4.5]),
    ("average", 5, [2], dict(auto_pad="SAME_LOWER", count_include_pad=1), [0.5, 2.5, 4.5]),
    # Dilation 3: taps {0, 3} and {2, 5}.
    ("average", 6, [2], dict(dilations=[3], auto_pad="VALID"), [2.5, 4.5]),
    ("lp", 6, [2], dict(dilations=[3], auto_pad="VALID", p=1), [5, 9]),
    ("lp", 4, [2], dict(p=1.5), [(1 + 8 ** 0.5) ** (1 / 1.5), (27 ** 0.5 + 8) ** (1 / 1.5)]),
]


@pytest.mark.parametrize("op, n, kernel, attrs, y", SUM_POOL_BY_HAND,
                         ids=[f"{c[0]}{i}" for i, c in enumerate(SUM_POOL_BY_HAND)])
def test_sum_pool_by_hand(op, n, kernel, attrs, y):
    """The library (float32) and the numpy reference against hand-computed values."""
    x = np.arange(1, n + 1, dtype=np.float32).reshape(1, 1, n)
    call = clpool.lp_pool if op == "lp" else clpool.average_pool
    want = np.array(y, np.float64).reshape(1, 1, -1)
    attrs = dict(attrs, strides=[2])
    np.testing.assert_allclose(reference.sum_pool(x, kernel, lp=op == "lp", **attrs), want, rtol=1e-15)
    got = call(x, kernel, **attrs)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


def onnx_case(shape, kernel, attrs, lp):
    """The attributes of a case made comparable with onnx.reference, or None. onnx.reference 1.23 agreed
    with the numpy reference on every one of 1,500 random float32 cases so made, NaN-free (it drops NaN
    taps, and its empty mean is its own): auto_pad SAME/VALID in floor mode without dilation (its sizes
    and pads ignore both), SAME only where the total padding is >= 0 (it crops where the library pads 0),
    ceil_mode only where it adds no window (it shifts the windows by half the extra padding), and LpPool
    (integer p) with no padding at all (some versions scale the mean of the taps inside by the kernel's
    size): its pads dropped, SAME made VALID."""
    spatial, r = shape[2:], len(kernel)
    attrs = dict(attrs)
    if lp:
        if not float(attrs["p"]).is_integer():
            return None  # LpPool-18 and later take an integer p
        attrs.pop("pads", None)
        if attrs["auto_pad"] != "NOTSET":
            attrs["auto_pad"] = "VALID"
    auto_pad, strides = attrs["auto_pad"], attrs["strides"]
    if auto_pad != "NOTSET":
        attrs.update(ceil_mode=0, dilations=[1] * r)
    if auto_pad.startswith("SAME") and any((-(-n // s) - 1) * s + k < n
                                           for n, s, k in zip(spatial, strides, kernel)):
        return None
    try:
        floor = reference.maxpool_geometry(spatial, kernel, strides, attrs.get("pads"), attrs["dilations"], 0,
                                           auto_pad)[0]
        (clpool.lp_pool if lp else clpool.average_pool)(np.zeros([0] + shape[1:], np.float32), kernel, **attrs)
    except clpool.InvalidShapeError:
        return None  # no pads left for a kernel larger than the input
    if attrs["ceil_mode"] and floor != reference.maxpool_geometry(spatial, kernel, strides, attrs.get("pads"),
                                                                  attrs["dilations"], 1, auto_pad)[0]:
        return None
    return attrs


@pytest.mark.parametrize("lp", [False, True], ids=["average_pool", "lp_pool"])
def test_sum_pools_match_onnx_reference(lp):
    """float32 cases made comparable (onnx_case) against onnx.reference at opset 22, the numpy reference
    too."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
    op, compared = "LpPool" if lp else "AveragePool", 0
    for i, (shape, kernel, attrs) in enumerate(sum_pool_cases(40 + lp, 12, lp)):
        attrs = onnx_case(shape, kernel, attrs, lp)
        if attrs is None:
            continue
        x = np.random.default_rng(i).standard_normal(shape).astype(np.float32)
        with np.errstate(invalid="ignore"):
            mine = reference.sum_pool(x, kernel, lp=lp, **attrs)
        if np.isnan(mine).any():
            continue
        node_attrs = {k: v for k, v in attrs.items() if not (k == "auto_pad" and v == "NOTSET")}
        if lp:
            node_attrs["p"] = int(attrs["p"])
        node = helper.make_node(op, ["x"], ["y"], kernel_shape=kernel, **node_attrs)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        want = ReferenceEvaluator(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])).run(
            None, {"x": x})[0]
        msg = f"case {i}: {shape} {kernel} {attrs}"
        np.testing.assert_allclose(mine, want, rtol=1e-5, atol=1e-6, err_msg=msg)  # the references agree
        got = (clpool.lp_pool if lp else clpool.average_pool)(x, kernel, **attrs)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=msg)
        compared += 1
    assert compared >= 5, f"only {compared} cases compared"


@pytest.mark.parametrize("lp", [False, True], ids=["average_pool", "lp_pool"])
def test_sum_pools_match_onnxruntime(lp):
    """float32 random cases against ONNX Runtime's CPU kernels (opset 19 AveragePool, 18 LpPool): every
    attribute but ceil_mode (ORT 1.32 sizes ceil_mode windows past the end pad its own way) and SAME with
    dilation (ORT's output is smaller than the spec's ceil(in / stride)), no NaN, and an integer p; empty
    windows skipped (ORT divides by a count it clamps)."""
    ort = pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper
    op, compared = "LpPool" if lp else "AveragePool", 0
    for i, (shape, kernel, attrs) in enumerate(sum_pool_cases(60 + lp, 24, lp)):
        attrs = dict(attrs, ceil_mode=0)
        if lp and not float(attrs["p"]).is_integer():
            continue
        if attrs["auto_pad"].startswith("SAME") and max(attrs["dilations"]) > 1:
            continue
        x = np.random.default_rng(i).standard_normal(shape).astype(np.float32)
        with np.errstate(invalid="ignore"):
            mine = reference.sum_pool(x, kernel, lp=lp, **attrs)
        if np.isnan(mine).any() or (lp and (mine == 0).any()):
            continue
        node_attrs = {k: v for k, v in attrs.items() if not (k == "auto_pad" and v == "NOTSET")}
        if lp:
            node_attrs["p"] = int(attrs["p"])
        node = helper.make_node(op, ["x"], ["y"], kernel_shape=kernel, **node_attrs)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18 if lp else 19)], ir_version=8)
        try:
            loaded = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception:  # an attribute set ORT's kernel refuses (it checks more than the spec)
            continue
        want = loaded.run(None, {"x": x})[0]
        got = (clpool.lp_pool if lp else clpool.average_pool)(x, kernel, **attrs)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"case {i}: {shape} {kernel} {attrs}")
        compared += 1
    assert compared >= 5, f"only {compared} cases compared"


def max_unpool_cases(seed, count):
    """Random MaxUnpool cases (x shape, kernel, attrs): rank 1, 2, 3 in turn, indices_of "inferred" and
    "output" in turn, and by pairs no output_shape, one at least the inferred shape along every axis, one
    smaller along some axis (as a 6-cycle: every form with both readings). Random: the shapes, kernels,
    strides and pads (up to kernel - 1, so that the inferred shape may fall below 1: redrawn)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        j = len(cases)
        r = j % 3 + 1
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 5)) for _ in range(r)]
        kernel = [int(rng.integers(1, 4)) for _ in range(r)]
        attrs = dict(strides=[int(rng.integers(1, 4)) for _ in range(r)],
                     pads=[int(rng.integers(0, k)) for k in kernel * 2], indices_of=["inferred", "output"][j % 2])
        inferred = reference.unpool_inferred_shape(shape, kernel, attrs["strides"], attrs["pads"])
        if min(inferred[2:]) < 1:
            continue
        form = j // 2 % 3
        if form == 1:
            attrs["output_shape"] = list(inferred[:2]) + [d + int(rng.integers(0, 3)) for d in inferred[2:]]
        elif form == 2:
            if max(inferred[2:]) == 1:
                continue  # nothing to shrink
            out = [max(1, d + int(rng.integers(-2, 3))) for d in inferred[2:]]
            axis = int(rng.choice([i for i, d in enumerate(inferred[2:]) if d > 1]))
            out[axis] = int(rng.integers(1, inferred[2 + axis]))
            attrs["output_shape"] = list(inferred[:2]) + out
        cases.append((shape, kernel, attrs))
    return cases


def unpool_data(rng, x, kernel, attrs, bad=0):
    """(x, indices) for a MaxUnpool case: each index at a random position of its own (n, c) plane of the
    index space whose element lands inside the output (distinct while the plane has room), elements that
    share an index made equal (the library keeps any one of them), and then `bad` indices replaced by ones
    outside their plane (neighbouring planes, far, the int64 extremes)."""
    inferred = reference.unpool_inferred_shape(x.shape, kernel, attrs.get("strides"), attrs.get("pads"))
    out = attrs.get("output_shape") or inferred
    space = inferred[2:] if attrs.get("indices_of", "inferred") == "inferred" else out[2:]
    grid = np.indices(space).reshape(len(space), -1)
    valid = np.flatnonzero(np.all(grid < np.array(out[2:])[:, None], axis=0))
    planes, per_plane, plane_size = x.shape[0] * x.shape[1], x.size // (x.shape[0] * x.shape[1]), grid.shape[1]
    rows = [rng.choice(valid, per_plane, replace=per_plane > valid.size) for _ in range(planes)]
    idx = (np.array(rows, np.int64) + np.arange(planes, dtype=np.int64)[:, None] * plane_size).ravel()
    for e in rng.choice(idx.size, bad, replace=False):
        base = e // per_plane * plane_size
        idx[e] = [base - 1, base - plane_size, base + plane_size, base + plane_size + int(rng.integers(0, 9)),
                  base + 10 ** 12, np.iinfo(np.int64).min, np.iinfo(np.int64).max][int(rng.integers(0, 7))]
    _, first, inverse = np.unique(idx, return_index=True, return_inverse=True)
    return x.ravel()[first[inverse.ravel()]].reshape(x.shape), idx.reshape(x.shape)


def assert_bits(got, want, msg=""):
    """The same dtype, shape and bits (NaN payloads and -0.0 included)."""
    assert got.dtype == want.dtype and got.shape == want.shape, msg
    as_bits = f"u{got.dtype.itemsize}"
    np.testing.assert_array_equal(got.view(as_bits), want.view(as_bits), err_msg=msg)


@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype_name", dtype_params(MAXPOOL_DTYPES))
def test_max_unpool(dtype_name, on_device, device, request):
    """Bit-exact against the numpy reference, output_shape absent, larger and smaller, both readings; the
    device variant with and without a skipped counter (which must stay 0)."""
    dtype = np_dtype(dtype_name)
    queue = request.getfixturevalue("queue") if on_device else None
    rng = np.random.default_rng(400 + MAXPOOL_DTYPES.index(dtype_name))
    offsets = np.random.default_rng(1)  # apart from rng: both variants run the same cases
    for i, (shape, kernel, attrs) in enumerate(max_unpool_cases(13, CASES)):
        x = random_data(rng, shape, dtype, nan=i % 3 == 1)
        if dtype.kind not in "iu":
            x.flat[-1] = np.float32(-0.0)  # a sign bit that a copy through float arithmetic might lose
        x, idx = unpool_data(rng, x, kernel, attrs)
        want, skipped = reference.max_unpool(x, idx, kernel, **attrs)
        assert skipped == 0
        msg = f"case {i}: {shape} {kernel} {attrs}"
        args = (to_device(queue, x, offsets), to_device(queue, idx, offsets)) if on_device else (x, idx)
        if expect_fp64_unsupported(dtype, device, lambda: clpool.max_unpool(*args, kernel, **attrs)):
            return
        if on_device:
            import pyopencl.array as cla
            counter = cla.zeros(queue, 1, np.uint32) if i % 2 else None
            got = clpool.max_unpool(*args, kernel, skipped=counter, **attrs)
            assert got.queue is queue and len(got.events) == 1
            if counter is not None:
                assert counter.get()[0] == 0, msg
            got = got.get()
        else:
            got = clpool.max_unpool(*args, kernel, **attrs)
        assert_bits(got, want, msg)


@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
def test_max_unpool_bad_indices(on_device, request):
    """Indices outside their plane (and, "inferred", positions outside a smaller output): numpy inputs raise
    with their count and return nothing; device inputs skip them, adding the count to skipped= (saturating)
    or skipping silently without it."""
    queue = request.getfixturevalue("queue") if on_device else None
    rng = np.random.default_rng(17)
    for i, (shape, kernel, attrs) in enumerate(max_unpool_cases(19, CASES)):
        x = random_data(rng, shape, np.dtype(np.float32))
        x, idx = unpool_data(rng, x, kernel, attrs, bad=min(x.size, 1 + i % 3))
        want, skipped = reference.max_unpool(x, idx, kernel, **attrs)
        msg = f"case {i}: {shape} {kernel} {attrs}"
        assert skipped == min(x.size, 1 + i % 3), msg
        if not on_device:
            what = "1 index lies outside its" if skipped == 1 else f"{skipped} indices lie outside their"
            with pytest.raises(clpool.InvalidArgumentError, match=rf"^{what} \(n, c\) plane of the output$"):
                clpool.max_unpool(x, idx, kernel, **attrs)
            continue
        import pyopencl.array as cla
        args = cla.to_device(queue, x), cla.to_device(queue, idx)
        counter = cla.to_device(queue, np.array([5], np.uint32))
        got = clpool.max_unpool(*args, kernel, skipped=counter, **attrs)
        assert len(counter.events) >= 1 and counter.events[-1].int_ptr == got.events[0].int_ptr
        assert_bits(got.get(), want, msg)
        assert counter.get()[0] == 5 + skipped, msg
        assert_bits(clpool.max_unpool(*args, kernel, **attrs).get(), want, msg)
    # output_shape (3, 2) under the inferred (2, 4): index 2 is (0, 2) there, outside the output, and (1, 0)
    # in the output's own plane; index 5 is (1, 1) there and (2, 1) in the output's plane.
    x, idx = np.array([[[[1, 2]]]], np.float32), np.array([[[[2, 5]]]], np.int64)
    attrs = dict(strides=[2, 2], output_shape=[1, 1, 3, 2])
    if not on_device:
        with pytest.raises(clpool.InvalidArgumentError, match="^1 index lies outside its"):
            clpool.max_unpool(x, idx, [2, 2], **attrs)
        np.testing.assert_array_equal(clpool.max_unpool(x, idx, [2, 2], indices_of="output", **attrs),
                                      [[[[0, 0], [1, 0], [0, 2]]]])
        return
    import pyopencl.array as cla
    x, idx = cla.to_device(queue, x), cla.to_device(queue, idx)
    counter = cla.to_device(queue, np.array([2 ** 32 - 2], np.uint32))
    np.testing.assert_array_equal(clpool.max_unpool(x, idx, [2, 2], skipped=counter, **attrs).get(),
                                  [[[[0, 0], [0, 2], [0, 0]]]])
    assert counter.get()[0] == 2 ** 32 - 1
    clpool.max_unpool(x, idx, [2, 2], skipped=counter, **attrs)
    assert counter.get()[0] == 2 ** 32 - 1  # saturated
    np.testing.assert_array_equal(clpool.max_unpool(x, idx, [2, 2], indices_of="output", skipped=counter,
                                                    **attrs).get(), [[[[0, 0], [1, 0], [0, 2]]]])


ROUND_TRIPS = [  # (x shape, kernel, MaxPool attrs): x's shape is not MaxUnpool's inferred one
    ((2, 3, 10), [3], dict(strides=[2])),
    ((1, 2, 7, 6), [2, 3], dict(strides=[2, 2], pads=[0, 0, 0, 1], ceil_mode=1)),
    ((1, 2, 5, 4, 6), [2, 2, 3], dict(strides=[2, 1, 2], pads=[0, 1, 1, 0, 0, 1], dilations=[1, 2, 1])),
]


@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
@pytest.mark.parametrize("shape, kernel, attrs", ROUND_TRIPS, ids=["1d", "2d", "3d"])
def test_max_pool_then_max_unpool_is_pytorch_round_trip(shape, kernel, attrs, on_device, request):
    """max_pool's indices unpooled into x's shape, read as "output": PyTorch's max_unpool(max_pool(x)),
    each argmax position holding its input value and every other position 0 (ties and a NaN included)."""
    queue = request.getfixturevalue("queue") if on_device else None
    x = random_data(np.random.default_rng(len(shape)), shape, np.dtype(np.float32), nan=True, ties=True)
    unpool = dict(strides=attrs["strides"], pads=attrs.get("pads"), output_shape=x.shape, indices_of="output")
    if on_device:
        import pyopencl.array as cla
        y, idx = clpool.max_pool(cla.to_device(queue, x), kernel, return_indices=True, **attrs)
        got = clpool.max_unpool(y, idx, kernel, **unpool).get()
        idx = idx.get()
    else:
        y, idx = clpool.max_pool(x, kernel, return_indices=True, **attrs)
        got = clpool.max_unpool(y, idx, kernel, **unpool)
    kept = np.zeros(x.size, bool)
    kept[idx.ravel()] = True
    assert_bits(got, np.where(kept.reshape(x.shape), x, np.float32(0)))
    assert reference.unpool_inferred_shape(shape, kernel, attrs["strides"], attrs.get("pads")) != shape


def unpool_model(attrs, kernel, with_output_shape, opset):
    """A one-node float32 MaxUnpool model: inputs x, i and (with_output_shape) the shape."""
    from onnx import TensorProto, helper
    node_attrs = {k: v for k, v in attrs.items() if k in ("strides", "pads")}
    inputs = ["x", "i"] + (["s"] if with_output_shape else [])
    node = helper.make_node("MaxUnpool", inputs, ["y"], kernel_shape=kernel, **node_attrs)
    types = [TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT64]
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, t, None) for n, t in zip(inputs, types)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def unpool_feed(rng, shape, kernel, attrs):
    x, idx = unpool_data(rng, rng.standard_normal(shape).astype(np.float32), kernel, attrs)
    feed = {"x": x, "i": idx}
    if "output_shape" in attrs:
        feed["s"] = np.array(attrs["output_shape"], np.int64)
    return feed


def comparable_unpool_cases(seed, indices_of):
    """max_unpool_cases with output_shape at least the inferred shape along every axis (onnx.reference and
    ONNX Runtime refuse a smaller one) and the given reading; at least 3 with an output_shape that differs
    from the inferred shape, where the reading matters."""
    cases, differing = [], 0
    for shape, kernel, attrs in max_unpool_cases(seed, 12):
        attrs = dict(attrs, indices_of=indices_of)
        if "output_shape" in attrs:
            inferred = reference.unpool_inferred_shape(shape, kernel, attrs["strides"], attrs["pads"])
            attrs["output_shape"] = [max(a, b) for a, b in zip(attrs["output_shape"], inferred)]
            differing += tuple(attrs["output_shape"]) != inferred
        cases.append((shape, kernel, attrs))
    assert differing >= 3, f"only {differing} cases with another output_shape"
    return cases


def test_max_unpool_matches_onnx_reference():
    """The "inferred" reading against onnx.reference at opset 22 (which places the inferred block at the
    output's origin), the numpy reference too."""
    pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator
    rng = np.random.default_rng(23)
    for i, (shape, kernel, attrs) in enumerate(comparable_unpool_cases(29, "inferred")):
        feed = unpool_feed(rng, shape, kernel, attrs)
        want = ReferenceEvaluator(unpool_model(attrs, kernel, "s" in feed, 22)).run(None, feed)[0]
        msg = f"case {i}: {shape} {kernel} {attrs}"
        assert_bits(reference.max_unpool(feed["x"], feed["i"], kernel, **attrs)[0], want, msg)
        assert_bits(clpool.max_unpool(feed["x"], feed["i"], kernel, **attrs), want, msg)


def test_max_unpool_matches_onnxruntime():
    """The "output" reading against ONNX Runtime's CPU kernel (float32 only there), the numpy reference
    too."""
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")  # the model is built with onnx.helper
    rng = np.random.default_rng(31)
    for i, (shape, kernel, attrs) in enumerate(comparable_unpool_cases(37, "output")):
        feed = unpool_feed(rng, shape, kernel, attrs)
        model = unpool_model(attrs, kernel, "s" in feed, 22)
        loaded = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = loaded.run(None, feed)[0]
        msg = f"case {i}: {shape} {kernel} {attrs}"
        assert_bits(reference.max_unpool(feed["x"], feed["i"], kernel, **attrs)[0], want, msg)
        assert_bits(clpool.max_unpool(feed["x"], feed["i"], kernel, **attrs), want, msg)


def broadcast_shapes(rng, count):
    """`count` shapes that broadcast together: rank 0-4 suffixes of one output shape with some dims 1."""
    out = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(0, 5)))]
    shapes = []
    for _ in range(count):
        rank = int(rng.integers(0, len(out) + 1))
        shapes.append([1 if rng.random() < 0.3 else d for d in out[len(out) - rank:]])
    shapes[int(rng.integers(count))] = out
    return shapes


@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype_name", dtype_params(MAX_DTYPES))
def test_max(dtype_name, on_device, device, request):
    dtype = np_dtype(dtype_name)
    queue = request.getfixturevalue("queue") if on_device else None
    rng = np.random.default_rng(300 + MAX_DTYPES.index(dtype_name))
    offsets = np.random.default_rng(1)  # apart from rng: both variants run the same cases
    for i in range(CASES):
        shapes = broadcast_shapes(rng, [1, 2, 3, 5, 6, 2][i])
        xs = [random_data(rng, s, dtype, nan=i == 2, ties=True) for s in shapes]
        args = [to_device(queue, x, offsets) for x in xs] if on_device else xs
        if expect_fp64_unsupported(dtype, device, lambda: clpool.max(*args)):
            return
        got = clpool.max(*args)
        got = got.get() if on_device else got
        want = reference.elementwise_max(*xs)
        assert got.dtype == dtype and got.shape == want.shape
        assert_same(got, want, f"case {i}: {shapes}")


@pytest.mark.portability
def test_max_zero_size_dim_gives_empty_output(queue):
    import pyopencl.array as cla
    a, b = np.ones((3, 0, 2), np.float32), np.ones((1, 2), np.float32)
    assert clpool.max(a, b).shape == (3, 0, 2)
    got = clpool.max(cla.to_device(queue, a), cla.to_device(queue, b))
    assert got.shape == (3, 0, 2) and len(got.events) == 1
    got.events[0].wait()


def test_non_contiguous_and_byte_swapped_numpy_inputs_are_copied_not_misread():
    rng = np.random.default_rng(5)
    x = random_data(rng, (2, 3, 9, 8), np.dtype(np.float32))
    strided = x[:, :, ::2, 1:]
    np.testing.assert_array_equal(clpool.max_pool(strided, [2, 2]), reference.maxpool(strided, [2, 2])[0])
    transposed = x.transpose(0, 1, 3, 2)
    np.testing.assert_array_equal(clpool.global_max_pool(transposed), reference.global_pool(transposed, "max"))
    swapped = x.astype(">f4")
    got = clpool.max(swapped, x[:, :, :1, :1])
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.maximum(x, x[:, :, :1, :1]))


def test_background_builds(monkeypatch):
    """With tiers on, the first call runs the first tier and the context builds the key's program meanwhile;
    after wait_builds the calls run it, with the same results (MaxPool's tiers are bit-identical)."""
    monkeypatch.setenv("CLPOOL_TIERED", "1")
    x = np.random.default_rng(7).integers(-4, 4, size=(2, 3, 17, 19)).astype(np.float32)
    with clpool.Context() as ctx:
        first = clpool.max_pool(x, [3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ctx=ctx)
        ctx.wait_builds()
        ctx.wait_builds()  # nothing queued: returns at once
        again = clpool.max_pool(x, [3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ctx=ctx)
        np.testing.assert_array_equal(first, again)
        clpool.average_pool(x, [2, 2], ctx=ctx)  # closed with a build queued: the context waits for none


def test_background_builds_run_the_packaged_helper(monkeypatch, tmp_path):
    """The package ships clpool-builder beside its library. On PoCL a background build runs it first (here
    through a wrapper noting its exit status) and the key tiers up; elsewhere no helper starts."""
    helper = os.path.join(os.path.dirname(_lib._library_path()), "clpool-builder")
    assert os.access(helper, os.X_OK), f"{helper} is missing"
    status, wrapper = tmp_path / "status", tmp_path / "builder.sh"
    wrapper.write_text(f'#!/bin/sh\n"{helper}" "$@"; echo $? >> "{status}"\n')
    wrapper.chmod(0o700)
    monkeypatch.setenv("CLPOOL_TIERED", "1")
    monkeypatch.setenv("CLPOOL_BUILDER", str(wrapper))
    x = np.random.default_rng(8).integers(-4, 4, size=(2, 3, 15, 13)).astype(np.float32)
    with clpool.Context() as ctx:
        first = clpool.max_pool(x, [3, 3], strides=[2, 2], ctx=ctx)
        ctx.wait_builds()
        np.testing.assert_array_equal(clpool.max_pool(x, [3, 3], strides=[2, 2], ctx=ctx), first)
        pocl = "Portable Computing Language" in ctx.device.platform
    np.testing.assert_array_equal(first, reference.maxpool(x, [3, 3], strides=[2, 2])[0])
    if pocl:  # one run per key built (the calls' buffers may make two keys); each must have served its build
        runs = status.read_text().split()
        assert runs and set(runs) == {"0"}, runs
    else:
        assert not status.exists()


@pytest.mark.portability
def test_version_and_devices():
    assert clpool.__version__.count(".") == 2
    devices = clpool.devices()
    assert devices and all(d.index == i for i, d in enumerate(devices))
    ctx = clpool.Context(device=0)
    assert ctx.device.name == devices[0].name
    with pytest.raises(clpool.UnsupportedDtypeError, match="dtype complex64 has no clpool equivalent"):
        ctx.warm_up("complex64")
    x = np.arange(2 * 3 * 70 * 70, dtype=np.float32).reshape(2, 3, 70, 70)
    np.testing.assert_array_equal(clpool.global_max_pool(x, ctx=ctx).ravel(), x.reshape(6, -1).max(axis=1))
    ctx.trim()  # frees the scratch a two-pass reduction may have kept; the context stays usable
    np.testing.assert_allclose(clpool.global_average_pool(x, ctx=ctx).ravel(), x.reshape(6, -1).mean(axis=1),
                               rtol=1e-6)
    ctx.close()
    assert "closed" in repr(ctx)
