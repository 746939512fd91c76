"""Op-table entry for ``TensorArray.grad``'s op (``TensorArrayGradArray``): the gradient array
a TensorArray makes for a source, whose repeated writes sum (TF1's
``multiple_writes_aggregate``). It has no row of its own: a row would need a new record in
the TF fixture (tests/fixtures/tf_op_table), and TF's own tests of ``TensorArray.grad``,
ported in tests/unit/ops/control_flow/test_tensor_array_ported.py, already run it against
real TensorFlow (values, sizes, summed writes and their errors)."""

from __future__ import annotations

ROWS: list = []
EXEMPT = {"TensorArrayGradArray": "TensorArray.grad's array; TF's own tests of it (values, "
          "summed writes, errors) run live under TF in tests/unit/ops/control_flow/"
          "test_tensor_array_ported.py"}
