"""How the string ops take their string inputs and read their elements."""

from __future__ import annotations

import numpy as np

from scopeflow.framework.graph import Tensor

__all__ = ["string_values", "to_bytes", "map_strings", "bytes_list"]


def string_values(value):
    """``value`` ready for an op's string input: a tensor as it is, anything else as an
    object array of bytes, which the op converts in its own name scope (as TF's ops do).

    A NumPy bytes array (what ``np.array([b"a\\0"])`` makes) would drop trailing NUL bytes,
    hence the object array."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray) and value.dtype.kind not in "SU":
        return value
    arr = np.array(value, dtype=object)
    flat = arr.reshape(-1)
    for i, s in enumerate(flat):
        if isinstance(s, str):
            flat[i] = s.encode("utf-8")
    return arr


def to_bytes(x) -> bytes:
    """One element of a string array as ``bytes``."""
    return x if isinstance(x, bytes) else str(x).encode("utf-8")


def map_strings(fn, arr, otype=object):
    """``fn`` applied to each element (as bytes) of the string array ``arr``."""
    arr = np.asarray(arr, dtype=object)
    out = np.empty(arr.shape, dtype=otype)
    flat = out.reshape(-1)
    for i, s in enumerate(arr.reshape(-1)):
        flat[i] = fn(s if isinstance(s, bytes) else to_bytes(s))
    return out


def bytes_list(arr) -> list:
    """The elements of a string array, flattened, as a list of ``bytes`` (``str`` ones
    encoded as UTF-8); checking the types in C leaves an all-bytes array as it is."""
    items = np.asarray(arr, dtype=object).reshape(-1).tolist()
    if not items or set(map(type, items)) == {bytes}:
        return items
    return [s if isinstance(s, bytes) else to_bytes(s) for s in items]
