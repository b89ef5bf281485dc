"""clpool: OpenCL kernels for the ONNX pooling family (MaxPool, AveragePool, LpPool, MaxUnpool, GlobalMaxPool,
GlobalAveragePool, GlobalLpPool, Max) on numpy arrays and pyopencl arrays.

numpy inputs give numpy outputs (a blocking call on a default context made on first use);
pyopencl.array.Array inputs give pyopencl arrays on the same queue (or on ``queue=``), enqueued without host
copies: the inputs' events and ``wait_for=`` are waited for, and the outputs carry the op's event. Every op
takes ``out=`` to write into an existing array. Errors raise clpool.Error subclasses carrying the C
library's status and message; a wrong argument type raises clpool.InvalidTypeError (a TypeError).

``from clpool import *`` leaves out ``max``, which would hide the built-in: call it as ``clpool.max``.
"""
from ._errors import (BufferTooSmallError, BuildFailedError, Error, InvalidArgumentError, InvalidShapeError,
                      InvalidTypeError, NoDeviceError, OpenCLError, OutOfHostMemoryError, SizeOverflowError,
                      UnsupportedDeviceError, UnsupportedDtypeError)
from ._lib import lib as _cdll
from ._context import Context, DeviceInfo, devices
from ._ops import average_pool, global_average_pool, global_lp_pool, global_max_pool, lp_pool, max_pool, max_unpool
from ._ops import max as max  # "as max": exported to type checkers although __all__ leaves it out (below)

__version__: str = _cdll.clpool_version_string().decode()

# "max" is left out: `from clpool import *` must not hide the built-in max (clpool.max stays importable).
__all__ = ["Context", "DeviceInfo", "devices", "max_pool", "average_pool", "lp_pool", "max_unpool", "global_max_pool",
           "global_average_pool", "global_lp_pool", "Error", "InvalidArgumentError", "InvalidTypeError",
           "InvalidShapeError", "UnsupportedDtypeError", "UnsupportedDeviceError", "OutOfHostMemoryError",
           "BuildFailedError", "OpenCLError", "NoDeviceError", "BufferTooSmallError", "SizeOverflowError",
           "__version__"]
