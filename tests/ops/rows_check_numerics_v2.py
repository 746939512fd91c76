"""CheckNumericsV2 (what tf.debugging.enable_check_numerics adds): identity on finite
values, its gradient checked the same way."""

from __future__ import annotations

import numpy as np

from scopeflow.ops.logging.check_numerics_callback import check_numerics_v2

from .op_table import OpCase

_X = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], np.float32)

ROWS = [
    OpCase("CheckNumericsV2", lambda tf, x: check_numerics_v2(x, "x"), lambda x: x, [_X]),
    OpCase("CheckNumericsV2", lambda tf, x: check_numerics_v2(x * 2.0, "2x"),
           lambda x: x * 2.0, [_X.astype(np.float64)]),
]
