"""tf.image.adjust_jpeg_quality / random_jpeg_quality: TF's graph (EncodeJpegVariableQuality
then DecodeJpeg), TF's encoded bytes, TF's pixels with the accurate IDCT, within a few
units with TF's default fast IDCT (Pillow has only the accurate one), and TF's seeded
quality draw."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

pytest.importorskip("PIL")

_CODE = """
def images():
    rng = np.random.RandomState(1)
    yy, xx = np.mgrid[0:24, 0:32]
    smooth = np.stack([yy * 10, xx * 7, (yy + xx) * 5], -1).astype(np.uint8)
    noisy = rng.randint(0, 256, (16, 20, 3)).astype(np.uint8)
    gray = (yy * 9 + xx)[..., None].astype(np.uint8)
    return smooth, noisy, gray


def build(tf, encode):
    outs = {"bytes": [], "accurate": [], "fast": []}
    for img in images():
        for q in (1, 5, 50, 95, 100):
            outs["bytes"].append(encode(tf.constant(img), tf.constant(q)))
            outs["accurate"].append(tf.image.adjust_jpeg_quality(
                tf.constant(img), q, dct_method="INTEGER_ACCURATE"))
            outs["fast"].append(tf.image.adjust_jpeg_quality(tf.constant(img), q))
    smooth = images()[0]
    outs["float"] = [tf.image.adjust_jpeg_quality(tf.constant(smooth.astype(np.float32) / 255),
                                                  40, dct_method="INTEGER_ACCURATE")]
    tf.set_random_seed(3)
    outs["random"] = [tf.image.random_jpeg_quality(tf.constant(smooth), 10, 90, seed=s)
                      for s in range(1, 6)]
    outs["names"] = [outs["fast"][0].name, outs["random"][0].name,
                     outs["fast"][0].shape.as_list(), outs["float"][0].shape.as_list(),
                     outs["fast"][-1].shape.as_list()]
    return outs


def run(tf, outs):
    names = outs.pop("names")
    with tf.Session() as sess:
        vals = sess.run(outs)
        again = sess.run(outs["random"])
    return {"bytes": [v.hex() for v in vals["bytes"]],
            "accurate": [v.tolist() for v in vals["accurate"]],
            "fast": [v.tolist() for v in vals["fast"]],
            "float": [v.tolist() for v in vals["float"]],
            "random": [v.tolist() for v in vals["random"] + again],
            "names": names}
"""


def _ours():
    scope = {"np": np}
    exec(_CODE, scope)
    with tf.Graph().as_default():
        from scopeflow.ops.image.jpeg_quality_ops import encode_jpeg_variable_quality_op
        outs = scope["build"](tf, encode_jpeg_variable_quality_op.bind)
        return scope["run"](tf, outs)


def test_round_trip_without_tf():
    with tf.Graph().as_default():
        img = np.tile(np.arange(0, 256, 8, dtype=np.uint8)[None, :, None], (16, 1, 3))
        out = tf.image.adjust_jpeg_quality(img, 90)
        assert out.dtype == tf.uint8 and out.shape.as_list() == [None, None, 3]
        enc = [o for o in tf.get_default_graph().get_operations()
               if o.type == "EncodeJpegVariableQuality"]
        assert len(enc) == 1 and enc[0].inputs[1].dtype == tf.int32
        with tf.Session() as sess:
            got = sess.run(out)
        assert np.abs(got.astype(int) - img).max() <= 4
        with pytest.raises(ValueError, match="must be between 0 and 100"):
            tf.image.random_jpeg_quality(img, -1, 50)
        with pytest.raises(ValueError, match="must be less than"):
            tf.image.random_jpeg_quality(img, 50, 50)


def test_matches_tf(tf1):
    want = tf1(_CODE + """
tf.disable_v2_behavior()
from tensorflow.python.ops import gen_image_ops
print(json.dumps(run(tf, build(tf, gen_image_ops.encode_jpeg_variable_quality))))
""")
    got = _ours()
    assert got["bytes"] == want["bytes"]                 # libjpeg-turbo's bytes, both
    assert got["accurate"] == want["accurate"]           # the same IDCT: the same pixels
    assert got["float"] == want["float"]
    assert got["names"] == want["names"]
    # TF's default IDCT is libjpeg-turbo's fast integer one, Pillow's the accurate one.
    diffs = [np.abs(np.array(g) - np.array(w)) for g, w in zip(got["fast"], want["fast"])]
    print("fast-IDCT differences", [int(d.max()) for d in diffs], [float(d.mean()) for d in diffs])
    # Quality 100 (every 5th case) is where the fast IDCT strays most: noise up to ~35.
    assert max(int(d.max()) for d in diffs) <= 40
    assert max(int(d.max()) for i, d in enumerate(diffs) if i % 5 != 4) <= 8
    # The seeded quality draws are TF's: the images equal TF's accurate-IDCT round trip
    # only up to the IDCT, so compare them with that tolerance too.
    diffs = [np.abs(np.array(g) - np.array(w)) for g, w in zip(got["random"], want["random"])]
    print("random differences", [int(d.max()) for d in diffs])
    assert max(int(d.max()) for d in diffs) <= 8
