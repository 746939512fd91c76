"""tf.image.generate_bounding_box_proposals: TF has a GPU kernel only, so on a CPU the op
builds with TF's static shapes and type checks and fails at run time as TF's does."""

from __future__ import annotations

import pytest

import scopeflow as tf
from scopeflow.framework import errors

_CODE = """
def build(tf):
    out = []
    for shapes, kw in [
            (([2, 4, 4, 3], [2, 4, 4, 12], [2, 5], [1, 3, 4]), {}),
            (([2, 4, 4, 3], [2, 4, 4, 12], [2, 5], [1, 3, 4]),
             dict(nms_threshold=0.5, pre_nms_topn=10, min_size=2, post_nms_topn=7, name="gb")),
            (([None, 4, 4, None], [None] * 4, [None, 5], [None] * 3), {}),
            ((None, None, None, None), dict(post_nms_topn=5)),
            (([2, 4, 4], [2, 4, 4, 12], [2, 5], [1, 3, 4]), {}),
            (([2, 4, 4, 3], [2, 4, 4, 12], [2, 3], [1, 3, 4]), {}),
            (([2, 4, 4, 3], [2, 4, 4, 12], [2, 5], [3, 4]), {})]:
        with tf.Graph().as_default():
            try:
                ins = [tf.placeholder(tf.float32, s) for s in shapes]
                r = tf.image.generate_bounding_box_proposals(*ins, **kw)
                op = r[0].op
                out.append([op.type, [t.name for t in r], [t.shape.as_list() for t in r],
                            [t.dtype.name for t in r], [i.name for i in op.inputs[4:]],
                            [i.dtype.name for i in op.inputs], op.get_attr("post_nms_topn")])
            except ValueError as e:
                out.append(str(e).split(" for ")[0])
    with tf.Graph().as_default():
        try:
            tf.image.generate_bounding_box_proposals(
                tf.zeros([2, 4, 4, 3], tf.float64), tf.zeros([2, 4, 4, 12]), tf.zeros([2, 5]),
                tf.zeros([1, 3, 4]))
        except TypeError as e:
            out.append(str(e).split(" (op ")[0])
    with tf.Graph().as_default():
        r = tf.image.generate_bounding_box_proposals(
            tf.zeros([1, 2, 2, 1]), tf.zeros([1, 2, 2, 4]), tf.zeros([1, 5]), tf.zeros([2, 2, 4]))
        try:
            with tf.Session() as sess:
                sess.run(r)
        except tf.errors.InvalidArgumentError as e:
            out.append(["InvalidArgumentError", "No OpKernel was registered" in e.message,
                        "device='GPU'" in e.message])
    return out
"""


def _build():
    scope = {}
    exec(_CODE, scope)
    return scope["build"](tf)


def test_shapes_and_cpu_failure():
    out = _build()
    assert out[0][2] == [[2, 300, 4], [2, 300]]
    assert out[1][1] == ["gb:0", "gb:1"] and out[1][2] == [[2, 7, 4], [2, 7]]
    assert out[1][5][-2:] == ["int32", "float32"]       # pre_nms_topn int32, min_size float
    assert out[3][2] == [[None, 5, 4], [None, 5]]
    assert out[4] == "Shape must be rank 4 but is rank 3"
    assert out[5] == "Dimension must be 5 but is 3"
    assert "has type float64 that does not match expected type of float32" in out[7]
    assert out[8] == ["InvalidArgumentError", True, True]
    with tf.Graph().as_default():
        r = tf.image.generate_bounding_box_proposals(
            tf.zeros([1, 2, 2, 1]), tf.zeros([1, 2, 2, 4]), tf.zeros([1, 5]), tf.zeros([2, 2, 4]))
        assert tf.gradients(r[1], r[0].op.inputs[0]) == [None]
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError):
            sess.run(r)


def test_matches_tf(tf1):
    want = tf1(_CODE + """
tf.disable_v2_behavior()
print(json.dumps(build(tf)))
""")
    assert _build() == want
