"""The ops: argument checking and conversion, shape inference and one C call each (numpy: the blocking *_host
call; pyopencl: the enqueue call on the chosen queue). No op logic lives here.

A wrong Python type raises InvalidTypeError (a TypeError), a wrong value of the right type an Error of the
ValueError kind; the attributes' types are all checked before any of their values, so that a wrong type is
reported as one whatever the other attributes hold."""
from __future__ import annotations

import builtins
import ctypes
import math
import numbers
import operator
import sys
from collections.abc import Sequence as _SequenceABC
from ctypes import byref, c_int64, c_size_t, c_uint32, c_void_p
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, SupportsIndex, Tuple, Type,
                    TypeVar, Union, cast, overload)

import numpy as np
import numpy.typing as npt

from . import _errors
from ._context import Context, default_context, queue_context
from ._dtypes import dtype_code
from ._lib import (AveragePoolParams, LpPoolParams, MaxPoolParams, MaxUnpoolParams, Shape, View, check, dims_of, lib,
                   opencl,
                   shape_of)

if TYPE_CHECKING:
    from typing import Literal

    # pyopencl is optional: without it its types are Any (the ignore keeps --strict quiet then).
    import pyopencl as cl  # type: ignore[import-not-found, unused-ignore]
    import pyopencl.array as cla  # type: ignore[import-not-found, unused-ignore]

_NDArray = npt.NDArray[Any]
# Integer attributes: a sequence of ints (numpy integers too) or a 1-d integer array.
_Ints = Union[Sequence[SupportsIndex], npt.NDArray[np.integer[Any]]]
_Real = Union[float, np.floating[Any], np.integer[Any]]
_Scalar = Union[int, float, np.generic]  # Max's scalar inputs: Python bool, int, float; numpy scalars

_INT64 = np.dtype(np.int64)
_AUTO_PAD = {"NOTSET": 0, "SAME_UPPER": 1, "SAME_LOWER": 2, "VALID": 3}
_INDICES_OF = {"inferred": 0, "output": 1}  # clpool_unpool_indices


# ----------------------------------------------------------------------------------------- argument checks

def _show(value: Any) -> str:
    """A short description of a value for a message: its repr up to 60 characters, a huge int by its size
    (Python refuses to print ints past 4300 digits)."""
    if isinstance(value, int) and value.bit_length() > 200:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except Exception:  # a repr that fails must not hide the error being reported
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _as_int(name: str, value: Any, what: str = "must be an integer") -> int:
    """An integer attribute (int, bool or numpy integer: anything with __index__); its range is checked
    apart, after every type (_fit)."""
    try:
        return operator.index(value)
    except TypeError:
        raise _errors.InvalidTypeError(f"{name} {what}, not {_show(value)}") from None


def _fit(name: str, value: int, bits: int = 64) -> int:
    """A value that fits its C field (int64, or int32 for the flags): ctypes would silently keep the low bits
    of a larger one (2**64 + 2 would run as 2)."""
    if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise _errors.InvalidArgumentError(f"{name} value {_show(value)} is outside the int{bits} range")
    return value


def _as_ints(name: str, values: Any) -> List[int]:
    """A sequence of integers as a list of ints. A str, a set (no order), a mapping or a scalar is refused: each
    would be read as something other than what was meant."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise _errors.InvalidTypeError(f"{name} must be a sequence of integers, not a {values.ndim}-d array")
        values = values.tolist()
    elif isinstance(values, (str, bytes, bytearray)) or not isinstance(values, _SequenceABC):
        raise _errors.InvalidTypeError(f"{name} must be a sequence of integers, not {_show(values)}")
    return [_as_int(name, v, "must hold integers") for v in values]


def _as_real(name: str, value: Any) -> float:
    """A real number (int, float, numpy integer or floating, a 0-d array of one). A str is refused, not
    parsed; a complex value is refused, not truncated."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, numbers.Real):
        raise _errors.InvalidTypeError(f"{name} must be a real number, not {_show(value)}")
    try:
        return float(value)
    except OverflowError:  # an int past float64's range
        raise _errors.InvalidArgumentError(f"{name} value {_show(value)} is outside the float64 range") from None


def _as_bool(name: str, value: Any) -> bool:
    """A flag: a bool, numpy bool, or the integer 0 or 1."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    v = _as_int(name, value, "must be a bool")
    if v not in (0, 1):
        raise _errors.InvalidArgumentError(f"{name} must be a bool, 0 or 1, not {_show(v)}")
    return bool(v)


def _as_str(name: str, value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if not isinstance(value, str):
        raise _errors.InvalidTypeError(f"{name} must be a str, not {_show(value)}")
    return value


def _check_ctx(ctx: Any) -> Optional[Context]:
    if ctx is not None and not isinstance(ctx, Context):
        raise _errors.InvalidTypeError(f"ctx must be a clpool.Context, not {type(ctx).__name__}")
    return ctx


def _check_events(wait_for: Any) -> List[Any]:
    """wait_for as a list of pyopencl events (any iterable of them; None is none)."""
    if wait_for is None:
        return []
    if isinstance(wait_for, (str, bytes)):
        raise _errors.InvalidTypeError(f"wait_for must be a sequence of pyopencl.Event, not {_show(wait_for)}")
    try:
        events = list(wait_for)
    except TypeError:
        raise _errors.InvalidTypeError(f"wait_for must be a sequence of pyopencl.Event, not "
                                       f"{type(wait_for).__name__}") from None
    cl = sys.modules.get("pyopencl")
    for e in events:
        if cl is None or not isinstance(e, cl.Event):
            raise _errors.InvalidTypeError(f"wait_for must hold pyopencl.Event objects, not {type(e).__name__}")
    return events


def _check_queue(queue: Any) -> Any:
    if queue is not None:
        cl = sys.modules.get("pyopencl")
        if cl is None or not isinstance(queue, cl.CommandQueue):
            raise _errors.InvalidTypeError(f"queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
    return queue


def _cl_array_type() -> Any:
    # pyopencl is optional: an object can only be a pyopencl array once pyopencl.array is imported.
    mod = sys.modules.get("pyopencl.array")
    return mod.Array if mod is not None else None


def _side(inputs: Sequence[Any], queue: Any, events: List[Any]) -> Any:
    """The pyopencl queue a call enqueues on, or None when the inputs are all host arrays. Mixing is an
    error; so are wait_for= and queue= with host arrays (they would be ignored). Every op takes pyopencl
    arrays of any strides, as views."""
    cl_type = _cl_array_type()
    on_device = [cl_type is not None and isinstance(a, cl_type) for a in inputs]
    if not any(on_device):
        if queue is not None:
            raise _errors.InvalidArgumentError("queue= goes with pyopencl inputs; numpy inputs run on ctx's queue "
                                               "(ctx=clpool.Context.from_pyopencl(queue) runs them on its device)")
        if events:
            raise _errors.InvalidArgumentError("wait_for= goes with pyopencl inputs; numpy inputs run blocking and "
                                               "wait for nothing (wait for the events first: "
                                               "pyopencl.wait_for_events)")
        return None
    if not all(on_device):
        raise _errors.InvalidArgumentError("inputs mix pyopencl arrays and host arrays; pass one kind")
    if queue is None:
        queue = inputs[0].queue
        for a in inputs:
            if a.queue is None:
                raise _errors.InvalidArgumentError("a pyopencl input has no queue; pass queue=")
            if a.queue is not queue and a.queue.int_ptr != queue.int_ptr:
                raise _errors.InvalidArgumentError("pyopencl inputs are on different queues; pass them on one queue "
                                                   "(or pass queue=)")
    else:
        for a in inputs:
            if a.context.int_ptr != queue.context.int_ptr:
                raise _errors.InvalidArgumentError("queue= belongs to another cl_context than the pyopencl inputs")
    return queue


def _host(a: Any, name: str = "x") -> _NDArray:
    """A native-byte-order numpy array of any strides (every op takes views; copied to C order only where
    the OpenCL ICD loader, which views need, was not found). Array-likes are converted as numpy converts them; what numpy cannot
    make an array of numbers of is refused."""
    if not isinstance(a, np.ndarray):
        if a is None or isinstance(a, (str, bytes, bytearray, dict, set, frozenset)):
            raise _errors.InvalidTypeError(f"{name} must be a numpy array or a pyopencl array, not "
                                           f"{type(a).__name__}")
        try:
            converted = np.asarray(a)
        except (TypeError, ValueError) as e:  # e.g. a ragged nested list
            raise _errors.InvalidTypeError(f"{name} is not an array ({e})") from None
        if converted.dtype.kind in "OUS":
            raise _errors.InvalidTypeError(f"{name} must be an array of numbers, not {_show(a)}")
        a = converted
    elif isinstance(a, np.ma.MaskedArray):  # its mask would be dropped silently
        raise _errors.InvalidTypeError(f"{name} is a masked array; pass {name}.filled(value) or its data")
    arr: _NDArray = a
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.flags.c_contiguous or opencl is not None:
        return arr
    return arr.copy(order="C")  # np.ascontiguousarray makes 0-d arrays 1-d


def _check_out_layout(out: Any, dims: Tuple[int, ...], dtype: np.dtype[Any], name: str) -> None:
    """What every out= array must match: the result's dtype and shape, C-contiguous."""
    if out.dtype != dtype:
        raise _errors.UnsupportedDtypeError(f"{name} has dtype {out.dtype} but the result is {dtype}")
    if tuple(out.shape) != dims:
        raise _errors.InvalidShapeError(f"{name} has shape {tuple(out.shape)} but the result has shape {dims}")
    if not out.flags.c_contiguous:
        raise _errors.InvalidArgumentError(f"{name} of shape {tuple(out.shape)} and strides {out.strides} is not "
                                           "C-contiguous (outputs are written in place)")


def _np_empty(dims: Tuple[int, ...], dtype: np.dtype[Any]) -> _NDArray:
    try:
        return np.empty(dims, dtype)
    except MemoryError:
        raise _errors.OutOfHostMemoryError(f"no host memory for an output of shape {dims} and dtype {dtype}") \
            from None
    except ValueError as e:  # numpy's "array is too big"
        raise _errors.SizeOverflowError(f"an output of shape {dims} and dtype {dtype}: {e}") from None


def _host_out(out: Any, dims: Tuple[int, ...], dtype: np.dtype[Any], name: str = "out") -> _NDArray:
    """A new output, or out= checked: a writeable numpy array of the result's dtype and shape, C-contiguous."""
    if out is None:
        return _np_empty(dims, dtype)
    _check_out_type(out, False, name)
    _check_out_layout(out, dims, dtype, name)
    if not out.flags.writeable:
        raise _errors.InvalidArgumentError(f"{name} is read-only")
    return cast(_NDArray, out)  # _check_out_type made sure of it


def _check_out_type(out: Any, on_device: bool, name: str) -> None:
    if out is None:
        return
    if on_device:
        cl_type = _cl_array_type()
        if cl_type is None or not isinstance(out, cl_type):
            raise _errors.InvalidTypeError(f"{name} must be a pyopencl.array.Array for pyopencl inputs, not "
                                           f"{type(out).__name__}")
    elif not isinstance(out, np.ndarray):
        raise _errors.InvalidTypeError(f"{name} must be a numpy.ndarray for numpy inputs, not {type(out).__name__}")


def _check_host_disjoint(a: Optional[_NDArray], b: Optional[_NDArray], what: str) -> None:
    # Both are C-contiguous, so overlapping bounds are overlapping elements.
    if a is not None and b is not None and a.size and b.size and np.may_share_memory(a, b):
        raise _errors.InvalidArgumentError(f"{what} overlap in memory")


def _context(ctx: Optional[Context]) -> Context:
    return default_context() if ctx is None else ctx


# ------------------------------------------------------------------------------------------------ params

class _NoKey(Exception):
    """Arguments that are not plain ints and strs: built without the cache."""


def _key_ints(values: Any) -> Optional[Tuple[int, ...]]:
    if values is None:
        return None
    if type(values) is not list and type(values) is not tuple:
        raise _NoKey
    for v in values:
        if type(v) is not int:
            raise _NoKey
    return tuple(values)


_params_cache: Dict[Any, Any] = {}


def _params(build: Callable[[Any, Any], Any], window: Tuple[Any, ...], extra: Any) -> Any:
    """build(window, extra): the C params of a windowed op. window: (kernel_shape, strides, pads, dilations,
    ceil_mode, auto_pad); extra: the op's own attribute (storage_order, count_include_pad or p; MaxUnpool's
    (output_shape, indices_of) pair). The last few sets of plain lists, tuples, ints and strs are kept (the C
    call only reads them); anything else is checked and built on each call."""
    kernel_shape, strides, pads, dilations, ceil_mode, auto_pad = window
    key: Optional[Tuple[Any, ...]]
    try:
        if type(ceil_mode) is not int or type(auto_pad) is not str:
            raise _NoKey
        key = (build, _key_ints(kernel_shape), _key_ints(strides), _key_ints(pads), _key_ints(dilations), ceil_mode,
               auto_pad, type(extra), extra)
        params = _params_cache.get(key)
    except (_NoKey, TypeError):  # TypeError: an unhashable extra; the full build reports it
        key = params = None
    if params is None:
        params = build(window, extra)
        if key is not None:
            if len(_params_cache) >= 64:
                _params_cache.clear()
            _params_cache[key] = params
    return params


def _typed_window(window: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """The window attributes with their types checked (lists of ints, an int, a str), values unchecked."""
    kernel_shape, strides, pads, dilations, ceil_mode, auto_pad = window
    return (_as_ints("kernel_shape", kernel_shape),
            None if strides is None else _as_ints("strides", strides),
            None if pads is None else _as_ints("pads", pads),
            None if dilations is None else _as_ints("dilations", dilations),
            _as_int("ceil_mode", ceil_mode), _as_str("auto_pad", auto_pad))


_P = TypeVar("_P", MaxPoolParams, AveragePoolParams, LpPoolParams, MaxUnpoolParams)


def _fill_window(struct: Type[_P], init: Any, typed: Tuple[Any, ...]) -> _P:
    """A struct (MaxPoolParams, AveragePoolParams, LpPoolParams or MaxUnpoolParams) set to its C defaults by
    init for the window's kernel_shape, then to the window's other (type-checked) attributes."""
    kernel, strides, pads, dilations, ceil_mode, auto_pad = typed
    kernel = [_fit("kernel_shape", k) for k in kernel]
    params = struct()
    check(init(byref(params), len(kernel), (c_int64 * builtins.max(len(kernel), 1))(*kernel)))
    window = getattr(params, "window", params)  # MaxPoolParams has the window's fields at its start
    rank = len(kernel)
    for name, values, count in (("strides", strides, rank), ("dilations", dilations, rank), ("pads", pads, 2 * rank)):
        if values is not None:
            values = [_fit(name, v) for v in values]
            if len(values) != count:
                raise _errors.InvalidArgumentError(f"{name} has {len(values)} values but {count} are needed")
            getattr(window, name)[:count] = values
    window.ceil_mode = _fit("ceil_mode", ceil_mode, 32)
    if auto_pad not in _AUTO_PAD:
        raise _errors.InvalidArgumentError(f"auto_pad {auto_pad!r} is not one of NOTSET, SAME_UPPER, "
                                           "SAME_LOWER, VALID")
    window.auto_pad = _AUTO_PAD[auto_pad]
    return params


def _build_maxpool_params(window: Tuple[Any, ...], storage_order: Any) -> MaxPoolParams:
    typed, storage_order = _typed_window(window), _as_int("storage_order", storage_order)
    params = _fill_window(MaxPoolParams, lib.clpool_maxpool_params_init, typed)
    params.storage_order = _fit("storage_order", storage_order, 32)
    return params


def _build_average_pool_params(window: Tuple[Any, ...], count_include_pad: Any) -> AveragePoolParams:
    typed, count_include_pad = _typed_window(window), _as_int("count_include_pad", count_include_pad)
    params = _fill_window(AveragePoolParams, lib.clpool_average_pool_params_init, typed)
    params.count_include_pad = _fit("count_include_pad", count_include_pad, 32)
    return params


def _build_lp_pool_params(window: Tuple[Any, ...], p: Any) -> LpPoolParams:
    typed, p = _typed_window(window), _as_real("p", p)
    params = _fill_window(LpPoolParams, lib.clpool_lp_pool_params_init, typed)
    params.p = p
    return params


def _build_max_unpool_params(window: Tuple[Any, ...], extra: Any) -> MaxUnpoolParams:
    output_shape, indices_of = extra  # their types checked already (max_unpool)
    params = _fill_window(MaxUnpoolParams, lib.clpool_max_unpool_params_init, _typed_window(window))
    if output_shape is not None:
        params.has_output_shape = 1
        params.output_shape = shape_of([_fit("output_shape", v) for v in output_shape])
    code = _INDICES_OF.get(indices_of)
    if code is None:
        raise _errors.InvalidArgumentError(f"indices_of {indices_of!r} is not one of 'inferred', 'output'")
    params.indices = code
    return params


# ---------------------------------------------------------------------------------------- the device side

_fast_arrays = True


def _overlap(a: Any, b: Any) -> bool:
    """Whether two pyopencl arrays share bytes of one buffer."""
    if a.base_data is None or b.base_data is None or not a.nbytes or not b.nbytes:
        return False
    return bool(a.base_data.int_ptr == b.base_data.int_ptr and a.offset < b.offset + b.nbytes
                and b.offset < a.offset + a.nbytes)


class _Device:
    """The pyopencl side of one call: context, queue, wait list, outputs, and the op's event on the outputs."""

    def __init__(self, queue: Any, ctx: Optional[Context], inputs: Sequence[Any], events: List[Any]) -> None:
        self.cl, self.cla, self.queue = sys.modules["pyopencl"], sys.modules["pyopencl.array"], queue
        if ctx is None:
            ctx = queue_context(queue)
        elif lib.clpool_context_cl_context(ctx.handle) != queue.context.int_ptr:
            raise _errors.InvalidArgumentError("ctx was made for another cl_context than the arrays' queue "
                                               "(use clpool.Context.from_pyopencl(queue) or ctx=None)")
        self.ctx = ctx
        self.allocator = inputs[0].allocator if inputs else None
        self.wait = [e for a in inputs for e in a.events] + events
        self.outputs: List[Any] = []
        self.given = False  # whether an output came from out= (a new one overlaps nothing)
        self.event = c_void_p()
        self.keep: List[Any] = []  # buffers made for the call (Max's scalars), alive until it is enqueued

    def empty(self, dims: Tuple[int, ...], dtype: np.dtype[Any]) -> Any:
        global _fast_arrays
        try:
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
                    return self.cla.Array(None, dims, dtype, allocator=self.allocator,
                                          strides=tuple(reversed(strides)), _fast=True, _size=size,
                                          _context=self.queue.context, _queue=self.queue)
                except TypeError:
                    _fast_arrays = False
            return self.cla.empty(self.queue, dims, dtype, allocator=self.allocator)
        except self.cl.Error as e:
            raise _errors.OpenCLError(f"allocating an output of shape {dims} and dtype {dtype} failed: {e}") \
                from None

    def out(self, out: Any, dims: Tuple[int, ...], dtype: np.dtype[Any], name: str = "out",
            order: Optional[List[int]] = None) -> Any:
        """A new output on the queue, or out= checked: a pyopencl array of the queue's cl_context, of the
        result's dtype and shape, C-contiguous, not overlapping an input; written at its offset, after its
        events. With `order` (a view call): a new one holds its axes in that memory order, out= any strides."""
        if out is None:
            y = self.empty(dims, dtype) if order is None else _in_order(self.empty, dims, dtype, order)
        else:
            _check_out_type(out, True, name)
            if out.context.int_ptr != self.queue.context.int_ptr:
                raise _errors.InvalidArgumentError(f"{name} belongs to another cl_context than the queue")
            if order is None:
                _check_out_layout(out, dims, dtype, name)
            else:
                _check_view_out(out, dims, dtype, name)
            self.wait.extend(out.events)
            self.given = True
            y = out
        self.outputs.append(y)
        return y

    def check_disjoint(self, names: Sequence[str], arrays: Sequence[Any], inputs: Sequence[Any]) -> None:
        """Outputs that overlap an input or each other would be read after being written: refused (Max's
        exact in-place use is the C library's to check)."""
        if not self.given and len(arrays) == len(self.outputs):
            return
        for i, (name, a) in enumerate(zip(names, arrays)):
            if any(_overlap(a, b) for b in inputs):
                raise _errors.InvalidArgumentError(f"{name} overlaps an input in its buffer")
            for other, b in zip(names[i + 1:], arrays[i + 1:]):
                if _overlap(a, b):
                    raise _errors.InvalidArgumentError(f"{name} and {other} overlap in their buffer")

    def upload(self, value: _NDArray) -> Any:
        """A 0-d host value as a (cl_mem, 0) input, in a buffer made with its contents (nothing enqueued)."""
        mf = self.cl.mem_flags
        raw = value.reshape(1).view(np.uint8)  # as bytes: not every dtype (bfloat16) exports a buffer
        buf = self.cl.Buffer(self.queue.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=raw)
        self.keep.append(buf)
        return buf.int_ptr, 0

    def mem(self, a: Any) -> Tuple[int, int]:
        """(cl_mem, byte offset) of an array. An empty array has no buffer: a small one stands in."""
        if a.base_data is None:
            if self.ctx._empty_buffer is None:
                self.ctx._empty_buffer = self.cl.Buffer(self.queue.context, self.cl.mem_flags.READ_WRITE, 64)
            return self.ctx._empty_buffer.int_ptr, 0
        return a.base_data.int_ptr, a.offset

    def waits(self) -> Tuple[int, Any, Any]:
        """The C call's wait list and event arguments (each event once)."""
        events = list(dict.fromkeys(e.int_ptr for e in self.wait))
        array = (c_void_p * len(events))(*events) if events else None
        return len(events), array, byref(self.event)

    def finish(self, status: int, extra: Sequence[Any] = ()) -> None:
        """Check the status; hand the op's event to pyopencl (which releases it) and to the outputs."""
        check(status)
        event = self.cl.Event.from_int_ptr(self.event.value, retain=False)
        for o in list(self.outputs) + list(extra):
            o.add_event(event)


def _prepare(inputs: Sequence[Any], ctx: Any, wait_for: Any, queue: Any) -> Tuple[Any, Optional[_Device]]:
    """The common arguments checked (types first), and the side: (host inputs, None) for numpy inputs,
    (inputs, _Device) for pyopencl ones."""
    ctx = _check_ctx(ctx)
    events = _check_events(wait_for)
    queue = _side(inputs, _check_queue(queue), events)
    if queue is None:
        names = ["x", "indices"] if len(inputs) == 2 else ["x"]
        return [_host(a, n) for a, n in zip(inputs, names)], None
    return list(inputs), _Device(queue, ctx, inputs, events)


def _host_handle(ctx: Optional[Context]) -> int:
    return _context(ctx).handle


# ------------------------------------------------------------------------------------------------- views

_CL_MEM_READ_WRITE, _CL_MEM_READ_ONLY, _CL_MEM_COPY_HOST_PTR = 1, 4, 32


def _element_strides(a: Any, name: str) -> List[int]:
    """An array's strides in elements; strides that are not whole elements are refused."""
    size = a.dtype.itemsize
    if any(s % size for s in a.strides):
        raise _errors.InvalidArgumentError(f"{name} has strides {tuple(a.strides)} (bytes), not multiples of its "
                                           f"item size {size}")
    return [s // size for s in a.strides]


def _memory_order(a: Any) -> List[int]:
    """An array's axes from the outermost in memory (largest stride) to the innermost."""
    return sorted(range(a.ndim), key=lambda i: (-abs(a.strides[i]), i))


def _in_order(empty: Callable[[Tuple[int, ...], np.dtype[Any]], Any], dims: Tuple[int, ...], dtype: np.dtype[Any],
              order: List[int]) -> Any:
    """A new array of `dims` whose memory holds the axes in `order` (an input's layout kept: a channels-last
    input gives a channels-last output)."""
    stored = empty(tuple(dims[i] for i in order), dtype)
    return stored.transpose([order.index(i) for i in range(len(dims))])


def _view(mem: int, offset: int, a: Any, strides: List[int]) -> View:
    v = View()
    v.mem, v.offset, v.rank = mem, offset, a.ndim
    for i, (d, st) in enumerate(zip(a.shape, strides)):
        v.dims[i], v.strides[i] = d, st
    return v


def _span(a: Any, strides: List[int]) -> Tuple[int, int]:
    """The element offsets from element 0 an array's elements reach: (lowest, highest)."""
    lo = builtins.sum(builtins.min(0, (d - 1) * st) for d, st in zip(a.shape, strides) if d > 0)
    hi = builtins.sum(builtins.max(0, (d - 1) * st) for d, st in zip(a.shape, strides) if d > 0)
    return lo, hi


def _dense(a: Any) -> bool:
    """Whether an array's elements fill its memory span without gaps or repeats, in some axis order."""
    if a.size == 0:
        return True
    lo, hi = _span(a, _element_strides(a, "out"))
    return lo == 0 and hi + 1 == a.size and all(st > 0 for d, st in zip(a.shape, a.strides) if d > 1)


def _host_views(ctx: Optional[Context], run: Callable[..., int], arrays: Sequence[_NDArray], inputs: int = 1) -> None:
    """A view call on numpy arrays: the inputs (the first `inputs` arrays, any strides) uploaded as the span
    of memory their elements reach, no host copy; the outputs (dense in some axis order) read back into their
    memory. `run` takes (handle, queue, views..., wait list count, wait list, event) and enqueues the op."""
    cl = opencl  # not None: _host takes numpy views only where the ICD loader was found
    assert cl is not None
    handle = _host_handle(ctx)
    cl_context, queue = lib.clpool_context_cl_context(handle), lib.clpool_context_cl_queue(handle)
    mems: List[Tuple[int, int, int]] = []
    try:
        views = []
        for k, a in enumerate(arrays):
            strides = _element_strides(a, ("x" if inputs == 1 else f"inputs[{k}]") if k < inputs else "out")
            lo, hi = _span(a, strides)
            nbytes = (hi - lo + 1) * a.itemsize if a.size else 1
            ptr = a.ctypes.data + lo * a.itemsize
            err = ctypes.c_int32(0)
            flags = _CL_MEM_READ_ONLY | _CL_MEM_COPY_HOST_PTR if k < inputs and a.size else _CL_MEM_READ_WRITE
            mem = cl.clCreateBuffer(cl_context, flags, nbytes, ptr if flags & _CL_MEM_COPY_HOST_PTR else None,
                                        byref(err))
            if err.value != 0 or not mem:
                raise _errors.OpenCLError(f"clCreateBuffer of {nbytes} bytes for a view failed ({err.value})")
            mems.append((mem, ptr, nbytes))
            views.append(_view(mem, -lo * a.itemsize, a, strides))
        check(run(handle, None, *[byref(v) for v in views], 0, None, None))
        for k, (mem, ptr, nbytes) in enumerate(mems):
            if k >= inputs and arrays[k].size:
                e = cl.clEnqueueReadBuffer(queue, mem, 1, 0, nbytes, ptr, 0, None, None)
                if e != 0:
                    raise _errors.OpenCLError(f"clEnqueueReadBuffer of a view's {nbytes} bytes failed ({e})")
    finally:
        if mems:
            cl.clFinish(queue)
        for mem, _, _ in mems:
            cl.clReleaseMemObject(mem)


def _host_view_out(out: Any, dims: Tuple[int, ...], dtype: np.dtype[Any], order: List[int], name: str) -> _NDArray:
    """A numpy output of a view call: a new one in `order`, or out= checked (the result's dtype and shape,
    writeable, dense in some axis order: _host_views reads it back whole)."""
    if out is None:
        y: _NDArray = _in_order(_np_empty, dims, dtype, order)
        return y
    _check_out_type(out, False, name)
    _check_view_out(out, dims, dtype, name)
    if not out.flags.writeable:
        raise _errors.InvalidArgumentError(f"{name} is read-only")
    if not _dense(out):
        raise _errors.InvalidArgumentError(f"{name} of shape {tuple(out.shape)} and strides {out.strides} has gaps or "
                                           "repeats (numpy outputs of views are read back whole: a dense array in "
                                           "any axis order)")
    return out  # type: ignore[no-any-return]


def _window_views(x: Any, dev: Optional[_Device], ctx: Optional[Context],
                  outs: Sequence[Tuple[Any, Tuple[int, ...], np.dtype[Any], str]], run: Callable[..., int]) -> List[Any]:
    """A windowed op on views: x of any strides; each output (out=, or None for a new one in x's memory
    order) of its dims and dtype. numpy arrays through _host_views, pyopencl ones on their queue. Returns
    the outputs."""
    order = _memory_order(x)
    arrays: List[Any] = []
    for out, dims, dtype, name in outs:
        if dev is None:
            y = _host_view_out(out, dims, dtype, order, name)
        else:
            y = dev.out(out, dims, dtype, name, order)
        arrays.append(y)
    if dev is None:
        for i, a in enumerate(arrays):
            for b in arrays[i + 1:]:
                _check_host_disjoint(a, b, "the outputs")
            if x.size and a.size and np.may_share_memory(x, a):
                raise _errors.InvalidArgumentError("an output overlaps the input")
        _host_views(ctx, run, [x] + arrays)
        return arrays
    names = [o[3] for o in outs]
    dev.check_disjoint(names, arrays, (x,))
    views = [_view(*dev.mem(a), a, _element_strides(a, n)) for a, n in zip([x] + arrays, ["x"] + names)]
    dev.finish(run(dev.ctx.handle, dev.queue.int_ptr, *[byref(v) for v in views], *dev.waits()))
    return arrays


def _max_views(values: List[Any], dims: Tuple[int, ...], dtype: np.dtype[Any], code: int, ctx: Optional[Context],
               dev: Optional[_Device], out: Any) -> Any:
    """Max where an input or out= has strides other than C order's: clpool_enqueue_max_view on the arrays as
    they lie. A new output keeps the memory order of the first input of the output's rank (channels-last
    in, channels-last out)."""
    n = len(values)
    like = next((a for a in values if a.ndim == len(dims)), None)
    order = _memory_order(like) if like is not None else list(range(len(dims)))

    def run(handle: int, queue: Any, *args: Any) -> int:
        views = (View * n)(*[a._obj for a in args[:n]])
        return int(lib.clpool_enqueue_max_view(handle, queue, code, n, views, args[n], *args[n + 1:]))

    if dev is None:
        y = _host_view_out(out, dims, dtype, order, "out")
        _host_views(ctx, run, list(values) + [y], inputs=n)
        return y
    y = dev.out(out, dims, dtype, "out", order)
    mems = [dev.mem(a) if isinstance(a, dev.cla.Array) else dev.upload(a) for a in values]
    views = [_view(m, o, a, _element_strides(a, f"inputs[{i}]") if isinstance(a, dev.cla.Array) else [])
             for i, ((m, o), a) in enumerate(zip(mems, values))]
    dev.finish(run(dev.ctx.handle, dev.queue.int_ptr, *[byref(v) for v in views],
                   byref(_view(*dev.mem(y), y, _element_strides(y, "out"))), *dev.waits()))
    return y


def _check_view_out(out: Any, dims: Tuple[int, ...], dtype: np.dtype[Any], name: str) -> None:
    """An out= of a view call: the result's dtype and shape, any strides (the library checks them)."""
    if out.dtype != dtype:
        raise _errors.UnsupportedDtypeError(f"{name} has dtype {out.dtype} but the result is {dtype}")
    if tuple(out.shape) != dims:
        raise _errors.InvalidShapeError(f"{name} has shape {tuple(out.shape)} but the result has shape {dims}")


# -------------------------------------------------------------------------------------------- docstrings

def _doc(text: str) -> Callable[[Any], Any]:
    """The docstring with the parameters every op shares put in for the line "<common>"."""
    def apply(f: Any) -> Any:
        f.__doc__ = text.replace("    <common>\n", _COMMON)
        return f
    return apply


_COMMON = """\
    ctx : clpool.Context, optional
        The context to run on. Default: numpy inputs use a module-level context made on first use
        (``CLPOOL_DEVICE``, else the first GPU, else the first device); pyopencl inputs one adopted from
        the queue (made once per queue). With pyopencl inputs it must be of the queue's cl_context.
    wait_for : sequence of pyopencl.Event, optional
        pyopencl inputs only: events the op waits for, besides the inputs' and outputs' own ``events``.
        A non-empty ``wait_for`` with numpy inputs is refused: they have nothing to wait for.
    queue : pyopencl.CommandQueue, optional
        pyopencl inputs only: the queue to enqueue on (and to make the outputs on) instead of the inputs'
        own; it must be of their cl_context. With it the inputs may come from several queues.
"""

_OUT = """\
    out : numpy.ndarray or pyopencl.array.Array, optional
        The array to write the result into and return: of the result's shape and dtype, any strides
        for pyopencl, numpy in any axis order without gaps, on the
        inputs' side (numpy for numpy inputs; for pyopencl inputs a pyopencl array of the queue's
        cl_context, written at its offset after its events, not overlapping an input).
"""

_RAISES = """\
    clpool.InvalidTypeError
        An argument of the wrong type (an attribute that is not an integer or a sequence of them, a str
        where a number goes, ``out`` on the other side, ``ctx`` not a Context, ...).
    clpool.InvalidArgumentError, clpool.InvalidShapeError
        Attribute values and shapes the op refuses (the C library's checks and message), a closed
        ``ctx``, ``wait_for`` or ``queue`` with numpy inputs, a non-contiguous pyopencl input or ``out``.
    clpool.UnsupportedDtypeError
        A dtype the op does not take, or an ``out`` of another dtype.
    clpool.UnsupportedDeviceError
        float64 on a device without cl_khr_fp64.
"""

# The sum pools' Returns section.
_RETURNS = """\
    Returns
    -------
    numpy.ndarray or pyopencl.array.Array
        N x C x the output sizes, of x's dtype; numpy for numpy inputs (blocking), else a pyopencl array on
        the queue carrying the op's event.
"""

_WINDOW = """\
    kernel_shape : sequence of int
        The window's size along each spatial axis (the input's rank minus 2 values, each >= 1).
    strides : sequence of int, optional
        The step between windows along each spatial axis; default 1 each.
    pads : sequence of int, optional
        Explicit padding, in the layout ``[begin_0, ..., begin_{n-1}, end_0, ..., end_{n-1}]`` (all the
        begins, then all the ends, n the number of spatial axes); default 0 each. Must be 0 when
        ``auto_pad`` is not ``"NOTSET"``.
    dilations : sequence of int, optional
        The step between a window's taps along each spatial axis; default 1 each.
    ceil_mode : int, default 0
        1 (or True): output sizes round up, a last window may start past the input's end but not inside
        the end padding; 0: they round down.
    auto_pad : {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}, default "NOTSET"
        "NOTSET": the explicit ``pads``. "SAME_UPPER"/"SAME_LOWER": pads making the output size
        ceil(input / stride), an odd total's extra at the end/begin. "VALID": no padding.
"""


# The windowed sums' input (average_pool, lp_pool): "<sum_x>".
_SUM_X = """    x : numpy.ndarray or pyopencl.array.Array
        N x C x D1 x ... x Dn, 1 <= n <= 10: float32, float64, float16 or bfloat16, of any strides (not
        copied: a channels-last array ``nhwc.transpose(0, 3, 1, 2)`` runs across C, and a new output keeps
        the input's memory order). numpy inputs may be any array-like.
"""


def _sections(text: str) -> str:
    return (text.replace("    <window>\n", _WINDOW).replace("    <out>\n", _OUT).replace("    <raises>\n", _RAISES)
            .replace("    <returns>\n", _RETURNS).replace("    <sum_x>\n", _SUM_X))


# ------------------------------------------------------------------------------------------------ MaxPool

@overload
def max_pool(x: cla.Array, kernel_shape: _Ints, strides: Optional[_Ints] = None, pads: Optional[_Ints] = None,
             dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0, auto_pad: str = "NOTSET",
             storage_order: SupportsIndex = 0, return_indices: Literal[False] = False, ctx: Optional[Context] = None,
             wait_for: Optional[Sequence[cl.Event]] = None, *, out: Optional[cla.Array] = None,
             queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def max_pool(x: cla.Array, kernel_shape: _Ints, strides: Optional[_Ints] = None, pads: Optional[_Ints] = None,
             dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0, auto_pad: str = "NOTSET",
             storage_order: SupportsIndex = 0, *, return_indices: Literal[True], ctx: Optional[Context] = None,
             wait_for: Optional[Sequence[cl.Event]] = None,
             out: Optional[Tuple[Optional[cla.Array], Optional[cla.Array]]] = None,
             queue: Optional[cl.CommandQueue] = None) -> Tuple[cla.Array, cla.Array]: ...
@overload
def max_pool(x: npt.ArrayLike, kernel_shape: _Ints, strides: Optional[_Ints] = None, pads: Optional[_Ints] = None,
             dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0, auto_pad: str = "NOTSET",
             storage_order: SupportsIndex = 0, return_indices: Literal[False] = False, ctx: Optional[Context] = None,
             wait_for: None = None, *, out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...
@overload
def max_pool(x: npt.ArrayLike, kernel_shape: _Ints, strides: Optional[_Ints] = None, pads: Optional[_Ints] = None,
             dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0, auto_pad: str = "NOTSET",
             storage_order: SupportsIndex = 0, *, return_indices: Literal[True], ctx: Optional[Context] = None,
             wait_for: None = None, out: Optional[Tuple[Optional[_NDArray], Optional[_NDArray]]] = None,
             queue: None = None) -> Tuple[_NDArray, _NDArray]: ...
@overload
def max_pool(x: Any, kernel_shape: _Ints, strides: Optional[_Ints] = None, pads: Optional[_Ints] = None,
             dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0, auto_pad: str = "NOTSET",
             storage_order: SupportsIndex = 0, return_indices: bool = False, ctx: Optional[Context] = None,
             wait_for: Optional[Sequence[cl.Event]] = None, *, out: Any = None,
             queue: Optional[cl.CommandQueue] = None) -> Any: ...


@_doc(_sections('''ONNX MaxPool: the maximum of each window's taps inside the input (padding never wins).

    A NaN tap wins over numbers (the first NaN stays); on ties the first tap in row-major order wins, and
    its index is the one returned.

    Parameters
    ----------
    x : numpy.ndarray or pyopencl.array.Array
        N x C x D1 x ... x Dn, 1 <= n <= 10: float32, float64, float16, bfloat16 (ml_dtypes), int8 or
        uint8, of any strides (not copied: a channels-last array ``nhwc.transpose(0, 3, 1, 2)`` runs across
        C, and new outputs keep the input's memory order; Indices stay ONNX's, in the logical order). numpy
        inputs may be any array-like (converted as numpy converts them).
    <window>
    storage_order : int, default 0
        How the indices count positions in each (n, c) plane: 0 row-major, 1 column-major.
    return_indices : bool, default False
        Also return the int64 indices: ``(n * C + c) * plane_size + position`` of each output's maximum.
    <common>
    out : numpy.ndarray or pyopencl.array.Array, or a pair of them, optional
        The array to write y into and return (a ``(y, indices)`` pair with ``return_indices``, either of
        them None to have it made): of the result's shape and dtype (int64 for indices), of any strides
        (pyopencl) or in any axis order without gaps (numpy), on the inputs' side (numpy for numpy inputs; for pyopencl inputs a pyopencl array of the queue's
        cl_context, written at its offset after its events, not overlapping the input or each other).

    Returns
    -------
    y : numpy.ndarray or pyopencl.array.Array
        N x C x the output sizes, of x's dtype; a numpy array for numpy inputs (the call blocks), else a
        pyopencl array on the queue carrying the op's event (the call only enqueues).
    indices : numpy.ndarray or pyopencl.array.Array
        With ``return_indices`` only: int64, y's shape.

    Raises
    ------
    <raises>

    Examples
    --------
    >>> import numpy as np, clpool
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> clpool.max_pool(x, kernel_shape=[2, 2], strides=[2, 2])
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    >>> y, i = clpool.max_pool(x, [3, 3], strides=[2, 2], pads=[1, 1, 1, 1], return_indices=True)
    >>> i.ravel().tolist()
    [5, 7, 13, 15]
    >>> y = np.empty((1, 1, 2, 2), np.float32)
    >>> clpool.max_pool(x, [2, 2], strides=[2, 2], out=y) is y
    True
    '''))
def max_pool(x: Union[npt.ArrayLike, cla.Array], kernel_shape: _Ints, strides: Optional[_Ints] = None,
             pads: Optional[_Ints] = None, dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0,
             auto_pad: str = "NOTSET", storage_order: SupportsIndex = 0, return_indices: bool = False,
             ctx: Optional[Context] = None, wait_for: Optional[Sequence[cl.Event]] = None, *,
             out: Union[_NDArray, cla.Array, Tuple[Any, Any], None] = None,
             queue: Optional[cl.CommandQueue] = None) -> Any:
    with_indices = _as_bool("return_indices", return_indices)
    if with_indices:
        if out is None:
            out = (None, None)
        elif not isinstance(out, (tuple, list)) or len(out) != 2:
            raise _errors.InvalidTypeError(f"with return_indices, out must be a (y, indices) pair (either may be "
                                           f"None), not {type(out).__name__}")
        y_out, i_out = out
    else:
        if isinstance(out, (tuple, list)):
            raise _errors.InvalidTypeError("out must be an array (a (y, indices) pair goes with "
                                           "return_indices=True)")
        y_out, i_out = out, None
    (a,), dev = _prepare((x,), ctx, wait_for, queue)
    _check_out_type(y_out, dev is not None, "out")
    _check_out_type(i_out, dev is not None, "out indices")
    params = _params(_build_maxpool_params, (kernel_shape, strides, pads, dilations, ceil_mode, auto_pad),
                     storage_order)
    code = dtype_code(a.dtype)
    in_shape = shape_of(a.shape)
    out_shape = Shape()
    check(lib.clpool_maxpool_output_shape(byref(in_shape), byref(params), byref(out_shape)))
    dims = dims_of(out_shape)
    if not all(o is None or o.flags.c_contiguous for o in (a, y_out, i_out)):
        outs = [(y_out, dims, a.dtype, "out")] + ([(i_out, dims, _INT64, "out indices")] if with_indices else [])
        res = _window_views(a, dev, ctx, outs, lambda h, q, vx, vy, *rest: lib.clpool_enqueue_maxpool_view(
            h, q, byref(params), code, vx, vy, rest[0] if with_indices else None, *rest[-3:]))
        return (res[0], res[1]) if with_indices else res[0]
    if dev is None:
        y = _host_out(y_out, dims, a.dtype)
        idx = _host_out(i_out, dims, _INT64, "out indices") if with_indices else None
        _check_host_disjoint(y, idx, "out and out indices")
        check(lib.clpool_maxpool_host(_host_handle(ctx), byref(params), code, byref(in_shape), a.ctypes.data,
                                      y.ctypes.data, None if idx is None else idx.ctypes.data))
    else:
        y = dev.out(y_out, dims, a.dtype)
        idx = dev.out(i_out, dims, _INT64, "out indices") if with_indices else None
        dev.check_disjoint(["out", "out indices"][:len(dev.outputs)], dev.outputs, (a,))
        status = lib.clpool_enqueue_maxpool(dev.ctx.handle, dev.queue.int_ptr, byref(params), code, byref(in_shape),
                                            *dev.mem(a), *dev.mem(y), *(dev.mem(idx) if with_indices else (None, 0)),
                                            *dev.waits())
        dev.finish(status)
    return (y, idx) if with_indices else y


# -------------------------------------------------------------------------------- AveragePool and LpPool

def _sum_pool(x: Any, which: str, build: Callable[[Any, Any], Any], window: Tuple[Any, ...], extra: Any, ctx: Any,
              wait_for: Any, out: Any, queue: Any) -> Any:
    """AveragePool (which "average") or LpPool ("lp"): the arguments checked, the C params built by build,
    shape inference and one C call."""
    (x,), dev = _prepare((x,), ctx, wait_for, queue)
    _check_out_type(out, dev is not None, "out")
    params = _params(build, window, extra)
    code = dtype_code(x.dtype)
    in_shape = shape_of(x.shape)
    out_shape = Shape()
    check(getattr(lib, f"clpool_{which}_pool_output_shape")(byref(in_shape), byref(params), byref(out_shape)))
    dims = dims_of(out_shape)
    if not x.flags.c_contiguous or (out is not None and not out.flags.c_contiguous):
        enqueue = getattr(lib, f"clpool_enqueue_{which}_pool_view")
        return _window_views(x, dev, ctx, [(out, dims, x.dtype, "out")],
                             lambda h, q, vx, vy, *rest: enqueue(h, q, byref(params), code, vx, vy, *rest))[0]
    if dev is None:
        y = _host_out(out, dims, x.dtype)
        check(getattr(lib, f"clpool_{which}_pool_host")(_host_handle(ctx), byref(params), code, byref(in_shape),
                                                         x.ctypes.data, y.ctypes.data))
        return y
    y = dev.out(out, dims, x.dtype)
    dev.check_disjoint(["out"], [y], (x,))
    status = getattr(lib, f"clpool_enqueue_{which}_pool")(dev.ctx.handle, dev.queue.int_ptr, byref(params), code,
                                                          byref(in_shape), *dev.mem(x), *dev.mem(y), *dev.waits())
    dev.finish(status)
    return y


@overload
def average_pool(x: cla.Array, kernel_shape: _Ints, strides: Optional[_Ints] = None, pads: Optional[_Ints] = None,
                 dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0, auto_pad: str = "NOTSET",
                 count_include_pad: SupportsIndex = 0, ctx: Optional[Context] = None,
                 wait_for: Optional[Sequence[cl.Event]] = None, *, out: Optional[cla.Array] = None,
                 queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def average_pool(x: npt.ArrayLike, kernel_shape: _Ints, strides: Optional[_Ints] = None,
                 pads: Optional[_Ints] = None, dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0,
                 auto_pad: str = "NOTSET", count_include_pad: SupportsIndex = 0, ctx: Optional[Context] = None,
                 wait_for: None = None, *, out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...


@_doc(_sections('''ONNX AveragePool: the mean of each window's taps.

    Each output is the sum of its window's taps inside the input divided by their count, or, with
    ``count_include_pad``, by the count of its taps inside the padded input (explicit or auto pads, never
    the ceil_mode overrun past the end pads). A window with no tap inside the input gives NaN, 0 with
    ``count_include_pad``. Sums are in float32 (float64 for float64): plain over runs of up to 16 taps,
    compensated across runs, within 24 u of the sum of abs(taps); rounded once.

    Parameters
    ----------
    <sum_x>
    <window>
    count_include_pad : int, default 0
        1 (or True): divide by the taps inside the padded input; 0: by those inside the input.
    <common>
    <out>

    <returns>

    Raises
    ------
    <raises>

    Examples
    --------
    >>> import numpy as np, clpool
    >>> x = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 6)
    >>> clpool.average_pool(x, [3], strides=[2], pads=[1, 1], ceil_mode=1).ravel().tolist()
    [1.5, 3.0, 5.0, 6.0]
    >>> clpool.average_pool(x, [3], strides=[2], pads=[1, 1], ceil_mode=1, count_include_pad=1).ravel().tolist()
    [1.0, 3.0, 5.0, 3.0]
    '''))
def average_pool(x: Union[npt.ArrayLike, cla.Array], kernel_shape: _Ints, strides: Optional[_Ints] = None,
                 pads: Optional[_Ints] = None, dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0,
                 auto_pad: str = "NOTSET", count_include_pad: SupportsIndex = 0, ctx: Optional[Context] = None,
                 wait_for: Optional[Sequence[cl.Event]] = None, *, out: Union[_NDArray, cla.Array, None] = None,
                 queue: Optional[cl.CommandQueue] = None) -> Any:
    return _sum_pool(x, "average", _build_average_pool_params,
                     (kernel_shape, strides, pads, dilations, ceil_mode, auto_pad), count_include_pad, ctx, wait_for,
                     out, queue)


@overload
def lp_pool(x: cla.Array, kernel_shape: _Ints, p: _Real = 2, strides: Optional[_Ints] = None,
            pads: Optional[_Ints] = None, dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0,
            auto_pad: str = "NOTSET", ctx: Optional[Context] = None, wait_for: Optional[Sequence[cl.Event]] = None,
            *, out: Optional[cla.Array] = None, queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def lp_pool(x: npt.ArrayLike, kernel_shape: _Ints, p: _Real = 2, strides: Optional[_Ints] = None,
            pads: Optional[_Ints] = None, dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0,
            auto_pad: str = "NOTSET", ctx: Optional[Context] = None, wait_for: None = None, *,
            out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...


@_doc(_sections('''ONNX LpPool: the p-norm of each window's taps.

    Each output is (sum over its window's taps inside the input of abs(x)**p)**(1/p); padding adds 0, so a
    window with no tap inside the input gives 0. Sums as for average_pool.

    Parameters
    ----------
    <sum_x>
    <window>
    p : int or float, default 2
        The norm's order: > 0 and finite (integer p of ONNX opsets 2 on, float p of opset 1). A str is
        refused, not parsed.
    <common>
    <out>

    <returns>

    Raises
    ------
    <raises>

    Examples
    --------
    >>> import numpy as np, clpool
    >>> x = np.array([[[3, 4, 0, 5]]], np.float32)
    >>> clpool.lp_pool(x, kernel_shape=[2], strides=[2], p=2).ravel().tolist()
    [5.0, 5.0]
    >>> clpool.lp_pool(x, [2], strides=[2], p=1).ravel().tolist()
    [7.0, 5.0]
    '''))
def lp_pool(x: Union[npt.ArrayLike, cla.Array], kernel_shape: _Ints, p: _Real = 2, strides: Optional[_Ints] = None,
            pads: Optional[_Ints] = None, dilations: Optional[_Ints] = None, ceil_mode: SupportsIndex = 0,
            auto_pad: str = "NOTSET", ctx: Optional[Context] = None, wait_for: Optional[Sequence[cl.Event]] = None,
            *, out: Union[_NDArray, cla.Array, None] = None, queue: Optional[cl.CommandQueue] = None) -> Any:
    return _sum_pool(x, "lp", _build_lp_pool_params, (kernel_shape, strides, pads, dilations, ceil_mode, auto_pad),
                     p, ctx, wait_for, out, queue)


# ---------------------------------------------------------------------------------------------- MaxUnpool

def _check_counter(skipped: Any, dev: Optional[_Device], explicit_queue: bool) -> None:
    """skipped= of max_unpool: a C-contiguous pyopencl array of one uint32, on the inputs' queue (of the
    queue='s cl_context when one is given)."""
    if dev is None:
        raise _errors.InvalidArgumentError("skipped= goes with pyopencl inputs (numpy inputs raise on skipped "
                                           "indices instead)")
    if not isinstance(skipped, _cl_array_type()):
        raise _errors.InvalidTypeError(f"skipped must be a pyopencl array, not {type(skipped).__name__}")
    if skipped.dtype != np.uint32:
        raise _errors.UnsupportedDtypeError(f"skipped must be uint32, not {skipped.dtype}")
    if skipped.size != 1:
        raise _errors.InvalidShapeError(f"skipped must hold one element, not {skipped.size} (shape "
                                        f"{skipped.shape})")
    if not skipped.flags.c_contiguous:
        raise _errors.InvalidArgumentError("skipped is not C-contiguous")
    queue = dev.queue
    if explicit_queue:
        if skipped.context.int_ptr != queue.context.int_ptr:
            raise _errors.InvalidArgumentError("skipped belongs to another cl_context than the queue")
    elif skipped.queue is None or (skipped.queue is not queue and skipped.queue.int_ptr != queue.int_ptr):
        raise _errors.InvalidArgumentError("pyopencl inputs are on different queues; pass them on one queue")


@overload
def max_unpool(x: cla.Array, indices: cla.Array, kernel_shape: _Ints, strides: Optional[_Ints] = None,
               pads: Optional[_Ints] = None, output_shape: Optional[_Ints] = None, indices_of: str = "inferred",
               ctx: Optional[Context] = None, wait_for: Optional[Sequence[cl.Event]] = None,
               skipped: Optional[cla.Array] = None, *, out: Optional[cla.Array] = None,
               queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def max_unpool(x: npt.ArrayLike, indices: npt.ArrayLike, kernel_shape: _Ints, strides: Optional[_Ints] = None,
               pads: Optional[_Ints] = None, output_shape: Optional[_Ints] = None, indices_of: str = "inferred",
               ctx: Optional[Context] = None, wait_for: None = None, skipped: None = None, *,
               out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...


@_doc(_sections('''ONNX MaxUnpool: a zero-filled output with each element of `x` stored at its index.

    Parameters
    ----------
    x : numpy.ndarray or pyopencl.array.Array
        N x C x D1 x ... values: float32, float64, float16, bfloat16, int8 or uint8 (as max_pool).
    indices : numpy.ndarray or pyopencl.array.Array
        int64, the shape of `x`, where each element of `x` goes: ``(n * C + c) * plane_size + position``
        in planes of the shape indices_of names, as max_pool's indices with storage_order 0 are. On the
        same side as `x` (and of its cl_context).
    kernel_shape : sequence of int
        The kernel_shape of the MaxPool that made the indices.
    strides : sequence of int, optional
        Its strides; default 1 each.
    pads : sequence of int, optional
        Its pads, ``[begin_0, ..., begin_{n-1}, end_0, ..., end_{n-1}]``; default 0 each.
    output_shape : sequence of int, optional
        The output's shape (ONNX's third input): the rank of `x`, with its N and C. Default: the inferred
        N x C x ((D_i - 1) * strides_i + kernel_shape_i - pads_begin_i - pads_end_i).
    indices_of : {"inferred", "output"}, default "inferred"
        Which plane the positions count in where output_shape differs from the inferred shape.
        "inferred": the inferred shape's, that block placed at the output's origin (onnx.reference and the
        ONNX node tests). "output": the output's own, as max_pool's indices of an input of that shape are
        (PyTorch's max_unpool, ONNX Runtime); pass output_shape=x.shape of the pooled x for a round trip.
    <common>
    skipped : pyopencl.array.Array, optional
        pyopencl inputs only: one uint32 that the count of skipped indices is added to (saturating at
        2**32 - 1), read after the op without a host wait in between. Without it, bad indices of device
        inputs are skipped silently: checking them would need a host wait.
    <out>

    Returns
    -------
    numpy.ndarray or pyopencl.array.Array
        The output, of `x`'s dtype. Where several elements share an index it holds one of their values.
        x and indices may have any strides (a channels-last pair from max_pool, say); a new output keeps
        x's memory order, index values stay positions in the logical N x C x spatial order.

    Raises
    ------
    clpool.InvalidArgumentError
        numpy inputs with indices outside their (n, c) plane of the output (or, "inferred", at coordinates
        outside it): nothing is returned (an ``out`` may have been written). Also a bad indices_of or
        output_shape value, or skipped= with numpy inputs.
    clpool.UnsupportedDtypeError, clpool.InvalidShapeError
        indices not int64 or not of the shape of `x`, skipped not uint32 or not of one element; and the C
        library's checks.
    <raises>

    Examples
    --------
    >>> import numpy as np, clpool
    >>> x = np.array([[[[1, 2], [3, 4]]]], np.float32)
    >>> idx = np.array([[[[0, 3], [9, 15]]]])  # positions in the 4 x 4 plane
    >>> clpool.max_unpool(x, idx, kernel_shape=[2, 2], strides=[2, 2])
    array([[[[1., 0., 0., 2.],
             [0., 0., 0., 0.],
             [0., 3., 0., 0.],
             [0., 0., 0., 4.]]]], dtype=float32)
    >>> x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)   # PyTorch's max_unpool(max_pool(x))
    >>> y, i = clpool.max_pool(x, [2, 2], strides=[2, 2], return_indices=True)
    >>> u = clpool.max_unpool(y, i, [2, 2], strides=[2, 2], output_shape=x.shape, indices_of="output")
    >>> u[0, 0, :2].tolist()
    [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 6.0, 0.0, 8.0, 0.0]]
    '''))
def max_unpool(x: Union[npt.ArrayLike, cla.Array], indices: Union[npt.ArrayLike, cla.Array], kernel_shape: _Ints,
               strides: Optional[_Ints] = None, pads: Optional[_Ints] = None, output_shape: Optional[_Ints] = None,
               indices_of: str = "inferred", ctx: Optional[Context] = None,
               wait_for: Optional[Sequence[cl.Event]] = None, skipped: Optional[cla.Array] = None, *,
               out: Union[_NDArray, cla.Array, None] = None, queue: Optional[cl.CommandQueue] = None) -> Any:
    # output_shape's and indices_of's types are checked here, their values with the window's (the params
    # cache's keys compare 2.0 equal to 2, which would skip the integer check).
    shape_ints = None if output_shape is None else tuple(_as_ints("output_shape", output_shape))
    if not isinstance(indices_of, str):
        raise _errors.InvalidTypeError(f"indices_of must be a str ('inferred' or 'output'), not {_show(indices_of)}")
    (a, idx), dev = _prepare((x, indices), ctx, wait_for, queue)
    _check_out_type(out, dev is not None, "out")
    if skipped is not None:
        _check_counter(skipped, dev, queue is not None)
    params = _params(_build_max_unpool_params, (kernel_shape, strides, pads, None, 0, "NOTSET"),
                     (shape_ints, indices_of))
    code = dtype_code(a.dtype)
    in_shape = shape_of(a.shape)
    out_shape = Shape()
    check(lib.clpool_max_unpool_output_shape(byref(in_shape), byref(params), byref(out_shape)))
    if idx.dtype != _INT64:
        raise _errors.UnsupportedDtypeError(f"indices must be int64, not {idx.dtype}")
    if tuple(idx.shape) != tuple(a.shape):
        raise _errors.InvalidShapeError(f"indices have shape {tuple(idx.shape)} but X has {tuple(a.shape)}; "
                                        "they must be the same")
    dims = dims_of(out_shape)
    views = not all(o is None or o.flags.c_contiguous for o in (a, idx, out))
    if dev is None:
        count = c_uint32()
        if views:
            y = _unpool_host_views(a, idx, dims, params, code, ctx, out, count)
        else:
            y = _host_out(out, dims, a.dtype)
            check(lib.clpool_max_unpool_host(_host_handle(ctx), byref(params), code, byref(in_shape), a.ctypes.data,
                                             idx.ctypes.data, y.ctypes.data, byref(count)))
        if count.value:
            # The count saturates at 2**32 - 1 (the C counter's limit).
            n = f"{count.value} or more" if count.value == 0xFFFFFFFF else str(count.value)
            what = "1 index lies outside its" if count.value == 1 else f"{n} indices lie outside their"
            raise _errors.InvalidArgumentError(f"{what} (n, c) plane of the output")
        return y
    if skipped is not None:
        dev.wait.extend(skipped.events)
    y = dev.out(out, dims, a.dtype, "out", _memory_order(a))
    counter = [] if skipped is None else [skipped]
    dev.check_disjoint(["out"] + ["skipped"] * len(counter), [y] + counter, (a, idx))
    counter_mem = dev.mem(skipped) if counter else (None, 0)
    if views:
        vx, vi, vy = [_view(*dev.mem(t), t, _element_strides(t, n)) for t, n in zip((a, idx, y), ("x", "indices", "out"))]
        status = lib.clpool_enqueue_max_unpool_view(dev.ctx.handle, dev.queue.int_ptr, byref(params), code, byref(vx),
                                                    byref(vi), byref(vy), *counter_mem, *dev.waits())
    else:
        status = lib.clpool_enqueue_max_unpool(dev.ctx.handle, dev.queue.int_ptr, byref(params), code,
                                               byref(in_shape), *dev.mem(a), *dev.mem(idx), *dev.mem(y), *counter_mem,
                                               *dev.waits())
    dev.finish(status, counter)
    return y


def _unpool_host_views(x: Any, idx: Any, dims: Tuple[int, ...], params: Any, code: int, ctx: Optional[Context],
                       out: Any, count: Any) -> Any:
    """MaxUnpool on numpy arrays where x, indices or out= has strides other than C order's:
    clpool_enqueue_max_unpool_view on the arrays as they lie, the count of skipped indices into `count`. A
    new output keeps x's memory order (channels-last in, channels-last out)."""
    y = _host_view_out(out, dims, x.dtype, _memory_order(x), "out")
    if y.size and any(t.size and np.may_share_memory(t, y) for t in (x, idx)):
        raise _errors.InvalidArgumentError("out overlaps an input")
    cl = opencl
    assert cl is not None

    def run(handle: int, queue: Any, vx: Any, vi: Any, vy: Any, *rest: Any) -> int:
        err = ctypes.c_int32(0)
        mem = cl.clCreateBuffer(lib.clpool_context_cl_context(handle), _CL_MEM_READ_WRITE | _CL_MEM_COPY_HOST_PTR,
                                4, ctypes.addressof(count), byref(err))
        if err.value != 0 or not mem:
            raise _errors.OpenCLError(f"clCreateBuffer of the skipped counter failed ({err.value})")
        try:
            status = int(lib.clpool_enqueue_max_unpool_view(handle, queue, byref(params), code, vx, vi, vy, mem, 0,
                                                            *rest))
            if status == 0:
                e = cl.clEnqueueReadBuffer(lib.clpool_context_cl_queue(handle), mem, 1, 0, 4, ctypes.addressof(count), 0, None,
                                           None)
                if e != 0:
                    raise _errors.OpenCLError(f"clEnqueueReadBuffer of the skipped counter failed ({e})")
        finally:
            cl.clReleaseMemObject(mem)
        return status

    _host_views(ctx, run, [x, idx, y], inputs=2)
    return y


# ----------------------------------------------------------------------------------------- global pools

def _global_pool(x: Any, which: str, p: float, ctx: Any, wait_for: Any, out: Any, queue: Any) -> Any:
    (x,), dev = _prepare((x,), ctx, wait_for, queue)
    _check_out_type(out, dev is not None, "out")
    code = dtype_code(x.dtype)
    in_shape = shape_of(x.shape)
    out_shape = Shape()
    check(lib.clpool_global_pool_output_shape(byref(in_shape), byref(out_shape)))
    dims = dims_of(out_shape)
    lp = which == "lp"
    if not x.flags.c_contiguous or (out is not None and not out.flags.c_contiguous):
        enqueue = getattr(lib, f"clpool_enqueue_global_{which}_pool_view")
        extra = (p,) if lp else ()
        return _window_views(x, dev, ctx, [(out, dims, x.dtype, "out")],
                             lambda h, q, vx, vy, *rest: enqueue(h, q, *extra, code, vx, vy, *rest))[0]
    if dev is None:
        y = _host_out(out, dims, x.dtype)
        args = (code, byref(in_shape), x.ctypes.data, y.ctypes.data)
        handle = _host_handle(ctx)
        if lp:
            check(lib.clpool_global_lp_pool_host(handle, p, *args))
        else:
            check(getattr(lib, f"clpool_global_{which}_pool_host")(handle, *args))
        return y
    y = dev.out(out, dims, x.dtype)
    dev.check_disjoint(["out"], [y], (x,))
    cl_args = (code, byref(in_shape), *dev.mem(x), *dev.mem(y), *dev.waits())
    if lp:
        status = lib.clpool_enqueue_global_lp_pool(dev.ctx.handle, dev.queue.int_ptr, p, *cl_args)
    else:
        status = getattr(lib, f"clpool_enqueue_global_{which}_pool")(dev.ctx.handle, dev.queue.int_ptr, *cl_args)
    dev.finish(status)
    return y


_GLOBAL_DOC = '''ONNX Global%(Name)sPool: %(what)s over every axis after the first two.

    %(notes)s

    Parameters
    ----------
    x : numpy.ndarray or pyopencl.array.Array
        N x C x D1 x ... x Dn, n >= 1: float32, float64, float16 or bfloat16, of any strides (not
        copied; then one window over each plane, whose sums follow the window's order). numpy inputs may
        be any array-like.%(p)s
    <common>
    <out>

    Returns
    -------
    numpy.ndarray or pyopencl.array.Array
        N x C x 1 x ... x 1 (x's rank), of x's dtype; numpy for numpy inputs (blocking), else a pyopencl
        array on the queue carrying the op's event.

    Raises
    ------
    <raises>

    Examples
    --------
    >>> import numpy as np, clpool
    %(example)s
    '''


def _global_doc(name: str, what: str, notes: str, example: str, p: str = "") -> str:
    return _sections(_GLOBAL_DOC % {"Name": name, "what": what, "notes": notes, "example": example, "p": p})


@overload
def global_max_pool(x: cla.Array, ctx: Optional[Context] = None, wait_for: Optional[Sequence[cl.Event]] = None, *,
                    out: Optional[cla.Array] = None, queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def global_max_pool(x: npt.ArrayLike, ctx: Optional[Context] = None, wait_for: None = None, *,
                    out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...


@_doc(_global_doc("Max", "the maximum", "NaN propagates. The output is one element per (n, c) plane.",
                  ">>> x = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)\n"
                  "    >>> clpool.global_max_pool(x).ravel().tolist()\n"
                  "    [3.0, 7.0]\n"
                  "    >>> clpool.global_max_pool(x).shape\n"
                  "    (1, 2, 1, 1)"))
def global_max_pool(x: Union[npt.ArrayLike, cla.Array], ctx: Optional[Context] = None,
                    wait_for: Optional[Sequence[cl.Event]] = None, *, out: Union[_NDArray, cla.Array, None] = None,
                    queue: Optional[cl.CommandQueue] = None) -> Any:
    return _global_pool(x, "max", 0.0, ctx, wait_for, out, queue)


@overload
def global_average_pool(x: cla.Array, ctx: Optional[Context] = None, wait_for: Optional[Sequence[cl.Event]] = None,
                        *, out: Optional[cla.Array] = None, queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def global_average_pool(x: npt.ArrayLike, ctx: Optional[Context] = None, wait_for: None = None, *,
                        out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...


@_doc(_global_doc("Average", "the mean", "The sum is compensated (Kahan), in float32 (float64 for float64), "
                  "rounded once to x's dtype;\n    NaN and infinities propagate.",
                  ">>> x = np.arange(8, dtype=np.float32).reshape(1, 2, 4)\n"
                  "    >>> clpool.global_average_pool(x).ravel().tolist()\n"
                  "    [1.5, 5.5]"))
def global_average_pool(x: Union[npt.ArrayLike, cla.Array], ctx: Optional[Context] = None,
                        wait_for: Optional[Sequence[cl.Event]] = None, *, out: Union[_NDArray, cla.Array, None] = None,
                        queue: Optional[cl.CommandQueue] = None) -> Any:
    return _global_pool(x, "average", 0.0, ctx, wait_for, out, queue)


@overload
def global_lp_pool(x: cla.Array, p: _Real = 2, ctx: Optional[Context] = None,
                   wait_for: Optional[Sequence[cl.Event]] = None, *, out: Optional[cla.Array] = None,
                   queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def global_lp_pool(x: npt.ArrayLike, p: _Real = 2, ctx: Optional[Context] = None, wait_for: None = None, *,
                   out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...


@_doc(_global_doc("Lp", "(sum of abs(x)**p)**(1/p)", "Sums as for global_average_pool; NaN and infinities "
                  "propagate.",
                  ">>> x = np.array([[[3, 4]], [[1, 0]]], np.float32)\n"
                  "    >>> clpool.global_lp_pool(x, p=2).ravel().tolist()\n"
                  "    [5.0, 1.0]",
                  "\n    p : int or float, default 2\n"
                  "        The norm's order: > 0 and finite. A str is refused, not parsed."))
def global_lp_pool(x: Union[npt.ArrayLike, cla.Array], p: _Real = 2, ctx: Optional[Context] = None,
                   wait_for: Optional[Sequence[cl.Event]] = None, *, out: Union[_NDArray, cla.Array, None] = None,
                   queue: Optional[cl.CommandQueue] = None) -> Any:
    return _global_pool(x, "lp", _as_real("p", p), ctx, wait_for, out, queue)


# ---------------------------------------------------------------------------------------------------- Max

def _is_python_scalar(a: Any) -> bool:
    # numpy's float64 is a Python float too, but a numpy scalar keeps its dtype.
    return isinstance(a, (int, float)) and not isinstance(a, np.generic)


def _scalar_as(value: Any, dtype: np.dtype[Any], index: int) -> _NDArray:
    """A Python bool, int or float as a 0-d array of the arrays' dtype, as numpy takes Python scalars (NEP 50):
    it must fit the dtype (a finite float may not round to infinity); a float with integer arrays is refused,
    since numpy would make the result float64."""
    where = f"inputs[{index}] ({_show(value)})"
    if dtype.kind in "iu":
        if isinstance(value, float):
            raise _errors.UnsupportedDtypeError(f"{where} is a Python float but the arrays are {dtype} (numpy's "
                                                "result would be float64); pass an array of one dtype")
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise _errors.InvalidArgumentError(f"{where} does not fit {dtype} ({info.min}..{info.max})")
        return np.array(int(value), dtype)
    try:
        f = float(value)
    except OverflowError:
        raise _errors.InvalidArgumentError(f"{where} does not fit {dtype}") from None
    with np.errstate(over="ignore"):
        v = np.array(f, dtype)
    if math.isfinite(f) and not np.isfinite(v.astype(np.float64)):
        raise _errors.InvalidArgumentError(f"{where} does not fit {dtype} (it rounds to infinity)")
    return v


@overload
def max(first: cla.Array, /, *inputs: Union[cla.Array, _Scalar], ctx: Optional[Context] = None,  # noqa: A001
        wait_for: Optional[Sequence[cl.Event]] = None, out: Optional[cla.Array] = None,
        queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
# Without pyopencl installed cla.Array is Any, and the overload above takes these calls too: the ignore says so.
@overload
def max(first: _Scalar, second: cla.Array, /,  # type: ignore[overload-cannot-match, unused-ignore]
        *inputs: Union[cla.Array, _Scalar], ctx: Optional[Context] = None,
        wait_for: Optional[Sequence[cl.Event]] = None, out: Optional[cla.Array] = None,
        queue: Optional[cl.CommandQueue] = None) -> cla.Array: ...
@overload
def max(*inputs: npt.ArrayLike, ctx: Optional[Context] = None, wait_for: None = None,  # noqa: A001
        out: Optional[_NDArray] = None, queue: None = None) -> _NDArray: ...


@_doc(_sections('''ONNX Max: the element-wise maximum of one or more arrays with numpy broadcasting.

    NaN propagates (numpy.maximum); on ties, -0.0 against +0.0 included, the earlier input wins.

    Parameters
    ----------
    *inputs : numpy.ndarray, pyopencl.array.Array, or scalars
        At least one array; all arrays of one dtype (float32, float64, float16, bfloat16, int8, int16,
        int32, int64, uint8, uint16, uint32, uint64) and all on one side, of any strides (read in place,
        never copied). Shapes broadcast as numpy's do.
        A Python bool, int or float takes the arrays' dtype, as numpy takes Python scalars (NEP 50): it must
        fit that dtype, and a float with integer arrays is refused (numpy would make float64). A numpy
        scalar keeps its own dtype, which must then be the arrays'. numpy inputs may be any array-like.
    <common>
    out : numpy.ndarray or pyopencl.array.Array, optional
        The array to write the result into and return: of the broadcast shape and the dtype, on the inputs'
        side; pyopencl: any strides that do not overlap; numpy: dense in some axis order. It may be one of
        the inputs (in place): for numpy inputs any of them; for pyopencl inputs one of the first four, the
        same array (the C library refuses any other overlap).

    Returns
    -------
    numpy.ndarray or pyopencl.array.Array
        The broadcast shape, the inputs' dtype; numpy for numpy inputs (blocking), else a pyopencl array on
        the queue carrying the op's event. Where an input or out= is not C-contiguous, a new output keeps
        the memory order of the first input of its rank (channels-last in, channels-last out).

    Raises
    ------
    clpool.InvalidTypeError
        No array input, or an input that is no array or scalar of numbers.
    clpool.InvalidArgumentError
        A Python scalar that does not fit the dtype.
    <raises>

    Notes
    -----
    ``from clpool import *`` does not import ``max`` (it would hide the built-in); call it as ``clpool.max``.

    Examples
    --------
    >>> import numpy as np, clpool
    >>> a = np.array([[1, 5], [3, 2]], np.float32)
    >>> clpool.max(a, np.array([2, 4], np.float32)).tolist()   # broadcast over the rows
    [[2.0, 5.0], [3.0, 4.0]]
    >>> clpool.max(a, 2.5).tolist()                             # a Python float takes float32
    [[2.5, 5.0], [3.0, 2.5]]
    >>> clpool.max(a, 3, out=a) is a                            # in place
    True
    >>> a.tolist()
    [[3.0, 5.0], [3.0, 3.0]]
    '''))
def max(*inputs: Any, ctx: Optional[Context] = None, wait_for: Optional[Sequence[cl.Event]] = None,  # noqa: A001
        out: Union[_NDArray, cla.Array, None] = None, queue: Optional[cl.CommandQueue] = None) -> Any:
    ctx = _check_ctx(ctx)
    events = _check_events(wait_for)
    queue = _check_queue(queue)
    is_scalar = [_is_python_scalar(a) for a in inputs]
    arrays = [a for a, s in zip(inputs, is_scalar) if not s]
    if inputs and not arrays:
        raise _errors.InvalidTypeError("Max needs at least one array input (a Python scalar takes the arrays' "
                                       "dtype)")
    for a in inputs:
        if isinstance(a, complex) and not isinstance(a, np.generic):
            raise _errors.InvalidTypeError(f"Max takes no complex numbers, not {_show(a)}")
    # numpy scalars keep their dtype; with pyopencl inputs they are uploaded as Python scalars are.
    on_host = [a for a in arrays if not isinstance(a, np.generic)] or arrays
    queue = _side(on_host, queue, events)
    dev = None
    if queue is None:
        converted = [None if s else _host(a, f"inputs[{i}]")
                     for i, (a, s) in enumerate(zip(inputs, is_scalar))]
    else:
        dev = _Device(queue, ctx, [a for a in arrays if not isinstance(a, np.generic)], events)
        converted = [None if s else (np.asarray(a) if isinstance(a, np.generic) else a)
                     for a, s in zip(inputs, is_scalar)]
    _check_out_type(out, dev is not None, "out")
    typed = [a for a in converted if a is not None]
    dtype = typed[0].dtype if typed else np.dtype(np.float32)
    for a in typed[1:]:
        if a.dtype != dtype:
            raise _errors.UnsupportedDtypeError(f"Max inputs must share one dtype: got {dtype} and {a.dtype}")
    code = dtype_code(dtype) if typed else 0
    values = [_scalar_as(inputs[i], dtype, i) if a is None else a for i, a in enumerate(converted)]
    n = len(values)
    shapes = (Shape * builtins.max(n, 1))(*[shape_of(a.shape) for a in values])
    out_shape = Shape()
    check(lib.clpool_max_output_shape(n, shapes, byref(out_shape)))
    dims = dims_of(out_shape)
    if not all(a.flags.c_contiguous for a in values) or (out is not None and not out.flags.c_contiguous):
        return _max_views(values, dims, dtype, code, ctx, dev, out)
    if dev is None:
        y = _host_out(out, dims, dtype)
        ptrs = (c_void_p * n)(*[a.ctypes.data for a in values])
        check(lib.clpool_max_host(_host_handle(ctx), code, n, shapes, ptrs, y.ctypes.data))
        return y
    y = dev.out(out, dims, dtype)
    mems = [dev.mem(a) if isinstance(a, dev.cla.Array) else dev.upload(a) for a in values]
    status = lib.clpool_enqueue_max(dev.ctx.handle, dev.queue.int_ptr, code, n, shapes,
                                    (c_void_p * n)(*[m for m, _ in mems]), (c_size_t * n)(*[o for _, o in mems]),
                                    *dev.mem(y), *dev.waits())
    dev.finish(status)
    return y
