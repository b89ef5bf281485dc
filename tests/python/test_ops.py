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
    """Random AveragePool or LpPool cases (rank 1-3, every window attribute, count_include_pad or p), pads up
    to the kernel so that some windows lie wholly in the padding."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        r = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 9)) for _ in range(r)]
        kernel = [int(rng.integers(1, 4)) for _ in range(r)]
        attrs = dict(strides=[int(rng.integers(1, 4)) for _ in range(r)],
                     dilations=[int(rng.integers(1, 3)) for _ in range(r)],
                     ceil_mode=int(rng.integers(0, 2)),
                     auto_pad=str(rng.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])))
        if attrs["auto_pad"] == "NOTSET":
            attrs["pads"] = [int(rng.integers(0, k + 1)) for k in kernel * 2]
        if lp:
            attrs["p"] = [1, 2, 3, 1.5][len(cases) % 4]
        else:
            attrs["count_include_pad"] = int(rng.integers(0, 2))
        call = clpool.lp_pool if lp else clpool.average_pool
        try:
            call(np.zeros([0] + shape[1:], np.float32), kernel, **attrs)
        except clpool.InvalidShapeError:
            continue  # e.g. padded input smaller than the window: the bad-input tests cover those
        cases.append((shape, kernel, attrs))
    return cases


@pytest.mark.parametrize("lp", [False, True], ids=["average_pool", "lp_pool"])
@pytest.mark.parametrize("on_device", [False, True], ids=["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype_name", dtype_params(FLOAT_DTYPES))
def test_sum_pools(dtype_name, on_device, lp, device, request):
    dtype = np_dtype(dtype_name)
    queue = request.getfixturevalue("queue") if on_device else None
    rng = np.random.default_rng(300 + FLOAT_DTYPES.index(dtype_name))
    offsets = np.random.default_rng(1)
    call = clpool.lp_pool if lp else clpool.average_pool
    for i, (shape, kernel, attrs) in enumerate(sum_pool_cases(9 + lp, CASES, lp)):
        x = random_data(rng, shape, dtype, nan=i == 3)
        arg = to_device(queue, x, offsets) if on_device else x
        if expect_fp64_unsupported(dtype, device, lambda: call(arg, kernel, **attrs)):
            return
        got = call(arg, kernel, **attrs)
        got = got.get() if on_device else got
        ref_attrs = dict(attrs)
        want = reference.sum_pool(x, kernel, lp=lp, **ref_attrs)
        assert got.dtype == dtype and got.shape == want.shape
        with np.errstate(over="ignore"):
            want = want.astype(dtype).astype(np.float64)  # rounded once to the dtype
        scale = np.abs(want) if lp else np.maximum(np.abs(want), 8.0)  # |x| ~ 4: cancellation's scale
        got64 = got.astype(np.float64)
        ok = np.isnan(want) & np.isnan(got64) | (want == got64) | (np.abs(got64 - want) <= TOLERANCE[dtype_name] * scale)
        assert ok.all(), f"case {i}: {shape} {kernel} {attrs}: got {got64[~ok][:4]}, want {want[~ok][:4]}"


@pytest.mark.parametrize("op", ["AveragePool", "LpPool"])
def test_sum_pools_match_onnx_reference(op):
    """float32 cases against onnx.reference where their semantics agree: no NaN (it drops NaN taps without
    count_include_pad), floor mode (with ceil_mode it shifts windows by half the extra padding), no
    dilation (its VALID and SAME sizes ignore it), no SAME (its total padding goes negative where the
    library's is 0), and for LpPool no pads (it scales the mean of the taps inside by the kernel's size)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
    for i, (shape, kernel, attrs) in enumerate(sum_pool_cases(40 + (op == "LpPool"), 12, op == "LpPool")):
        attrs = dict(attrs, ceil_mode=0, dilations=[1] * len(kernel))
        if attrs["auto_pad"] in ("SAME_UPPER", "SAME_LOWER"):
            attrs["auto_pad"] = "VALID"
        if op == "LpPool":
            attrs.pop("pads", None)
        x = np.random.default_rng(i).standard_normal(shape).astype(np.float32)
        call = clpool.lp_pool if op == "LpPool" else clpool.average_pool
        try:
            got = call(x, kernel, **attrs)
        except clpool.InvalidShapeError:
            continue
        node_attrs = {k: v for k, v in attrs.items() if not (k == "auto_pad" and v == "NOTSET")}
        if op == "LpPool":
            node_attrs["p"] = int(node_attrs["p"]) if float(node_attrs["p"]).is_integer() else node_attrs["p"]
            if not isinstance(node_attrs["p"], int):
                continue  # LpPool-18 takes an integer p
        node = helper.make_node(op, ["x"], ["y"], kernel_shape=kernel, **node_attrs)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
        with np.errstate(invalid="ignore", divide="ignore"):
            want = ReferenceEvaluator(model).run(None, {"x": x})[0]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True,
                                   err_msg=f"case {i}: {shape} {kernel} {attrs}")


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
