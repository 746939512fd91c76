"""Bucketize (scopeflow/ops/math/bucketize_ops.py), the op tf.feature_column's
bucketized_column builds; its graphs and values are compared with live TF in
tests/unit/feature_column/test_feature_column.py."""

from __future__ import annotations

import numpy as np

from ops.op_table import OpCase
from scopeflow.ops.math.bucketize_ops import bucketize

_EDGES = [-1.0, 0.0, 0.5, 2.0]

ROWS = [
    OpCase("Bucketize", lambda tf, x: bucketize(x, _EDGES),
           lambda x: np.searchsorted(np.float32(_EDGES), x, "right").astype(np.int32),
           [np.array([[-3.0, -1.0, 0.25], [0.5, 2.0, 7.0]], np.float32)], id="Bucketize-float32"),
    OpCase("Bucketize", lambda tf, x: bucketize(x, _EDGES),
           lambda x: np.array([0, 1, 2, 3, 4], np.int32),
           [np.array([-5, -1, 0, 1, 2], np.int64)], id="Bucketize-int64"),
]
