"""clpool: OpenCL kernels for the ONNX pooling family (MaxPool, AveragePool, LpPool, MaxUnpool, GlobalMaxPool,
GlobalAveragePool, GlobalLpPool, Max) on numpy arrays and pyopencl arrays.

numpy inputs give numpy outputs (a blocking call on a default context made on first use);
pyopencl.array.Array inputs give pyopencl arrays on the same queue, enqueued without host copies:
the inputs' events and `wait_for=` are waited for, and the outputs carry the op's event.
Errors raise clpool.Error subclasses carrying the C library's status and message.
"""
from ._errors import (BufferTooSmallError, BuildFailedError, Error, InvalidArgumentError, InvalidShapeError,
                      NoDeviceError, OpenCLError, OutOfHostMemoryError, SizeOverflowError, UnsupportedDeviceError,
                      UnsupportedDtypeError)
from ._lib import lib as _cdll
from ._context import Context, DeviceInfo, devices
from ._ops import (average_pool, global_average_pool, global_lp_pool, global_max_pool, lp_pool, max, max_pool,
                   max_unpool)

__version__ = _cdll.clpool_version_string().decode()

__all__ = ["Context", "DeviceInfo", "devices", "max_pool", "average_pool", "lp_pool", "max_unpool", "global_max_pool",
           "global_average_pool", "global_lp_pool", "max", "Error", "InvalidArgumentError", "InvalidShapeError",
           "UnsupportedDtypeError", "UnsupportedDeviceError", "OutOfHostMemoryError", "BuildFailedError",
           "OpenCLError", "NoDeviceError", "BufferTooSmallError", "SizeOverflowError", "__version__"]
