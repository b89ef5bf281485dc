"""Exceptions: one class per clpool_status, each also a subclass of the matching Python built-in, and
InvalidTypeError for arguments of the wrong Python type."""
from typing import Dict, Optional, Type


class Error(Exception):
    """A failed clpool call.

    Attributes
    ----------
    status : str
        The C status name, e.g. ``"CLPOOL_ERROR_INVALID_SHAPE"``.
    code : int
        Its value in the C enum ``clpool_status``.

    The message is the C library's ``clpool_last_error()`` text, or the bindings' own for what only they
    check (argument types, ``out=``, ``queue=``). Every subclass is also a ``ValueError``, ``TypeError``,
    ``RuntimeError`` or ``MemoryError``, so ``except ValueError`` catches bad values as usual.
    """

    status: str = "CLPOOL_ERROR"
    code: int = -1

    def __init__(self, message: str, status: Optional[str] = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidArgumentError(Error, ValueError):
    """An argument of the right type with a value the op refuses (``CLPOOL_ERROR_INVALID_ARGUMENT``)."""

    status, code = "CLPOOL_ERROR_INVALID_ARGUMENT", 1


class InvalidTypeError(Error, TypeError):
    """An argument of the wrong Python type: ``kernel_shape=3``, ``p="2"``, ``ctx=3``, a numpy ``out=`` for
    pyopencl inputs. Its status is ``CLPOOL_ERROR_INVALID_ARGUMENT``, as the C API would report; it is a
    ``TypeError``, not a ``ValueError``, as Python's own functions report a wrong type."""

    status, code = "CLPOOL_ERROR_INVALID_ARGUMENT", 1


class InvalidShapeError(Error, ValueError):
    """Shapes that do not fit the op or each other (``CLPOOL_ERROR_INVALID_SHAPE``)."""

    status, code = "CLPOOL_ERROR_INVALID_SHAPE", 2


class UnsupportedDtypeError(Error, TypeError):
    """A dtype the op does not take, or dtypes that differ where they must match
    (``CLPOOL_ERROR_UNSUPPORTED_DTYPE``)."""

    status, code = "CLPOOL_ERROR_UNSUPPORTED_DTYPE", 3


class UnsupportedDeviceError(Error, RuntimeError):
    """The device lacks what the call needs, e.g. float64 without cl_khr_fp64
    (``CLPOOL_ERROR_UNSUPPORTED_DEVICE``)."""

    status, code = "CLPOOL_ERROR_UNSUPPORTED_DEVICE", 4


class OutOfHostMemoryError(Error, MemoryError):
    """A host allocation failed (``CLPOOL_ERROR_OUT_OF_HOST_MEMORY``)."""

    status, code = "CLPOOL_ERROR_OUT_OF_HOST_MEMORY", 5


class BuildFailedError(Error, RuntimeError):
    """An OpenCL program failed to build (``CLPOOL_ERROR_BUILD_FAILED``)."""

    status, code = "CLPOOL_ERROR_BUILD_FAILED", 6


class OpenCLError(Error, RuntimeError):
    """An OpenCL call failed (``CLPOOL_ERROR_OPENCL``)."""

    status, code = "CLPOOL_ERROR_OPENCL", 7


class NoDeviceError(Error, RuntimeError):
    """No OpenCL device, or none matching the spec given (``CLPOOL_ERROR_NO_DEVICE``)."""

    status, code = "CLPOOL_ERROR_NO_DEVICE", 8


class BufferTooSmallError(Error, ValueError):
    """A device buffer smaller than its offset plus the tensor (``CLPOOL_ERROR_BUFFER_TOO_SMALL``)."""

    status, code = "CLPOOL_ERROR_BUFFER_TOO_SMALL", 9


class SizeOverflowError(Error, ValueError):
    """A size that overflows int64 or size_t (``CLPOOL_ERROR_OVERFLOW``)."""

    status, code = "CLPOOL_ERROR_OVERFLOW", 10


# InvalidTypeError is left out: the C library never reports it (its code is InvalidArgumentError's).
_BY_CODE: Dict[int, Type[Error]] = {
    cls.code: cls for cls in (InvalidArgumentError, InvalidShapeError, UnsupportedDtypeError, UnsupportedDeviceError,
                              OutOfHostMemoryError, BuildFailedError, OpenCLError, NoDeviceError, BufferTooSmallError,
                              SizeOverflowError)}


def from_status(code: int, status_name: str, message: str) -> Error:
    cls = _BY_CODE.get(code, Error)
    return cls(message, status_name if cls is Error else None)
