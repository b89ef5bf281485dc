"""The ops: argument conversion, shape inference and one C call each (numpy: the blocking *_host call;
pyopencl: the enqueue call on the arrays' queue). No op logic lives here."""
import builtins
import operator
import sys
from ctypes import byref, c_int64, c_size_t, c_uint32, c_void_p

import numpy as np

from . import _errors
from ._context import Context, default_context, queue_context
from ._dtypes import dtype_code
from ._lib import (AveragePoolParams, LpPoolParams, MaxPoolParams, MaxUnpoolParams, Shape, check, dims_of, lib,
                   shape_of)

_INT64 = np.dtype(np.int64)
_AUTO_PAD = {"NOTSET": 0, "SAME_UPPER": 1, "SAME_LOWER": 2, "VALID": 3}
_INDICES_OF = {"inferred": 0, "output": 1}  # clpool_unpool_indices


def _cl_array_type():
    # pyopencl is optional: an object can only be a pyopencl array once pyopencl.array is imported.
    mod = sys.modules.get("pyopencl.array")
    return mod.Array if mod is not None else None


def _split(inputs):
    """The pyopencl queue of the inputs, or None when they are all host arrays. Mixing is an error."""
    cl_type = _cl_array_type()
    if cl_type is None:
        return None
    on_device = [isinstance(a, cl_type) for a in inputs]
    if not any(on_device):
        return None
    if not all(on_device):
        raise _errors.InvalidArgumentError("inputs mix pyopencl arrays and host arrays; pass one kind")
    queue = inputs[0].queue
    for a in inputs:
        if a.queue is not queue and a.queue.int_ptr != queue.int_ptr:
            raise _errors.InvalidArgumentError("pyopencl inputs are on different queues; pass them on one queue")
        if not a.flags.c_contiguous:
            raise _errors.InvalidArgumentError(
                f"pyopencl array of shape {a.shape} and strides {a.strides} is not C-contiguous "
                "(device arrays are read in place, never copied)")
    return queue


def _host(a):
    """A C-contiguous native-byte-order numpy array (copied only when it is not one already)."""
    a = np.asarray(a)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a if a.flags.c_contiguous else a.copy(order="C")  # np.ascontiguousarray would make 0-d arrays 1-d


def _int(name, value, bits=64):
    """An integer attribute value that fits the C field (int64, or int32 for the flags): ctypes would
    silently keep the low bits of a larger one (2**64 + 2 would run as 2)."""
    try:
        v = operator.index(value)
    except TypeError:
        raise _errors.InvalidArgumentError(f"{name} must hold integers, not {value!r}") from None
    if not -(1 << (bits - 1)) <= v < 1 << (bits - 1):
        raise _errors.InvalidArgumentError(f"{name} value {v} is outside the int{bits} range")
    return v


def _ints(name, values, count):
    values = [_int(name, v) for v in values]
    if len(values) != count:
        raise _errors.InvalidArgumentError(f"{name} has {len(values)} values but {count} are needed")
    return values


_params_cache = {}


def _params(build, window, extra):
    """build(window, extra): the C params of a windowed op. window: (kernel_shape, strides, pads, dilations,
    ceil_mode, auto_pad); extra: the op's own attribute (storage_order, count_include_pad or p; MaxUnpool's
    checked (output_shape, indices code) pair). The last few sets are kept (the C call only reads them)."""
    def ints(values):
        return None if values is None else tuple(map(operator.index, values))
    kernel_shape, strides, pads, dilations, ceil_mode, auto_pad = window
    try:
        key = (build, ints(kernel_shape), ints(strides), ints(pads), ints(dilations), operator.index(ceil_mode),
               auto_pad, type(extra), extra)
        params = _params_cache.get(key)
    except TypeError:  # not integers or not hashable: the full build reports it
        key = params = None
    if params is None:
        params = build(window, extra)
        if key is not None:
            if len(_params_cache) >= 64:
                _params_cache.clear()
            _params_cache[key] = params
    return params


def _set_window(params, rank, strides, pads, dilations, ceil_mode, auto_pad):
    """The window attributes into params (a MaxPoolParams or WindowParams: the same leading fields)."""
    if strides is not None:
        params.strides[:rank] = _ints("strides", strides, rank)
    if dilations is not None:
        params.dilations[:rank] = _ints("dilations", dilations, rank)
    if pads is not None:
        params.pads[:2 * rank] = _ints("pads", pads, 2 * rank)
    params.ceil_mode = _int("ceil_mode", ceil_mode, 32)
    if isinstance(auto_pad, bytes):
        auto_pad = auto_pad.decode()
    if auto_pad not in _AUTO_PAD:
        raise _errors.InvalidArgumentError(f"auto_pad {auto_pad!r} is not one of NOTSET, SAME_UPPER, "
                                           "SAME_LOWER, VALID")
    params.auto_pad = _AUTO_PAD[auto_pad]


def _window_params(struct, init, window):
    """A struct (MaxPoolParams, AveragePoolParams or LpPoolParams) set to its C defaults by init for the
    window's kernel_shape, then to the window's other attributes."""
    kernel_shape, strides, pads, dilations, ceil_mode, auto_pad = window
    kernel = [_int("kernel_shape", k) for k in kernel_shape]
    params = struct()
    check(init(byref(params), len(kernel), (c_int64 * builtins.max(len(kernel), 1))(*kernel)))
    _set_window(getattr(params, "window", params), len(kernel), strides, pads, dilations, ceil_mode, auto_pad)
    return params


def _build_maxpool_params(window, storage_order):
    params = _window_params(MaxPoolParams, lib.clpool_maxpool_params_init, window)
    params.storage_order = _int("storage_order", storage_order, 32)
    return params


def _build_average_pool_params(window, count_include_pad):
    params = _window_params(AveragePoolParams, lib.clpool_average_pool_params_init, window)
    params.count_include_pad = _int("count_include_pad", count_include_pad, 32)
    return params


def _build_lp_pool_params(window, p):
    params = _window_params(LpPoolParams, lib.clpool_lp_pool_params_init, window)
    try:
        params.p = float(p)
    except (TypeError, ValueError):
        raise _errors.InvalidArgumentError(f"p must be a number, not {p!r}") from None
    return params


def _output_shape(values):
    """MaxUnpool's output_shape as a tuple of int64 values, or None. Checked before the params cache sees it:
    the cache's keys compare equal for 2.0 and 2, which would skip the integer check."""
    if values is None:
        return None
    try:
        values = tuple(values)
    except TypeError:
        raise _errors.InvalidArgumentError(f"output_shape must be a sequence of integers or None, not {values!r}") \
            from None
    return tuple(_int("output_shape", v) for v in values)


def _indices_of(value):
    code = _INDICES_OF.get(value) if isinstance(value, str) else None
    if code is None:
        raise _errors.InvalidArgumentError(f"indices_of {value!r} is not one of 'inferred', 'output'")
    return code


def _build_max_unpool_params(window, extra):
    output_shape, indices = extra
    params = _window_params(MaxUnpoolParams, lib.clpool_max_unpool_params_init, window)
    if output_shape is not None:
        params.has_output_shape = 1
        params.output_shape = shape_of(output_shape)
    params.indices = indices
    return params


_fast_arrays = True


class _Device:
    """The pyopencl side of one call: context, queue, wait list, and the op's event on the outputs."""

    def __init__(self, queue, ctx, inputs, wait_for):
        self.cl, self.cla, self.queue = sys.modules["pyopencl"], sys.modules["pyopencl.array"], queue
        if ctx is None:
            ctx = queue_context(queue)
        elif lib.clpool_context_cl_context(ctx.handle) != queue.context.int_ptr:
            raise _errors.InvalidArgumentError("ctx was made for another cl_context than the arrays' queue "
                                               "(use clpool.Context.from_pyopencl(queue) or ctx=None)")
        self.ctx = ctx
        self.allocator = inputs[0].allocator if inputs else None
        events = [e for a in inputs for e in a.events]
        if wait_for:
            events.extend(wait_for)
        self.num_events = len(events)
        self.events = (c_void_p * len(events))(*[e.int_ptr for e in events]) if events else None
        self.event = c_void_p()

    def empty(self, dims, dtype):
        global _fast_arrays
        if _fast_arrays:
            # pyopencl's own fast constructor (what its array methods use) skips ~15 us of argument
            # checks per output; a pyopencl without it gets the public constructor from then on.
            strides, size = [], dtype.itemsize
            for d in reversed(dims):
                strides.append(size)
                size *= builtins.max(d, 1)
            size = 1
            for d in dims:
                size *= d
            try:
                return self.cla.Array(None, dims, dtype, allocator=self.allocator, strides=tuple(reversed(strides)),
                                      _fast=True, _size=size, _context=self.queue.context, _queue=self.queue)
            except TypeError:
                _fast_arrays = False
        return self.cla.empty(self.queue, dims, dtype, allocator=self.allocator)

    def mem(self, a):
        """(cl_mem, byte offset) of an array. An empty array has no buffer: a small one stands in."""
        if a.base_data is None:
            if self.ctx._empty_buffer is None:
                self.ctx._empty_buffer = self.cl.Buffer(self.queue.context, self.cl.mem_flags.READ_WRITE, 64)
            return self.ctx._empty_buffer.int_ptr, 0
        return a.base_data.int_ptr, a.offset

    def finish(self, status, outputs):
        """Check the status; hand the op's event to pyopencl (which releases it) and to the outputs."""
        check(status)
        event = self.cl.Event.from_int_ptr(self.event.value, retain=False)
        for o in outputs:
            o.add_event(event)


def _context(ctx):
    if ctx is None:
        return default_context()
    if not isinstance(ctx, Context):
        raise _errors.InvalidArgumentError(f"ctx must be a clpool.Context, not {type(ctx).__name__}")
    return ctx


def max_pool(x, kernel_shape, strides=None, pads=None, dilations=None, ceil_mode=0, auto_pad="NOTSET",
             storage_order=0, return_indices=False, ctx=None, wait_for=None):
    """ONNX MaxPool. Returns y, or (y, indices) with int64 indices when return_indices is true."""
    params = _params(_build_maxpool_params, (kernel_shape, strides, pads, dilations, ceil_mode, auto_pad),
                     storage_order)
    queue = _split((x,))
    if queue is None:
        x = _host(x)
    code = dtype_code(x.dtype)
    in_shape = shape_of(x.shape)
    out_shape = Shape()
    check(lib.clpool_maxpool_output_shape(byref(in_shape), byref(params), byref(out_shape)))
    dims = dims_of(out_shape)
    if queue is None:
        y = np.empty(dims, x.dtype)
        idx = np.empty(dims, np.int64) if return_indices else None
        check(lib.clpool_maxpool_host(_context(ctx).handle, byref(params), code, byref(in_shape), x.ctypes.data,
                                      y.ctypes.data, idx.ctypes.data if return_indices else None))
    else:
        dev = _Device(queue, None if ctx is None else _context(ctx), (x,), wait_for)
        y = dev.empty(dims, x.dtype)
        idx = dev.empty(dims, _INT64) if return_indices else None
        idx_mem = dev.mem(idx) if return_indices else (None, 0)
        status = lib.clpool_enqueue_maxpool(dev.ctx.handle, queue.int_ptr, byref(params), code, byref(in_shape),
                                            *dev.mem(x), *dev.mem(y), *idx_mem, dev.num_events, dev.events,
                                            byref(dev.event))
        dev.finish(status, (y, idx) if return_indices else (y,))
    return (y, idx) if return_indices else y


def _sum_pool(x, which, params, ctx, wait_for):
    """AveragePool (which "average") or LpPool ("lp") with their C params: shape inference and one C call."""
    queue = _split((x,))
    if queue is None:
        x = _host(x)
    code = dtype_code(x.dtype)
    in_shape = shape_of(x.shape)
    out_shape = Shape()
    check(getattr(lib, f"clpool_{which}_pool_output_shape")(byref(in_shape), byref(params), byref(out_shape)))
    dims = dims_of(out_shape)
    if queue is None:
        y = np.empty(dims, x.dtype)
        check(getattr(lib, f"clpool_{which}_pool_host")(_context(ctx).handle, byref(params), code, byref(in_shape),
                                                         x.ctypes.data, y.ctypes.data))
        return y
    dev = _Device(queue, None if ctx is None else _context(ctx), (x,), wait_for)
    y = dev.empty(dims, x.dtype)
    status = getattr(lib, f"clpool_enqueue_{which}_pool")(dev.ctx.handle, queue.int_ptr, byref(params), code,
                                                          byref(in_shape), *dev.mem(x), *dev.mem(y), dev.num_events,
                                                          dev.events, byref(dev.event))
    dev.finish(status, (y,))
    return y


def average_pool(x, kernel_shape, strides=None, pads=None, dilations=None, ceil_mode=0, auto_pad="NOTSET",
                 count_include_pad=0, ctx=None, wait_for=None):
    """ONNX AveragePool: the sum of each window's taps inside the input divided by their count, or with
    count_include_pad by the count of its taps inside the padded input (explicit or auto pads, never the
    ceil_mode overrun). A window with no tap inside the input gives NaN, 0 with count_include_pad. Float
    dtypes only."""
    params = _params(_build_average_pool_params, (kernel_shape, strides, pads, dilations, ceil_mode, auto_pad),
                     count_include_pad)
    return _sum_pool(x, "average", params, ctx, wait_for)


def lp_pool(x, kernel_shape, p=2, strides=None, pads=None, dilations=None, ceil_mode=0, auto_pad="NOTSET",
            ctx=None, wait_for=None):
    """ONNX LpPool: (sum over each window's taps inside the input of |x|^p)^(1/p), 0 for a window with no
    tap inside; p > 0 (int or float). Float dtypes only."""
    params = _params(_build_lp_pool_params, (kernel_shape, strides, pads, dilations, ceil_mode, auto_pad), p)
    return _sum_pool(x, "lp", params, ctx, wait_for)


def _check_counter(skipped, queue):
    """skipped= of max_unpool: a C-contiguous pyopencl array of one uint32 on the inputs' queue."""
    if queue is None:
        raise _errors.InvalidArgumentError("skipped= goes with pyopencl inputs (numpy inputs raise on skipped "
                                           "indices instead)")
    if not isinstance(skipped, _cl_array_type()):
        raise _errors.InvalidArgumentError(f"skipped must be a pyopencl array, not {type(skipped).__name__}")
    if skipped.dtype != np.uint32:
        raise _errors.UnsupportedDtypeError(f"skipped must be uint32, not {skipped.dtype}")
    if skipped.size != 1:
        raise _errors.InvalidShapeError(f"skipped must hold one element, not {skipped.size} (shape "
                                        f"{skipped.shape})")
    own = _split((skipped,))  # its queue, once it is known to be C-contiguous
    if own is not queue and own.int_ptr != queue.int_ptr:
        raise _errors.InvalidArgumentError("pyopencl inputs are on different queues; pass them on one queue")


def max_unpool(x, indices, kernel_shape, strides=None, pads=None, output_shape=None, indices_of="inferred",
               ctx=None, wait_for=None, skipped=None):
    """ONNX MaxUnpool: a zero-filled output with each element of `x` stored at its index.

    Parameters
    ----------
    x : numpy.ndarray or pyopencl.array.Array
        N x C x D1 x ... values: float32, float64, float16, bfloat16, int8 or uint8 (as max_pool).
    indices : numpy.ndarray or pyopencl.array.Array
        int64, the shape of `x`, where each element of `x` goes: ``(n * C + c) * plane_size + position``
        in planes of the shape indices_of names, as max_pool's indices with storage_order 0 are. On the
        same side as `x` (and on its queue).
    kernel_shape, strides, pads : sequences of int
        The attributes of the MaxPool that made the indices; strides default to 1, pads to 0.
    output_shape : sequence of int, optional
        The output's shape (ONNX's third input): the rank of `x`, with its N and C. Default: the inferred
        N x C x ((D_i - 1) * strides_i + kernel_shape_i - pads_begin_i - pads_end_i).
    indices_of : {"inferred", "output"}
        Which plane the positions count in where output_shape differs from the inferred shape.
        "inferred": the inferred shape's, that block placed at the output's origin (onnx.reference and the
        ONNX node tests). "output": the output's own, as max_pool's indices of an input of that shape are
        (PyTorch's max_unpool, ONNX Runtime); pass output_shape=x.shape of the pooled x for a round trip.
    ctx, wait_for
        As for the other ops (the clpool module's docstring).
    skipped : pyopencl.array.Array, optional
        pyopencl inputs only: one uint32 that the count of skipped indices is added to (saturating at
        2**32 - 1), read after the op without a host wait in between. Without it, bad indices of device
        inputs are skipped silently: checking them would need a host wait.

    Returns
    -------
    numpy.ndarray or pyopencl.array.Array
        The output, of `x`'s dtype. Where several elements share an index it holds one of their values.

    Raises
    ------
    clpool.InvalidArgumentError
        numpy inputs with indices outside their (n, c) plane of the output (or, "inferred", at coordinates
        outside it): nothing is returned. Also a bad indices_of or output_shape, or skipped= with numpy
        inputs.
    clpool.UnsupportedDtypeError, clpool.InvalidShapeError
        indices not int64 or not of the shape of `x`, skipped not uint32 or not of one element; and the C
        library's checks.
    """
    params = _params(_build_max_unpool_params, (kernel_shape, strides, pads, None, 0, "NOTSET"),
                     (_output_shape(output_shape), _indices_of(indices_of)))
    queue = _split((x, indices))
    if queue is None:
        x, indices = _host(x), _host(indices)
    if skipped is not None:
        _check_counter(skipped, queue)
    code = dtype_code(x.dtype)
    in_shape = shape_of(x.shape)
    out_shape = Shape()
    check(lib.clpool_max_unpool_output_shape(byref(in_shape), byref(params), byref(out_shape)))
    if indices.dtype != _INT64:
        raise _errors.UnsupportedDtypeError(f"indices must be int64, not {indices.dtype}")
    if tuple(indices.shape) != tuple(x.shape):
        raise _errors.InvalidShapeError(f"indices have shape {tuple(indices.shape)} but X has {tuple(x.shape)}; "
                                        "they must be the same")
    dims = dims_of(out_shape)
    if queue is None:
        y = np.empty(dims, x.dtype)
        count = c_uint32()
        check(lib.clpool_max_unpool_host(_context(ctx).handle, byref(params), code, byref(in_shape), x.ctypes.data,
                                         indices.ctypes.data, y.ctypes.data, byref(count)))
        if count.value:
            # The count saturates at 2**32 - 1 (the C counter's limit).
            n = f"{count.value} or more" if count.value == 0xFFFFFFFF else str(count.value)
            what = "1 index lies outside its" if count.value == 1 else f"{n} indices lie outside their"
            raise _errors.InvalidArgumentError(f"{what} (n, c) plane of the output")
        return y
    counter = () if skipped is None else (skipped,)
    dev = _Device(queue, None if ctx is None else _context(ctx), (x, indices) + counter, wait_for)
    y = dev.empty(dims, x.dtype)
    status = lib.clpool_enqueue_max_unpool(dev.ctx.handle, queue.int_ptr, byref(params), code, byref(in_shape),
                                           *dev.mem(x), *dev.mem(indices), *dev.mem(y),
                                           *(dev.mem(skipped) if counter else (None, 0)), dev.num_events,
                                           dev.events, byref(dev.event))
    dev.finish(status, (y,) + counter)
    return y


def _global_pool(x, which, p, ctx, wait_for):
    queue = _split((x,))
    if queue is None:
        x = _host(x)
    code = dtype_code(x.dtype)
    in_shape = shape_of(x.shape)
    out_shape = Shape()
    check(lib.clpool_global_pool_output_shape(byref(in_shape), byref(out_shape)))
    dims = dims_of(out_shape)
    lp = which == "lp"
    if queue is None:
        y = np.empty(dims, x.dtype)
        args = (code, byref(in_shape), x.ctypes.data, y.ctypes.data)
        handle = _context(ctx).handle
        if lp:
            check(lib.clpool_global_lp_pool_host(handle, p, *args))
        else:
            check(getattr(lib, f"clpool_global_{which}_pool_host")(handle, *args))
        return y
    dev = _Device(queue, None if ctx is None else _context(ctx), (x,), wait_for)
    y = dev.empty(dims, x.dtype)
    args = (code, byref(in_shape), *dev.mem(x), *dev.mem(y), dev.num_events, dev.events, byref(dev.event))
    if lp:
        status = lib.clpool_enqueue_global_lp_pool(dev.ctx.handle, queue.int_ptr, p, *args)
    else:
        status = getattr(lib, f"clpool_enqueue_global_{which}_pool")(dev.ctx.handle, queue.int_ptr, *args)
    dev.finish(status, (y,))
    return y


def global_max_pool(x, ctx=None, wait_for=None):
    """ONNX GlobalMaxPool: the maximum over every axis after the first two (NaN propagates)."""
    return _global_pool(x, "max", 0.0, ctx, wait_for)


def global_average_pool(x, ctx=None, wait_for=None):
    """ONNX GlobalAveragePool: the mean over every axis after the first two."""
    return _global_pool(x, "average", 0.0, ctx, wait_for)


def global_lp_pool(x, p=2, ctx=None, wait_for=None):
    """ONNX GlobalLpPool: (sum |x|^p)^(1/p) over every axis after the first two; p > 0 (int or float)."""
    return _global_pool(x, "lp", float(p), ctx, wait_for)


def max(*inputs, ctx=None, wait_for=None):  # noqa: A001 (the ONNX name)
    """ONNX Max: element-wise maximum of one or more arrays of one dtype with numpy broadcasting."""
    queue = _split(inputs)
    if queue is None:
        inputs = [_host(a) for a in inputs]
    n = len(inputs)
    shapes = (Shape * builtins.max(n, 1))(*[shape_of(a.shape) for a in inputs])
    out_shape = Shape()
    check(lib.clpool_max_output_shape(n, shapes, byref(out_shape)))
    dtype = inputs[0].dtype
    for a in inputs[1:]:
        if a.dtype != dtype:
            raise _errors.UnsupportedDtypeError(f"Max inputs must share one dtype: got {dtype} and {a.dtype}")
    code = dtype_code(dtype)
    dims = dims_of(out_shape)
    if queue is None:
        y = np.empty(dims, dtype)
        ptrs = (c_void_p * n)(*[a.ctypes.data for a in inputs])
        check(lib.clpool_max_host(_context(ctx).handle, code, n, shapes, ptrs, y.ctypes.data))
        return y
    dev = _Device(queue, None if ctx is None else _context(ctx), inputs, wait_for)
    y = dev.empty(dims, dtype)
    mems = [dev.mem(a) for a in inputs]
    status = lib.clpool_enqueue_max(dev.ctx.handle, queue.int_ptr, code, n, shapes,
                                    (c_void_p * n)(*[m for m, _ in mems]), (c_size_t * n)(*[o for _, o in mems]),
                                    *dev.mem(y), dev.num_events, dev.events, byref(dev.event))
    dev.finish(status, (y,))
    return y
