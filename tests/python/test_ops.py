"""Every op and dtype against the numpy references on random cases (fixed seeds), through numpy arrays and
through pyopencl arrays that sit at a byte offset inside a larger buffer."""
import numpy as np
import pytest

import clpool
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


def maxpool_cases(seed, count):
    """Random MaxPool cases (rank 1-3, strides, dilations, pads, ceil mode, auto_pad, storage order) that the
    library's shape inference accepts."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        r = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 9)) for _ in range(r)]
        kernel = [int(rng.integers(1, 4)) for _ in range(r)]
        attrs = dict(strides=[int(rng.integers(1, 4)) for _ in range(r)],
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


def sum_pool_cases(seed, count, lp):
    """Random AveragePool or LpPool cases that the library's shape inference accepts. Every 6 cases take in
    turn auto_pad NOTSET, SAME_UPPER, NOTSET, SAME_LOWER, NOTSET, VALID, count_include_pad 0, 0, 1, 1, 0, 0
    or p 1, 2, 3, 1.5, 1, 2, and rank 1, 2, 3, 1, 2, 3 (LpPool: 1, 2, 3, 1, 1, 2) with the last axis' stride
    2, 1, 3 by rank: few programs (dtype, rank, last stride, op, p) to build, 3 per dtype for AveragePool, 4
    for LpPool. Random: the shapes, kernels, the other strides, dilations, ceil mode, pads up to the kernel
    (so that some windows lie wholly in the padding)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        j = len(cases) % 6
        r = ([1, 2, 3, 1, 1, 2] if lp else [1, 2, 3, 1, 2, 3])[j]
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 9)) for _ in range(r)]
        kernel = [int(rng.integers(1, 4)) for _ in range(r)]
        attrs = dict(strides=[int(rng.integers(1, 4)) for _ in range(r - 1)] + [[2, 1, 3][r - 1]],
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
                         (_lib.AveragePoolParams, "average_pool"), (_lib.LpPoolParams, "lp_pool")]:
        params = struct()
        _lib.check(getattr(_lib.lib, f"clpool_{init}_params_init")(ctypes.byref(params), 3, kernel))
        assert params.struct_size == ctypes.sizeof(struct)
        window = getattr(params, "window", params)
        assert window.struct_size == ctypes.sizeof(_lib.WindowParams if window is not params else struct)
        assert window.spatial_rank == 3 and list(window.kernel_shape[:4]) == [2, 3, 4, 0]
        assert list(window.strides[:3]) == list(window.dilations[:3]) == [1, 1, 1]
        assert list(window.pads) == [0] * 20 and window.ceil_mode == window.auto_pad == 0
    assert params.p == 2.0


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
            session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception:  # an attribute set ORT's kernel refuses (it checks more than the spec)
            continue
        want = session.run(None, {"x": x})[0]
        got = (clpool.lp_pool if lp else clpool.average_pool)(x, kernel, **attrs)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"case {i}: {shape} {kernel} {attrs}")
        compared += 1
    assert compared >= 5, f"only {compared} cases compared"


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
