"""``scopeflow.compat``: ``compat.v1`` is the same TF1 namespace as ``scopeflow`` itself.

``import scopeflow.compat.v1 as tf`` gives exactly the module ``import scopeflow as tf`` gives:
``scopeflow/__init__.py`` registers itself as ``scopeflow.compat.v1`` (so this package,
below the root, never imports it).
"""

import numbers as _numbers
import os as _os

from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "bytes_or_text_types",
           "integral_types", "real_types", "complex_types"]

bytes_or_text_types = (bytes, str)
integral_types = (_numbers.Integral,)
real_types = (_numbers.Real,)
complex_types = (_numbers.Complex,)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes`` of a ``str`` (encoded with ``encoding``), ``bytes`` or ``bytearray``."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """``str`` of a ``str`` or of ``bytes`` (decoded with ``encoding``)."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    """``as_str`` of ``bytes``, ``str(value)`` of anything else."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """The ``str`` of a path-like object; anything else unchanged."""
    if isinstance(path, _os.PathLike):
        path = _os.fspath(path)
    return path



def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
