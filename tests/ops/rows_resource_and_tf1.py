"""Op table: resource variables' ops (stateful, tested where their semantics are), and the
ops TF 1.x's GraphDefs use that TF 2 code no longer builds (``Add``, ``FusedBatchNorm``,
``FusedBatchNormV2``): all exempt, each with where it is tested."""

from __future__ import annotations

from scopeflow.framework.opdef import REGISTRY

_VARIABLES = ("stateful: reads and writes a resource variable; values, node names and "
              "errors vs TF in tests/unit/state/test_resource_variables.py")
_OPTIMIZERS = ("stateful in-place update of a resource variable; values vs TF's for every "
               "optimizer in tests/unit/state/test_resource_variables.py")
EXEMPT = {op: _VARIABLES for op in [
    "VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
    "AssignSubVariableOp", "VarIsInitializedOp", "VariableShape", "ResourceGather",
    "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul", "ResourceScatterDiv",
    "ResourceScatterMin", "ResourceScatterMax", "ResourceScatterUpdate"]}
EXEMPT.update({op: _OPTIMIZERS for op in REGISTRY if op.startswith(("ResourceApply",
                                                                       "ResourceSparseApply"))})

_TF1_GRAPHS = ("TF 1.x's op, met in GraphDefs TF 1.x wrote: values and gradients vs TF in "
               "tests/unit/saved_model/test_classic_models.py (committed TF 1.x graph + live)")
EXEMPT.update({op: _TF1_GRAPHS for op in ("Add", "FusedBatchNorm", "FusedBatchNormV2")})
_TF1_GRADS = ("TF 1.x's batch-norm gradient ops, emitted by FusedBatchNorm(V2)'s gradient "
              "rules: values = FusedBatchNormGradV3's, and a TF training graph through them "
              "vs TF, in tests/unit/ops/nn/test_fused_batch_norm_v1_grad.py")
EXEMPT.update({op: _TF1_GRADS for op in ("FusedBatchNormGrad", "FusedBatchNormGradV2")})
EXEMPT["BatchMatMul"] = ("TF 1.x's batched product (no broadcasting): values and gradients "
                         "= BatchMatMulV2's, TF's messages, a GraphDef TF wrote, in "
                         "tests/unit/ops/math/test_batch_matmul_v1.py")

# No rows: every op here is exempt (a row needs a record TF made of it, in
# tests/fixtures/tf_op_table, and these are built by op type, which TF's public API is not).
ROWS: list = []
