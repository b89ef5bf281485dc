"""Devices and contexts."""
from __future__ import annotations

import operator
import sys
import threading
from ctypes import byref, c_uint32, c_void_p
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional, SupportsIndex, Type, Union

from . import _errors
from ._dtypes import dtype_code
from ._lib import DeviceInfoC, check, lib

if TYPE_CHECKING:
    from types import TracebackType

    import numpy.typing as npt
    # pyopencl is optional: without it its types are Any (the ignore keeps --strict quiet then).
    import pyopencl as cl  # type: ignore[import-not-found, unused-ignore]

_TYPES = {1 << 1: "CPU", 1 << 2: "GPU", 1 << 3: "ACCELERATOR", 1 << 4: "CUSTOM"}


class DeviceInfo(NamedTuple):
    """Facts of one OpenCL device, as ``clpool.devices()`` and ``Context.device`` give them.

    Attributes
    ----------
    index : int
        The number ``clpool.Context(device=...)`` and ``CLPOOL_DEVICE`` accept; -1 for the device of a
        context (``Context.device``), which may have been adopted from pyopencl.
    platform, name, version, opencl_c_version, driver_version : str
        The platform's name, the device's name, ``CL_DEVICE_VERSION``, ``CL_DEVICE_OPENCL_C_VERSION`` and
        ``CL_DRIVER_VERSION``.
    type : str
        ``"CPU"``, ``"GPU"``, ``"ACCELERATOR"``, ``"CUSTOM"`` (joined by ``+`` where several apply) or
        ``"DEFAULT"``.
    compute_units : int
        ``CL_DEVICE_MAX_COMPUTE_UNITS``.
    global_mem_bytes, max_alloc_bytes : int
        ``CL_DEVICE_GLOBAL_MEM_SIZE`` and ``CL_DEVICE_MAX_MEM_ALLOC_SIZE``.
    has_fp16, has_fp64 : bool
        Whether the device has cl_khr_fp16 and cl_khr_fp64 (float64 inputs need the latter; float16
        inputs work without the former).

    Examples
    --------
    >>> import clpool
    >>> d = clpool.devices()[0]
    >>> d.index, isinstance(d.name, str), d.compute_units >= 1
    (0, True, True)
    """

    # The name shadows tuple.index (as it has since DeviceInfo was first released): the ignore says so.
    index: int  # type: ignore[assignment]
    platform: str
    name: str
    version: str
    opencl_c_version: str
    driver_version: str
    type: str
    compute_units: int
    global_mem_bytes: int
    max_alloc_bytes: int
    has_fp16: bool
    has_fp64: bool


def _info(index: int, c: DeviceInfoC) -> DeviceInfo:
    kind = "+".join(name for bit, name in _TYPES.items() if c.type & bit) or "DEFAULT"
    return DeviceInfo(index, c.platform_name.decode(), c.device_name.decode(), c.device_version.decode(),
                      c.opencl_c_version.decode(), c.driver_version.decode(), kind, c.compute_units,
                      c.global_mem_bytes, c.max_alloc_bytes, bool(c.has_fp16), bool(c.has_fp64))


def devices() -> List[DeviceInfo]:
    """Every OpenCL device, numbered as ``clpool devices`` numbers them.

    Returns
    -------
    list of DeviceInfo
        One entry per device of every platform, ``index`` counting from 0; empty without OpenCL devices.

    Raises
    ------
    clpool.OpenCLError
        The OpenCL runtime failed to list its platforms or devices.

    Examples
    --------
    >>> import clpool
    >>> ds = clpool.devices()
    >>> [d.index for d in ds] == list(range(len(ds)))
    True
    """
    count = c_uint32()
    check(lib.clpool_device_count(byref(count)))
    out = []
    for i in range(count.value):
        c = DeviceInfoC()
        check(lib.clpool_device_get_info(i, byref(c)))
        out.append(_info(i, c))
    return out


class Context:
    """A clpool context: an OpenCL device, a queue and the programs built for it.

    Every op takes ``ctx=``; numpy calls without it use a module-level context made on first use, pyopencl
    calls one adopted from the arrays' queue (made once per queue).

    Parameters
    ----------
    device : int or str, optional
        A device number (as ``clpool.devices()`` numbers them) or a spec string as ``CLPOOL_DEVICE`` takes
        (``"1"``, ``"0:0"`` for platform 0 device 0, or part of a device or platform name such as
        ``"llvmpipe"``). Default None: ``CLPOOL_DEVICE`` if set, else the first GPU, else the first device.

    Raises
    ------
    clpool.NoDeviceError
        No device, or none matching ``device``.
    clpool.InvalidTypeError
        ``device`` is not None, an int or a str.

    Notes
    -----
    ``Context(device)`` owns its OpenCL context and queue; ``Context.from_pyopencl(queue)`` adopts a pyopencl
    queue's instead. ``close()`` (or leaving a ``with`` block) releases it at once; after that every use
    raises ``clpool.InvalidArgumentError``. Otherwise it is released when garbage-collected.

    Examples
    --------
    >>> import numpy as np, clpool
    >>> x = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    >>> with clpool.Context(device=0) as ctx:
    ...     clpool.global_max_pool(x, ctx=ctx).ravel().tolist()
    [3.0, 7.0]
    >>> ctx
    <clpool.Context closed>
    """

    _handle: Optional[int]
    _empty_buffer: Any  # a pyopencl Buffer standing in for empty arrays' missing one

    def __init__(self, device: Union[SupportsIndex, str, None] = None) -> None:
        self._handle = None  # set first: close() and __del__ run even when the C call below fails
        self._empty_buffer = None
        spec = None
        if isinstance(device, str):
            spec = device.encode()
        elif device is not None:
            try:  # any integer (numpy's too) but a bool, which would name a device by accident
                if isinstance(device, bool):
                    raise TypeError
                spec = str(operator.index(device)).encode()
            except TypeError:
                raise _errors.InvalidTypeError(f"device must be an int, a str or None, not "
                                               f"{type(device).__name__}") from None
        handle = c_void_p()
        check(lib.clpool_context_create(spec, byref(handle)))
        self._handle = handle.value

    @classmethod
    def from_pyopencl(cls, queue: cl.CommandQueue) -> Context:
        """A context on a pyopencl queue's cl_context, device and queue (the context and queue retained).

        Parameters
        ----------
        queue : pyopencl.CommandQueue
            Its context and device serve the new clpool context; numpy calls on it enqueue on this queue.

        Returns
        -------
        Context

        Raises
        ------
        clpool.InvalidTypeError
            ``queue`` is not a pyopencl.CommandQueue.
        clpool.OpenCLError
            OpenCL refused the queue's objects.

        Examples
        --------
        >>> import numpy as np, clpool, pyopencl as cl, pyopencl.array as cla
        >>> queue = cl.CommandQueue(cl.Context([cl.get_platforms()[0].get_devices()[0]]))
        >>> ctx = clpool.Context.from_pyopencl(queue)
        >>> x = cla.to_device(queue, np.arange(6, dtype=np.float32).reshape(1, 2, 3))
        >>> clpool.global_max_pool(x, ctx=ctx).get().ravel().tolist()
        [2.0, 5.0]
        """
        cl_module = sys.modules.get("pyopencl")
        if cl_module is None or not isinstance(queue, cl_module.CommandQueue):
            raise _errors.InvalidTypeError(f"queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
        handle = c_void_p()
        check(lib.clpool_context_create_from_cl(queue.context.int_ptr, queue.device.int_ptr, queue.int_ptr,
                                                byref(handle)))
        self = cls.__new__(cls)
        self._handle = handle.value
        self._empty_buffer = None
        return self

    @property
    def handle(self) -> int:
        """The ``clpool_context*`` as an int (for passing to other C code).

        Raises
        ------
        clpool.InvalidArgumentError
            The context is closed.
        """
        if not self._handle:
            raise _errors.InvalidArgumentError("clpool.Context is closed")
        return self._handle

    @property
    def closed(self) -> bool:
        """Whether close() has released the context."""
        return not self._handle

    @property
    def device(self) -> DeviceInfo:
        """The device's facts (``index`` is -1: an adopted device may have no number)."""
        c = DeviceInfoC()
        check(lib.clpool_context_device_info(self.handle, byref(c)))
        return _info(-1, c)

    def warm_up(self, dtype: npt.DTypeLike = "float32") -> None:
        """Build ahead of time the programs the common cases of every op use for ``dtype`` (blocking).

        Raises
        ------
        clpool.UnsupportedDtypeError
            ``dtype`` has no clpool equivalent.
        clpool.InvalidArgumentError
            The context is closed.
        """
        check(lib.clpool_context_warm_up(self.handle, dtype_code(dtype)))

    def wait_builds(self) -> None:
        """Wait until the specialised programs this context builds in the background are ready.

        A key's first call runs its op's first tier and queues its own programs for the context's build
        thread; later calls use the first tier until they are built. On PoCL the package's helper process,
        ``clpool-builder``, builds them first, so no call waits for PoCL's compiler (``CLPOOL_BUILDER=off``
        builds in this process). Nothing needs this call; it serves
        callers that want every later call on the specialised path (a server after its warm-up requests,
        a benchmark).

        Raises
        ------
        clpool.InvalidArgumentError
            The context is closed.
        """
        check(lib.clpool_context_wait_builds(self.handle))

    def trim(self) -> None:
        """Free the scratch buffers multi-pass ops keep between calls."""
        lib.clpool_context_trim(self.handle)

    def close(self) -> None:
        """Release the context now (also done when it is garbage-collected); closing twice is harmless.
        Finish the work enqueued on its queues first."""
        handle, self._handle = getattr(self, "_handle", None), None
        self._empty_buffer = None
        if handle:
            lib.clpool_context_release(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown may have torn down the module globals already
            pass

    def __enter__(self) -> Context:
        if self.closed:  # entering a closed context raises at once, not at its first use
            raise _errors.InvalidArgumentError("clpool.Context is closed")
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        if not self._handle:
            return "<clpool.Context closed>"
        d = self.device
        return f"<clpool.Context {d.platform} / {d.name}>"


_default: Optional[Context] = None
_default_lock = threading.Lock()


def default_context() -> Context:
    """The module-level context numpy calls use when ctx is None, made on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Context()
    return _default


def queue_context(queue: Any) -> Context:
    """The context adopted from a pyopencl queue, made once per queue and kept on the queue object
    (so it lives exactly as long as the queue)."""
    ctx: Optional[Context] = getattr(queue, "_clpool_context", None)
    if ctx is None:
        ctx = Context.from_pyopencl(queue)
        queue._clpool_context = ctx
    return ctx
