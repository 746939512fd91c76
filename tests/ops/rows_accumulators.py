"""Op-table exemptions for the gradient accumulators (scopeflow/ops/data_flow/accumulator_ops.py):
their ops act on a session's accumulator object through a handle, so a row of independent
inputs cannot drive them; tests/unit/ops/data_flow/test_accumulators.py runs one program of
them under scopeflow and TF 2.21 and compares every value, shape, name and error."""

_WHY = "stateful accumulator op (handle in, no values from inputs alone); see test_accumulators.py"

ROWS = []
EXEMPT = {op_type: _WHY for op_type in (
    "ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
    "ResourceAccumulatorTakeGradient", "ResourceAccumulatorNumAccumulated",
    "ResourceAccumulatorSetGlobalStep", "SparseConditionalAccumulator",
    "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient",
    "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep")}
