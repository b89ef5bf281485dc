"""Fixtures shared by the clpool Python tests: the device clpool picks by default, and a pyopencl queue on it."""
import functools
import os

import numpy as np
import pytest

import clpool

try:
    import ml_dtypes
    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # the bfloat16 cases skip without ml_dtypes
    BFLOAT16 = None

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
MAXPOOL_DTYPES = FLOAT_DTYPES + ["int8", "uint8"]
MAX_DTYPES = FLOAT_DTYPES + ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def pytest_configure(config):
    config.addinivalue_line("markers", "portability: the subset tools/test.sh runs on Mesa rusticl (pytest -m "
                            "portability; docs/testing.md)")


# The dtypes of the rusticl subset: a 4-byte float, float64 (refused there without fp64), a 1-byte integer.
PORTABLE_DTYPES = ("float32", "float64", "int8")


def dtype_params(names):
    """`names` as parametrize values, those in PORTABLE_DTYPES marked portability."""
    return [pytest.param(n, marks=pytest.mark.portability) if n in PORTABLE_DTYPES else n for n in names]


def pytest_report_header(config):
    d = _default_device()
    subset = f"; subset: -m {config.option.markexpr}" if config.option.markexpr else ""
    return f"clpool {clpool.__version__} from {os.path.dirname(clpool.__file__)}; device: {d.platform} / {d.name}" \
           f" (fp64 {'yes' if d.has_fp64 else 'no'}){subset}"


def np_dtype(name):
    if name == "bfloat16":
        if BFLOAT16 is None:
            pytest.skip("ml_dtypes is not installed")
        return BFLOAT16
    return np.dtype(name)


@functools.lru_cache(maxsize=None)
def _default_device():
    return clpool.Context().device


@functools.lru_cache(maxsize=None)
def _first_queue():
    import pyopencl as cl
    for platform in cl.get_platforms():
        devices = platform.get_devices()
        if devices:
            return cl.CommandQueue(cl.Context([devices[0]]))
    return None


@pytest.fixture(scope="module")
def device():
    """Facts of the device clpool's default context runs on."""
    return _default_device()


@pytest.fixture(scope="module")
def queue():
    """An in-order pyopencl queue on the first device of the first platform that has one (the device
    clpool's default context also takes when there is no GPU); one for the whole run, so programs are
    built once."""
    pytest.importorskip("pyopencl")
    pytest.importorskip("pyopencl.array")
    q = _first_queue()
    if q is None:
        pytest.skip("pyopencl finds no OpenCL device")
    return q


def expect_fp64_unsupported(dtype, device, call):
    """float64 on a device without cl_khr_fp64: the call must raise UNSUPPORTED_DEVICE. Returns True when it
    did (the caller stops there), False when the device has fp64 and the case runs normally."""
    if np.dtype(dtype) != np.float64 or device.has_fp64:
        return False
    with pytest.raises(clpool.UnsupportedDeviceError) as info:
        call()
    assert info.value.status == "CLPOOL_ERROR_UNSUPPORTED_DEVICE"
    assert "fp64" in str(info.value)
    return True
