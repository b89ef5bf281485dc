"""Devices and contexts."""
import threading
from ctypes import byref, c_uint32, c_void_p
from typing import NamedTuple

from ._dtypes import dtype_code
from ._lib import DeviceInfoC, check, lib

_TYPES = {1 << 1: "CPU", 1 << 2: "GPU", 1 << 3: "ACCELERATOR", 1 << 4: "CUSTOM"}


class DeviceInfo(NamedTuple):
    index: int  # the number clpool.Context(device=...) and CLPOOL_DEVICE accept (-1 for an adopted device)
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


def _info(index, c):
    kind = "+".join(name for bit, name in _TYPES.items() if c.type & bit) or "DEFAULT"
    return DeviceInfo(index, c.platform_name.decode(), c.device_name.decode(), c.device_version.decode(),
                      c.opencl_c_version.decode(), c.driver_version.decode(), kind, c.compute_units,
                      c.global_mem_bytes, c.max_alloc_bytes, bool(c.has_fp16), bool(c.has_fp64))


def devices():
    """Every OpenCL device, numbered as `clpool devices` numbers them."""
    count = c_uint32()
    check(lib.clpool_device_count(byref(count)))
    out = []
    for i in range(count.value):
        c = DeviceInfoC()
        check(lib.clpool_device_get_info(i, byref(c)))
        out.append(_info(i, c))
    return out


class Context:
    """A clpool context: device, queue and compiled programs.

    Context(device=None) owns its OpenCL context and queue; `device` is a device number or a spec string as
    CLPOOL_DEVICE takes ("1", "0:0", "llvmpipe"); None picks CLPOOL_DEVICE, else the first GPU, else the first
    device. Context.from_pyopencl(queue) adopts a pyopencl queue's context, device and queue instead.
    """

    def __init__(self, device=None):
        handle = c_void_p()
        spec = None if device is None else str(device).encode()
        check(lib.clpool_context_create(spec, byref(handle)))
        self._handle = handle.value
        self._empty_buffer = None

    @classmethod
    def from_pyopencl(cls, queue):
        handle = c_void_p()
        check(lib.clpool_context_create_from_cl(queue.context.int_ptr, queue.device.int_ptr, queue.int_ptr,
                                                byref(handle)))
        self = cls.__new__(cls)
        self._handle = handle.value
        self._empty_buffer = None
        return self

    @property
    def handle(self):
        """The clpool_context* as an int (for passing to other C code)."""
        if not self._handle:
            raise ValueError("clpool.Context is closed")
        return self._handle

    @property
    def device(self):
        c = DeviceInfoC()
        check(lib.clpool_context_device_info(self.handle, byref(c)))
        return _info(-1, c)

    def warm_up(self, dtype="float32"):
        """Build ahead of time the programs the common cases of every op use for `dtype` (blocking)."""
        check(lib.clpool_context_warm_up(self.handle, dtype_code(dtype)))

    def trim(self):
        """Free the scratch buffers multi-pass ops keep between calls."""
        lib.clpool_context_trim(self.handle)

    def close(self):
        """Release the context now (also done when it is garbage-collected). Finish its queues first."""
        handle, self._handle = getattr(self, "_handle", None), None
        self._empty_buffer = None
        if handle:
            lib.clpool_context_release(handle)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown may have torn down the module globals already
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if not self._handle:
            return "<clpool.Context closed>"
        d = self.device
        return f"<clpool.Context {d.platform} / {d.name}>"


_default = None
_default_lock = threading.Lock()


def default_context():
    """The module-level context numpy calls use when ctx is None, made on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Context()
    return _default


def queue_context(queue):
    """The context adopted from a pyopencl queue, made once per queue and kept on the queue object
    (so it lives exactly as long as the queue)."""
    ctx = getattr(queue, "_clpool_context", None)
    if ctx is None:
        ctx = Context.from_pyopencl(queue)
        queue._clpool_context = ctx
    return ctx
