"""The differential op test: every op-table row against what real TensorFlow 2.21 gave for it
(tests/fixtures/tf_op_table, made by its make_fixture.py under TF): static dtypes and
shapes (also with every input dimension unknown), values, gradients, values with NaN/Inf
inputs, and the sweeps derived from every row (tests/ops/sweeps.py: float64/float16 and
int64/uint8/int8 versions, empty inputs, integer overflow, broadcasting, negative axes;
each compared by values or by the stage and class of the error TF raised). Runs without TensorFlow; a row added or changed without a new record fails
until the fixture is regenerated. The harness is tests/ops/differential.py.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

from . import differential as d
from . import sweeps

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tf_op_table"
RECORDS = json.loads((FIXTURE / "records.json").read_text())
ARRAYS = np.load(FIXTURE / "arrays.npz")
ROWS = d.keyed_rows()

_NAN_MAXMIN = ("TopK/InTopK with NaN: TF's order depends on its algorithm (full sort vs partial "
               "heap: NaN lands mid-row for k=n, first for k=2), not reproducible by a rule")
_NAN_CONV = ("Conv with Inf inputs: scopeflow's im2col multiplies padding zeros by Inf (NaN); TF's "
             "kernels skip padding")
_NAN_LINALG = ("Cholesky with NaN/Inf inputs: where Eigen's LLT fails TF leaves parts of the "
               "output unwritten (seen: 1.9e31 in the upper triangle), so no fixed answer to match")
_NAN_NN = ("Softmax with NaN/Inf inputs: TF's pattern depends on the row length (its vectorised "
           "max reduction), e.g. NaN only at the NaN for 4 classes, all NaN for 20")
# (test, row) pairs where scopeflow knowingly differs from TF 2.21 today, with the reason.
# Each such case runs and must still differ (a fixed one fails until removed here).
KNOWN = {
    ("forward", "rows_lookup/export_in_key_order#0"):
        "MutableHashTable export order: TF's follows its hash map's iteration order",
    ("unknown", "rows_image_more/ExtractVolumePatches-SAME#0"):
        "ExtractVolumePatches with unknown dims: TF's static rank is 4 (a TF shape-function quirk)",
    ("unknown", "rows_image_more/ExtractVolumePatches-VALID#0"):
        "ExtractVolumePatches with unknown dims: TF's static rank is 4 (a TF shape-function quirk)",
    ("unknown", "rows_linalg/MatrixDiagV3-k1#0"):
        ("MatrixDiagV3 with unknown dims: TF's shape function gives [0, 0], which its own "
         "kernel then contradicts ([4, 4]); scopeflow keeps static shapes the run can meet"),
    ("grad", "rows_conv3d/MaxPool3D-k222s111-VALID-ties#0"):
        "MaxPool3D gradient at ties: TF's kernel credits another of the tied inputs",
    ("grad", "rows_nn/FusedBatchNormGradV3#0"): "FusedBatchNormGradV3 has no gradient yet",
}
for _reason, _rows in (
        (_NAN_MAXMIN, ("array/TopKV2-sort-axis1", "array/TopKV2-argsort-desc",
                       "nn/TopKV2", "nn/InTopKV2")),
        (_NAN_CONV, ("conv/Conv2D-SAME", "conv/Conv2D-SAME-s3", "conv/Conv2D-SAME-dilated",
                     "conv/Conv2D-explicit", "conv/Conv2DBackpropFilter", "conv/DepthwiseConv2dNative",
                     "conv3d/Conv3D-s121-SAME-float32", "conv3d/Conv3DBackpropFilterV2")),
        (_NAN_LINALG, ("linalg/Cholesky",)),
        (_NAN_NN, ("nn/Softmax", "nn/Softmax-axis0", "nn/Softmax-rank3-dim1"))):
    for _row in _rows:
        KNOWN["nonfinite", f"rows_{_row}#0"] = _reason


_ONEDNN_SCALED = ("QuantizeV2 SCALED: TF 2.21's oneDNN kernel (fed inputs) maps the range's "
                  "minimum to -128 and reports min -1.0; TF's Eigen kernel (constants, or "
                  "TF_ENABLE_ONEDNN_OPTS=0) and scopeflow give -127 and -128/127")
_FRACTIONAL_NAN = ("FractionalMaxPool/AvgPool with NaN/Inf inputs: TF's kernels refuse or "
                   "propagate them otherwise")
_RAGGED_CROSS = ("RaggedCross with unknown dims: TF's static row_splits length comes from its "
                 "shape function's dense-input rule")
KNOWN.update({
    ("forward", "rows_quantize/quantize_scaled#0"): _ONEDNN_SCALED,
    ("nonfinite", "rows_quantize/quantize_scaled#0"): _ONEDNN_SCALED,
    ("unknown", "rows_misc3/RaggedCross#0"): _RAGGED_CROSS,
    ("unknown", "rows_misc3/RaggedCross-hashed#0"): _RAGGED_CROSS,
    ("nonfinite", "rows_misc2/FractionalMaxPool-random#0"): _FRACTIONAL_NAN,
    ("nonfinite", "rows_misc2/FractionalAvgPool-pseudo#0"): _FRACTIONAL_NAN,
    ("nonfinite", "rows_misc2/FractionalMaxPoolGrad#0"): _FRACTIONAL_NAN,
})


# Derived cases (tests/ops/sweeps.py) where scopeflow knowingly differs from TF 2.21: reason
# -> 'row key|derived case'. A reason starting "not fixed yet" is an open divergence of
# scopeflow's; the others say why scopeflow differs (TF quirks where said so).
_DERIVED_KNOWN = {
    ('AvgPool3D with float64 inputs: TF 2.21 registers no CPU kernel for them '
     '(InvalidArgumentError at run time); scopeflow computes'): (
        'rows_conv3d/AvgPool3D-k222s222-SAME#0|dtype-float64',
        'rows_conv3d/AvgPool3D-k323s121-VALID#0|dtype-float64',
        'rows_conv3d/AvgPool3D-k332s121-SAME#0|dtype-float64',
    ),
    ("Conv with an empty batch: TF 2.21's kernel hands back its empty input tensor itself "
     "(fetched shape = the input's, while tf.shape gives the static shape); scopeflow returns "
     'the static shape'): (
        'rows_misc2/Conv-batch_dims2#0|empty-first',
    ),
    ("Conv2D with an empty batch: TF 2.21's kernel hands back its empty input tensor itself "
     "(fetched shape = the input's, while tf.shape gives the static shape); scopeflow returns "
     'the static shape'): (
        'rows_conv/Conv2D-SAME#0|empty-first',
        'rows_conv/Conv2D-VALID#0|empty-first',
        'rows_conv/Conv2D-SAME-s3#0|empty-first',
        'rows_conv/Conv2D-explicit#0|empty-first',
    ),
    ("Conv2D with an empty input (last dimension 0): TF's shape function rejects them at build"
     ' time (ValueError); scopeflow only at run time (UnimplementedError)'): (
        'rows_conv/Conv2D-SAME#0|empty-last',
        'rows_conv/Conv2D-VALID#0|empty-last',
        'rows_conv/Conv2D-SAME-s3#0|empty-last',
        'rows_conv/Conv2D-SAME-dilated#0|empty-last',
        'rows_conv/Conv2D-explicit#0|empty-last',
        'rows_conv/Conv2D-f64#0|empty-last',
    ),
    ('Conv2DBackpropFilter with an empty input (first dimension 0): TF computes a result; '
     'scopeflow raises InvalidArgumentError at run time'): (
        'rows_conv/Conv2DBackpropFilter#0|empty-first',
        'rows_conv/Conv2DBackpropFilter-dilated#0|empty-first',
    ),
    ('Conv2DBackpropFilter with an empty input (last dimension 0): TF computes a result; '
     'scopeflow raises InvalidArgumentError at run time'): (
        'rows_conv/Conv2DBackpropFilter#0|empty-last',
        'rows_conv/Conv2DBackpropFilter-dilated#0|empty-last',
    ),
    ('Conv2DBackpropFilter with float16 inputs: TF 2.21 registers no CPU kernel for them '
     '(InvalidArgumentError at run time); scopeflow computes'): (
        'rows_conv/Conv2DBackpropFilter-dilated#0|dtype-float16',
    ),
    ('Conv2DBackpropFilter with float64 inputs: TF 2.21 registers no CPU kernel for them '
     '(InvalidArgumentError at run time); scopeflow computes'): (
        'rows_conv/Conv2DBackpropFilter-dilated#0|dtype-float64',
    ),
    ("Conv3D with an empty batch: TF 2.21's kernel hands back its empty input tensor itself "
     "(fetched shape = the input's, while tf.shape gives the static shape); scopeflow returns "
     'the static shape'): (
        'rows_conv3d/Conv3D-s121-SAME-float32#0|empty-first',
        'rows_conv3d/Conv3D-s212-VALID-float32#0|empty-first',
    ),
    ('Conv3DBackpropFilterV2 with an empty input (first dimension 0): TF computes a result; '
     'scopeflow raises InvalidArgumentError at run time'): (
        'rows_conv3d/Conv3DBackpropFilterV2#0|empty-first',
        'rows_conv3d/Conv3DBackpropFilterV2-VALID#0|empty-first',
    ),
    ('Conv3DBackpropFilterV2 with an empty input (last dimension 0): TF computes a result; '
     'scopeflow raises InvalidArgumentError at run time'): (
        'rows_conv3d/Conv3DBackpropFilterV2#0|empty-last',
        'rows_conv3d/Conv3DBackpropFilterV2-VALID#0|empty-last',
    ),
    ('DecodeProtoV2 with an empty input (first dimension 0): TF raises InvalidArgumentError at'
     ' run time; scopeflow computes a result'): (
        'rows_misc3/DecodeProtoV2#0|empty-first',
    ),
    ("DynamicStitch with an empty input (first dimension 0): TF's shape function rejects them "
     'at build time (ValueError); scopeflow only at run time (InvalidArgumentError)'): (
        'rows_embedding/DynamicStitch#0|empty-first',
    ),
    ("EncodeProto with a size-1 input broadcast against its partner: TF's shape function "
     'rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_misc3/EncodeProto#0|broadcast',
    ),
    ("EncodeProto with an empty input (first dimension 0): TF's shape function rejects them at"
     ' build time (ValueError); scopeflow only at run time (InvalidArgumentError)'): (
        'rows_misc3/EncodeProto#0|empty-first',
    ),
    ('FakeQuantWithMinMaxArgsGradient with a size-1 input broadcast against its partner: '
     "scopeflow's shape function rejects them at build time (ValueError); TF only at run time "
     '(InvalidArgumentError)'): (
        'rows_nn_leftovers/fq_args_grad#0|broadcast',
    ),
    ("FusedBatchNormGradV3 with an empty input (last dimension 0): TF's shape function rejects"
     ' them at build time (ValueError); scopeflow only at run time (InvalidArgumentError)'): (
        'rows_nn/FusedBatchNormGradV3#0|empty-last',
    ),
    ('FusedBatchNormV3 with a size-1 input broadcast against its partner: TF raises ValueError'
     ' at build time; scopeflow computes a result'): (
        'rows_nn/FusedBatchNormV3#0|broadcast',
        'rows_nn/FusedBatchNormV3-inference#0|broadcast',
    ),
    ("FusedBatchNormV3 with an empty input (first dimension 0): values differ from TF's"): (
        'rows_nn/FusedBatchNormV3-inference#0|empty-first',
    ),
    ("FusedBatchNormV3 with an empty input (last dimension 0): TF's shape function rejects "
     'them at build time (ValueError); scopeflow only at run time (InvalidArgumentError)'): (
        'rows_nn/FusedBatchNormV3#0|empty-last',
        'rows_nn/FusedBatchNormV3-inference#0|empty-last',
    ),
    ("Igamma with float16 inputs: scopeflow's shape function rejects them at build time "
     '(TypeError); TF only at run time (InvalidArgumentError)'): (
        'rows_math_more/Igamma-half_broadcast#0|dtype-float16',
    ),
    ("LowerBound with an empty input (first dimension 0): scopeflow's shape function rejects "
     'them at build time (ValueError); TF only at run time (InvalidArgumentError)'): (
        'rows_array/LowerBound#0|empty-first',
    ),
    ("ParallelConcat with a size-1 input broadcast against its partner: TF's shape function "
     'rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_array/ParallelConcat#0|broadcast',
    ),
    ('ParallelDynamicStitch with an empty input (last dimension 0): TF computes a result; '
     'scopeflow raises InvalidArgumentError at run time'): (
        'rows_embedding/embedding_lookup-mod#0|empty-last',
        'rows_embedding/embedding_lookup-div-max_norm#0|empty-last',
    ),
    ("QuantizeV2 with an empty input (first dimension 0): values differ from TF's"): (
        'rows_quantize/quantize_scaled#0|empty-first',
    ),
    ('QuantizedAvgPool with an empty input (first dimension 0): TF raises InternalError at run'
     ' time; scopeflow computes a result'): (
        'rows_quantize/quantized_avg_pool#0|empty-first',
    ),
    ('QuantizedAvgPool with an empty input (last dimension 0): TF raises InternalError at run '
     'time; scopeflow computes a result'): (
        'rows_quantize/quantized_avg_pool#0|empty-last',
    ),
    ('QuantizedConv2D with an empty input (first dimension 0): TF raises InvalidArgumentError '
     'at run time; scopeflow computes a result'): (
        'rows_quantize/quantized_conv2d#0|empty-first',
    ),
    ("QuantizedConv2D with an empty input (last dimension 0): TF's shape function rejects them"
     ' at build time (ValueError); scopeflow only at run time (InvalidArgumentError)'): (
        'rows_quantize/quantized_conv2d#0|empty-last',
    ),
    ('QuantizedMaxPool with an empty input (first dimension 0): TF raises InternalError at run'
     ' time; scopeflow computes a result'): (
        'rows_quantize/quantized_max_pool#0|empty-first',
    ),
    ('QuantizedMaxPool with an empty input (last dimension 0): TF raises ValueError at build '
     'time; scopeflow computes a result'): (
        'rows_quantize/quantized_max_pool#0|empty-last',
    ),
    ("Slice with an empty input (last dimension 0): TF's shape function rejects them at build "
     'time (ValueError); scopeflow only at run time (InvalidArgumentError)'): (
        'rows_array/Slice-3d#0|empty-last',
    ),
    ('SoftmaxCrossEntropyWithLogits with a size-1 input broadcast against its partner: TF '
     'computes a result; scopeflow raises ValueError at build time'): (
        'rows_nn/Xent-v1-dim0#0|broadcast',
    ),
    ('UnravelIndex with an empty input (first dimension 0): TF raises InvalidArgumentError at '
     'run time; scopeflow computes a result'): (
        'rows_array/UnravelIndex#0|empty-first',
    ),
    ('not fixed yet: AdjustHue with float16 inputs: TF 2.21 registers no CPU '
     'kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_image_more/AdjustHue#0|dtype-float16',
        'rows_image_more/AdjustHue-negative#0|dtype-float16',
    ),
    ('not fixed yet: AdjustSaturation with float16 inputs: TF 2.21 registers no'
     ' CPU kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_image_more/AdjustSaturation#0|dtype-float16',
        'rows_image_more/AdjustSaturation-clipped#0|dtype-float16',
    ),
    ('not fixed yet: Cholesky with an empty input (first dimension 0): TF '
     'raises NotImplementedError at build time, scopeflow ValueError at build time'): (
        'rows_linalg/logdet#0|empty-first',
    ),
    ('not fixed yet: Cholesky with an empty input (last dimension 0): TF raises'
     ' NotImplementedError at build time, scopeflow ValueError at build time'): (
        'rows_linalg/Cholesky#0|empty-last',
        'rows_linalg/logdet#0|empty-last',
    ),
    ('not fixed yet: Cholesky with float16 inputs: TF 2.21 registers no CPU '
     'kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/Cholesky#0|dtype-float16',
        'rows_linalg/logdet#0|dtype-float16',
    ),
    ('not fixed yet: CombinedNonMaxSuppression with an empty input (first '
     'dimension 0): TF raises ValueError at build time; scopeflow computes a result'): (
        'rows_image_more/CombinedNonMaxSuppression#0|empty-first',
    ),
    ('not fixed yet: CombinedNonMaxSuppression with an empty input (last '
     "dimension 0): TF's shape function rejects them at build time (ValueError); scopeflow "
     'only at run time (InvalidArgumentError)'): (
        'rows_image_more/CombinedNonMaxSuppression#0|empty-last',
    ),
    ('not fixed yet: ComputeAccidentalHits with an empty input (last dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_embedding/ComputeAccidentalHits#0|empty-last',
    ),
    ('not fixed yet: DenseCountSparseOutput with an empty input (first '
     'dimension 0): TF raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_sparse/DenseCountSparseOutput#0|empty-first',
    ),
    ('not fixed yet: DenseToDenseSetOperation with a size-1 input broadcast '
     'against its partner: TF raises ValueError at build time; scopeflow computes a result'): (
        'rows_sparse/DenseToDenseSetOperation#0|broadcast',
        'rows_sparse/Dense-union#0|broadcast',
    ),
    ('not fixed yet: DenseToSparseSetOperation with an empty input (first '
     'dimension 0): TF raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_sparse/DenseToSparseSetOperation#0|empty-first',
    ),
    ("not fixed yet: DepthwiseConv2dNative with an empty batch: TF 2.21's "
     "kernel hands back its empty input tensor itself (fetched shape = the input's, while "
     'tf.shape gives the static shape); scopeflow returns the static shape'): (
        'rows_conv/DepthwiseConv2dNative#0|empty-first',
        'rows_conv/DepthwiseConv2dNative-s2-VALID#0|empty-first',
    ),
    ('not fixed yet: DepthwiseConv2dNativeBackpropFilter with an empty input '
     '(first dimension 0): TF computes a result; scopeflow raises InvalidArgumentError at run '
     'time'): (
        'rows_conv/DepthwiseConv2dNativeBackpropFilter#0|empty-first',
    ),
    ('not fixed yet: DepthwiseConv2dNativeBackpropFilter with an empty input '
     '(last dimension 0): TF computes a result; scopeflow raises InvalidArgumentError at run '
     'time'): (
        'rows_conv/DepthwiseConv2dNativeBackpropFilter#0|empty-last',
    ),
    ('not fixed yet: DepthwiseConv2dNativeBackpropInput with an empty input '
     '(last dimension 0): TF computes a result; scopeflow raises InvalidArgumentError at run '
     'time'): (
        'rows_conv/DepthwiseConv2dNativeBackpropInput#0|empty-last',
    ),
    ('not fixed yet: DeserializeManySparse with an empty input (first dimension'
     " 0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/DeserializeManySparse#0|empty-first',
    ),
    ('not fixed yet: DrawBoundingBoxes with an empty input (last dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_image_more/DrawBoundingBoxes#0|empty-last',
    ),
    ('not fixed yet: EditDistance with a size-1 input broadcast against its '
     "partner: TF's shape function rejects them at build time (ValueError); scopeflow only at "
     'run time (InvalidArgumentError)'): (
        'rows_sparse/EditDistance#0|broadcast',
    ),
    ("not fixed yet: EditDistance with an empty input (first dimension 0): TF's"
     ' shape function rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_sparse/EditDistance#0|empty-first',
    ),
    ('not fixed yet: EncodeJpegVariableQuality with an empty input (first '
     'dimension 0): TF raises InternalError at run time, scopeflow InvalidArgumentError at run'
     ' time'): (
        'rows_misc3/EncodeJpegVariableQuality#0|empty-first',
    ),
    ('not fixed yet: EncodeWav with an empty input (last dimension 0): TF '
     'raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_signal/EncodeWav#0|empty-last',
    ),
    ('not fixed yet: ExtractGlimpse with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_image_more/ExtractGlimpse-pixels#0|empty-first',
    ),
    ('not fixed yet: ExtractGlimpse with an empty input (last dimension 0): TF '
     'computes a result; scopeflow raises InvalidArgumentError at run time'): (
        'rows_image_more/ExtractGlimpse-pixels#0|empty-last',
    ),
    ('not fixed yet: ExtractImagePatches with an empty input (first dimension '
     '0): TF computes a result; scopeflow raises InvalidArgumentError at run time'): (
        'rows_image_more/ExtractImagePatches-SAME#0|empty-first',
        'rows_image_more/ExtractImagePatches-VALID#0|empty-first',
    ),
    ('not fixed yet: ExtractVolumePatches with an empty input (first dimension '
     '0): TF computes a result; scopeflow raises InvalidArgumentError at run time'): (
        'rows_image_more/ExtractVolumePatches-SAME#0|empty-first',
        'rows_image_more/ExtractVolumePatches-VALID#0|empty-first',
    ),
    ('not fixed yet: FixedUnigramCandidateSampler with an empty input (last '
     "dimension 0): scopeflow's shape function rejects them at build time (ValueError); TF "
     'only at run time (InvalidArgumentError)'): (
        'rows_random_more/FixedUnigramCandidateSampler#0|empty-last',
    ),
    ("IRFFT with an empty input dimension: TF's kernel leaves parts of its output unwritten "
     "(uninitialized memory, different in every TF run); scopeflow writes zeros"): (
        'rows_signal/IRFFT#0|empty-last',
        'rows_signal/IRFFT-odd#0|empty-first',
        'rows_signal/IRFFT2D#0|empty-last',
        'rows_signal/IRFFT3D#0|empty-first',
        'rows_signal/IRFFT3D#0|empty-last',
    ),
    ("not fixed yet: LRN with float64 inputs: TF's op definition rejects the "
     "dtype (TypeError at build time); scopeflow's dtype rule accepts it"): (
        'rows_nn/LRN#0|dtype-float64',
        'rows_nn/LRN-defaults#0|dtype-float64',
    ),
    ("not fixed yet: LRNGrad with float64 inputs: TF's op definition rejects "
     "the dtype (TypeError at build time); scopeflow's dtype rule accepts it"): (
        'rows_nn/LRNGrad#0|dtype-float64',
    ),
    ('not fixed yet: LogMatrixDeterminant with float16 inputs: TF 2.21 '
     'registers no CPU kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/LogMatrixDeterminant#0|dtype-float16',
    ),
    ('not fixed yet: Lu with float16 inputs: TF 2.21 registers no CPU kernel '
     'for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/Lu#0|dtype-float16',
        'rows_linalg/lu_solve#0|dtype-float16',
    ),
    ('not fixed yet: MatrixDeterminant with float16 inputs: TF 2.21 registers '
     'no CPU kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/MatrixDeterminant#0|dtype-float16',
    ),
    ('not fixed yet: MatrixSolve with float16 inputs: TF 2.21 registers no CPU '
     'kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/MatrixSolve#0|dtype-float16',
        'rows_linalg/MatrixSolve-adjoint#0|dtype-float16',
    ),
    ('not fixed yet: MatrixSquareRoot with an empty input (last dimension 0): '
     'TF raises NotImplementedError at build time, scopeflow ValueError at build time'): (
        'rows_linalg/MatrixSquareRoot#0|empty-last',
    ),
    ('not fixed yet: MatrixSquareRoot with float16 inputs: TF 2.21 registers no'
     ' CPU kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/MatrixSquareRoot#0|dtype-float16',
    ),
    ('not fixed yet: MatrixTriangularSolve with an empty input (first dimension'
     ' 0): TF raises NotImplementedError at build time, scopeflow ValueError at build time'): (
        'rows_linalg/cholesky_solve#0|empty-first',
    ),
    ('not fixed yet: MatrixTriangularSolve with an empty input (last dimension '
     '0): TF raises NotImplementedError at build time, scopeflow ValueError at build time'): (
        'rows_linalg/cholesky_solve#0|empty-last',
    ),
    ('not fixed yet: MatrixTriangularSolve with float16 inputs: TF 2.21 '
     'registers no CPU kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/MatrixTriangularSolve#0|dtype-float16',
        'rows_linalg/MatrixTriangularSolve-upper-adjoint-broadcast#0|dtype-float16',
        'rows_linalg/cholesky_solve#0|dtype-float16',
    ),
    ('not fixed yet: Ndtri with float16 inputs: TF 2.21 registers no CPU kernel'
     ' for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_math/Ndtri#0|dtype-float16',
    ),
    ('not fixed yet: NonMaxSuppressionV3 with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_image_more/NonMaxSuppressionV3#0|empty-first',
        'rows_image_more/NonMaxSuppressionV3-score-threshold#0|empty-first',
    ),
    ('not fixed yet: NonMaxSuppressionV5 with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_image_more/NonMaxSuppressionV5-soft#0|empty-first',
    ),
    ("not fixed yet: NonMaxSuppressionV5 with float16 inputs: TF's op "
     "definition rejects the dtype (TypeError at build time); scopeflow's dtype rule accepts "
     'it'): (
        'rows_image_more/NonMaxSuppressionV5-soft#0|dtype-float16',
    ),
    ('not fixed yet: NonMaxSuppressionWithOverlaps with an empty input (first '
     "dimension 0): TF's shape function rejects them at build time (ValueError); scopeflow "
     'only at run time (InvalidArgumentError)'): (
        'rows_image_more/NMSWithOverlaps#0|empty-first',
    ),
    ('not fixed yet: NonMaxSuppressionWithOverlaps with an empty input (last '
     "dimension 0): TF's shape function rejects them at build time (ValueError); scopeflow "
     'only at run time (InvalidArgumentError)'): (
        'rows_image_more/NMSWithOverlaps#0|empty-last',
    ),
    ('not fixed yet: RFFT with an empty input (first dimension 0): TF raises '
     'InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_signal/RFFT-padded-odd#0|empty-first',
    ),
    ("not fixed yet: RFFT with an empty input (last dimension 0): TF's kernel "
     'leaves parts of its output unwritten (garbage values)'): (
        'rows_signal/RFFT-padded-odd#0|empty-last',
    ),
    ('not fixed yet: RandomIndexShuffle with an empty input (first dimension '
     '0): TF raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_random_more/RandomIndexShuffle#0|empty-first',
    ),
    ('not fixed yet: ResizeArea with an empty input (last dimension 0): TF '
     'raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_image/ResizeArea-align0-7x5-to-3x2#0|empty-last',
        'rows_image/ResizeArea-align1-7x5-to-3x2#0|empty-last',
        'rows_image/ResizeArea-align0-3x4-to-7x9#0|empty-last',
        'rows_image/ResizeArea-align1-3x4-to-7x9#0|empty-last',
    ),
    ('not fixed yet: ResizeBicubic with an empty input (last dimension 0): TF '
     'raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_image/ResizeBicubic-plain-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeBicubic-align-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeBicubic-half-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeBicubic-plain-6x5-to-4x2#0|empty-last',
        'rows_image/ResizeBicubic-align-6x5-to-4x2#0|empty-last',
        'rows_image/ResizeBicubic-half-6x5-to-4x2#0|empty-last',
    ),
    ('not fixed yet: ResizeBilinear with an empty input (last dimension 0): TF '
     'raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_image/ResizeBilinear-plain-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeBilinear-align-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeBilinear-half-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeBilinear-plain-6x5-to-4x2#0|empty-last',
        'rows_image/ResizeBilinear-align-6x5-to-4x2#0|empty-last',
        'rows_image/ResizeBilinear-half-6x5-to-4x2#0|empty-last',
    ),
    ('not fixed yet: ResizeNearestNeighbor with an empty input (last dimension '
     '0): TF raises InvalidArgumentError at run time; scopeflow computes a result'): (
        'rows_image/ResizeNearestNeighbor-plain-float32-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeNearestNeighbor-align-float32-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeNearestNeighbor-half-float32-3x4-to-5x7#0|empty-last',
        'rows_image/ResizeNearestNeighbor-plain-float32-6x5-to-4x2#0|empty-last',
        'rows_image/ResizeNearestNeighbor-align-float32-6x5-to-4x2#0|empty-last',
        'rows_image/ResizeNearestNeighbor-half-float32-6x5-to-4x2#0|empty-last',
        'rows_image/ResizeNearestNeighbor-align-uint8-3x5-to-6x4#0|empty-last',
    ),
    ('not fixed yet: ScatterNd with int64 inputs: TF computes a result; '
     'scopeflow raises TypeError at build time'): (
        'rows_array/ScatterNd#0|dtype-int64',
    ),
    ('not fixed yet: SelfAdjointEigV2 with an empty input (first dimension 0): '
     'TF raises NotImplementedError at build time, scopeflow ValueError at build time'): (
        'rows_linalg/SelfAdjointEigV2-vectors#0|empty-first',
    ),
    ('not fixed yet: SelfAdjointEigV2 with an empty input (last dimension 0): '
     'TF raises NotImplementedError at build time, scopeflow ValueError at build time'): (
        'rows_linalg/SelfAdjointEigV2#0|empty-last',
        'rows_linalg/SelfAdjointEigV2-vectors#0|empty-last',
    ),
    ('not fixed yet: SelfAdjointEigV2 with float16 inputs: TF 2.21 registers no'
     ' CPU kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/SelfAdjointEigV2#0|dtype-float16',
        'rows_linalg/SelfAdjointEigV2-vectors#0|dtype-float16',
    ),
    ('not fixed yet: SerializeManySparse with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/SerializeManySparse#0|empty-first',
    ),
    ('not fixed yet: SerializeSparse with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_sparse/SerializeSparse#0|empty-first',
    ),
    ("not fixed yet: SetSize with an empty input (first dimension 0): TF's "
     'shape function rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_sparse/SetSize#0|empty-first',
    ),
    ("not fixed yet: SparseAdd with an empty input (first dimension 0): TF's "
     'shape function rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseAdd#0|empty-first',
        'rows_sparse/SparseAdd-threshold#0|empty-first',
    ),
    ('not fixed yet: SparseAdd with float16 inputs: TF 2.21 registers no CPU '
     'kernel for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_sparse/SparseAdd#0|dtype-float16',
        'rows_sparse/SparseAdd-threshold#0|dtype-float16',
    ),
    ("not fixed yet: SparseConcat with an empty input (first dimension 0): TF's"
     ' shape function rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseConcat#0|empty-first',
    ),
    ('not fixed yet: SparseCountSparseOutput with a size-1 input broadcast '
     "against its partner: TF's shape function rejects them at build time (ValueError); "
     'scopeflow only at run time (InvalidArgumentError)'): (
        'rows_sparse/SparseCountSparseOutput#0|broadcast',
    ),
    ('not fixed yet: SparseCountSparseOutput with an empty input (first '
     "dimension 0): TF's shape function rejects them at build time (ValueError); scopeflow "
     'only at run time (InvalidArgumentError)'): (
        'rows_sparse/SparseCountSparseOutput#0|empty-first',
    ),
    ("not fixed yet: SparseCross with an empty input (first dimension 0): TF's "
     'shape function rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseCross#0|empty-first',
    ),
    ('not fixed yet: SparseCrossV2 with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseCrossV2#0|empty-first',
    ),
    ('not fixed yet: SparseFillEmptyRows with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/SparseFillEmptyRows#0|empty-first',
    ),
    ('not fixed yet: SparseReduceMax with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseReduceMax#0|empty-first',
    ),
    ('not fixed yet: SparseReduceMaxSparse with an empty input (first dimension'
     " 0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/SparseReduceMaxSparse#0|empty-first',
    ),
    ('not fixed yet: SparseReduceSum with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseReduceSum#0|empty-first',
        'rows_sparse/SparseReduceSum-keepdims#0|empty-first',
    ),
    ('not fixed yet: SparseReduceSumSparse with an empty input (first dimension'
     " 0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/SparseReduceSumSparse#0|empty-first',
    ),
    ('not fixed yet: SparseReshape with an empty input (first dimension 0): TF '
     'raises ValueError at build time; scopeflow computes a result'): (
        'rows_sparse/SparseReshape#0|empty-first',
    ),
    ("not fixed yet: SparseSlice with an empty input (first dimension 0): TF's "
     'shape function rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseSlice#0|empty-first',
    ),
    ('not fixed yet: SparseSoftmax with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseSoftmax#0|empty-first',
    ),
    ('not fixed yet: SparseSparseMaximum with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/SparseSparseMaximum#0|empty-first',
    ),
    ('not fixed yet: SparseSparseMinimum with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/SparseSparseMinimum#0|empty-first',
    ),
    ("not fixed yet: SparseSplit with an empty input (first dimension 0): TF's "
     'shape function rejects them at build time (ValueError); scopeflow only at run time '
     '(InvalidArgumentError)'): (
        'rows_sparse/SparseSplit#0|empty-first',
    ),
    ('not fixed yet: SparseTensorDenseAdd with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_sparse/SparseTensorDenseAdd#0|empty-first',
    ),
    ('not fixed yet: SparseTensorDenseMatMul with an empty input (first '
     "dimension 0): TF's shape function rejects them at build time (ValueError); scopeflow "
     'only at run time (InvalidArgumentError)'): (
        'rows_sparse/SparseTensorDenseMatMul#0|empty-first',
        'rows_sparse/SparseTensorDenseMatMul-adjoints#0|empty-first',
    ),
    ('not fixed yet: SparseToSparseSetOperation with a size-1 input broadcast '
     "against its partner: TF's shape function rejects them at build time (ValueError); "
     'scopeflow only at run time (InvalidArgumentError)'): (
        'rows_sparse/SparseToSparseSetOperation#0|broadcast',
    ),
    ('not fixed yet: SparseToSparseSetOperation with an empty input (first '
     "dimension 0): TF's shape function rejects them at build time (ValueError); scopeflow "
     'only at run time (InvalidArgumentError)'): (
        'rows_sparse/SparseToSparseSetOperation#0|empty-first',
    ),
    ('not fixed yet: Svd with float16 inputs: TF 2.21 registers no CPU kernel '
     'for them (InvalidArgumentError at run time); scopeflow computes'): (
        'rows_linalg/Svd#0|dtype-float16',
        'rows_linalg/Svd-rebuild-wide#0|dtype-float16',
        'rows_linalg/Svd-rebuild-deep#0|dtype-float16',
        'rows_linalg/Svd-rebuild-full#0|dtype-float16',
        'rows_linalg/pinv#0|dtype-float16',
        'rows_linalg/norm-matrix-2#0|dtype-float16',
    ),
    ('not fixed yet: TensorScatterAdd with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_array/TensorScatterAdd#0|empty-first',
    ),
    ('not fixed yet: TensorScatterMax with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_array/TensorScatterMax#0|empty-first',
    ),
    ('not fixed yet: TensorScatterMin with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_array/TensorScatterMin#0|empty-first',
    ),
    ('not fixed yet: TensorScatterSub with an empty input (first dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_array/TensorScatterSub#0|empty-first',
    ),
    ('not fixed yet: TensorScatterUpdate with an empty input (first dimension '
     "0): TF's shape function rejects them at build time (ValueError); scopeflow only at run "
     'time (InvalidArgumentError)'): (
        'rows_array/TensorScatterUpdate#0|empty-first',
    ),
    ('not fixed yet: TridiagonalMatMul with an empty input (first dimension 0):'
     " TF's shape function rejects them at build time (ValueError); scopeflow only at run time"
     ' (InvalidArgumentError)'): (
        'rows_linalg/TridiagonalMatMul#0|empty-first',
    ),
    ('not fixed yet: TridiagonalMatMul with an empty input (last dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_linalg/TridiagonalMatMul#0|empty-last',
    ),
    ("not fixed yet: TridiagonalMatMul with float16 inputs: TF's op definition "
     "rejects the dtype (TypeError at build time); scopeflow's dtype rule accepts it"): (
        'rows_linalg/TridiagonalMatMul#0|dtype-float16',
    ),
    ('not fixed yet: TridiagonalSolve with an empty input (last dimension 0): '
     "TF's shape function rejects them at build time (ValueError); scopeflow only at run time "
     '(InvalidArgumentError)'): (
        'rows_linalg/TridiagonalSolve#0|empty-last',
    ),
    ("not fixed yet: TridiagonalSolve with float16 inputs: TF's op definition "
     "rejects the dtype (TypeError at build time); scopeflow's dtype rule accepts it"): (
        'rows_linalg/TridiagonalSolve#0|dtype-float16',
    ),
}
for _reason, _cases in _DERIVED_KNOWN.items():
    for _case in _cases:
        _key, _name = _case.split("|")
        KNOWN[_name, _key] = _reason


def _ids(item):
    return item[0]


def _stored(ref):
    if "strings" in ref:
        flat = [bytes.fromhex(h) for h in ref["strings"]]
        return np.array(flat, dtype=object).reshape(ref["shape"])
    return ARRAYS[ref["array"]]


def _tolerance(case, dtype):
    floor = {"float16": 2e-3, "float32": 2e-5, "complex64": 2e-5}.get(np.dtype(dtype).name, 1e-9)
    return max(case.rtol, floor), max(case.atol, floor)


def _assert_same(ours, theirs, case, what):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape}, TF {theirs.shape}"
    if theirs.dtype.kind in "OSU" or ours.dtype.kind in "OSU":
        np.testing.assert_array_equal(ours, theirs, err_msg=what)
        return
    rtol, atol = _tolerance(case, theirs.dtype)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def _record(key, case):
    """The row's TF record (skips rows whose build is not TF's public API)."""
    rec = RECORDS.get(key)
    assert rec is not None, (f"no TF record for row {key}: regenerate with "
                             "../shared/tools/tf1 tests/fixtures/tf_op_table/make_fixture.py")
    assert rec["fingerprint"] == d.fingerprint(case), \
        f"row {key} changed since TF's record: regenerate the fixture"
    if "oracle_error" in rec:
        pytest.skip(f"the row's build is not TF's public API ({rec['oracle_error']} under TF)")
    return rec


def _compare(kind, key, check):
    """Runs ``check()``; a KNOWN divergence must still fail it (then xfails with the reason)."""
    reason = KNOWN.get((kind, key))
    if reason is None:
        check()
        return
    try:
        check()
    except Exception:  # noqa: BLE001 — any failure is the known divergence
        pytest.xfail(reason)
    pytest.fail(f"{kind} check of {key} now matches TF: remove it from KNOWN")


@pytest.mark.parametrize("item", ROWS, ids=_ids)
def test_forward_matches_tf(item):
    key, case = item
    rec = _record(key, case)

    def check():
        meta, values = d.run_forward(tf, case)
        assert meta == rec["outputs"], f"static dtypes/shapes {meta}, TF {rec['outputs']}"
        for i, (ours, ref) in enumerate(zip(values, rec.get("values", ()))):
            _assert_same(ours, _stored(ref), case, f"output {i}")
    _compare("forward", key, check)


@pytest.mark.parametrize("item", [r for r in ROWS if RECORDS.get(r[0], {}).get("unknown")],
                         ids=_ids)
def test_unknown_dims_shapes_match_tf(item):
    key, case = item
    rec = _record(key, case)

    def check():
        assert d.unknown_shapes(tf, case) == rec["unknown"]
    _compare("unknown", key, check)


@pytest.mark.parametrize("item", [r for r in ROWS if "grads" in RECORDS.get(r[0], {})],
                         ids=_ids)
def test_gradients_match_tf(item):
    key, case = item
    rec = _record(key, case)
    _compare("grad", key, lambda: _check_grads(case, rec["grads"]))


def _check_grads(case, theirs):
    try:
        ours = d.run_grads(tf, case)
    except Exception as e:  # noqa: BLE001 — compared with the error TF raised
        ours = d.error_name(e)
    if isinstance(theirs, str):
        assert ours == theirs, f"TF's tf.gradients raised {theirs}; scopeflow gave {ours!r}"
        return
    assert not isinstance(ours, str), f"scopeflow raised {ours}; TF gave gradients"
    for i, (g, ref) in enumerate(zip(ours, theirs)):
        if ref is None or ref == "none":
            assert (g is None) == (ref is None) and (ref is None or g == "none"), \
                f"input {i}: TF gives {ref!r}, scopeflow {'an array' if g is not None else g}"
            continue
        assert not isinstance(g, str), f"input {i}: no gradient flows here; TF gives one"
        _assert_same(g, _stored(ref), case, f"d/d input {i}")


@pytest.mark.parametrize("item", [r for r in ROWS if {"nonfinite", "nonfinite_error"}
                                  & RECORDS.get(r[0], {}).keys()], ids=_ids)
def test_nonfinite_inputs_match_tf(item):
    key, case = item
    rec = _record(key, case)
    _compare("nonfinite", key, lambda: _check_nonfinite(case, rec))


def _check_nonfinite(case, rec):
    try:
        _, values = d.run_forward(tf, case, d.nonfinite_inputs(case))
    except Exception as e:  # noqa: BLE001 — compared with the error TF raised
        assert d.error_name(e) == rec.get("nonfinite_error"), f"scopeflow raised {e!r}"
        return
    assert "nonfinite_error" not in rec, f"TF raised {rec['nonfinite_error']}; scopeflow ran"
    for i, (ours, ref) in enumerate(zip(values, rec["nonfinite"])):
        _assert_same(ours, _stored(ref), case, f"output {i} with NaN/Inf inputs")


def _derived_items(kind):
    """``(key|name, (case, name, inputs, record))`` for the derived cases of one kind."""
    items = []
    for key, case in ROWS:
        if "oracle_error" in RECORDS.get(key, {}):
            continue  # the row's build is not TF's public API: nothing to derive from
        for name, inputs in sweeps.variants(key, case):
            if sweeps.kind_of(name) == kind:
                items.append((f"{key}|{name}", (key, case, name, inputs)))
    return items


def _check_derived(item):
    full, (key, case, name, inputs) = item
    rec = _record(key, case).get("derived", {}).get(name)
    assert rec is not None, f"no TF record for {full}: regenerate the fixture"
    assert rec["fingerprint"] == sweeps.fingerprint(case, inputs), \
        f"{full}'s derived inputs changed since TF's record: regenerate the fixture"
    if rec.get("error", "").startswith("crash:"):
        pytest.skip(f"TF's process crashes on this case ({rec['error']})")

    def check():
        got = sweeps.run(tf, case, inputs)
        if "error" in rec or "error" in got:
            assert got.get("error") == rec.get("error"), \
                f"TF gave {rec.get('error', 'outputs')}, scopeflow {got.get('error', 'outputs')}"
            return
        assert got["outputs"] == rec["outputs"], \
            f"static dtypes/shapes {got['outputs']}, TF {rec['outputs']}"
        for i, (ours, ref) in enumerate(zip(got["values"], rec.get("values", ()))):
            _assert_same(ours, _stored(ref), _half_tolerant(case, name), f"output {i}")
    _compare(name, key, check)


def _half_tolerant(case, name):
    """float16 rows accumulate in float32 in scopeflow and in TF's kernels only sometimes
    (its Eigen convolutions and contractions add in half): a few half ulps apart."""
    if name != "dtype-float16":
        return case
    return dataclasses.replace(case, rtol=max(case.rtol, 1e-2), atol=max(case.atol, 1e-2))


@pytest.mark.parametrize("item", _derived_items("dtype"), ids=_ids)
def test_dtype_sweep_matches_tf(item):
    """float32 rows as float64/float16, int32 rows as int64/uint8/int8: TF's values, or
    the same error class at the same stage where TF rejects the dtype."""
    _check_derived(item)


@pytest.mark.parametrize("item", _derived_items("empty"), ids=_ids)
def test_empty_inputs_match_tf(item):
    _check_derived(item)


@pytest.mark.parametrize("item", _derived_items("overflow"), ids=_ids)
def test_integer_overflow_matches_tf(item):
    """Integer inputs next to their dtype's limits wrap around as TF's kernels do."""
    _check_derived(item)


@pytest.mark.parametrize("item", _derived_items("broadcast"), ids=_ids)
def test_broadcast_inputs_match_tf(item):
    _check_derived(item)


@pytest.mark.parametrize("item", _derived_items("negaxis"), ids=_ids)
def test_negative_axes_match_tf(item):
    _check_derived(item)
