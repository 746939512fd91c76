"""Op table: TF's fused elementwise gradient ops (``TanhGrad``, ``SigmoidGrad``,
``SqrtGrad``, ``RsqrtGrad``, ``ReciprocalGrad``, ``InvGrad``): exempt, since TF's public
API does not build them (its gradient rules do); tested where their values are."""

from __future__ import annotations

_WHERE = ("emitted by TF's gradient rules, met in the training graphs TF wrote: values, "
          "signed zeros and their own gradients bit for bit vs TF 2.21 on edge values "
          "(fixture + live), and a TF training graph imported and trained, in "
          "tests/unit/ops/math/test_cwise_grad_ops.py")
EXEMPT = {op: _WHERE for op in ("TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad",
                                "ReciprocalGrad", "InvGrad")}

ROWS: list = []
