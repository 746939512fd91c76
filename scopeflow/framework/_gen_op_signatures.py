"""Regenerates ``_tf_op_signatures.py`` from real TensorFlow's op registry.

    python -m scopeflow.framework._gen_op_signatures

collects scopeflow's registered op types (plus ``EXTRA``: TF1 ops scopeflow is likely to
grow), then re-runs itself under the TensorFlow oracle (``../shared/tools/tf1``, or
``$SCOPEFLOW_TF1``) to read each op's input/output arguments and attributes with their
defaults. GraphDef export derives every node's attrs from these signatures, exactly as
TF's graph construction fills a NodeDef (type attrs from the inputs, defaults for the rest).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "_tf_op_signatures.py"

# TF1 ops that scopeflow does not register (yet) but graphs commonly hold.
EXTRA = """
AudioSummaryV2 HistogramSummary ImageSummary MergeSummary ScalarSummary TensorSummaryV2
TensorSummary SaveV2 RestoreV2 MergeV2Checkpoints ShardedFilename StringJoin Save Restore
SaveSlices RestoreSlice Assert Print PrintV2 StringFormat NoOp Identity IdentityN Const
Placeholder PlaceholderWithDefault VariableV2 Variable VarHandleOp ReadVariableOp
AssignVariableOp AssignAddVariableOp AssignSubVariableOp VarIsInitializedOp
IsVariableInitialized Switch Merge Enter Exit NextIteration LoopCond ControlTrigger
Cast Shape ShapeN Size Rank Reshape Squeeze ExpandDims Transpose Tile Pad PadV2 Fill
ZerosLike OnesLike Range LinSpace Pack Unpack ConcatV2 Concat Split SplitV Slice
StridedSlice StridedSliceGrad Gather GatherV2 GatherNd ScatterNd Where Select SelectV2
Reverse ReverseV2 OneHot BroadcastTo BroadcastArgs BroadcastGradientArgs Bitcast
CheckNumerics Add AddV2 AddN Sub Mul Div RealDiv TruncateDiv TruncateMod FloorDiv FloorMod Mod
DivNoNan MulNoNan Maximum Minimum Pow SquaredDifference Neg Abs Sign Square Sqrt Rsqrt
Exp Expm1 Log Log1p Sin Cos Tan Tanh Sigmoid Erf Reciprocal Inv Floor Ceil Round Rint
IsNan IsInf IsFinite Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd
LogicalOr LogicalNot MatMul BatchMatMul BatchMatMulV2 BatchMatMulV3 Sum Mean Max Min
Prod All Any ArgMax ArgMin Cumsum Cumprod SegmentSum UnsortedSegmentSum Relu Relu6 Elu
Selu Softplus Softsign LeakyRelu ReluGrad Relu6Grad EluGrad SeluGrad SoftplusGrad
SoftsignGrad LeakyReluGrad SigmoidGrad TanhGrad RsqrtGrad SqrtGrad ReciprocalGrad
Softmax LogSoftmax SoftmaxCrossEntropyWithLogits SparseSoftmaxCrossEntropyWithLogits
BiasAdd BiasAddGrad BiasAddV1 Conv2D Conv2DBackpropInput Conv2DBackpropFilter
DepthwiseConv2dNative DepthwiseConv2dNativeBackpropInput
DepthwiseConv2dNativeBackpropFilter MaxPool MaxPoolV2 MaxPoolGrad AvgPool AvgPoolGrad
LRN LRNGrad FusedBatchNorm FusedBatchNormV3 FusedBatchNormGradV3 L2Loss InTopK InTopKV2
TopKV2 Dropout RandomUniform RandomUniformInt RandomStandardNormal TruncatedNormal
RandomShuffle Multinomial StatelessRandomUniform LogUniformCandidateSampler
UniformCandidateSampler ComputeAccidentalHits Assign AssignAdd AssignSub ScatterAdd
ScatterSub ScatterUpdate ScatterMul ScatterDiv ApplyGradientDescent ApplyMomentum
ApplyAdam ApplyAdagrad ApplyAdadelta ApplyRMSProp ApplyCenteredRMSProp ApplyFtrl
ApplyFtrlV2 SparseApplyMomentum SparseApplyAdagrad SparseApplyAdadelta
SparseApplyRMSProp SparseApplyCenteredRMSProp SparseApplyFtrl SparseApplyFtrlV2
StopGradient PreventGradient ClipByValue InvertPermutation ConcatOffset DynamicPartition
DynamicStitch ParallelDynamicStitch SparseToDense MirrorPad MirrorPadGrad Conj
Cross Cholesky MatrixInverse MatrixDeterminant Diag DiagPart MatrixDiag MatrixDiagPart
MatrixBandPart Einsum Unique UniqueV2 Bincount EncodePng DecodePng EncodeJpeg DecodeJpeg
ResizeBilinear ResizeNearestNeighbor StringToNumber AsString ReadFile WriteFile Conv3D
Conv3DBackpropInputV2 Conv3DBackpropFilterV2 MaxPool3D MaxPool3DGrad AvgPool3D AvgPool3DGrad
""".split()


def _names():
    import scopeflow  # noqa: F401  (registers every op)
    from scopeflow.framework.opdef import REGISTRY
    return sorted(set(REGISTRY) | set(EXTRA))


def _dump(names):
    """Runs under TensorFlow: name -> (inputs, outputs, attrs)."""
    from tensorflow.python.framework import op_def_registry
    rows = {}
    for name in names:
        od = op_def_registry.get(name)
        if od is None:
            continue
        args = lambda lst: tuple((a.name, a.type_attr, a.number_attr, a.type_list_attr)  # noqa
                                 for a in lst)
        attrs = tuple((a.name, a.type, a.default_value.SerializeToString().hex()
                       if a.HasField("default_value") else None) for a in od.attr)
        rows[name] = (args(od.input_arg), args(od.output_arg), attrs)
    return rows


def main():
    if len(sys.argv) > 1:  # under TensorFlow
        rows = _dump(json.loads(Path(sys.argv[1]).read_text()))
        print(json.dumps(rows))
        return
    lst = HERE / "_op_names.tmp.json"
    lst.write_text(json.dumps(_names()))
    tool = os.environ.get("SCOPEFLOW_TF1",
                          str(HERE.parents[2] / "shared" / "tools" / "tf1"))
    try:
        out = subprocess.run([tool, __file__, str(lst)], capture_output=True, text=True,
                             check=True).stdout
    finally:
        lst.unlink()
    rows = json.loads(out.strip().splitlines()[-1])
    lines = ['"""TensorFlow 2.21\'s op signatures. Do not edit: generated by',
             "``python -m scopeflow.framework._gen_op_signatures``.",
             "",
             "op type -> (input args, output args, attrs); an arg is (name, type_attr,",
             "number_attr, type_list_attr); an attr is (name, type, default AttrValue hex or",
             'None)."""', "", "# ruff: noqa: E501", "", "SIGNATURES = {"]
    for name in sorted(rows):
        lines.append(f"    {name!r}: {tuple(tuple(map(tuple, part)) for part in rows[name])!r},")
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(rows)} op signatures to {OUT}")


if __name__ == "__main__":
    main()
