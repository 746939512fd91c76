"""tf.image.sample_distorted_bounding_box (SampleDistortedBoundingBoxV2): TF's exact crops
for given seeds, run after run, its static shapes, dtypes, names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors

# The cases, generated the same way in TF's process and here.
_CASES = """
def cases(n=150):
    rng = np.random.RandomState(7)
    out = []
    for k in range(n):
        h, w = int(rng.randint(1, 400)), int(rng.randint(1, 400))
        nb, batch = int(rng.randint(0, 4)), int(rng.randint(1, 3))
        b = rng.uniform(0, 1, size=(batch, nb, 4)).astype(np.float32)
        b = np.concatenate([np.minimum(b[..., :2], b[..., 2:]),
                            np.maximum(b[..., :2], b[..., 2:])], -1)
        ar = sorted(rng.uniform(0.1, 4, 2).tolist()) if k % 5 else None
        area = sorted(rng.uniform(0.01, 1, 2).tolist()) if k % 7 else None
        moc = float(rng.choice([0.0, 0.1, 0.3, 0.5, 0.9, 1.0]))
        ma = int(rng.randint(1, 60)) if k % 3 else None
        seed, seed2 = int(rng.randint(0, 2**31)), int(rng.randint(0, 2**31))
        dtype = [np.int32, np.int64, np.uint8, np.int16][k % 4] if h < 127 and w < 127 \\
            else [np.int32, np.int64][k % 2]
        out.append((np.array([h, w, 3], dtype), b, dict(
            seed=seed, seed2=seed2, min_object_covered=moc, aspect_ratio_range=ar,
            area_range=area, max_attempts=ma, use_image_if_no_bounding_boxes=True)))
    return out
"""


def _cases():
    scope = {"np": np}
    exec(_CASES, scope)
    return scope["cases"]()


def _run(tf_mod, cases):
    outs = [tf_mod.image.sample_distorted_bounding_box(size, boxes, **kw)
            for size, boxes, kw in cases]
    with tf_mod.Session() as sess:
        first, second = sess.run(outs), sess.run(outs)
    return [[[v.tolist() for v in r] for r in run] for run in (first, second)]


def test_crops_stay_inside_and_cover():
    """Without TF: every crop lies in the image; a non-trivial one covers one box enough."""
    with tf.Graph().as_default():
        results = _run(tf, _cases())
    nontrivial = 0
    for (size, _boxes, _kw), (begin, shape, bbox) in zip(_cases(), results[0]):
        h, w = int(size[0]), int(size[1])
        y, x, _ = begin
        ch, cw, _ = [int(np.asarray(v, size.dtype).astype(np.int64)) for v in shape]
        assert 0 <= y and y + ch <= h and 0 <= x and x + cw <= w
        np.testing.assert_allclose(bbox[0][0], np.float32([y / h, x / w, (y + ch) / h,
                                                           (x + cw) / w]), rtol=1e-6)
        if (ch, cw) != (h, w):
            nontrivial += 1
    assert nontrivial > 30


def test_second_run_continues_the_stream():
    with tf.Graph().as_default():
        b, s, _ = tf.image.sample_distorted_bounding_box(
            [200, 300, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=5, seed2=9, max_attempts=10)
        with tf.Session() as sess:
            runs = [tuple(sess.run(s)) for _ in range(6)]
        with tf.Session() as sess:
            again = [tuple(sess.run(s)) for _ in range(6)]
    assert runs == again and len(set(runs)) > 1


def test_graph_and_errors():
    with tf.Graph().as_default():
        outs = tf.image.sample_distorted_bounding_box(
            tf.constant([10, 10, 3], tf.uint8), [[[0.1, 0.1, 0.5, 0.5]]], seed=3, name="foo")
        assert [t.name for t in outs] == ["foo/foo:0", "foo/foo:1", "foo/foo:2"]
        assert [t.dtype for t in outs] == [tf.uint8, tf.uint8, tf.float32]
        assert [t.shape.as_list() for t in outs] == [[3], [3], [1, 1, 4]]
        assert outs[0].op.type == "SampleDistortedBoundingBoxV2"
        assert [i.op.name for i in outs[0].op.inputs][1] == "foo/foo/bounding_boxes"
        assert tf.gradients(outs[2], outs[0].op.inputs[1]) == [None]
        with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
            tf.image.sample_distorted_bounding_box([10, 10], [[[0.1, 0.1, 0.5, 0.5]]])
        with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
            tf.image.sample_distorted_bounding_box([10, 10, 3], [[0.1, 0.1, 0.5, 0.5]])
        with pytest.raises(TypeError, match="parameter 'image_size' has DataType float32"):
            tf.image.sample_distorted_bounding_box(tf.constant([10., 10., 3.]),
                                                   [[[0.1, 0.1, 0.5, 0.5]]])
        b = [[[0.1, 0.1, 0.5, 0.5]]]
        bad = {
            "No bounding boxes provided": ([10, 10, 3], np.zeros((1, 0, 4), np.float32), {}),
            r"must be in \[0.0, 1.0\]: 1.5": ([10, 10, 3], [[[0.1, 0.1, 1.5, 0.5]]], {}),
            r"Aspect ratio range must be non-negative: \[-1, 2\]":
                ([10, 10, 3], b, {"aspect_ratio_range": [-1, 2]}),
            "must specify 2 dimensions": ([10, 10, 3], b, {"aspect_ratio_range": [1, 2, 3]}),
            r"Area range must be non-negative: \[0, 2\]": ([10, 10, 3], b, {"area_range": [0, 2]}),
            "Max attempts must be non-negative: 0": ([10, 10, 3], b, {"max_attempts": 0}),
            "Min object covered must be non-negative: -0.5":
                ([10, 10, 3], b, {"min_object_covered": -0.5}),
        }
    for message, (size, boxes, kw) in bad.items():
        with tf.Graph().as_default():
            op = tf.image.sample_distorted_bounding_box(size, boxes, seed=1, **kw)
            with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match=message):
                sess.run(op)


def test_matches_tf(tf1):
    """150 cases (batches of boxes, no boxes, defaults, all image_size dtypes), two runs."""
    want = tf1(_CASES + """
tf.disable_v2_behavior()
outs = [tf.image.sample_distorted_bounding_box(size, boxes, **kw) for size, boxes, kw in cases()]
with tf.Session() as sess:
    first, second = sess.run(outs), sess.run(outs)
print(json.dumps([[[v.tolist() for v in r] for r in run] for run in (first, second)]))
""")
    with tf.Graph().as_default():
        got = _run(tf, _cases())
    assert got == want


def test_errors_match_tf(tf1):
    """Messages of the kernel's checks TF raises at run time, as TF words them."""
    want = tf1("""
tf.disable_v2_behavior()
S = tf.image.sample_distorted_bounding_box
b = [[[0.1, 0.1, 0.5, 0.5]]]
cases = [dict(area_range=[0.5, 2.0]), dict(aspect_ratio_range=[0.0, 2.0]),
         dict(area_range=[0.6, 0.5]), dict(aspect_ratio_range=[2.0, 1.0])]
out = []
for kw in cases:
    with tf.Graph().as_default():
        r = S([50, 40, 3], b, seed=4, **kw)
        try:
            with tf.Session() as sess:
                out.append([v.tolist() for v in sess.run(r)])
        except tf.errors.InvalidArgumentError as e:
            lines = e.message.split("\\n")
            out.append(next(lines[i - 1] for i, ln in enumerate(lines) if ln.startswith("\\t")))
print(json.dumps(out))
""")
    got = []
    for kw in [dict(area_range=[0.5, 2.0]), dict(aspect_ratio_range=[0.0, 2.0]),
               dict(area_range=[0.6, 0.5]), dict(aspect_ratio_range=[2.0, 1.0])]:
        with tf.Graph().as_default():
            r = tf.image.sample_distorted_bounding_box([50, 40, 3], [[[0.1, 0.1, 0.5, 0.5]]],
                                                       seed=4, **kw)
            try:
                with tf.Session() as sess:
                    got.append([v.tolist() for v in sess.run(r)])
            except errors.InvalidArgumentError as e:
                got.append(e.message.split("\n")[0])
    assert got == want and isinstance(got[0], str)
