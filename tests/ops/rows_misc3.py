"""Op-table rows for the third batch of miscellaneous names: sample_distorted_bounding_box
(scopeflow/ops/image/distorted_box_ops.py), tf.ragged.cross and cross_hashed
(scopeflow/ragged/ragged_cross_ops.py), ... Fixed values are TF 2.21's for the same
seeds and inputs; the live comparisons are in tests/unit/ops/<family>/.
"""

from __future__ import annotations

import importlib.util
import io

import numpy as np

from .op_table import OpCase, rand

f32 = np.float32


def _pillow_jpeg(image, quality):
    """The JPEG TF's EncodeJpegVariableQuality writes: baseline 4:2:0 at 300 dpi."""
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(image).save(out, "JPEG", quality=int(quality), subsampling=2,
                                dpi=(300, 300))
    return np.array(out.getvalue(), object)


def _parts(rt):
    return [rt.values, rt.row_splits]

ROWS = [
    # TF 2.21: seed=3 on a 10x10 image gives this crop (first run of a new session).
    OpCase("SampleDistortedBoundingBoxV2",
           lambda tf: list(tf.image.sample_distorted_bounding_box(
               [10, 10, 3], [[[0.1, 0.1, 0.5, 0.5]]], seed=3)),
           lambda: [np.int32([1, 3, 0]), np.int32([3, 3, -1]), f32([[[0.1, 0.3, 0.4, 0.6]]])],
           id="SampleDistortedBoundingBoxV2"),
    # TF 2.21's crosses and hashed crosses (num_buckets=100) of a ragged, sparse and dense input.
    OpCase("RaggedCross",
           lambda tf, d: _parts(tf.ragged.cross([
               tf.ragged.constant([["a", "b"], [], ["c"]]),
               tf.SparseTensor([[0, 0], [2, 0], [2, 1]], tf.constant([1, 2, 3], tf.int64),
                               [3, 2]), d])),
           lambda d: [np.array([b"a_X_1_X_x", b"b_X_1_X_x", b"c_X_2_X_z", b"c_X_3_X_z"],
                               object), np.int64([0, 2, 2, 4])],
           [np.array([[b"x"], [b"y"], [b"z"]], object)], id="RaggedCross"),
    OpCase("RaggedCross",
           lambda tf, d: _parts(tf.ragged.cross_hashed([
               tf.ragged.constant([["a", "b"], [], ["c"]]),
               tf.SparseTensor([[0, 0], [2, 0], [2, 1]], tf.constant([1, 2, 3], tf.int64),
                               [3, 2]), d], num_buckets=100)),
           lambda d: [np.int64([67, 1, 84, 81]), np.int64([0, 2, 2, 4])],
           [np.array([[b"x"], [b"y"], [b"z"]], object)], id="RaggedCross-hashed"),
]

if importlib.util.find_spec("PIL") is not None:
    ROWS.append(OpCase(
        "EncodeJpegVariableQuality",
        lambda tf, x, q: tf.image.adjust_jpeg_quality(x, q).op.inputs[0].op.inputs[0],
        _pillow_jpeg, [(rand(8, 12, 3, low=0, high=255)).astype(np.uint8), np.int32(30)],
        id="EncodeJpegVariableQuality"))


def _webp(image):
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(image).save(out, "WEBP", lossless=True)
    return np.array(out.getvalue(), object)


if importlib.util.find_spec("PIL") is not None:
    _WEBP_PIXELS = rand(5, 6, 3, low=0, high=255).astype(np.uint8)
    ROWS.append(OpCase("DecodeWebP", lambda tf, c: tf.io.decode_webp(c),
                       lambda c: _WEBP_PIXELS[None], [_webp(_WEBP_PIXELS)], id="DecodeWebP"))


def _tensor_protos():
    from scopeflow.io import protos
    return np.array([protos.TensorProto(dtype=1, float_val=[1.5, 2.5]).SerializeToString(),
                     protos.TensorProto(dtype=3).SerializeToString()], object)


ROWS += [
    OpCase("DecodeProtoV2",
           lambda tf, b: list(tf.io.decode_proto(b, "tensorflow.TensorProto",
                                                 ["dtype", "float_val"],
                                                 [tf.int32, tf.float32])[1]) +
           [tf.io.decode_proto(b, "tensorflow.TensorProto", ["dtype"], [tf.int32])[0]],
           lambda b: [np.int32([[1], [3]]), f32([[1.5, 2.5], [0, 0]]), np.int32([[1], [1]])],
           [_tensor_protos()], id="DecodeProtoV2"),
    OpCase("EncodeProto",
           lambda tf, sizes, d, v: tf.io.encode_proto(sizes, [d, v], ["dtype", "float_val"],
                                                      "tensorflow.TensorProto"),
           lambda sizes, d, v: _tensor_protos(),
           [np.int32([[1, 2], [1, 0]]), np.int32([[1], [3]]), f32([[1.5, 2.5], [0, 0]])],
           id="EncodeProto"),
]

EXEMPT = {
    "GenerateBoundingBoxProposals": "TF registers a GPU kernel only: on a CPU it fails at run "
                                    "time, as TF's (tests/unit/ops/image/test_box_proposals.py)",
}
