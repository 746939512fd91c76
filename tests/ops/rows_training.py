"""Op table: the optimizer update ops are stateful (they update variables in place).

Their values are checked against real TensorFlow trajectories in
tests/unit/train/test_optimizers.py (fixtures from tests/fixtures/tf_optimizers), not here.
"""

from __future__ import annotations

ROWS: list = []

_WHY = ("stateful in-place update of variable refs; values vs TF trajectories in "
        "tests/unit/train/test_optimizers.py")
EXEMPT = {op: _WHY for op in [
    "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad", "ApplyRMSProp",
    "ApplyCenteredRMSProp", "ApplyAdadelta", "ApplyFtrl", "ApplyFtrlV2",
    "SparseApplyMomentum", "SparseApplyAdam", "SparseApplyAdagrad", "SparseApplyRMSProp",
    "SparseApplyCenteredRMSProp", "SparseApplyAdadelta", "SparseApplyFtrl",
    "SparseApplyFtrlV2", "ScatterAdd", "ScatterSub", "ScatterUpdate",
]}
