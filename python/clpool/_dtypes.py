"""numpy dtypes to clpool_dtype codes (include/clpool/clpool.h's enum values)."""
from __future__ import annotations

import importlib
from typing import Dict

import numpy as np
import numpy.typing as npt

from . import _errors

_DTYPES: Dict[np.dtype[np.generic], int] = {np.dtype(t): code for t, code in (
    (np.float32, 1), (np.uint8, 2), (np.int8, 3), (np.uint16, 4), (np.int16, 5), (np.int32, 6), (np.int64, 7),
    (np.float16, 10), (np.float64, 11), (np.uint32, 12), (np.uint64, 13))}
try:
    # Imported by name: ml_dtypes is optional, and type checking must not depend on it.
    _DTYPES[np.dtype(importlib.import_module("ml_dtypes").bfloat16)] = 16
except ImportError:  # bfloat16 needs ml_dtypes; every other dtype works without it
    pass


def dtype_code(dtype: npt.DTypeLike) -> int:
    """The clpool_dtype of a numpy dtype; UnsupportedDtypeError for a dtype clpool has no type for."""
    code = _DTYPES.get(dtype) if isinstance(dtype, np.dtype) else None  # an np.dtype: found at once
    if code is not None:
        return code
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise _errors.UnsupportedDtypeError(f"{dtype!r} is not a numpy dtype") from None
    code = _DTYPES.get(dt)
    if code is None:
        code = _DTYPES.get(dt.newbyteorder("="))
    if code is None:
        hint = " (install ml_dtypes for bfloat16)" if dt.name == "bfloat16" else ""
        raise _errors.UnsupportedDtypeError(f"dtype {dt} has no clpool equivalent{hint}")
    return code
