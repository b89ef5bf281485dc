"""ctypes declarations of the public C API (include/clpool/clpool.h) and status checking."""
import ctypes
import ctypes.util
import os
import sys
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_int32, c_int64, c_size_t,
                    c_uint, c_uint32, c_uint64, c_void_p)
from typing import Any, Dict, List, Sequence, Tuple

from . import _errors

MAX_RANK = 12
MAX_SPATIAL = MAX_RANK - 2


class Shape(Structure):
    _fields_ = [("rank", c_int32), ("dims", c_int64 * MAX_RANK)]


class View(Structure):
    """clpool_view: a cl_mem, element 0's byte offset, dims and element strides."""
    _fields_ = [("mem", c_void_p), ("offset", c_size_t), ("rank", c_int32), ("dims", c_int64 * MAX_RANK),
                ("strides", c_int64 * MAX_RANK)]


class DeviceInfoC(Structure):
    _fields_ = [("platform_name", c_char * 128), ("device_name", c_char * 128),
                ("device_version", c_char * 128), ("opencl_c_version", c_char * 128),
                ("driver_version", c_char * 128), ("type", c_uint64), ("compute_units", c_uint32),
                ("global_mem_bytes", c_uint64), ("cache_bytes", c_uint64), ("max_alloc_bytes", c_uint64),
                ("max_work_group_size", c_uint64), ("mem_base_addr_align_bits", c_uint32),
                ("has_fp16", c_int), ("has_fp64", c_int), ("platform", c_void_p), ("device", c_void_p)]


# clpool_window_params' fields, which are also clpool_maxpool_params' leading fields.
_WINDOW_FIELDS: List[Tuple[str, Any]] = [
    ("struct_size", c_size_t), ("spatial_rank", c_int32), ("kernel_shape", c_int64 * MAX_SPATIAL),
    ("strides", c_int64 * MAX_SPATIAL), ("dilations", c_int64 * MAX_SPATIAL), ("pads", c_int64 * (2 * MAX_SPATIAL)),
    ("ceil_mode", c_int32), ("auto_pad", c_int)]


class WindowParams(Structure):
    _fields_ = _WINDOW_FIELDS


class MaxPoolParams(Structure):
    _fields_ = _WINDOW_FIELDS + [("storage_order", c_int32)]


class AveragePoolParams(Structure):
    _fields_ = [("struct_size", c_size_t), ("window", WindowParams), ("count_include_pad", c_int32)]


class LpPoolParams(Structure):
    _fields_ = [("struct_size", c_size_t), ("window", WindowParams), ("p", c_double)]


class MaxUnpoolParams(Structure):
    # indices: a clpool_unpool_indices (0 INFERRED, 1 OUTPUT)
    _fields_ = [("struct_size", c_size_t), ("window", WindowParams), ("has_output_shape", c_int32),
                ("output_shape", Shape), ("indices", c_int)]


def _library_path() -> str:
    # CLPOOL_LIBRARY points at another build of the library (development of the C side).
    override = os.environ.get("CLPOOL_LIBRARY")
    if override:
        return override
    name = {"darwin": "libclpool.dylib", "win32": "clpool.dll"}.get(sys.platform, "libclpool.so")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), name)


def _load_opencl() -> Any:
    # The wheel's library is not linked to libOpenCL.so.1 (manylinux): the system's ICD loader goes into the
    # global scope first, where the library's clXxx symbols resolve. A build linked to it loads it anyway.
    for name in ("libOpenCL.so.1", ctypes.util.find_library("OpenCL")):
        if name:
            try:
                return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                pass
    return None


opencl = _load_opencl() if sys.platform.startswith("linux") else None
try:
    lib = ctypes.CDLL(_library_path())
except OSError as e:
    raise ImportError(f"{e} (clpool needs an OpenCL ICD loader, libOpenCL.so.1: on Debian the package "
                      "ocl-icd-libopencl1, and an OpenCL driver such as pocl-opencl-icd)") from e

_p = c_void_p  # opaque pointers: clpool_context*, cl_mem, cl_command_queue, cl_event
_STATUS_FUNCTIONS: Dict[str, List[Any]] = {
    "clpool_device_count": [POINTER(c_uint32)],
    "clpool_device_get_info": [c_uint32, POINTER(DeviceInfoC)],
    "clpool_context_create": [c_char_p, POINTER(c_void_p)],
    "clpool_context_create_from_cl": [_p, _p, _p, POINTER(c_void_p)],
    "clpool_context_warm_up": [_p, c_int],
    "clpool_context_wait_builds": [_p],
    "clpool_context_device_info": [_p, POINTER(DeviceInfoC)],
    "clpool_window_params_init": [POINTER(WindowParams), c_int32, POINTER(c_int64)],
    "clpool_maxpool_params_init": [POINTER(MaxPoolParams), c_int32, POINTER(c_int64)],
    "clpool_maxpool_output_shape": [POINTER(Shape), POINTER(MaxPoolParams), POINTER(Shape)],
    "clpool_enqueue_maxpool": [_p, _p, POINTER(MaxPoolParams), c_int, POINTER(Shape), _p, c_size_t, _p, c_size_t,
                               _p, c_size_t, c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_average_pool_params_init": [POINTER(AveragePoolParams), c_int32, POINTER(c_int64)],
    "clpool_lp_pool_params_init": [POINTER(LpPoolParams), c_int32, POINTER(c_int64)],
    "clpool_average_pool_output_shape": [POINTER(Shape), POINTER(AveragePoolParams), POINTER(Shape)],
    "clpool_lp_pool_output_shape": [POINTER(Shape), POINTER(LpPoolParams), POINTER(Shape)],
    "clpool_enqueue_average_pool": [_p, _p, POINTER(AveragePoolParams), c_int, POINTER(Shape), _p, c_size_t, _p,
                                    c_size_t, c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_lp_pool": [_p, _p, POINTER(LpPoolParams), c_int, POINTER(Shape), _p, c_size_t, _p, c_size_t,
                               c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_average_pool_host": [_p, POINTER(AveragePoolParams), c_int, POINTER(Shape), _p, _p],
    "clpool_lp_pool_host": [_p, POINTER(LpPoolParams), c_int, POINTER(Shape), _p, _p],
    "clpool_max_unpool_params_init": [POINTER(MaxUnpoolParams), c_int32, POINTER(c_int64)],
    "clpool_max_unpool_output_shape": [POINTER(Shape), POINTER(MaxUnpoolParams), POINTER(Shape)],
    "clpool_enqueue_max_unpool": [_p, _p, POINTER(MaxUnpoolParams), c_int, POINTER(Shape), _p, c_size_t, _p, c_size_t,
                                  _p, c_size_t, _p, c_size_t, c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_max_unpool_host": [_p, POINTER(MaxUnpoolParams), c_int, POINTER(Shape), _p, _p, _p, POINTER(c_uint32)],
    "clpool_global_pool_output_shape": [POINTER(Shape), POINTER(Shape)],
    "clpool_enqueue_global_max_pool": [_p, _p, c_int, POINTER(Shape), _p, c_size_t, _p, c_size_t, c_uint,
                                       POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_global_average_pool": [_p, _p, c_int, POINTER(Shape), _p, c_size_t, _p, c_size_t, c_uint,
                                           POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_global_lp_pool": [_p, _p, c_double, c_int, POINTER(Shape), _p, c_size_t, _p, c_size_t, c_uint,
                                      POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_max_output_shape": [c_size_t, POINTER(Shape), POINTER(Shape)],
    "clpool_enqueue_max": [_p, _p, c_int, c_size_t, POINTER(Shape), POINTER(c_void_p), POINTER(c_size_t), _p,
                           c_size_t, c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_maxpool_host": [_p, POINTER(MaxPoolParams), c_int, POINTER(Shape), _p, _p, _p],
    "clpool_enqueue_maxpool_view": [_p, _p, POINTER(MaxPoolParams), c_int, POINTER(View), POINTER(View),
                                    POINTER(View), c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_average_pool_view": [_p, _p, POINTER(AveragePoolParams), c_int, POINTER(View), POINTER(View),
                                         c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_lp_pool_view": [_p, _p, POINTER(LpPoolParams), c_int, POINTER(View), POINTER(View), c_uint,
                                    POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_global_max_pool_view": [_p, _p, c_int, POINTER(View), POINTER(View), c_uint, POINTER(c_void_p),
                                            POINTER(c_void_p)],
    "clpool_enqueue_global_average_pool_view": [_p, _p, c_int, POINTER(View), POINTER(View), c_uint,
                                                POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_global_lp_pool_view": [_p, _p, c_double, c_int, POINTER(View), POINTER(View), c_uint,
                                           POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_enqueue_max_view": [_p, _p, c_int, c_size_t, POINTER(View), POINTER(View), c_uint, POINTER(c_void_p),
                                POINTER(c_void_p)],
    "clpool_enqueue_max_unpool_view": [_p, _p, POINTER(MaxUnpoolParams), c_int, POINTER(View), POINTER(View),
                                       POINTER(View), _p, c_size_t, c_uint, POINTER(c_void_p), POINTER(c_void_p)],
    "clpool_global_max_pool_host": [_p, c_int, POINTER(Shape), _p, _p],
    "clpool_global_average_pool_host": [_p, c_int, POINTER(Shape), _p, _p],
    "clpool_global_lp_pool_host": [_p, c_double, c_int, POINTER(Shape), _p, _p],
    "clpool_max_host": [_p, c_int, c_size_t, POINTER(Shape), POINTER(c_void_p), _p],
}
for _name, _args in _STATUS_FUNCTIONS.items():
    _f = getattr(lib, _name)
    _f.argtypes = _args
    _f.restype = c_int

# The OpenCL calls numpy views need (buffers spanning each array's elements), where the ICD loader was found.
if opencl is not None:
    opencl.clCreateBuffer.argtypes = [_p, c_uint64, c_size_t, _p, POINTER(ctypes.c_int32)]
    opencl.clCreateBuffer.restype = _p
    opencl.clEnqueueReadBuffer.argtypes = [_p, _p, c_uint, c_size_t, c_size_t, _p, c_uint, _p, _p]
    opencl.clEnqueueReadBuffer.restype = ctypes.c_int32
    opencl.clReleaseMemObject.argtypes = [_p]
    opencl.clReleaseMemObject.restype = ctypes.c_int32
    opencl.clFinish.argtypes = [_p]
    opencl.clFinish.restype = ctypes.c_int32

lib.clpool_version_string.argtypes = []
lib.clpool_version_string.restype = c_char_p
lib.clpool_status_string.argtypes = [c_int]
lib.clpool_status_string.restype = c_char_p
lib.clpool_last_error.argtypes = []
lib.clpool_last_error.restype = c_char_p
lib.clpool_context_release.argtypes = [_p]
lib.clpool_context_release.restype = None
lib.clpool_context_trim.argtypes = [_p]
lib.clpool_context_trim.restype = None
lib.clpool_context_cl_queue.argtypes = [_p]
lib.clpool_context_cl_queue.restype = c_void_p
lib.clpool_context_cl_context.argtypes = [_p]
lib.clpool_context_cl_context.restype = c_void_p


def check(status: int) -> None:
    """Raise the clpool.Error subclass of a non-zero status with the C library's message."""
    if status:
        raise _errors.from_status(status, lib.clpool_status_string(status).decode(),
                                  lib.clpool_last_error().decode(errors="replace"))


def shape_of(dims: Sequence[int]) -> Shape:
    """A clpool_shape from a sequence of ints. A rank past MAX_RANK is passed on for the C side to reject."""
    s = Shape()
    s.rank = len(dims)
    for i, d in enumerate(dims[:MAX_RANK]):
        s.dims[i] = d
    return s


def dims_of(shape: Shape) -> Tuple[int, ...]:
    return tuple(shape.dims[i] for i in range(shape.rank))
