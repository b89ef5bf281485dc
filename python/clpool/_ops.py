"""The ops: argument conversion, shape inference and one C call each (numpy: the blocking *_host call;
pyopencl: the enqueue call on the arrays' queue). No op logic lives here."""
import builtins
import operator
import sys
from ctypes import byref, c_int64, c_size_t, c_void_p

import numpy as np

from . import _errors
from ._context import Context, default_context, queue_context
from ._dtypes import dtype_code
from ._lib import AveragePoolParams, LpPoolParams, MaxPoolParams, Shape, check, dims_of, lib, shape_of

_INT64 = np.dtype(np.int64)
_AUTO_PAD = {"NOTSET": 0, "SAME_UPPER": 1, "SAME_LOWER": 2, "VALID": 3}


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
    ceil_mode, auto_pad); extra: the op's own attribute (storage_order, count_include_pad or p). The last
    few sets are kept (the C call only reads them)."""
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
