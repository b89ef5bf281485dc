"""The bindings' own argument checks: a wrong Python type is a clpool.InvalidTypeError (a TypeError), a closed
Context and wait_for=/queue= with numpy inputs are clpool.Errors of the ValueError kind, and
`from clpool import *` leaves the built-in max alone."""
import numpy as np
import pytest

import clpool

X = np.arange(72, dtype=np.float32).reshape(1, 2, 6, 6)
I_X = (np.arange(72) % 36 + np.arange(72) // 36 * 144).reshape(X.shape)  # MaxUnpool indices, kernel/strides 2

# (id, call, message): each a wrong Python type, each refused before anything runs.
BAD_TYPES = [
    ("kernel_shape_int", lambda: clpool.max_pool(X, 3), "kernel_shape must be a sequence of integers, not 3"),
    ("kernel_shape_none", lambda: clpool.average_pool(X, None),
     "kernel_shape must be a sequence of integers, not None"),
    ("kernel_shape_set", lambda: clpool.max_pool(X, {3, 2}), "kernel_shape must be a sequence of integers, not {2, 3}"),
    ("kernel_shape_2d_array", lambda: clpool.max_pool(X, np.array([[2, 2]])),
     "kernel_shape must be a sequence of integers, not a 2-d array"),
    ("kernel_shape_float_array", lambda: clpool.lp_pool(X, np.array([2.0, 2.0])),
     "kernel_shape must hold integers, not 2.0"),
    ("strides_str", lambda: clpool.max_pool(X, [2, 2], strides="22"),
     "strides must be a sequence of integers, not '22'"),
    ("pads_bytes", lambda: clpool.max_pool(X, [2, 2], pads=b"\0\0\0\0"),
     "pads must be a sequence of integers, not b'\\x00\\x00\\x00\\x00'"),
    ("dilations_mixed", lambda: clpool.max_pool(X, [2, 2], dilations=[1, "1"]),
     "dilations must hold integers, not '1'"),
    ("ceil_mode_float", lambda: clpool.max_pool(X, [2, 2], ceil_mode=1.5), "ceil_mode must be an integer, not 1.5"),
    ("ceil_mode_numpy_bool", lambda: clpool.average_pool(X, [2, 2], ceil_mode=np.bool_(True)),
     "ceil_mode must be an integer, not np.True_"),
    ("storage_order_none", lambda: clpool.max_pool(X, [2, 2], storage_order=None),
     "storage_order must be an integer, not None"),
    ("auto_pad_none", lambda: clpool.lp_pool(X, [2, 2], auto_pad=None), "auto_pad must be a str, not None"),
    ("auto_pad_list", lambda: clpool.max_pool(X, [2, 2], auto_pad=["VALID"]), "auto_pad must be a str, not ['VALID']"),
    ("return_indices_str", lambda: clpool.max_pool(X, [2, 2], return_indices="yes"),
     "return_indices must be a bool, not 'yes'"),
    ("p_none", lambda: clpool.lp_pool(X, [2, 2], p=None), "p must be a real number, not None"),
    ("p_str", lambda: clpool.lp_pool(X, [2, 2], p="2"), "p must be a real number, not '2'"),
    ("p_complex", lambda: clpool.lp_pool(X, [2, 2], p=2j), "p must be a real number, not 2j"),
    ("global_p_str", lambda: clpool.global_lp_pool(X, p="2"), "p must be a real number, not '2'"),
    ("global_p_numpy_complex", lambda: clpool.global_lp_pool(X, p=np.complex128(2)),
     "p must be a real number, not np.complex128(2+0j)"),
    ("output_shape_str", lambda: clpool.max_unpool(X, I_X, [2, 2], output_shape="1,2,12,12"),
     "output_shape must be a sequence of integers, not '1,2,12,12'"),
    ("indices_of_none", lambda: clpool.max_unpool(X, I_X, [2, 2], indices_of=None),
     "indices_of must be a str ('inferred' or 'output'), not None"),
    ("x_str", lambda: clpool.max_pool("abc", [2, 2]), "x must be a numpy array or a pyopencl array, not str"),
    ("x_none", lambda: clpool.global_max_pool(None), "x must be a numpy array or a pyopencl array, not NoneType"),
    ("x_objects", lambda: clpool.global_max_pool([[[1, "a"]]]), "x must be an array of numbers, not [[[1, 'a']]]"),
    ("x_masked", lambda: clpool.global_max_pool(np.ma.masked_less(X, 3)),
     "x is a masked array; pass x.filled(value) or its data"),
    ("indices_str", lambda: clpool.max_unpool(X, "I_X", [2, 2]),
     "indices must be a numpy array or a pyopencl array, not str"),
    ("ctx_int", lambda: clpool.max_pool(X, [2, 2], ctx=3), "ctx must be a clpool.Context, not int"),
    ("ctx_int_global", lambda: clpool.global_average_pool(X, ctx=3), "ctx must be a clpool.Context, not int"),
    ("wait_for_int", lambda: clpool.max_pool(X, [2, 2], wait_for=3),
     "wait_for must be a sequence of pyopencl.Event, not int"),
    ("wait_for_str", lambda: clpool.max(X, wait_for="ev"), "wait_for must be a sequence of pyopencl.Event, not 'ev'"),
    ("wait_for_ints", lambda: clpool.average_pool(X, [2, 2], wait_for=[3]),
     "wait_for must hold pyopencl.Event objects, not int"),
    ("queue_int", lambda: clpool.global_max_pool(X, queue=3), "queue must be a pyopencl.CommandQueue, not int"),
    ("out_list", lambda: clpool.global_max_pool(X, out=[0.0, 0.0]),
     "out must be a numpy.ndarray for numpy inputs, not list"),
    ("out_pair_without_indices", lambda: clpool.max_pool(X, [2, 2], out=(None, None)),
     "out must be an array (a (y, indices) pair goes with return_indices=True)"),
    ("out_array_with_indices", lambda: clpool.max_pool(X, [2, 2], return_indices=True, out=np.empty(3)),
     "with return_indices, out must be a (y, indices) pair (either may be None), not ndarray"),
    ("out_indices_list", lambda: clpool.max_pool(X, [2, 2], return_indices=True, out=(None, [0])),
     "out indices must be a numpy.ndarray for numpy inputs, not list"),
    ("max_only_scalars", lambda: clpool.max(1, 2.5),
     "Max needs at least one array input (a Python scalar takes the arrays' dtype)"),
    ("max_none", lambda: clpool.max(X, None), "inputs[1] must be a numpy array or a pyopencl array, not NoneType"),
    ("max_complex", lambda: clpool.max(X, 1j), "Max takes no complex numbers, not 1j"),
    ("device_float", lambda: clpool.Context(device=1.5), "device must be an int, a str or None, not float"),
    ("device_bool", lambda: clpool.Context(device=True), "device must be an int, a str or None, not bool"),
    ("from_pyopencl_int", lambda: clpool.Context.from_pyopencl(3), "queue must be a pyopencl.CommandQueue, not int"),
]


@pytest.mark.parametrize("call, message", [c[1:] for c in BAD_TYPES], ids=[c[0] for c in BAD_TYPES])
def test_wrong_type_is_a_clpool_type_error(call, message):
    with pytest.raises(clpool.InvalidTypeError) as info:
        call()
    err = info.value
    assert isinstance(err, clpool.Error) and isinstance(err, TypeError) and not isinstance(err, ValueError)
    assert err.status == "CLPOOL_ERROR_INVALID_ARGUMENT" and str(err) == message


def test_well_typed_alternatives_are_accepted():
    """What the type checks let through, each as numpy takes it: numpy integers and bools for integers,
    tuples, ranges and integer arrays for sequences, numpy and 0-d values for p, bytes for auto_pad."""
    want = clpool.max_pool(X, [2, 2], strides=[2, 2], pads=[0, 0, 0, 0], ceil_mode=0)
    for kernel, strides, pads, ceil_mode in [((2, 2), np.array([2, 2], np.uint8), np.zeros(4, np.int8), False),
                                             (np.array([2, 2]), [np.int64(2), np.uint8(2)], None, np.int32(0)),
                                             ([2, 2], (True + 1, 2), [False] * 4, 0)]:
        np.testing.assert_array_equal(clpool.max_pool(X, kernel, strides=strides, pads=pads, ceil_mode=ceil_mode),
                                      want)
    np.testing.assert_array_equal(clpool.max_pool(X, range(2, 4)), clpool.max_pool(X, [2, 3]))
    np.testing.assert_array_equal(clpool.max_pool(X, [2, 2], auto_pad=b"VALID", strides=[2, 2]), want)
    ref = clpool.lp_pool(X, [2, 2], p=3)
    for p in (3.0, np.float32(3), np.int64(3), np.array(3.0)):
        np.testing.assert_allclose(clpool.lp_pool(X, [2, 2], p=p), ref, rtol=1e-6)
    np.testing.assert_allclose(clpool.global_lp_pool(X, p=True), clpool.global_lp_pool(X, p=1), rtol=0)
    y, idx = clpool.max_pool(X, [2, 2], return_indices=np.bool_(True))
    assert idx.dtype == np.int64
    assert clpool.Context(device=np.int64(0)).device.name == clpool.devices()[0].name


BAD_VALUES = [  # right types, wrong values: the ValueError kind
    ("return_indices_2", lambda: clpool.max_pool(X, [2, 2], return_indices=2), clpool.InvalidArgumentError,
     "return_indices must be a bool, 0 or 1, not 2"),
    ("p_past_float64", lambda: clpool.lp_pool(X, [2, 2], p=10 ** 400), clpool.InvalidArgumentError,
     "p value an integer of 1329 bits is outside the float64 range"),
    ("kernel_past_4300_digits", lambda: clpool.max_pool(X, [10 ** 5000, 2]), clpool.InvalidArgumentError,
     "kernel_shape value an integer of 16610 bits is outside the int64 range"),
    ("auto_pad_bytes", lambda: clpool.max_pool(X, [2, 2], auto_pad=b"\xff"), clpool.InvalidArgumentError,
     "auto_pad '\ufffd' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"),
    ("x_ragged", lambda: clpool.global_max_pool([[1, 2], [3]]), clpool.InvalidTypeError, None),
]


@pytest.mark.parametrize("call, cls, message", [c[1:] for c in BAD_VALUES], ids=[c[0] for c in BAD_VALUES])
def test_other_refusals_are_clpool_errors(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    if message is not None:
        assert str(info.value) == message


# ------------------------------------------------------------------------------------------ closed contexts

CLOSED_CALLS = {
    "max_pool": lambda ctx: clpool.max_pool(X, [2, 2], ctx=ctx),
    "average_pool": lambda ctx: clpool.average_pool(X, [2, 2], ctx=ctx),
    "lp_pool": lambda ctx: clpool.lp_pool(X, [2, 2], ctx=ctx),
    "max_unpool": lambda ctx: clpool.max_unpool(X, I_X, [2, 2], strides=[2, 2], ctx=ctx),
    "global_max_pool": lambda ctx: clpool.global_max_pool(X, ctx=ctx),
    "global_average_pool": lambda ctx: clpool.global_average_pool(X, ctx=ctx),
    "global_lp_pool": lambda ctx: clpool.global_lp_pool(X, ctx=ctx),
    "max": lambda ctx: clpool.max(X, 1.0, ctx=ctx),
    "warm_up": lambda ctx: ctx.warm_up(),
    "trim": lambda ctx: ctx.trim(),
    "wait_builds": lambda ctx: ctx.wait_builds(),
    "device": lambda ctx: ctx.device,
    "handle": lambda ctx: ctx.handle,
}


@pytest.mark.parametrize("use", list(CLOSED_CALLS))
def test_closed_context_raises_a_clpool_error(use):
    with clpool.Context() as ctx:
        assert not ctx.closed
    assert ctx.closed and repr(ctx) == "<clpool.Context closed>"
    with pytest.raises(clpool.InvalidArgumentError, match=r"^clpool\.Context is closed$") as info:
        CLOSED_CALLS[use](ctx)
    assert isinstance(info.value, ValueError)
    ctx.close()  # closing again is harmless


def test_context_manager_closes_on_error_and_refuses_a_closed_context():
    with pytest.raises(clpool.InvalidShapeError):
        with clpool.Context() as ctx:
            clpool.max_pool(X, [2], ctx=ctx)
    assert ctx.closed
    with pytest.raises(clpool.InvalidArgumentError, match="closed"):
        with ctx:
            pass


@pytest.mark.portability
def test_closed_context_with_pyopencl_inputs(queue):
    import pyopencl.array as cla
    ctx = clpool.Context.from_pyopencl(queue)
    x = cla.to_device(queue, X)
    np.testing.assert_array_equal(clpool.global_max_pool(x, ctx=ctx).get().ravel(), [35, 71])
    ctx.close()
    with pytest.raises(clpool.InvalidArgumentError, match=r"^clpool\.Context is closed$"):
        clpool.global_max_pool(x, ctx=ctx)


# ------------------------------------------------------------------------- wait_for= and queue= with numpy

WAIT_CALLS = {
    "max_pool": lambda **kw: clpool.max_pool(X, [2, 2], **kw),
    "average_pool": lambda **kw: clpool.average_pool(X, [2, 2], **kw),
    "lp_pool": lambda **kw: clpool.lp_pool(X, [2, 2], **kw),
    "max_unpool": lambda **kw: clpool.max_unpool(X, I_X, [2, 2], strides=[2, 2], **kw),
    "global_max_pool": lambda **kw: clpool.global_max_pool(X, **kw),
    "global_average_pool": lambda **kw: clpool.global_average_pool(X, **kw),
    "global_lp_pool": lambda **kw: clpool.global_lp_pool(X, **kw),
    "max": lambda **kw: clpool.max(X, X[:, :1], **kw),
}


@pytest.mark.parametrize("op", list(WAIT_CALLS))
def test_wait_for_and_queue_with_numpy_inputs_are_refused(op, queue):
    import pyopencl as cl
    event = cl.UserEvent(queue.context)
    event.set_status(cl.command_execution_status.COMPLETE)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^wait_for= goes with pyopencl inputs") as info:
        WAIT_CALLS[op](wait_for=[event])
    assert isinstance(info.value, ValueError)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^queue= goes with pyopencl inputs"):
        WAIT_CALLS[op](queue=queue)
    # Nothing to wait for is no request to wait: None and an empty list run.
    want = WAIT_CALLS[op]()
    for wait_for in (None, [], ()):
        np.testing.assert_array_equal(WAIT_CALLS[op](wait_for=wait_for), want)


# ------------------------------------------------------------------------------------------ star import

def test_star_import_leaves_the_builtin_max():
    namespace = {}
    exec("from clpool import *", namespace)
    assert "max" not in namespace and "max" not in clpool.__all__
    exec("m = max(3, 4)", namespace)  # the built-in
    assert namespace["m"] == 4
    for name in ("max_pool", "average_pool", "lp_pool", "max_unpool", "global_max_pool", "global_average_pool",
                 "global_lp_pool", "Context", "DeviceInfo", "devices", "Error", "InvalidTypeError",
                 "InvalidArgumentError", "__version__"):
        assert name in namespace, name
    from clpool import max as clpool_max  # still importable by name
    assert clpool_max is clpool.max and clpool.max.__module__ == "clpool._ops"
    assert "clpool.max" in clpool.__doc__ and "from clpool import *" in clpool.max.__doc__


def test_error_classes():
    assert issubclass(clpool.InvalidTypeError, clpool.Error) and issubclass(clpool.InvalidTypeError, TypeError)
    assert not issubclass(clpool.InvalidTypeError, ValueError)
    # The C library never reports it: its code is InvalidArgumentError's, which that code maps to.
    assert clpool._errors.from_status(1, "CLPOOL_ERROR_INVALID_ARGUMENT", "m").__class__ is clpool.InvalidArgumentError
