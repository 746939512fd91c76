"""``SdcaFprint`` (``tf.train.sdca_fprint``): 128-bit fingerprints of example ids.

TF's SDCA optimizer keys its per-example state by a string id's farmhash
``Fingerprint128``; the op gives each string of a vector its two 64-bit halves
``[low64, high64]`` as int64 (bit for bit TF's: :func:`hashing.fingerprint128`). No
gradient (a string input).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework.opdef import OpDef, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.io.decode_ops import as_bytes
from scopeflow.ops.strings import hashing
from scopeflow.ops.strings.string_values import string_values

__all__ = ["sdca_fprint"]


def _sdca_fprint_shape(x):
    rank = x.shape.ndims
    if rank is not None and rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {rank}")
    return TensorShape([x.shape[0] if rank is not None else None, 2])


def _sdca_fprint_dtype(x):
    if x.base_dtype is not _dtypes.string:
        raise TypeError(f"Input 'input' of 'SdcaFprint' Op has type {x.name} that does not "
                        "match expected type of string.")
    return _dtypes.int64


def _sdca_fprint_kernel(x):
    items = np.asarray(x, dtype=object).reshape(-1)
    halves = [hashing.fingerprint128(as_bytes(s)) for s in items]
    out = np.array(halves, dtype=np.uint64).reshape(len(items), 2)
    return out.view(np.int64)   # TF's int64 output holds the unsigned halves' bits


sdca_fprint_op = OpDef("SdcaFprint", shape=from_tensors(_sdca_fprint_shape),
                       dtype=_sdca_fprint_dtype, kernel=_sdca_fprint_kernel,
                       grad=None, input_names=("input",))


def sdca_fprint(input, name=None):  # noqa: A002 (TF's argument name)
    """``[n, 2]`` int64: each string's farmhash Fingerprint128 as ``[low64, high64]``."""
    return sdca_fprint_op.bind(string_values(input), name=name or "SdcaFprint")
