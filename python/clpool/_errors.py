"""Exceptions: one class per clpool_status, each also a subclass of the matching Python built-in."""


class Error(Exception):
    """A failed clpool call. `status` is the C status name ("CLPOOL_ERROR_INVALID_SHAPE"), `code` its value;
    the message is the C library's clpool_last_error() text."""

    status = "CLPOOL_ERROR"
    code = -1

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidArgumentError(Error, ValueError):
    status, code = "CLPOOL_ERROR_INVALID_ARGUMENT", 1


class InvalidShapeError(Error, ValueError):
    status, code = "CLPOOL_ERROR_INVALID_SHAPE", 2


class UnsupportedDtypeError(Error, TypeError):
    status, code = "CLPOOL_ERROR_UNSUPPORTED_DTYPE", 3


class UnsupportedDeviceError(Error, RuntimeError):
    status, code = "CLPOOL_ERROR_UNSUPPORTED_DEVICE", 4


class OutOfHostMemoryError(Error, MemoryError):
    status, code = "CLPOOL_ERROR_OUT_OF_HOST_MEMORY", 5


class BuildFailedError(Error, RuntimeError):
    status, code = "CLPOOL_ERROR_BUILD_FAILED", 6


class OpenCLError(Error, RuntimeError):
    status, code = "CLPOOL_ERROR_OPENCL", 7


class NoDeviceError(Error, RuntimeError):
    status, code = "CLPOOL_ERROR_NO_DEVICE", 8


class BufferTooSmallError(Error, ValueError):
    status, code = "CLPOOL_ERROR_BUFFER_TOO_SMALL", 9


class SizeOverflowError(Error, ValueError):
    status, code = "CLPOOL_ERROR_OVERFLOW", 10


_BY_CODE = {cls.code: cls for cls in (InvalidArgumentError, InvalidShapeError, UnsupportedDtypeError,
                                      UnsupportedDeviceError, OutOfHostMemoryError, BuildFailedError, OpenCLError,
                                      NoDeviceError, BufferTooSmallError, SizeOverflowError)}


def from_status(code, status_name, message):
    cls = _BY_CODE.get(code, Error)
    return cls(message, status_name if cls is Error else None)
