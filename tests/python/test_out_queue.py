"""out= on both sides (written in place, pyopencl arrays at their offset, nothing outside them touched),
queue= for pyopencl inputs, and Max with Python scalars as numpy takes them (NEP 50)."""
import time

import numpy as np
import pytest

import clpool
import reference

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
I_X = clpool.max_pool(X, [2, 2], strides=[2, 2], return_indices=True)[1]
Y_X = clpool.max_pool(X, [2, 2], strides=[2, 2])
ROW = RNG.standard_normal((2, 1, 7, 6)).astype(np.float32)

# name: (call taking the input(s) and keywords, the input(s) on the host, the result's shape and dtype)
OPS = {
    "max_pool": (lambda a, **kw: clpool.max_pool(a[0], [3, 3], strides=[2, 1], pads=[1, 1, 1, 1], **kw), (X,)),
    "average_pool": (lambda a, **kw: clpool.average_pool(a[0], [2, 3], pads=[0, 1, 0, 1], count_include_pad=1,
                                                         **kw), (X,)),
    "lp_pool": (lambda a, **kw: clpool.lp_pool(a[0], [2, 2], p=3, strides=[2, 2], **kw), (X,)),
    "max_unpool": (lambda a, **kw: clpool.max_unpool(a[0], a[1], [2, 2], strides=[2, 2], output_shape=X.shape,
                                                     indices_of="output", **kw), (Y_X, I_X)),
    "global_max_pool": (lambda a, **kw: clpool.global_max_pool(a[0], **kw), (X,)),
    "global_average_pool": (lambda a, **kw: clpool.global_average_pool(a[0], **kw), (X,)),
    "global_lp_pool": (lambda a, **kw: clpool.global_lp_pool(a[0], p=1.5, **kw), (X,)),
    "max": (lambda a, **kw: clpool.max(a[0], a[1], **kw), (X, ROW)),
}
WANT = {name: call(args) for name, (call, args) in OPS.items()}


def portable(names):
    """A few representative ops marked portability (the rusticl subset)."""
    return [pytest.param(n, marks=pytest.mark.portability) if n in ("max_pool", "max_unpool", "max") else n
            for n in names]


# ------------------------------------------------------------------------------------------- numpy out=

@pytest.mark.parametrize("op", list(OPS))
def test_numpy_out_is_written_and_returned(op):
    call, args = OPS[op]
    want = WANT[op]
    out = np.full(want.shape, 12345, want.dtype)
    assert call(args, out=out) is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", list(OPS))
def test_numpy_out_mismatch_is_refused(op):
    call, args = OPS[op]
    want = WANT[op]
    with pytest.raises(clpool.InvalidShapeError, match=rf"^out has shape \(1,\) but the result has shape "
                                                       rf"\({want.shape[0]}, "):
        call(args, out=np.empty(1, want.dtype))
    with pytest.raises(clpool.UnsupportedDtypeError, match=r"^out has dtype float64 but the result is float32$"):
        call(args, out=np.empty(want.shape, np.float64))
    with pytest.raises(clpool.UnsupportedDtypeError, match=r"^out has dtype >f4 but the result is float32$"):
        call(args, out=np.empty(want.shape, ">f4"))
    wide = np.empty(want.shape[:-1] + (2 * want.shape[-1],), want.dtype)
    with pytest.raises(clpool.InvalidArgumentError, match=r"has gaps or repeats \(numpy outputs of views are read "
                                                          r"back whole"):
        call(args, out=wide[..., ::2])
    frozen = np.empty(want.shape, want.dtype)
    frozen.flags.writeable = False
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out is read-only$"):
        call(args, out=frozen)


def test_numpy_max_pool_out_pair():
    want_y, want_i = reference.maxpool(X, [2, 2], [2, 2])
    y, i = np.empty_like(want_y), np.empty_like(want_i)
    got = clpool.max_pool(X, [2, 2], strides=[2, 2], return_indices=True, out=(y, i))
    assert got[0] is y and got[1] is i
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(i, want_i)
    got_y, got_i = clpool.max_pool(X, [2, 2], strides=[2, 2], return_indices=True, out=[None, i])
    assert got_i is i and got_y is not y
    np.testing.assert_array_equal(got_y, want_y)
    got_y, got_i = clpool.max_pool(X, [2, 2], strides=[2, 2], return_indices=True, out=(y, None))
    assert got_y is y
    np.testing.assert_array_equal(got_i, want_i)
    with pytest.raises(clpool.UnsupportedDtypeError, match=r"^out indices has dtype int32 but the result is int64$"):
        clpool.max_pool(X, [2, 2], strides=[2, 2], return_indices=True, out=(y, i.astype(np.int32)))
    shared = np.empty(2 * want_i.size, np.int64)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out and out indices overlap in memory$"):
        clpool.max_pool(X.astype(np.float64), [2, 2], strides=[2, 2], return_indices=True,
                        out=(shared[:want_i.size].view(np.float64).reshape(want_y.shape),
                             shared[want_i.size // 2:want_i.size // 2 + want_i.size].reshape(want_i.shape)))


def test_numpy_max_in_place_and_out_overlapping_an_input():
    """Host inputs are copied to the device before the output is written back: out may be any input."""
    inputs = [RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(6)]
    want = reference.elementwise_max(*inputs)
    last = inputs[5].copy()
    assert clpool.max(*inputs[:5], last, out=last) is last
    np.testing.assert_array_equal(last, want)
    x = X.copy()
    out = x.reshape(-1)[:Y_X.size].reshape(Y_X.shape)  # the output's first elements alias the input
    clpool.max_pool(x, [2, 2], strides=[2, 2], out=out)
    np.testing.assert_array_equal(out, Y_X)


# ----------------------------------------------------------------------------------------- pyopencl out=

SENTINEL = -7777


def device_view(queue, host, before=5, after=3):
    """(big, view): a pyopencl array holding host at an element offset inside a larger one of sentinels."""
    import pyopencl.array as cla
    big = np.full(before + host.size + after, sentinel(host.dtype), host.dtype)
    big[before:before + host.size] = host.ravel()
    big = cla.to_device(queue, big)
    return big, big[before:before + host.size].reshape(host.shape)


def sentinel(dtype):
    return np.array(SENTINEL).astype(dtype)  # wrapped into the integer dtypes' range


def assert_only_view_written(big, want, before=5):
    got = big.get()
    mark = sentinel(got.dtype)
    assert (got[:before] == mark).all() and (got[before + want.size:] == mark).all()
    np.testing.assert_allclose(got[before:before + want.size].reshape(want.shape), want, rtol=1e-6)


@pytest.mark.parametrize("op", portable(OPS))
def test_pyopencl_out_is_written_at_its_offset_after_its_events(queue, op):
    import pyopencl as cl
    call, args = OPS[op]
    want = WANT[op]
    inputs = [device_view(queue, a, before=3)[1] for a in args]
    big, out = device_view(queue, np.full(want.shape, SENTINEL, want.dtype))
    queue.finish()
    assert out.offset == 5 * want.dtype.itemsize
    gate = cl.UserEvent(queue.context)
    out.add_event(gate)  # a pending write of out: the op must wait for it
    try:
        got = call(inputs, out=out)
        queue.flush()
        time.sleep(0.05)
        assert got.events[-1].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert got is out
    assert_only_view_written(big, want)


@pytest.mark.parametrize("op", list(OPS))
def test_pyopencl_out_mismatch_is_refused(queue, op):
    import pyopencl.array as cla
    call, args = OPS[op]
    want = WANT[op]
    inputs = [cla.to_device(queue, a) for a in args]
    with pytest.raises(clpool.InvalidTypeError, match=r"^out must be a pyopencl.array.Array for pyopencl inputs, "
                                                      r"not ndarray$"):
        call(inputs, out=np.empty(want.shape, want.dtype))
    with pytest.raises(clpool.InvalidTypeError, match=r"^out must be a numpy.ndarray for numpy inputs, not Array$"):
        call(args, out=cla.empty(queue, want.shape, want.dtype))
    with pytest.raises(clpool.InvalidShapeError, match=r"^out has shape \(3,\) but the result has shape"):
        call(inputs, out=cla.empty(queue, 3, want.dtype))
    with pytest.raises(clpool.UnsupportedDtypeError, match=r"^out has dtype int32 but the result is float32$"):
        call(inputs, out=cla.empty(queue, want.shape, np.int32))
    wide = cla.empty(queue, want.shape[:-1] + (2 * want.shape[-1],), want.dtype)
    # every op writes a pyopencl out= through its strides (tests/python/test_views.py)
    assert call(inputs, out=wide[..., ::2]).strides == wide[..., ::2].strides
    if op != "max":  # Max's in-place use is the C library's to check (below)
        whole = inputs[0].base_data
        overlapping = cla.Array(queue, want.shape, want.dtype, data=whole, offset=0)
        if overlapping.nbytes <= whole.size:
            with pytest.raises(clpool.InvalidArgumentError, match=r"^out overlaps an input in its buffer$"):
                call(inputs, out=overlapping)


@pytest.mark.portability
def test_pyopencl_max_pool_out_pair_and_overlaps(queue):
    import pyopencl.array as cla
    want_y, want_i = reference.maxpool(X, [2, 2], [2, 2])
    x = cla.to_device(queue, X)
    big_i, i = device_view(queue, np.full(want_i.shape, SENTINEL, np.int64))
    y, got_i = clpool.max_pool(x, [2, 2], strides=[2, 2], return_indices=True, out=(None, i))
    assert got_i is i and y.events[-1].int_ptr == i.events[-1].int_ptr
    assert_only_view_written(big_i, want_i)
    np.testing.assert_array_equal(y.get(), want_y)
    shared = cla.empty(queue, 2 * want_i.size, np.int64)
    y_in = cla.Array(queue, want_y.shape, np.float32, data=shared.base_data, offset=0)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out and out indices overlap in their buffer$"):
        clpool.max_pool(x, [2, 2], strides=[2, 2], return_indices=True, out=(y_in, shared[:want_i.size].reshape(
            want_i.shape)))
    with pytest.raises(clpool.InvalidTypeError, match=r"^out indices must be a pyopencl.array.Array"):
        clpool.max_pool(x, [2, 2], strides=[2, 2], return_indices=True, out=(None, np.empty(want_i.shape, np.int64)))


@pytest.mark.portability
def test_pyopencl_max_in_place(queue):
    """out= one of the first four inputs at its offset (the C library's in-place rule); a later input, or an
    overlap that is not exact, is refused by it."""
    import pyopencl.array as cla
    inputs = [RNG.standard_normal((2, 3, 7, 6)).astype(np.float32) for _ in range(5)]
    want = reference.elementwise_max(*inputs)
    for k in range(4):
        big, views = None, []
        for j, a in enumerate(inputs):
            b, v = device_view(queue, a)
            views.append(v)
            if j == k:
                big = b
        assert clpool.max(*views, out=views[k]) is views[k]
        assert_only_view_written(big, want)
    views = [device_view(queue, a)[1] for a in inputs]
    with pytest.raises(clpool.InvalidArgumentError, match=r"only inputs 0\.\.3 may be the output"):
        clpool.max(*views, out=views[4])
    shifted = cla.Array(queue, want.shape, np.float32, data=views[0].base_data, offset=views[0].offset + 4)
    with pytest.raises(clpool.InvalidArgumentError, match=r"overlaps the output without being the same region"):
        clpool.max(views[0], views[1], out=shifted)


@pytest.mark.portability
def test_pyopencl_max_unpool_skipped_may_not_overlap_the_output(queue):
    import pyopencl.array as cla
    y, i = cla.to_device(queue, Y_X), cla.to_device(queue, I_X)
    out = cla.empty(queue, X.shape, np.float32)
    counter = cla.Array(queue, 1, np.uint32, data=out.base_data, offset=8)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out and skipped overlap in their buffer$"):
        clpool.max_unpool(y, i, [2, 2], strides=[2, 2], output_shape=X.shape, indices_of="output", out=out,
                          skipped=counter)


def test_pyopencl_out_of_another_context_is_refused(queue):
    import pyopencl as cl
    import pyopencl.array as cla
    other = cl.CommandQueue(cl.Context([queue.device]))
    x = cla.to_device(queue, X)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out belongs to another cl_context than the queue$"):
        clpool.global_max_pool(x, out=cla.empty(other, (2, 3, 1, 1), np.float32))


# ---------------------------------------------------------------------------------------------------- queue=

@pytest.mark.portability
@pytest.mark.parametrize("op", ["max_pool", "max_unpool", "global_lp_pool", "max"])
def test_queue_enqueues_there_and_makes_the_outputs_there(queue, op):
    import pyopencl as cl
    import pyopencl.array as cla
    call, args = OPS[op]
    second = cl.CommandQueue(queue.context, queue.device)
    inputs = [cla.to_device(queue, a) for a in args]
    if len(inputs) > 1:
        inputs[1] = cla.to_device(second, args[1])  # inputs from two queues: fine with queue=
    got = call(inputs, queue=second)
    assert got.queue is second and len(got.events) == 1
    np.testing.assert_allclose(got.get(), WANT[op], rtol=1e-6)
    out = cla.empty(queue, WANT[op].shape, WANT[op].dtype)  # out= made on the other queue is written on second
    assert call(inputs, queue=second, out=out) is out
    out.finish()
    np.testing.assert_allclose(out.get(), WANT[op], rtol=1e-6)


def test_queue_waits_for_inputs_of_other_queues(queue):
    """An input's pending event gates the op enqueued on another queue."""
    import pyopencl as cl
    import pyopencl.array as cla
    second = cl.CommandQueue(queue.context, queue.device)
    x = cla.to_device(queue, X)
    queue.finish()
    gate = cl.UserEvent(queue.context)
    x.add_event(gate)
    try:
        y = clpool.global_max_pool(x, queue=second)
        second.flush()
        time.sleep(0.05)
        assert y.events[0].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    np.testing.assert_array_equal(y.get(), WANT["global_max_pool"])


def test_queue_of_another_context_and_arrays_without_a_queue(queue):
    import pyopencl as cl
    import pyopencl.array as cla
    x = cla.to_device(queue, X)
    foreign = cl.CommandQueue(cl.Context([queue.device]))
    with pytest.raises(clpool.InvalidArgumentError, match=r"^queue= belongs to another cl_context than the "
                                                          r"pyopencl inputs$"):
        clpool.global_max_pool(x, queue=foreign)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^ctx was made for another cl_context"):
        clpool.global_max_pool(x, queue=queue, ctx=clpool.Context.from_pyopencl(foreign))
    with pytest.raises(clpool.InvalidTypeError, match=r"^queue must be a pyopencl.CommandQueue, not Context$"):
        clpool.global_max_pool(x, queue=queue.context)
    queueless = cla.Array(queue.context, X.shape, np.float32)
    queueless.set(X, queue=queue)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^a pyopencl input has no queue; pass queue=$"):
        clpool.global_max_pool(queueless)
    got = clpool.global_max_pool(queueless, queue=queue)
    assert got.queue is queue
    np.testing.assert_array_equal(got.get(), WANT["global_max_pool"])
    # ctx= of the queue's context works with queue= too
    np.testing.assert_array_equal(clpool.global_max_pool(x, queue=queue, ctx=clpool.Context.from_pyopencl(queue))
                                  .get(), WANT["global_max_pool"])


def test_max_unpool_skipped_with_queue(queue):
    """skipped= from another queue of the context is fine with queue= (without it, it must be on the inputs'
    queue, as before)."""
    import pyopencl as cl
    import pyopencl.array as cla
    second = cl.CommandQueue(queue.context, queue.device)
    y, i = cla.to_device(queue, Y_X), cla.to_device(queue, I_X)
    counter = cla.zeros(second, 1, np.uint32)
    attrs = dict(strides=[2, 2], output_shape=X.shape, indices_of="output")
    with pytest.raises(clpool.InvalidArgumentError, match="different queues"):
        clpool.max_unpool(y, i, [2, 2], skipped=counter, **attrs)
    got = clpool.max_unpool(y, i, [2, 2], skipped=counter, queue=second, **attrs)
    assert counter.events[-1].int_ptr == got.events[0].int_ptr and counter.get()[0] == 0


# ---------------------------------------------------------------------------------------- Max with scalars

# (dtype, scalar, what numpy makes of it with an array of dtype (NEP 50), or the clpool.Error class)
SCALARS = [
    ("float32", 0.5, np.float32(0.5)), ("float32", 3, np.float32(3)), ("float32", True, np.float32(1)),
    ("float32", 1e300, clpool.InvalidArgumentError),      # numpy: inf and an overflow warning
    ("float32", 2 ** 1100, clpool.InvalidArgumentError),  # numpy: OverflowError
    ("float32", float("inf"), np.float32(np.inf)), ("float32", float("nan"), np.float32(np.nan)),
    ("float16", 65504.0, np.float16(65504)), ("float16", 1e5, clpool.InvalidArgumentError),
    ("float64", 0.1, np.float64(0.1)), ("bfloat16", 1.5, None),
    ("int8", 127, np.int8(127)), ("int8", -128, np.int8(-128)), ("int8", 128, clpool.InvalidArgumentError),
    ("int8", 0.5, clpool.UnsupportedDtypeError),       # numpy: float64
    ("int8", 2.0, clpool.UnsupportedDtypeError),
    ("uint8", -1, clpool.InvalidArgumentError), ("uint8", 255, np.uint8(255)), ("uint8", False, np.uint8(0)),
    ("uint64", 2 ** 64 - 1, np.uint64(2 ** 64 - 1)), ("uint64", 2 ** 64, clpool.InvalidArgumentError),
    ("int64", -2 ** 63, np.int64(-2 ** 63)),
]


def scalar_case(dtype_name, scalar, want, device):
    from conftest import np_dtype
    dtype = np_dtype(dtype_name)
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("no fp64")
    if want is None:
        want = np.array(scalar, dtype)
    a = np.array([[0, 1, 2], [3, -1, 5]]).astype(dtype) if dtype.kind != "u" else np.array([[0, 1, 2], [3, 4, 5]],
                                                                                             dtype)
    return dtype, a, want


@pytest.mark.parametrize("dtype_name, scalar, want", SCALARS,
                         ids=[f"{d}-{s!r}" for d, s, _ in SCALARS])
def test_max_python_scalar_takes_the_array_dtype(dtype_name, scalar, want, device):
    dtype, a, want = scalar_case(dtype_name, scalar, want, device)
    if isinstance(want, type):
        with pytest.raises(want) as info:
            clpool.max(a, scalar)
        assert repr(scalar) in str(info.value) or "integer of" in str(info.value)
        return
    for args in ((a, scalar), (scalar, a)):
        got = clpool.max(*args)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, reference.elementwise_max(*[np.asarray(v, dtype) for v in args]))
    if dtype.kind != "V":
        # numpy's own promotion gives the same dtype.
        assert np.maximum(a, scalar).dtype == dtype


PORTABLE_SCALARS = {("float32", 0.5), ("int8", 128), ("uint8", 255)}  # one of each outcome in the rusticl subset


@pytest.mark.parametrize("dtype_name, scalar, want",
                         [pytest.param(*s, marks=pytest.mark.portability) if s[:2] in PORTABLE_SCALARS
                          else s for s in SCALARS], ids=[f"{d}-{s!r}" for d, s, _ in SCALARS])
def test_max_python_scalar_with_pyopencl_inputs(queue, dtype_name, scalar, want, device):
    import pyopencl.array as cla
    dtype, a, want = scalar_case(dtype_name, scalar, want, device)
    _, x = device_view(queue, a)
    if isinstance(want, type):
        with pytest.raises(want):
            clpool.max(x, scalar)
        return
    got = clpool.max(scalar, x, np.array(1).astype(dtype)[()])  # a numpy scalar of the dtype, uploaded too
    assert isinstance(got, cla.Array) and got.dtype == dtype
    np.testing.assert_array_equal(got.get(), reference.elementwise_max(np.asarray(scalar, dtype), a,
                                                                       np.array(1, dtype)))


def test_max_numpy_scalars_keep_their_dtype():
    a = np.array([1, 5], np.float32)
    np.testing.assert_array_equal(clpool.max(a, np.float32(2.5)), [2.5, 5])
    with pytest.raises(clpool.UnsupportedDtypeError, match=r"^Max inputs must share one dtype: got float32 and "
                                                           r"float64$"):
        clpool.max(a, np.float64(2.5))
    # A numpy scalar sets the dtype the Python scalars take.
    got = clpool.max(np.int16(3), 7, -2)
    assert got.dtype == np.int16 and got.shape == () and got == 7
    with pytest.raises(clpool.InvalidArgumentError, match=r"^inputs\[1\] \(70000\) does not fit int16 "
                                                          r"\(-32768\.\.32767\)$"):
        clpool.max(np.int16(3), 70000)


def test_max_scalar_position_decides_ties():
    """On ties the earlier input wins: -0.0 against 0.0 shows which."""
    zeros = np.zeros(3, np.float32)
    assert np.signbit(clpool.max(-0.0, zeros)).all()
    assert not np.signbit(clpool.max(zeros, -0.0)).any()
