"""``SdcaShrinkL1`` (``tf.train.sdca_shrink_l1``): the L1 proximal step of TF's SDCA.

Each weight variable (float32) becomes ``sign(w) * max(|w| - l1 / l2, 0)`` in place, in
float32 as TF's kernel computes it (``l2 = 0`` shrinks everything to zero, ``-0.0`` for
negative weights, as TF). The op has no outputs; it is stateful and has no gradient.

TF declares the input as a list of ``num_features`` variable references. scopeflow's op
definitions name their reference inputs one by one, so the op declares
:data:`MAX_WEIGHTS` of them and a call may pass up to that many variables.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework.opdef import OpDef, ref
from scopeflow.ops.state.training_ops import _refs

__all__ = ["sdca_shrink_l1", "MAX_WEIGHTS"]

MAX_WEIGHTS = 1024


def _shrink_l1_shape(*shapes, num_features, l1, l2):
    return []


def _shrink_l1_dtype(*dts, num_features, l1, l2):
    for d in dts:
        if d.base_dtype is not _dtypes.float32:
            raise TypeError(f"Input 'weights' of 'SdcaShrinkL1' Op has type {d.name} that "
                            "does not match expected type of float32_ref.")
    return []


def _shrink_l1_kernel(ctx, *weights, num_features, l1, l2):
    with np.errstate(divide="ignore", invalid="ignore"):
        shrinkage = np.float32(l1) / np.float32(l2)
    for w in _refs(ctx, *weights):
        shrunk = np.maximum(np.abs(w) - shrinkage, np.float32(0))
        np.multiply(np.sign(w), shrunk, out=w)


sdca_shrink_l1_op = OpDef(
    "SdcaShrinkL1", shape=_shrink_l1_shape, dtype=_shrink_l1_dtype, kernel=_shrink_l1_kernel,
    attrs={"num_features": None, "l1": None, "l2": None}, num_outputs=0, stateful=True,
    grad=None, input_names=tuple(ref("weights") for _ in range(MAX_WEIGHTS)))


def sdca_shrink_l1(weights, l1, l2, name=None):
    """Shrinks each float32 variable of ``weights`` toward zero by ``l1 / l2`` (in place);
    returns the op."""
    weights = list(weights)
    if len(weights) > MAX_WEIGHTS:
        raise ValueError(f"sdca_shrink_l1 takes at most {MAX_WEIGHTS} variables in one op; "
                         f"got {len(weights)}: call it on smaller lists")
    refs = [getattr(w, "_variable", w) for w in weights]
    if not all(getattr(getattr(r, "dtype", None), "_is_ref_dtype", False) for r in refs):
        raise TypeError("'SdcaShrinkL1' Op requires that input 'weights' be a mutable tensor "
                        "(e.g.: a tf.Variable)")
    return sdca_shrink_l1_op.bind(*refs, num_features=len(refs), l1=float(l1), l2=float(l2),
                                  name=name or "SdcaShrinkL1")
