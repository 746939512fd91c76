"""Op table: the proximal and dual-averaging optimizer update ops (stateful, in place).

Their values are checked against real TensorFlow trajectories (dense and sparse gradients,
with and without L1/L2) in tests/unit/train/test_proximal.py, not here.
"""

from __future__ import annotations

ROWS: list = []

_WHY = ("stateful in-place update of variable refs; values vs TF trajectories in "
        "tests/unit/train/test_proximal.py")
EXEMPT = {op: _WHY for op in [
    "ApplyProximalGradientDescent", "SparseApplyProximalGradientDescent",
    "ApplyProximalAdagrad", "SparseApplyProximalAdagrad", "ApplyAdagradDA",
    "SparseApplyAdagradDA",
]}
