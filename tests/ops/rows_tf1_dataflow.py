"""Op table: TF1's dataflow control flow (``Switch``, ``RefSwitch``, ``Merge``,
``RefMerge``): exempt, since a row's one output per run cannot show dead tensors, and TF's
public API does not build them; tested where their semantics are."""

from __future__ import annotations

_WHERE = ("TF1's v1 cond dataflow (dead outputs, dead-branch side effects, Merge's "
          "value_index, shape/dtype rules, gradients): values and errors vs GraphDefs TF 2.21 "
          "wrote, in tests/unit/ops/control_flow/test_tf1_dataflow_cond.py; the plan side in "
          "tests/unit/runtime/test_dead_tensors.py")
EXEMPT = {op: _WHERE for op in ("Switch", "RefSwitch", "Merge", "RefMerge")}

ROWS: list = []
