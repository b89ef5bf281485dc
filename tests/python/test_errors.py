"""Every bad input raises the clpool.Error subclass of its status (a ValueError or TypeError kind) with the
C library's clpool_last_error() text, and leaves the context usable."""
import numpy as np
import pytest

import clpool
from clpool._lib import lib

X = np.arange(72, dtype=np.float32).reshape(1, 2, 6, 6)
# MaxUnpool indices for X: the first 36 positions of each (n, c) plane of [1, 2, 12, 12] (kernel and strides 2).
I_X = (np.arange(72) % 36 + np.arange(72) // 36 * 144).reshape(X.shape)

# (id, call, exception, builtin kind, message); a message naming a clpool_ function comes from the C library.
C_ERRORS = [
    ("kernel_rank", lambda: clpool.max_pool(X, [2]), clpool.InvalidShapeError, ValueError,
     "clpool_maxpool_output_shape: kernel_shape has 1 dims but the input has 2 spatial dims"),
    ("kernel_zero", lambda: clpool.max_pool(X, [0, 2]), clpool.InvalidArgumentError, ValueError,
     "clpool_maxpool_output_shape: kernel_shape[0] = 0 must be >= 1"),
    ("stride_zero", lambda: clpool.max_pool(X, [2, 2], strides=[1, 0]), clpool.InvalidArgumentError, ValueError,
     "clpool_maxpool_output_shape: strides[1] = 0 must be >= 1"),
    ("dilation_zero", lambda: clpool.max_pool(X, [2, 2], dilations=[0, 1]), clpool.InvalidArgumentError,
     ValueError, "clpool_maxpool_output_shape: dilations[0] = 0 must be >= 1"),
    ("pad_negative", lambda: clpool.max_pool(X, [2, 2], pads=[0, -1, 0, 0]), clpool.InvalidArgumentError,
     ValueError, "clpool_maxpool_output_shape: pads[1] = -1 must be >= 0"),
    ("pads_with_auto_pad", lambda: clpool.max_pool(X, [2, 2], pads=[1, 1, 1, 1], auto_pad="SAME_UPPER"),
     clpool.InvalidArgumentError, ValueError,
     "clpool_maxpool_output_shape: pads must be 0 when auto_pad is not NOTSET (pads[0] = 1)"),
    ("ceil_mode", lambda: clpool.max_pool(X, [2, 2], ceil_mode=2), clpool.InvalidArgumentError, ValueError,
     "clpool_maxpool_output_shape: ceil_mode = 2 must be 0 or 1"),
    ("storage_order", lambda: clpool.max_pool(X, [2, 2], storage_order=2), clpool.InvalidArgumentError,
     ValueError, "clpool_maxpool_output_shape: storage_order = 2 must be 0 or 1"),
    ("window_without_tap", lambda: clpool.max_pool(X, [2, 2], pads=[5, 0, 5, 0]), clpool.InvalidArgumentError,
     ValueError, "clpool_maxpool_output_shape: output position 0 along spatial axis 0 has a window with no "
                 "input element (pads/dilations too large for kernel_shape)"),
    ("kernel_too_large", lambda: clpool.max_pool(X, [7, 2]), clpool.InvalidShapeError, ValueError,
     "clpool_maxpool_output_shape: along spatial axis 0 the padded input (6) is smaller than the dilated "
     "kernel (7)"),
    ("no_spatial_dims", lambda: clpool.max_pool(np.zeros((2, 2), np.float32), []), clpool.InvalidArgumentError,
     ValueError, "clpool_maxpool_params_init: spatial_rank 0 is outside 1..10"),
    ("spatial_rank_11", lambda: clpool.max_pool(np.zeros((1,) * 13, np.float32), [1] * 11),
     clpool.InvalidArgumentError, ValueError, "clpool_maxpool_params_init: spatial_rank 11 is outside 1..10"),
    ("count_include_pad", lambda: clpool.average_pool(X, [2, 2], count_include_pad=2), clpool.InvalidArgumentError,
     ValueError, "clpool_average_pool_output_shape: count_include_pad = 2 must be 0 or 1"),
    ("lp_p_zero", lambda: clpool.lp_pool(X, [2, 2], p=0), clpool.InvalidArgumentError, ValueError,
     "clpool_lp_pool_output_shape: p = 0 must be > 0 and finite"),
    ("lp_p_inf", lambda: clpool.lp_pool(X, [2, 2], p=float("inf")), clpool.InvalidArgumentError, ValueError,
     "clpool_lp_pool_output_shape: p = inf must be > 0 and finite"),
    ("average_pool_kernel_rank", lambda: clpool.average_pool(X, [2]), clpool.InvalidShapeError, ValueError,
     "clpool_average_pool_output_shape: kernel_shape has 1 dims but the input has 2 spatial dims"),
    ("lp_p_negative", lambda: clpool.lp_pool(X, [2, 2], p=-1), clpool.InvalidArgumentError, ValueError,
     "clpool_lp_pool_output_shape: p = -1 must be > 0 and finite"),
    ("lp_p_nan", lambda: clpool.lp_pool(X, [2, 2], p=float("nan")), clpool.InvalidArgumentError, ValueError,
     "clpool_lp_pool_output_shape: p = nan must be > 0 and finite"),
    ("average_pool_pad_negative", lambda: clpool.average_pool(X, [2, 2], pads=[0, -1, 0, 0]),
     clpool.InvalidArgumentError, ValueError, "clpool_average_pool_output_shape: pads[1] = -1 must be >= 0"),
    ("lp_pool_stride_zero", lambda: clpool.lp_pool(X, [2, 2], strides=[1, 0]), clpool.InvalidArgumentError,
     ValueError, "clpool_lp_pool_output_shape: strides[1] = 0 must be >= 1"),
    ("average_pool_no_spatial_dims", lambda: clpool.average_pool(X, []), clpool.InvalidArgumentError, ValueError,
     "clpool_average_pool_params_init: spatial_rank 0 is outside 1..10"),
    ("average_pool_int8", lambda: clpool.average_pool(X.astype(np.int8), [2, 2]), clpool.UnsupportedDtypeError,
     TypeError, "clpool_enqueue_average_pool: dtype int8 (3) is not supported by AveragePool (float32, float64, "
                "float16, bfloat16)"),
    ("lp_pool_int8", lambda: clpool.lp_pool(X.astype(np.int8), [2, 2]), clpool.UnsupportedDtypeError,
     TypeError, "clpool_enqueue_lp_pool: dtype int8 (3) is not supported by LpPool (float32, float64, float16, "
                "bfloat16)"),
    ("lp_pool_uint8", lambda: clpool.lp_pool(X.astype(np.uint8), [2, 2]), clpool.UnsupportedDtypeError,
     TypeError, "clpool_enqueue_lp_pool: dtype uint8 (2) is not supported by LpPool (float32, float64, float16, "
                "bfloat16)"),
    ("maxpool_int16", lambda: clpool.max_pool(X.astype(np.int16), [2, 2]), clpool.UnsupportedDtypeError,
     TypeError, "clpool_enqueue_maxpool: dtype int16 (5) is not supported by MaxPool (float32, float64, float16, "
                "bfloat16, int8, uint8)"),
    ("global_rank_2", lambda: clpool.global_max_pool(np.zeros((2, 2), np.float32)), clpool.InvalidShapeError,
     ValueError, "clpool_global_pool_output_shape: input rank 2 must be >= 3 (N x C x D1 ...)"),
    ("global_empty_plane", lambda: clpool.global_average_pool(np.zeros((2, 2, 0), np.float32)),
     clpool.InvalidShapeError, ValueError,
     "clpool_global_pool_output_shape: spatial dim 0 is 0; a global pool needs at least one element per plane"),
    ("global_int8", lambda: clpool.global_average_pool(X.astype(np.int8)), clpool.UnsupportedDtypeError,
     TypeError, "clpool_enqueue_global_average_pool: dtype int8 (3) is not supported by GlobalAveragePool "
                "(float32, float64, float16, bfloat16)"),
    ("lp_zero", lambda: clpool.global_lp_pool(X, p=0), clpool.InvalidArgumentError, ValueError,
     "clpool_enqueue_global_lp_pool: p = 0 must be finite and > 0"),
    ("lp_nan", lambda: clpool.global_lp_pool(X, p=float("nan")), clpool.InvalidArgumentError, ValueError,
     "clpool_enqueue_global_lp_pool: p = nan must be finite and > 0"),
    ("lp_inf", lambda: clpool.global_lp_pool(X, p=float("inf")), clpool.InvalidArgumentError, ValueError,
     "clpool_enqueue_global_lp_pool: p = inf must be finite and > 0"),
    ("max_no_inputs", lambda: clpool.max(), clpool.InvalidArgumentError, ValueError,
     "clpool_max_output_shape: Max needs at least one input"),
    ("max_no_broadcast", lambda: clpool.max(np.zeros((2, 3)), np.zeros((4, 3))), clpool.InvalidShapeError,
     ValueError, "clpool_max_output_shape: input 1 shape [4,3] does not broadcast: dim 0 is 4 where other "
                 "inputs have 2 (so far [2,3])"),
    ("max_rank_13", lambda: clpool.max(np.zeros((1,) * 13)), clpool.InvalidShapeError, ValueError,
     "clpool_max_output_shape: input_shapes[0] rank 13 is outside 0..12"),
    ("unpool_kernel_rank", lambda: clpool.max_unpool(X, I_X, [2]), clpool.InvalidShapeError, ValueError,
     "clpool_max_unpool_output_shape: kernel_shape has 1 dims but X has 2 spatial dims"),
    ("unpool_stride_zero", lambda: clpool.max_unpool(X, I_X, [2, 2], strides=[2, 0]), clpool.InvalidArgumentError,
     ValueError, "clpool_max_unpool_output_shape: strides[1] = 0 must be >= 1"),
    ("unpool_pad_negative", lambda: clpool.max_unpool(X, I_X, [2, 2], pads=[0, -1, 0, 0]),
     clpool.InvalidArgumentError, ValueError, "clpool_max_unpool_output_shape: pads[1] = -1 must be >= 0"),
    ("unpool_inferred_below_1", lambda: clpool.max_unpool(X[:, :, :1], I_X[:, :, :1], [1, 2], pads=[1, 0, 0, 0]),
     clpool.InvalidShapeError, ValueError, "clpool_max_unpool_output_shape: along spatial axis 0 the output size "
                                           "(X 1 - 1) * stride 1 + kernel 1 - pads 1 - 0 = 0 is < 1"),
    ("unpool_output_shape_rank", lambda: clpool.max_unpool(X, I_X, [2, 2], strides=[2, 2], output_shape=[1, 2, 12]),
     clpool.InvalidShapeError, ValueError, "clpool_max_unpool_output_shape: output_shape [1,2,12] must have X's "
                                           "rank and its N and C (X is [1,2,6,6])"),
    ("unpool_output_shape_channels", lambda: clpool.max_unpool(X, I_X, [2, 2], output_shape=[1, 3, 12, 12]),
     clpool.InvalidShapeError, ValueError, "clpool_max_unpool_output_shape: output_shape [1,3,12,12] must have "
                                           "X's rank and its N and C (X is [1,2,6,6])"),
    ("unpool_output_shape_zero", lambda: clpool.max_unpool(X, I_X, [2, 2], output_shape=[1, 2, 0, 12]),
     clpool.InvalidShapeError, ValueError,
     "clpool_max_unpool_output_shape: output_shape spatial dim 0 is 0; must be >= 1"),
    ("unpool_output_shape_overflow", lambda: clpool.max_unpool(X, I_X, [2, 2], output_shape=[1, 2, 2 ** 62, 4]),
     clpool.SizeOverflowError, ValueError, "clpool_max_unpool_output_shape: output_shape element count overflows "
                                           "int64"),
    ("unpool_int16", lambda: clpool.max_unpool(X.astype(np.int16), I_X, [2, 2], strides=[2, 2]),
     clpool.UnsupportedDtypeError, TypeError, "clpool_enqueue_max_unpool: dtype int16 (5) is not supported by "
                                              "MaxUnpool (float32, float64, float16, bfloat16, int8, uint8)"),
    ("device_no_match", lambda: clpool.Context(device="no-such-device"), clpool.NoDeviceError, RuntimeError,
     "no OpenCL device matches 'no-such-device'"),
]

# Errors only the bindings can see (the C API has no such argument); same classes, their own message.
PY_ERRORS = [
    ("kernel_past_int64", lambda: clpool.max_pool(X, [2 ** 64 + 2, 2]), clpool.InvalidArgumentError, ValueError,
     "kernel_shape value 18446744073709551618 is outside the int64 range"),
    ("kernel_far_past_int64", lambda: clpool.average_pool(X, [2 ** 70, 2]), clpool.InvalidArgumentError, ValueError,
     "kernel_shape value 1180591620717411303424 is outside the int64 range"),
    ("strides_past_int64", lambda: clpool.lp_pool(X, [2, 2], strides=[2 ** 64 + 1, 1]), clpool.InvalidArgumentError,
     ValueError, "strides value 18446744073709551617 is outside the int64 range"),
    ("pads_past_int64", lambda: clpool.max_pool(X, [2, 2], pads=[2 ** 64, 0, 0, 0]), clpool.InvalidArgumentError,
     ValueError, "pads value 18446744073709551616 is outside the int64 range"),
    ("ceil_mode_past_int32", lambda: clpool.max_pool(X, [2, 2], ceil_mode=2 ** 32 + 1), clpool.InvalidArgumentError,
     ValueError, "ceil_mode value 4294967297 is outside the int32 range"),
    ("count_include_pad_past_int32", lambda: clpool.average_pool(X, [2, 2], count_include_pad=-2 ** 31 - 1),
     clpool.InvalidArgumentError, ValueError, "count_include_pad value -2147483649 is outside the int32 range"),
    ("lp_p_not_a_number", lambda: clpool.lp_pool(X, [2, 2], p="two"), clpool.InvalidTypeError, TypeError,
     "p must be a real number, not 'two'"),
    ("average_pool_strides_length", lambda: clpool.average_pool(X, [2, 2], strides=[1]), clpool.InvalidArgumentError,
     ValueError, "strides has 1 values but 2 are needed"),
    ("count_include_pad_not_integer", lambda: clpool.average_pool(X, [2, 2], count_include_pad=0.5),
     clpool.InvalidTypeError, TypeError, "count_include_pad must be an integer, not 0.5"),
    ("lp_pool_auto_pad_name", lambda: clpool.lp_pool(X, [2, 2], auto_pad="SAME"), clpool.InvalidArgumentError,
     ValueError, "auto_pad 'SAME' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"),
    ("auto_pad_name", lambda: clpool.max_pool(X, [2, 2], auto_pad="SAME"), clpool.InvalidArgumentError,
     ValueError, "auto_pad 'SAME' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"),
    ("strides_length", lambda: clpool.max_pool(X, [2, 2], strides=[1]), clpool.InvalidArgumentError, ValueError,
     "strides has 1 values but 2 are needed"),
    ("pads_length", lambda: clpool.max_pool(X, [2, 2], pads=[1, 1]), clpool.InvalidArgumentError, ValueError,
     "pads has 2 values but 4 are needed"),
    ("max_mixed_dtypes", lambda: clpool.max(np.zeros(3, np.float32), np.zeros(3, np.float64)),
     clpool.UnsupportedDtypeError, TypeError, "Max inputs must share one dtype: got float32 and float64"),
    ("bool_dtype", lambda: clpool.max(np.zeros(3, bool)), clpool.UnsupportedDtypeError, TypeError,
     "dtype bool has no clpool equivalent"),
    ("complex_dtype", lambda: clpool.global_max_pool(np.zeros((1, 1, 2), np.complex64)),
     clpool.UnsupportedDtypeError, TypeError, "dtype complex64 has no clpool equivalent"),
    ("kernel_not_integer", lambda: clpool.max_pool(X, [2.5, 2]), clpool.InvalidTypeError, TypeError,
     "kernel_shape must hold integers, not 2.5"),
    ("ctx_type", lambda: clpool.max(X, ctx="0"), clpool.InvalidTypeError, TypeError,
     "ctx must be a clpool.Context, not str"),
    ("unpool_indices_int32", lambda: clpool.max_unpool(X, I_X.astype(np.int32), [2, 2], strides=[2, 2]),
     clpool.UnsupportedDtypeError, TypeError, "indices must be int64, not int32"),
    ("unpool_indices_float", lambda: clpool.max_unpool(X, X, [2, 2], strides=[2, 2]), clpool.UnsupportedDtypeError,
     TypeError, "indices must be int64, not float32"),
    ("unpool_indices_shape", lambda: clpool.max_unpool(X, I_X[0], [2, 2], strides=[2, 2]), clpool.InvalidShapeError,
     ValueError, "indices have shape (2, 6, 6) but X has (1, 2, 6, 6); they must be the same"),
    ("unpool_indices_of", lambda: clpool.max_unpool(X, I_X, [2, 2], strides=[2, 2], indices_of="OUTPUT"),
     clpool.InvalidArgumentError, ValueError, "indices_of 'OUTPUT' is not one of 'inferred', 'output'"),
    ("unpool_indices_of_type", lambda: clpool.max_unpool(X, I_X, [2, 2], strides=[2, 2], indices_of=1),
     clpool.InvalidTypeError, TypeError, "indices_of must be a str ('inferred' or 'output'), not 1"),
    ("unpool_output_shape_not_sequence", lambda: clpool.max_unpool(X, I_X, [2, 2], output_shape=12),
     clpool.InvalidTypeError, TypeError, "output_shape must be a sequence of integers, not 12"),
    ("unpool_output_shape_not_integer", lambda: clpool.max_unpool(X, I_X, [2, 2], output_shape=[1, 2, 12.0, 12]),
     clpool.InvalidTypeError, TypeError, "output_shape must hold integers, not 12.0"),
    ("unpool_output_shape_past_int64", lambda: clpool.max_unpool(X, I_X, [2, 2], output_shape=[1, 2, 2 ** 64, 4]),
     clpool.InvalidArgumentError, ValueError, "output_shape value 18446744073709551616 is outside the int64 range"),
    ("unpool_strides_length", lambda: clpool.max_unpool(X, I_X, [2, 2], strides=[2]), clpool.InvalidArgumentError,
     ValueError, "strides has 1 values but 2 are needed"),
    ("unpool_pads_past_int64", lambda: clpool.max_unpool(X, I_X, [2, 2], pads=[0, 0, 2 ** 63, 0]),
     clpool.InvalidArgumentError, ValueError, "pads value 9223372036854775808 is outside the int64 range"),
    ("unpool_skipped_with_numpy", lambda: clpool.max_unpool(X, I_X, [2, 2], skipped=np.zeros(1, np.uint32)),
     clpool.InvalidArgumentError, ValueError,
     "skipped= goes with pyopencl inputs (numpy inputs raise on skipped indices instead)"),
    # kernel 2, stride 1: planes of 7 x 7 = 49, so the second plane's indices (144 on) lie past its end (98)
    ("unpool_index_outside_plane", lambda: clpool.max_unpool(X, I_X, [2, 2]), clpool.InvalidArgumentError,
     ValueError, "36 indices lie outside their (n, c) plane of the output"),
    ("unpool_one_index_outside_plane", lambda: clpool.max_unpool(X[:, :1, :1, :1], np.full((1, 1, 1, 1), -1), [1, 1]),
     clpool.InvalidArgumentError, ValueError, "1 index lies outside its (n, c) plane of the output"),
]


def check_raises(call, cls, kind, message):
    with pytest.raises(cls) as info:
        call()
    err = info.value
    assert isinstance(err, clpool.Error) and isinstance(err, kind)
    assert err.status == cls.status and str(err) == message
    return err


@pytest.mark.parametrize("call, cls, kind, message", [c[1:] for c in C_ERRORS], ids=[c[0] for c in C_ERRORS])
def test_c_error(call, cls, kind, message):
    check_raises(call, cls, kind, message)
    # The message is the C library's own text for this thread's failed call.
    assert lib.clpool_last_error().decode() == message
    # The default context is still usable.
    np.testing.assert_array_equal(clpool.global_max_pool(X).ravel(), [35, 71])


@pytest.mark.parametrize("call, cls, kind, message", [c[1:] for c in PY_ERRORS], ids=[c[0] for c in PY_ERRORS])
def test_binding_error(call, cls, kind, message):
    check_raises(call, cls, kind, message)


def test_status_names_cover_the_c_enum():
    for code in range(1, 11):
        name = lib.clpool_status_string(code).decode()
        cls = clpool._errors._BY_CODE[code]
        assert cls.status == name and cls.code == code and issubclass(cls, clpool.Error)


@pytest.mark.portability
def test_pyopencl_errors(queue):
    import pyopencl as cl
    import pyopencl.array as cla
    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 64)
    check_raises(lambda: clpool.max_pool(cla.Array(queue, (1, 1, 8, 8), np.float32, data=buf), [2, 2]),
                 clpool.BufferTooSmallError, ValueError,
                 "clpool_enqueue_maxpool: input buffer holds 64 bytes but offset 0 + 256 bytes are needed")
    check_raises(lambda: clpool.global_max_pool(cla.Array(queue, (1, 1, 3), np.float32, data=buf, offset=2)),
                 clpool.InvalidArgumentError, ValueError,
                 "clpool_enqueue_global_max_pool: input offset 2 is not a multiple of the element size 4")
    x = cla.to_device(queue, X)
    check_raises(lambda: clpool.max_pool(x.astype(np.int16), [2, 2]), clpool.UnsupportedDtypeError, TypeError,
                 "clpool_enqueue_maxpool: dtype int16 (5) is not supported by MaxPool (float32, float64, "
                 "float16, bfloat16, int8, uint8)")
    check_raises(lambda: clpool.average_pool(x.astype(np.int8), [2, 2]), clpool.UnsupportedDtypeError, TypeError,
                 "clpool_enqueue_average_pool: dtype int8 (3) is not supported by AveragePool (float32, float64, "
                 "float16, bfloat16)")
    check_raises(lambda: clpool.lp_pool(x, [2, 2], p=0), clpool.InvalidArgumentError, ValueError,
                 "clpool_lp_pool_output_shape: p = 0 must be > 0 and finite")
    check_raises(lambda: clpool.lp_pool(cla.Array(queue, (1, 1, 8, 8), np.float32, data=buf), [2, 2]),
                 clpool.BufferTooSmallError, ValueError,
                 "clpool_enqueue_lp_pool: input buffer holds 64 bytes but offset 0 + 256 bytes are needed")
    check_raises(lambda: clpool.max(x, X), clpool.InvalidArgumentError, ValueError,
                 "inputs mix pyopencl arrays and host arrays; pass one kind")
    other = cl.CommandQueue(queue.context)
    check_raises(lambda: clpool.max(x, cla.to_device(other, X)), clpool.InvalidArgumentError, ValueError,
                 "pyopencl inputs are on different queues; pass them on one queue (or pass queue=)")
    check_raises(lambda: clpool.max(x.transpose((0, 1, 3, 2)), x, out=x), clpool.InvalidArgumentError, ValueError,
                 "clpool_enqueue_max_view: inputs[0] overlaps the output without being the same view (only exact "
                 "in-place use is supported)")
    i_x, counter = cla.to_device(queue, I_X), cla.zeros(queue, 1, np.uint32)
    check_raises(lambda: clpool.max_unpool(x, cla.Array(queue, X.shape, np.int64, data=buf), [2, 2], strides=[2, 2]),
                 clpool.BufferTooSmallError, ValueError,
                 "clpool_enqueue_max_unpool: indices buffer holds 64 bytes but offset 0 + 576 bytes are needed")
    check_raises(lambda: clpool.max_unpool(x, i_x, [2, 2], strides=[2, 2], skipped=cla.Array(queue, 1, np.uint32,
                                                                                             data=buf, offset=2)),
                 clpool.InvalidArgumentError, ValueError,
                 "clpool_enqueue_max_unpool: skipped offset 2 is not a multiple of the element size 4")
    check_raises(lambda: clpool.max_unpool(x, I_X, [2, 2]), clpool.InvalidArgumentError, ValueError,
                 "inputs mix pyopencl arrays and host arrays; pass one kind")
    check_raises(lambda: clpool.max_unpool(x, i_x.astype(np.int32), [2, 2]), clpool.UnsupportedDtypeError,
                 TypeError, "indices must be int64, not int32")
    check_raises(lambda: clpool.max_unpool(x, i_x, [2, 2], skipped=counter.astype(np.int32)),
                 clpool.UnsupportedDtypeError, TypeError, "skipped must be uint32, not int32")
    check_raises(lambda: clpool.max_unpool(x, i_x, [2, 2], skipped=cla.zeros(queue, 2, np.uint32)),
                 clpool.InvalidShapeError, ValueError, "skipped must hold one element, not 2 (shape (2,))")
    check_raises(lambda: clpool.max_unpool(x, i_x, [2, 2], skipped=np.zeros(1, np.uint32)),
                 clpool.InvalidTypeError, TypeError, "skipped must be a pyopencl array, not ndarray")
    check_raises(lambda: clpool.max_unpool(x, i_x, [2, 2], skipped=cla.zeros(other, 1, np.uint32)),
                 clpool.InvalidArgumentError, ValueError,
                 "pyopencl inputs are on different queues; pass them on one queue")
    foreign = clpool.Context.from_pyopencl(cl.CommandQueue(cl.Context([queue.device])))
    check_raises(lambda: clpool.global_max_pool(x, ctx=foreign), clpool.InvalidArgumentError, ValueError,
                 "ctx was made for another cl_context than the arrays' queue "
                 "(use clpool.Context.from_pyopencl(queue) or ctx=None)")
    # The adopted context still works after every failure.
    np.testing.assert_array_equal(clpool.global_max_pool(x).get().ravel(), [35, 71])
