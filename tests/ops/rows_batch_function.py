"""BatchFunction: calls a traced function (its attr ``f``), built only through the
tf.nondifferentiable_batch_function decorator; driven by
tests/unit/ops/control_flow/test_batch_function.py (against live TensorFlow)."""

from __future__ import annotations

ROWS: list = []

EXEMPT = {"BatchFunction": "calls the traced function the decorator builds; covered by "
                           "tests/unit/ops/control_flow/test_batch_function.py (live TF)"}
