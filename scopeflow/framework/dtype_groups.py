"""TF's type constraints, named once: the dtype groups op declarations check against.

TF's OpDefs spell these as ``{half, float, double}`` and the like; scopeflow leaves out the
quantized types and bfloat16 (which only checkpoints carry). ``opdef.check_dtype`` raises
TF's "not in list of allowed values" error for a dtype outside a group.
"""

from __future__ import annotations

from scopeflow.framework import dtypes

__all__ = ["FLOATS", "COMPLEX", "SIGNED_INTS", "UNSIGNED_INTS", "INTS", "REAL", "NUMERIC",
           "FLOAT_OR_COMPLEX", "SIGNED_NUMERIC", "INDEX"]

FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
COMPLEX = (dtypes.complex64, dtypes.complex128)
SIGNED_INTS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
UNSIGNED_INTS = (dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64)
INTS = SIGNED_INTS + UNSIGNED_INTS
REAL = FLOATS + INTS  # TF's realnumbertypes
NUMERIC = REAL + COMPLEX  # TF's numbertypes
FLOAT_OR_COMPLEX = FLOATS + COMPLEX
SIGNED_NUMERIC = FLOATS + SIGNED_INTS + COMPLEX
INDEX = (dtypes.int32, dtypes.int64)  # TF's Tindices / Tidx: {int32, int64}
