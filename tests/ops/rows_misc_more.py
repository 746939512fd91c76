"""Op-table rows for Bitcast and GuaranteeConst (scopeflow/ops/array/bitcast_ops.py) and
Timestamp (scopeflow/ops/logging/timestamp_ops.py) and TF's example user op Fact
(scopeflow/ops/strings/fact_ops.py)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

ROWS = [
    OpCase("Bitcast", lambda tf, x: tf.bitcast(x, tf.int32),
           lambda x: x.view(np.int32), [rand(2, 3)]),
    OpCase("Bitcast", lambda tf, x: tf.bitcast(x, tf.uint8),
           lambda x: x.view(np.uint8).reshape(2, 3, 4), [rand(2, 3)]),
    OpCase("GuaranteeConst", lambda tf, x: tf.guarantee_const(x), lambda x: x, [rand(3, 2)]),
    # TF 2.21's kernel (tensorflow/core/user_ops/fact.cc) writes this fixed string.
    OpCase("Fact", lambda tf: tf.user_ops.my_fact(), lambda: np.array(b"0! == 1", object), []),
]

EXEMPT = {"CheckPinned": "fails at every run on a CPU (\"not pinned\", as TF's CPU kernel); "
                         "tests/unit/ops/array/test_check_pinned.py compares it with TF",
          "Timestamp": "the wall-clock time; tests/unit/api/test_top_level_misc2.py checks it "
                       "moves forward between runs"}
