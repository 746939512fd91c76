"""Op-table rows for the ops under tf.random.Generator (scopeflow/ops/random/rng_state_ops.py):
NonDeterministicInts (OS entropy: only dtype and shape are checkable) and RngReadAndSkip
(exempt: it reads and advances a state variable; tests/unit/ops/random/
test_random_generator.py compares its values with TF 2.21's)."""

from __future__ import annotations

import numpy as np

from scopeflow.ops.random.rng_state_ops import non_deterministic_ints

from .op_table import OpCase


def _check_ints(v):
    assert v.dtype == np.int64 and v.shape == (3,)


ROWS = [
    OpCase("NonDeterministicInts", lambda tf: non_deterministic_ints([3]), _check_ints, [],
           check_values=False),
]
EXEMPT = {"RngReadAndSkip": "reads and advances a state variable; test_random_generator.py "
                            "checks its values against TF 2.21"}
