"""Op-table rows for ops that autodiff builds (gradients.py)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase


def _bga(tf, s0, s1):
    from scopeflow.ops.array.shape_ops import broadcast_gradient_args
    return list(broadcast_gradient_args(s0, s1))


ROWS = [
    OpCase("BroadcastGradientArgs", _bga,
           lambda s0, s1: [np.array([0, 2], np.int32), np.array([1], np.int32)],
           [np.array([1, 3, 1], np.int32), np.array([2, 1, 4], np.int32)],
           id="BroadcastGradientArgs-both"),
    OpCase("BroadcastGradientArgs", _bga,
           lambda s0, s1: [np.array([], np.int32), np.array([0, 1], np.int32)],
           [np.array([2, 3, 4], np.int32), np.array([4], np.int32)],
           id="BroadcastGradientArgs-rank"),
]
